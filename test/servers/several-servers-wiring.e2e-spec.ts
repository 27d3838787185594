/**
 * How an application wires several MCP servers, over real HTTP on Express and Fastify (issue 17):
 * the global prefix and URI versioning apply to every server, the servers' services are injected
 * by name beside the default one by class, `forRootAsync` twice with `ConfigService`, and
 * handlers placed by their decorator's `servers` instead of by `include`.
 */
import { type DynamicModule, Inject, Injectable, Module, VersioningType } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { getMcpToken, InjectMcp, McpModule, McpNotifier, McpRegistry, McpTool } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from '../fixtures/http-app';
import {
  META,
  modernHeaders,
  modernRequest,
  post,
  type RawResponse,
  send,
  SseReader,
  toolText,
} from '../fixtures/raw-rpc';
import { ADMIN_TOKEN, AdminToolsModule, PublicToolsModule, twoServersModule } from '../fixtures/servers-fixture';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const PUBLIC_TOOLS = ['echo', 'time'];
const ADMIN_TOOLS = ['admin_reindex', 'admin_reset', 'admin_users'];
const ADMIN_AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };
const EMPTY_INPUT = { type: 'object', properties: {} } as const;

const toolNames = (response: RawResponse): string[] =>
  (response.json.result.tools as Array<{ name: string }>).map((tool) => tool.name).sort();

/** A modern (2026-07-28) stateless request to `url`. */
function modern(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const name = method === 'tools/call' ? String(params.name) : undefined;
  return post(url, modernRequest(method, params), { ...modernHeaders(method, name), ...headers });
}

const call = (url: string, name: string, headers: Record<string, string> = {}) =>
  modern(url, 'tools/call', { name, arguments: {} }, headers);

/** What the configuration holds, as `ConfigModule.forRoot({ load })` gives it. */
const CONFIG = {
  mcp: {
    public: { name: 'public-from-config', version: '3.1.0' },
    admin: {
      name: 'admin-from-config',
      version: '3.2.0',
      token: 'admin-token-from-config-0123456789',
      owner: 'cfg-ops',
    },
  },
};

/** Both servers from `forRootAsync` with `ConfigService`, the admin's bearer token from the configuration. */
function configuredServersModule(): DynamicModule {
  @Module({})
  class ConfiguredServersModule {}
  return {
    module: ConfiguredServersModule,
    imports: [
      ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => CONFIG] }),
      PublicToolsModule,
      AdminToolsModule,
      McpModule.forRootAsync({
        name: 'public',
        path: 'public',
        include: [PublicToolsModule],
        imports: [ConfigModule],
        inject: [ConfigService],
        useFactory: (config: ConfigService) => ({
          name: config.getOrThrow<string>('mcp.public.name'),
          version: config.getOrThrow<string>('mcp.public.version'),
        }),
      }),
      McpModule.forRootAsync({
        name: 'admin',
        path: 'admin',
        include: [AdminToolsModule],
        imports: [ConfigModule],
        inject: [ConfigService],
        useFactory: async (config: ConfigService) => ({
          name: config.getOrThrow<string>('mcp.admin.name'),
          version: config.getOrThrow<string>('mcp.admin.version'),
          auth: {
            bearer: {
              tokens: {
                [config.getOrThrow<string>('mcp.admin.token')]: {
                  id: config.getOrThrow<string>('mcp.admin.owner'),
                  scopes: ['admin'],
                },
              },
            },
          },
        }),
      }),
    ],
  };
}

/** Tools that say in their decorator which servers serve them (no server has an `include`). */
@Injectable()
class PlacedTools {
  @McpTool({ description: 'Admin only', input: EMPTY_INPUT, servers: ['admin'] })
  only_admin(): string {
    return 'placed:admin';
  }

  @McpTool({ description: 'Public only', input: EMPTY_INPUT, servers: ['public'] })
  only_public(): string {
    return 'placed:public';
  }

  @McpTool({ description: 'Named for both', input: EMPTY_INPUT, servers: ['public', 'admin'] })
  named_both(): string {
    return 'placed:both';
  }

  @McpTool({ description: 'No servers: every server without include', input: EMPTY_INPUT })
  everywhere(): string {
    return 'placed:everywhere';
  }
}

function placedServersModule(): DynamicModule {
  @Module({})
  class PlacedServersModule {}
  return {
    module: PlacedServersModule,
    imports: [
      McpModule.forRoot({ name: 'public', version: '1.0.0', path: 'public' }),
      McpModule.forRoot({
        name: 'admin',
        version: '1.0.0',
        path: 'admin',
        auth: { bearer: { tokens: { [ADMIN_TOKEN]: { id: 'ops', scopes: ['admin'] } } } },
      }),
    ],
    providers: [PlacedTools],
  };
}

/** A root provider that takes admin's services by name and the default server's by class. */
@Injectable()
class ServersUser {
  constructor(
    @InjectMcp(McpRegistry, 'admin') readonly adminRegistry: McpRegistry,
    @InjectMcp(McpNotifier, 'admin') readonly adminNotifier: McpNotifier,
    readonly defaultRegistry: McpRegistry,
    @Inject(getMcpToken(McpRegistry, 'public')) readonly publicRegistry: McpRegistry,
  ) {}
}

describe.each(PLATFORMS)('several servers: wiring (%s)', (platform) => {
  // As test/module-routing.e2e-spec.ts does it: the application's default version reaches the
  // endpoints (Nest's Version() decorates methods only, so it cannot go in endpointDecorators).
  describe("a global prefix ('api') and URI versioning (defaultVersion '1')", () => {
    let http: HttpApp;
    beforeAll(async () => {
      http = await startHttpApp(twoServersModule(), {
        platform,
        globalPrefix: 'api',
        path: 'public',
        configure: (app) => void app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' }),
      });
    });
    afterAll(() => http?.close());

    it('serves /api/v1/public with its own tools', async () => {
      const url = `${http.baseUrl}/api/v1/public`;
      expect(toolNames(await modern(url, 'tools/list'))).toEqual(PUBLIC_TOOLS);
      expect(toolText(await call(url, 'echo'))).toBe('public:');
      expect((await call(url, 'admin_reset')).json.error?.code).toBe(-32602);
    });

    it('serves /api/v1/admin with its own tools, behind its bearer', async () => {
      const url = `${http.baseUrl}/api/v1/admin`;
      expect(toolNames(await modern(url, 'tools/list', {}, ADMIN_AUTH))).toEqual(ADMIN_TOOLS);
      expect(toolText(await call(url, 'admin_reset', ADMIN_AUTH))).toBe('admin:reset by ops');
      expect((await call(url, 'echo', ADMIN_AUTH)).json.error?.code).toBe(-32602);
      expect((await modern(url, 'tools/list')).status).toBe(401);
    });

    it.each(['/public', '/admin', '/api/public', '/api/admin', '/v1/public', '/v1/admin', '/api/v2/public'])(
      'serves nothing at %s',
      async (path) => {
        const reply = await modern(`${http.baseUrl}${path}`, 'tools/list', {}, ADMIN_AUTH);
        expect(reply.status).toBe(404);
      },
    );
  });

  describe('forRootAsync twice with ConfigService', () => {
    let http: HttpApp;
    beforeAll(async () => {
      http = await startHttpApp(configuredServersModule(), { platform, path: 'public' });
    });
    afterAll(() => http?.close());

    it('public serves its own tools under the name and version from the configuration', async () => {
      const listed = await modern(`${http.baseUrl}/public`, 'tools/list');
      expect(toolNames(listed)).toEqual(PUBLIC_TOOLS);
      expect(listed.json.result._meta[META.serverInfo]).toMatchObject(CONFIG.mcp.public);
      expect(toolText(await call(`${http.baseUrl}/public`, 'time'))).toBe('public:time');
    });

    it("admin serves its own tools behind the configuration's token", async () => {
      const url = `${http.baseUrl}/admin`;
      const auth = { authorization: `Bearer ${CONFIG.mcp.admin.token}` };
      const listed = await modern(url, 'tools/list', {}, auth);
      expect(toolNames(listed)).toEqual(ADMIN_TOOLS);
      expect(listed.json.result._meta[META.serverInfo]).toMatchObject({
        name: CONFIG.mcp.admin.name,
        version: CONFIG.mcp.admin.version,
      });
      expect(toolText(await call(url, 'admin_reset', auth))).toBe(`admin:reset by ${CONFIG.mcp.admin.owner}`);
      // The fixture's token is not in this configuration.
      expect((await modern(url, 'tools/list', {}, ADMIN_AUTH)).status).toBe(401);
    });

    it('the servers are reached by the names given beside the factories', () => {
      const names = (server: string) =>
        http.app
          .get<McpRegistry>(getMcpToken(McpRegistry, server))
          .listTools()
          .map((tool) => tool.name)
          .sort();
      expect(names('public')).toEqual(PUBLIC_TOOLS);
      expect(names('admin')).toEqual(ADMIN_TOOLS);
    });
  });

  describe("handlers placed by their decorator's servers (no include)", () => {
    let http: HttpApp;
    beforeAll(async () => {
      http = await startHttpApp(placedServersModule(), { platform, path: 'public' });
    });
    afterAll(() => http?.close());

    it.each<[string, Record<string, string>, string[]]>([
      ['public', {}, ['everywhere', 'named_both', 'only_public']],
      ['admin', ADMIN_AUTH, ['everywhere', 'named_both', 'only_admin']],
    ])('%s lists exactly the tools placed on it', async (server, headers, expected) => {
      expect(toolNames(await modern(`${http.baseUrl}/${server}`, 'tools/list', {}, headers))).toEqual(expected);
    });

    it('each runs its own and refuses the other one', async () => {
      const publicUrl = `${http.baseUrl}/public`;
      const adminUrl = `${http.baseUrl}/admin`;
      expect(toolText(await call(publicUrl, 'only_public'))).toBe('placed:public');
      expect(toolText(await call(publicUrl, 'everywhere'))).toBe('placed:everywhere');
      expect(toolText(await call(adminUrl, 'only_admin', ADMIN_AUTH))).toBe('placed:admin');
      expect(toolText(await call(adminUrl, 'everywhere', ADMIN_AUTH))).toBe('placed:everywhere');
      expect(toolText(await call(adminUrl, 'named_both', ADMIN_AUTH))).toBe('placed:both');
      expect((await call(publicUrl, 'only_admin')).json.error?.code).toBe(-32602);
      expect((await call(adminUrl, 'only_public', ADMIN_AUTH)).json.error?.code).toBe(-32602);
    });
  });

  describe('injection: admin by name, the default (first) server by class', () => {
    let http: HttpApp;
    let user: ServersUser;
    beforeAll(async () => {
      http = await startHttpApp(twoServersModule({ providers: [ServersUser] }), { platform, path: 'public' });
      user = http.app.get(ServersUser);
    });
    afterAll(() => http?.close());

    const names = (registry: McpRegistry) =>
      registry
        .listTools()
        .map((tool) => tool.name)
        .sort();

    it("@InjectMcp(McpRegistry, 'admin') is admin's registry; McpRegistry by class is public's", () => {
      expect(names(user.adminRegistry)).toEqual(ADMIN_TOOLS);
      expect(names(user.defaultRegistry)).toEqual(PUBLIC_TOOLS);
      expect(names(user.publicRegistry)).toEqual(PUBLIC_TOOLS);
    });

    it('what the injected admin registry adds, admin serves and public does not', async () => {
      const name = `injected_${platform}`;
      user.adminRegistry.addTool({ name, description: 'Added through injection', handler: () => 'injected' });
      try {
        const listed = await modern(`${http.baseUrl}/admin`, 'tools/list', {}, ADMIN_AUTH);
        expect(toolNames(listed)).toEqual([...ADMIN_TOOLS, name].sort());
        expect(toolNames(await modern(`${http.baseUrl}/public`, 'tools/list'))).toEqual(PUBLIC_TOOLS);
      } finally {
        user.adminRegistry.removeTool(name);
      }
    });

    it("@InjectMcp(McpNotifier, 'admin') notifies admin's listeners, not public's", async () => {
      const cleanup = new AbortController();
      const listen = async (server: string, headers: Record<string, string>) => {
        const response = await send(`${http.baseUrl}/${server}`, {
          body: modernRequest('subscriptions/listen', {
            notifications: { toolsListChanged: true, promptsListChanged: true },
          }),
          headers: { ...modernHeaders('subscriptions/listen'), ...headers },
          signal: cleanup.signal,
        });
        const reader = new SseReader(response);
        await expect(reader.next()).resolves.toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
        return reader;
      };
      try {
        const admin = await listen('admin', ADMIN_AUTH);
        const pub = await listen('public', {});
        await user.adminNotifier.toolsChanged();
        await expect(admin.next()).resolves.toMatchObject({ method: 'notifications/tools/list_changed' });
        // Had the injected notifier been public's (or both), tools/list_changed would come first here.
        await http.app.get<McpNotifier>(getMcpToken(McpNotifier, 'public')).promptsChanged();
        await expect(pub.next()).resolves.toMatchObject({ method: 'notifications/prompts/list_changed' });
      } finally {
        cleanup.abort();
      }
    });
  });
});
