/**
 * The protected-resource metadata routes (RFC 9728) and the auth guards used on their own, on
 * Express and Fastify: the well-known documents at the origin's root (whatever the global prefix),
 * served without credentials; `McpBearerGuard` / `McpAuthGuard` on an ordinary controller, with
 * the same challenge as the MCP endpoint; a kind-specific guard that does not match the configured
 * auth stopping the application at startup; and `McpApiKeyGuard` on a tool.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  Controller,
  type DynamicModule,
  Get,
  type INestApplication,
  Injectable,
  Module,
  Req,
  type Type,
  UseGuards,
} from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import {
  McpApiKeyGuard,
  McpAuthGuard,
  type McpAuthOptions,
  McpBasicGuard,
  McpBearerGuard,
  McpConfigurationError,
  McpCtx,
  type McpCallContext,
  McpModule,
  type McpPrincipal,
  McpTool,
} from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { exchange, legacyRequest, post, type RawResponse } from './fixtures/raw-rpc';

const SERVER = { name: 'auth-metadata', version: '1.0.0' };
const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const TOKEN = 'tok-ci-1';
const API_KEY = 'key-ci-1';
const CI = { id: 'ci', scopes: ['notes:read'] };

const PROTECTED_RESOURCE = {
  resource: 'https://api.example.com/v1/mcp',
  authorizationServers: ['https://auth.example.com', 'https://login.example.org/tenant'],
  scopesSupported: ['notes:read', 'notes:write'],
  resourceName: 'Notes MCP',
  resourceDocumentation: 'https://docs.example.com/mcp',
};
/** The document, in the order its fields are written. */
const DOCUMENT = {
  resource: 'https://api.example.com/v1/mcp',
  authorization_servers: ['https://auth.example.com', 'https://login.example.org/tenant'],
  bearer_methods_supported: ['header'],
  scopes_supported: ['notes:read', 'notes:write'],
  resource_name: 'Notes MCP',
  resource_documentation: 'https://docs.example.com/mcp',
};
const METADATA_URL = `https://api.example.com${WELL_KNOWN}/v1/mcp`;
/** What the MCP endpoint and McpBearerGuard answer a request without a token. */
const MISSING_TOKEN_CHALLENGE = `Bearer realm="mcp", scope="notes:read notes:write", resource_metadata="${METADATA_URL}"`;

type RequestWithPrincipal = { mcpPrincipal?: McpPrincipal };

/** An ordinary controller behind the module's bearer auth. */
@Controller('admin')
@UseGuards(McpBearerGuard)
class AdminController {
  @Get()
  whoami(@Req() request: RequestWithPrincipal) {
    return { id: request.mcpPrincipal?.id, scopes: request.mcpPrincipal?.scopes };
  }
}

/** An ordinary controller behind whatever auth the module configures. */
@Controller('reports')
@UseGuards(McpAuthGuard)
class ReportsController {
  @Get()
  list(@Req() request: RequestWithPrincipal) {
    return { owner: request.mcpPrincipal?.id };
  }
}

/** Asks for basic credentials, which a bearer-configured module does not have. */
@Controller('legacy')
@UseGuards(McpBasicGuard)
class LegacyBasicController {
  @Get()
  hello() {
    return 'hello';
  }
}

/** A tool with a guard of its own. */
@Injectable()
class GuardedTools {
  @McpTool({ description: 'Answers the id of the caller', input: { type: 'object', properties: {} } })
  @UseGuards(McpApiKeyGuard)
  whoami(@McpCtx() ctx: McpCallContext): string {
    return `caller: ${ctx.principal.id}`;
  }
}

@Module({})
class AuthMetadataAppModule {}

/** The application: the MCP module with `auth`, and the given controllers and providers. */
function appModule(
  auth: McpAuthOptions | undefined,
  extra: { controllers?: Type[]; providers?: Type[] } = {},
): DynamicModule {
  return {
    module: AuthMetadataAppModule,
    imports: [McpModule.forRoot({ ...SERVER, auth })],
    controllers: extra.controllers ?? [],
    providers: extra.providers ?? [],
  };
}

const BEARER: McpAuthOptions = { bearer: { tokens: { [TOKEN]: CI } }, protectedResource: PROTECTED_RESOURCE };

/** GET `path` on the application's origin. */
function get(app: HttpApp, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return exchange(new URL(path, app.baseUrl), { method: 'GET', headers });
}

/** Asserts the metadata answer: 200, the exact document and the public-caching headers. */
function expectDocument(response: RawResponse, document: Record<string, unknown> = DOCUMENT): void {
  expect({
    status: response.status,
    contentType: response.headers.get('content-type'),
    cacheControl: response.headers.get('cache-control'),
    allowOrigin: response.headers.get('access-control-allow-origin'),
  }).toEqual({
    status: 200,
    contentType: expect.stringMatching(/^application\/json\b/),
    cacheControl: 'public, max-age=300',
    allowOrigin: '*',
  });
  expect(response.text).toBe(JSON.stringify(document));
  expect(response.json).toEqual(document);
}

/** A POST to the MCP endpoint without credentials (an initialize). */
function initializeWithoutCredentials(url: URL, headers: Record<string, string> = {}): Promise<RawResponse> {
  return post(
    url,
    legacyRequest('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'raw-e2e', version: '0.0.1' },
    }),
    headers,
  );
}

/** Compiles `module` and initializes it as an application of `platform`, then closes it. */
async function bootAndClose(module: DynamicModule, platform: HttpPlatform): Promise<void> {
  const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
  let app: INestApplication | undefined;
  try {
    app =
      platform === 'fastify'
        ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
        : moduleRef.createNestApplication({ logger: false });
    await app.init();
  } finally {
    await (app ?? moduleRef).close();
  }
}

describe.each(['express', 'fastify'] as const)('protected-resource metadata and standalone guards (%s)', (platform) => {
  describe('with protectedResource and bearer auth', () => {
    let app: HttpApp;

    beforeAll(async () => {
      app = await startHttpApp(appModule(BEARER), { platform });
    });

    afterAll(async () => {
      await app?.close();
    });

    it(`serves the root form ${WELL_KNOWN}`, async () => {
      expectDocument(await get(app, WELL_KNOWN));
    });

    it(`serves the path-suffixed form ${WELL_KNOWN}/v1/mcp`, async () => {
      expectDocument(await get(app, `${WELL_KNOWN}/v1/mcp`));
    });

    it('needs no credentials, and ignores a wrong token', async () => {
      expectDocument(await get(app, WELL_KNOWN, { authorization: 'Bearer wrong-token' }));
      expectDocument(await get(app, `${WELL_KNOWN}/v1/mcp`, { authorization: `Bearer ${TOKEN}` }));
    });

    it('serves no other suffix', async () => {
      expect((await get(app, `${WELL_KNOWN}/v2/mcp`)).status).toBe(404);
      expect((await get(app, `${WELL_KNOWN}/v1`)).status).toBe(404);
    });

    it('is named in the challenge of the MCP endpoint (resource_metadata)', async () => {
      const response = await initializeWithoutCredentials(app.url);
      expect({ status: response.status, challenge: response.headers.get('www-authenticate') }).toEqual({
        status: 401,
        challenge: MISSING_TOKEN_CHALLENGE,
      });
    });
  });

  describe('with a global prefix', () => {
    let app: HttpApp;

    beforeAll(async () => {
      app = await startHttpApp(appModule(BEARER), { platform, globalPrefix: 'api' });
    });

    afterAll(async () => {
      await app?.close();
    });

    it('keeps both well-known routes at the origin root', async () => {
      expectDocument(await get(app, WELL_KNOWN));
      expectDocument(await get(app, `${WELL_KNOWN}/v1/mcp`));
    });

    it('does not serve them under the prefix', async () => {
      expect((await get(app, `/api${WELL_KNOWN}`)).status).toBe(404);
      expect((await get(app, `/api${WELL_KNOWN}/v1/mcp`)).status).toBe(404);
    });

    it('while the MCP endpoint is under the prefix, behind bearer auth', async () => {
      expect(app.url.pathname).toBe('/api/mcp');
      const response = await initializeWithoutCredentials(app.url);
      expect({ status: response.status, challenge: response.headers.get('www-authenticate') }).toEqual({
        status: 401,
        challenge: MISSING_TOKEN_CHALLENGE,
      });
    });
  });

  describe('with a custom metadataUrl', () => {
    const metadataUrl = 'https://api.example.com/meta/protected-resource.json';
    let app: HttpApp;

    beforeAll(async () => {
      app = await startHttpApp(
        appModule({
          bearer: { tokens: { [TOKEN]: CI } },
          protectedResource: {
            resource: 'https://api.example.com/mcp',
            authorizationServers: ['https://auth.example.com'],
            metadataUrl,
          },
        }),
        { platform },
      );
    });

    afterAll(async () => {
      await app?.close();
    });

    const document = {
      resource: 'https://api.example.com/mcp',
      authorization_servers: ['https://auth.example.com'],
      bearer_methods_supported: ['header'],
    };

    it('serves the document at the metadataUrl path', async () => {
      expectDocument(await get(app, '/meta/protected-resource.json'), document);
    });

    it('and at both well-known forms', async () => {
      expectDocument(await get(app, WELL_KNOWN), document);
      expectDocument(await get(app, `${WELL_KNOWN}/mcp`), document);
    });

    it('names the metadataUrl in the challenges', async () => {
      const response = await initializeWithoutCredentials(app.url);
      expect(response.headers.get('www-authenticate')).toBe(`Bearer realm="mcp", resource_metadata="${metadataUrl}"`);
    });
  });

  describe('without protectedResource', () => {
    it.each<[string, McpAuthOptions | undefined]>([
      ['bearer auth', { bearer: { tokens: { [TOKEN]: CI } } }],
      ['no auth', undefined],
    ])('with %s, the well-known routes are 404', async (_title, auth) => {
      const app = await startHttpApp(appModule(auth), { platform });
      try {
        expect((await get(app, WELL_KNOWN)).status).toBe(404);
        expect((await get(app, `${WELL_KNOWN}/mcp`)).status).toBe(404);
      } finally {
        await app.close();
      }
    });

    it('the bearer challenge names no resource_metadata', async () => {
      const app = await startHttpApp(appModule({ bearer: { tokens: { [TOKEN]: CI } } }), { platform });
      try {
        const response = await initializeWithoutCredentials(app.url);
        expect({ status: response.status, challenge: response.headers.get('www-authenticate') }).toEqual({
          status: 401,
          challenge: 'Bearer realm="mcp"',
        });
      } finally {
        await app.close();
      }
    });
  });

  describe('McpBearerGuard on an ordinary controller', () => {
    let app: HttpApp;

    beforeAll(async () => {
      app = await startHttpApp(appModule(BEARER, { controllers: [AdminController] }), { platform });
    });

    afterAll(async () => {
      await app?.close();
    });

    it('answers 401 without a token, with the challenge of the MCP endpoint', async () => {
      const admin = await get(app, '/admin');
      const mcp = await initializeWithoutCredentials(app.url);
      expect({ status: admin.status, challenge: admin.headers.get('www-authenticate'), body: admin.json }).toEqual({
        status: 401,
        challenge: MISSING_TOKEN_CHALLENGE,
        body: { error: 'invalid_request', error_description: 'Authentication required' },
      });
      expect(admin.headers.get('www-authenticate')).toBe(mcp.headers.get('www-authenticate'));
    });

    it('answers 401 invalid_token for a wrong token, with the challenge of the MCP endpoint', async () => {
      const admin = await get(app, '/admin', { authorization: 'Bearer wrong-token' });
      const mcp = await initializeWithoutCredentials(app.url, { authorization: 'Bearer wrong-token' });
      expect({ status: admin.status, challenge: admin.headers.get('www-authenticate'), body: admin.json }).toEqual({
        status: 401,
        challenge:
          'Bearer realm="mcp", error="invalid_token", error_description="The token is not valid", ' +
          `scope="notes:read notes:write", resource_metadata="${METADATA_URL}"`,
        body: { error: 'invalid_token', error_description: 'The token is not valid' },
      });
      expect(admin.headers.get('www-authenticate')).toBe(mcp.headers.get('www-authenticate'));
    });

    it('admits a valid token; the handler reads req.mcpPrincipal', async () => {
      const admin = await get(app, '/admin', { authorization: `Bearer ${TOKEN}` });
      expect({ status: admin.status, body: admin.json }).toEqual({
        status: 200,
        body: { id: 'ci', scopes: ['notes:read'] },
      });
    });
  });

  describe('McpAuthGuard on an ordinary controller, with apiKey auth', () => {
    let app: HttpApp;

    beforeAll(async () => {
      app = await startHttpApp(
        appModule({ apiKey: { keys: { [API_KEY]: CI } } }, { controllers: [ReportsController] }),
        {
          platform,
        },
      );
    });

    afterAll(async () => {
      await app?.close();
    });

    it('answers 401 with the ApiKey challenge without a key', async () => {
      const reports = await get(app, '/reports');
      expect({
        status: reports.status,
        challenge: reports.headers.get('www-authenticate'),
        body: reports.json,
      }).toEqual({
        status: 401,
        challenge: 'ApiKey header="x-api-key"',
        body: { error: 'invalid_request', error_description: 'The x-api-key header is required' },
      });
    });

    it('answers 401 invalid_token for a wrong key', async () => {
      const reports = await get(app, '/reports', { 'x-api-key': 'not-a-key' });
      expect({ status: reports.status, body: reports.json }).toEqual({
        status: 401,
        body: { error: 'invalid_token', error_description: 'The API key is not valid' },
      });
    });

    it.each([
      ['the x-api-key header', { 'x-api-key': API_KEY }],
      ['Authorization: ApiKey', { authorization: `ApiKey ${API_KEY}` }],
    ])('admits a valid key in %s', async (_title, headers) => {
      const reports = await get(app, '/reports', headers);
      expect({ status: reports.status, body: reports.json }).toEqual({ status: 200, body: { owner: 'ci' } });
    });
  });

  describe('a guard for another kind of credentials', () => {
    it('McpBasicGuard in an application whose auth is bearer stops it at startup', async () => {
      const failure = await bootAndClose(
        appModule({ bearer: { tokens: { [TOKEN]: CI } } }, { controllers: [LegacyBasicController] }),
        platform,
      ).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(McpConfigurationError);
      expect((failure as Error).message).toEqual(expect.stringContaining('McpBasicGuard'));
      expect((failure as Error).message).toEqual(expect.stringContaining('"basic"'));
      expect((failure as Error).message).toEqual(expect.stringContaining('configures "bearer"'));
    });

    it('McpBearerGuard in an application without auth stops it at startup', async () => {
      const failure = await bootAndClose(appModule(undefined, { controllers: [AdminController] }), platform).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(McpConfigurationError);
      expect((failure as Error).message).toEqual(expect.stringMatching(/McpBearerGuard.*"bearer".*is not configured/));
    });
  });

  describe('McpApiKeyGuard on a tool, with apiKey auth', () => {
    let app: HttpApp;

    beforeAll(async () => {
      app = await startHttpApp(appModule({ apiKey: { keys: { [API_KEY]: CI } } }, { providers: [GuardedTools] }), {
        platform,
      });
    });

    afterAll(async () => {
      await app?.close();
    });

    it('a v2 client (modern era) with the key calls it', async () => {
      const client = new Client({ name: 'guard-e2e', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(app.url, {
        requestInit: { headers: { 'x-api-key': API_KEY } },
      });
      await client.connect(transport);
      try {
        const result = await client.callTool({ name: 'whoami', arguments: {} });
        expect(result).toEqual(expect.objectContaining({ content: [{ type: 'text', text: 'caller: ci' }] }));
        expect(result.isError).not.toBe(true);
      } finally {
        await client.close();
      }
    });

    it('a v1 client (legacy era, in a session) with the key calls it', async () => {
      const client = new V1Client({ name: 'guard-e2e', version: '1.0.0' });
      const transport = new V1Transport(app.url, { requestInit: { headers: { 'x-api-key': API_KEY } } });
      await client.connect(transport);
      try {
        const result = await client.callTool({ name: 'whoami', arguments: {} });
        expect(result).toEqual(expect.objectContaining({ content: [{ type: 'text', text: 'caller: ci' }] }));
        expect(result.isError).not.toBe(true);
      } finally {
        await client.close();
      }
    });
  });
});
