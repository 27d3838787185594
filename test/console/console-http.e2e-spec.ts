/**
 * The MCP console over HTTP, on Express and Fastify, with real sockets (no browser: the browser
 * suites drive the page itself): the page and its headers and `<meta>` values, the files of
 * console-ui (type, ETag, 304) and nothing else, the Host check, the option's path, prefix
 * and versioning, two servers each with its console, the production refusal, an application's
 * global guard, and the startup line.
 */
import {
  type CanActivate,
  type DynamicModule,
  type ExecutionContext,
  type INestApplication,
  Injectable,
  Module,
  SetMetadata,
  VersioningType,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMcpEndpoint, McpModule, type McpModuleExtras, type McpModuleOptions, McpTool } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from '../fixtures/http-app';
import { exchange, modernHeaders, modernRequest, rawHttp, toolText } from '../fixtures/raw-rpc';
import { RecordingLogger } from '../fixtures/recording-logger';
import { sandboxHeaders } from '../../lib/console/console-sandbox';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const UI = join(__dirname, '..', '..', 'console-ui');

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' data: blob:; " +
  "connect-src 'self'; font-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The headers of every console answer, whatever it is. */
const SECURITY_HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

@Injectable()
class ConsoleTools {
  @McpTool({ description: 'Answers pong', input: { type: 'object', properties: {} } })
  pong(): string {
    return 'pong';
  }
}

type Extras = Partial<McpModuleOptions> & McpModuleExtras;

function appModule(mcp: Extras, providers: DynamicModule['providers'] = []): DynamicModule {
  @Module({})
  class ConsoleAppModule {}
  return {
    module: ConsoleAppModule,
    imports: [McpModule.forRoot({ name: 'console-e2e', version: '1.0.0', ...mcp })],
    providers: [ConsoleTools, ...providers],
  };
}

/** The headers of a fetch answer, by lower-case name. */
function headersOf(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers.entries()]);
}

/** The `content` of `<meta name="...">` in the page, entities decoded (as a browser reads it). */
function metaOf(html: string, name: string): string | undefined {
  const found = new RegExp(`<meta name="${name}" content=(?:"([^"]*)"|'([^']*)')>`).exec(html);
  const raw = found?.[1] ?? found?.[2];
  return raw
    ?.replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The stylesheet and module script the page loads. */
function assetsOf(html: string): { css?: string; js?: string } {
  return {
    css: /<link rel="stylesheet" href="([^"]*)">/.exec(html)?.[1],
    js: /<script type="module" src="([^"]*)"><\/script>/.exec(html)?.[1],
  };
}

/** A GET of a path sent as is (fetch and URL would resolve `..` before sending it). */
function getRawPath(baseUrl: string, path: string, headers: Record<string, string> = {}) {
  return rawHttp(new URL(baseUrl), { method: 'GET', headers, path });
}

/** Calls the `pong` tool at an endpoint path: what a page's client does first. */
const ping = (baseUrl: string, path: string) =>
  exchange(new URL(path, baseUrl), {
    body: modernRequest('tools/call', { name: 'pong', arguments: {} }, 7),
    headers: modernHeaders('tools/call', 'pong'),
  });

describe.each(PLATFORMS)('MCP console over HTTP (%s)', (platform) => {
  describe('console: true, beside every endpoint', () => {
    let server: HttpApp;
    const page = () => fetch(`${server.baseUrl}/mcp/console`);

    beforeAll(async () => {
      server = await startHttpApp(
        appModule({ console: true, simpleHttpPath: 'rpc', ssePath: 'sse', sseMessagesPath: 'messages' }),
        { platform },
      );
    });
    afterAll(() => server?.close());

    it('serves the page with the console headers', async () => {
      const response = await page();
      expect(response.status).toBe(200);
      expect(headersOf(response)).toMatchObject({
        ...SECURITY_HEADERS,
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
    });

    it("names the server's endpoints and its own files in the page, with no inline script or style", async () => {
      const html = await (await page()).text();
      expect(html.startsWith('<!doctype html><html lang="en"><head><meta charset="utf-8">')).toBe(true);
      expect(metaOf(html, 'mcp-endpoint')).toBe('/mcp');
      expect(JSON.parse(metaOf(html, 'mcp-endpoints') ?? 'null')).toEqual({
        streamable: '/mcp',
        simple: '/rpc',
        sse: '/sse',
        sseMessages: '/messages',
      });
      expect(assetsOf(html)).toEqual({ css: '/mcp/console/assets/console.css', js: '/mcp/console/assets/app.js' });
      expect(html).toContain('<title>MCP console</title>');
      expect(html).toContain('<main id="app"><noscript>The MCP console needs JavaScript.</noscript></main>');
      // Every script has a src, and no element has a style attribute or a <style> (CSP: 'self' only).
      expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="/mcp/console/assets/app.js">']);
      expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    });

    it('names the endpoint that answers MCP', async () => {
      const html = await (await page()).text();
      const answer = await ping(server.baseUrl, metaOf(html, 'mcp-endpoint')!);
      expect(answer.status).toBe(200);
      expect(toolText(answer)).toBe('pong');
    });

    it('takes the files under the path the page was reached by, without its query (and trailing slash)', async () => {
      // Fastify routes no trailing slash to the page (its ignoreTrailingSlash is off); Express does.
      const paths =
        platform === 'express' ? ['/mcp/console?tab=tools', '/mcp/console/?tab=tools'] : ['/mcp/console?tab=tools'];
      for (const path of paths) {
        const response = await fetch(`${server.baseUrl}${path}`);
        expect(response.status).toBe(200);
        expect(assetsOf(await response.text())).toEqual({
          css: '/mcp/console/assets/console.css',
          js: '/mcp/console/assets/app.js',
        });
      }
    });

    it('serves a file of console-ui with its type, a strong ETag and no-cache', async () => {
      const response = await fetch(`${server.baseUrl}/mcp/console/assets/dom.js`);
      expect(response.status).toBe(200);
      const headers = headersOf(response);
      expect(headers).toMatchObject({
        ...SECURITY_HEADERS,
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'no-cache',
      });
      expect(headers.etag).toMatch(/^"[A-Za-z0-9_-]{16,}"$/);
      expect(await response.text()).toBe(readFileSync(join(UI, 'dom.js'), 'utf8'));
    });

    it('serves the vendor bundle of the MCP Apps host under assets/vendor, not its declarations', async () => {
      const response = await fetch(`${server.baseUrl}/mcp/console/assets/vendor/ext-apps-bridge.js`);
      expect(response.status).toBe(200);
      expect(headersOf(response)).toMatchObject({
        ...SECURITY_HEADERS,
        'content-type': 'text/javascript; charset=utf-8',
      });
      expect(await response.text()).toBe(readFileSync(join(UI, 'vendor', 'ext-apps-bridge.js'), 'utf8'));
      for (const file of ['vendor/ext-apps-bridge.d.ts', 'ext-apps-bridge.js']) {
        expect((await fetch(`${server.baseUrl}/mcp/console/assets/${file}`)).status).toBe(404);
      }
    });

    it("serves the sandbox page of an MCP App under the view's policy, framed by the console only", async () => {
      const csp = { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] };
      for (const [query, declared] of [
        ['', {}],
        [`?csp=${encodeURIComponent(JSON.stringify(csp))}`, csp],
      ] as const) {
        const response = await fetch(`${server.baseUrl}/mcp/console/sandbox${query}`);
        expect(response.status).toBe(200);
        const headers = headersOf(response);
        expect(headers).toMatchObject({
          ...sandboxHeaders(declared),
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
        });
        expect(headers['content-security-policy']).toContain("frame-ancestors 'self'");
        expect(headers['x-frame-options']).toBe('SAMEORIGIN');
        // The console page's own headers are not the sandbox's: no COOP, no DENY.
        expect(headers['cross-origin-opener-policy']).toBeUndefined();
        const html = await response.text();
        expect(html).toContain(`<script>${readFileSync(join(UI, 'sandbox-proxy.js'), 'utf8')}</script>`);
      }
    });

    it('answers 400 to a sandbox page whose declared domains are not origins', async () => {
      for (const csp of ['{', JSON.stringify({ connectDomains: ["'unsafe-eval'"] }), JSON.stringify({ x: [] })]) {
        const response = await fetch(`${server.baseUrl}/mcp/console/sandbox?csp=${encodeURIComponent(csp)}`);
        expect(response.status).toBe(400);
        expect(headersOf(response)['content-security-policy']).toBe(sandboxHeaders()['content-security-policy']);
        expect(await response.text()).toMatch(/^Bad Request: csp\b/);
      }
    });

    it('answers 304 without a body to If-None-Match naming its ETag (weak or strong), 200 to another', async () => {
      const { etag } = headersOf(await fetch(`${server.baseUrl}/mcp/console/assets/dom.js`));
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`]) {
        const response = await fetch(`${server.baseUrl}/mcp/console/assets/dom.js`, {
          headers: { 'if-none-match': ifNoneMatch },
        });
        expect(response.status).toBe(304);
        expect(response.headers.get('etag')).toBe(etag);
        expect(await response.text()).toBe('');
      }
      const stale = await fetch(`${server.baseUrl}/mcp/console/assets/dom.js`, {
        headers: { 'if-none-match': '"stale"' },
      });
      expect(stale.status).toBe(200);
    });

    it('answers 404, with the console headers, for a file not in the list', async () => {
      for (const file of ['nothing.js', 'tsconfig.json', '..%2Fconsole-settings.ts', '..%2F..%2F..%2Fpackage.json']) {
        const response = await fetch(`${server.baseUrl}/mcp/console/assets/${file}`);
        expect(response.status).toBe(404);
        expect(headersOf(response)).toMatchObject(SECURITY_HEADERS);
        expect(await response.text()).not.toContain('compilerOptions');
      }
    });

    it('serves nothing outside the list through a path with ..', async () => {
      for (const path of ['/mcp/console/assets/../x', '/mcp/console/assets/../../package.json']) {
        const response = await getRawPath(server.baseUrl, path);
        expect(response.status).toBe(404);
        expect(response.text).not.toContain('"name": "nest-mcp"');
      }
    });

    it('refuses a Host naming another server (DNS rebinding) with 403, for the page and a file', async () => {
      for (const path of ['mcp/console', 'mcp/console/assets/dom.js']) {
        const response = await rawHttp(new URL(path, `${server.baseUrl}/`), {
          method: 'GET',
          headers: { host: 'evil.example' },
        });
        expect(response.status).toBe(403);
        expect(JSON.parse(response.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
        expect(response.headers).toMatchObject(SECURITY_HEADERS);
        expect(response.text).not.toContain('mcp-endpoint');
      }
      const admitted = await rawHttp(new URL('mcp/console', `${server.baseUrl}/`), { method: 'GET', headers: {} });
      expect(admitted.status).toBe(200);
    });

    it('refuses a foreign Origin with 403', async () => {
      const response = await fetch(`${server.baseUrl}/mcp/console/assets/dom.js`, {
        headers: { origin: 'https://evil.example' },
      });
      expect(response.status).toBe(403);
    });
  });

  describe('console off', () => {
    let server: HttpApp;

    beforeAll(async () => {
      server = await startHttpApp(appModule({}), { platform });
    });
    afterAll(() => server?.close());

    it("answers the platform's 404 for the page and the files, and serves the endpoint", async () => {
      for (const path of ['mcp/console', 'mcp/console/assets/dom.js', 'mcp/console/assets/app.js']) {
        const response = await fetch(`${server.baseUrl}/${path}`);
        expect(response.status).toBe(404);
        expect(response.headers.get('content-security-policy')).toBeNull();
        expect(await response.text()).not.toContain('MCP console');
      }
      expect((await ping(server.baseUrl, '/mcp')).status).toBe(200);
    });

    it('is off with console: false too', async () => {
      const off = await startHttpApp(appModule({ console: false }), { platform });
      try {
        expect((await fetch(`${off.baseUrl}/mcp/console`)).status).toBe(404);
        expect((await fetch(`${off.baseUrl}/mcp/console/assets/dom.js`)).status).toBe(404);
      } finally {
        await off.close();
      }
    });
  });

  describe('console: { path }', () => {
    let server: HttpApp;

    beforeAll(async () => {
      server = await startHttpApp(appModule({ path: 'assistant', console: { path: 'tools/console' } }), {
        platform,
      });
    });
    afterAll(() => server?.close());

    it('serves the page and its files at that path, naming the endpoint at its own', async () => {
      const response = await fetch(`${server.baseUrl}/tools/console`);
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(metaOf(html, 'mcp-endpoint')).toBe('/assistant');
      expect(JSON.parse(metaOf(html, 'mcp-endpoints') ?? 'null')).toEqual({ streamable: '/assistant' });
      expect(assetsOf(html)).toEqual({ css: '/tools/console/assets/console.css', js: '/tools/console/assets/app.js' });
      expect((await fetch(`${server.baseUrl}/tools/console/assets/dom.js`)).status).toBe(200);
      expect((await fetch(`${server.baseUrl}/assistant/console`)).status).toBe(404);
    });
  });

  describe('global prefix and URI versioning', () => {
    let server: HttpApp;
    const logger = new RecordingLogger();

    beforeAll(async () => {
      server = await startHttpApp(appModule({ console: true, simpleHttpPath: 'rpc' }), {
        platform,
        globalPrefix: 'api',
        configure: (app: INestApplication) => {
          app.useLogger(logger);
          app.enableVersioning({ type: VersioningType.URI, defaultVersion: ['1', '2'] });
        },
      });
    });
    afterAll(() => server?.close());

    it.each(['1', '2'])('names the endpoints of the version the page was reached by (v%s)', async (version) => {
      const response = await fetch(`${server.baseUrl}/api/v${version}/mcp/console`);
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(metaOf(html, 'mcp-endpoint')).toBe(`/api/v${version}/mcp`);
      expect(JSON.parse(metaOf(html, 'mcp-endpoints') ?? 'null')).toEqual({
        streamable: `/api/v${version}/mcp`,
        simple: `/api/v${version}/rpc`,
      });
      expect(assetsOf(html).js).toBe(`/api/v${version}/mcp/console/assets/app.js`);
      expect((await fetch(`${server.baseUrl}${assetsOf(html).js!.replace('app.js', 'dom.js')}`)).status).toBe(200);
      expect((await ping(server.baseUrl, metaOf(html, 'mcp-endpoint')!)).status).toBe(200);
    });

    it('is not served without the prefix and version', async () => {
      expect((await fetch(`${server.baseUrl}/mcp/console`)).status).toBe(404);
      expect((await fetch(`${server.baseUrl}/api/mcp/console`)).status).toBe(404);
    });

    it('logs one startup line per full path of the console', () => {
      expect(logger.matching('log', /^MCP console at /)).toEqual([
        'MCP console at /api/v1/mcp/console (server "console-e2e")',
        'MCP console at /api/v2/mcp/console (server "console-e2e")',
      ]);
      const line = logger.lines.find((entry) => entry.message.startsWith('MCP console at '));
      expect(line?.context).toBe('McpModule');
    });
  });

  describe('two servers, each with its console', () => {
    let server: HttpApp;
    const logger = new RecordingLogger();

    @Module({ providers: [ConsoleTools] })
    class PublicModule {}
    @Module({ providers: [ConsoleTools] })
    class AdminModule {}

    beforeAll(async () => {
      @Module({
        imports: [
          PublicModule,
          AdminModule,
          McpModule.forRoot({
            name: 'public',
            version: '1.0.0',
            path: 'public',
            include: [PublicModule],
            console: true,
          }),
          McpModule.forRoot({
            name: 'admin',
            version: '1.0.0',
            path: 'admin',
            simpleHttpPath: 'admin-rpc',
            include: [AdminModule],
            isGlobal: false,
            console: { path: 'admin-console' },
          }),
        ],
      })
      class TwoConsolesModule {}
      server = await startHttpApp(TwoConsolesModule, {
        platform,
        configure: (app: INestApplication) => app.useLogger(logger),
      });
    });
    afterAll(() => server?.close());

    it('points each console at its own endpoint', async () => {
      const publicPage = await (await fetch(`${server.baseUrl}/public/console`)).text();
      expect(metaOf(publicPage, 'mcp-endpoint')).toBe('/public');
      expect(JSON.parse(metaOf(publicPage, 'mcp-endpoints') ?? 'null')).toEqual({ streamable: '/public' });
      const adminPage = await (await fetch(`${server.baseUrl}/admin-console`)).text();
      expect(metaOf(adminPage, 'mcp-endpoint')).toBe('/admin');
      expect(JSON.parse(metaOf(adminPage, 'mcp-endpoints') ?? 'null')).toEqual({
        streamable: '/admin',
        simple: '/admin-rpc',
      });
      expect(assetsOf(adminPage).js).toBe('/admin-console/assets/app.js');
      expect((await fetch(`${server.baseUrl}/admin-console/assets/dom.js`)).status).toBe(200);
      expect((await fetch(`${server.baseUrl}/admin/console`)).status).toBe(404);
    });

    it('logs the console line of each server', () => {
      expect(logger.matching('log', /^MCP console at /).sort()).toEqual([
        'MCP console at /admin-console (server "admin")',
        'MCP console at /public/console (server "public")',
      ]);
    });
  });

  it("refuses to start when a server's console path is another server's endpoint path", async () => {
    @Module({
      imports: [
        McpModule.forRoot({ name: 'first', version: '1.0.0', path: 'first', console: { path: 'second' } }),
        McpModule.forRoot({ name: 'second', version: '1.0.0', path: 'second', isGlobal: false }),
      ],
    })
    class ClashingModule {}
    await expect(startHttpApp(ClashingModule, { platform })).rejects.toThrow(
      /Two MCP servers use the path "second": server "first" .* and server "second"/,
    );
  });

  describe('NODE_ENV=production', () => {
    const before = process.env.NODE_ENV;
    beforeEach(() => {
      process.env.NODE_ENV = 'production';
    });
    afterEach(() => {
      process.env.NODE_ENV = before;
    });

    it('refuses to start a console, naming console.allowInProduction', () => {
      expect(() => McpModule.forRoot({ name: 'prod', version: '1.0.0', console: true })).toThrow(
        /console\.allowInProduction/,
      );
      expect(() => McpModule.forRoot({ name: 'prod', version: '1.0.0', console: { path: 'c' } })).toThrow(
        'The MCP console of server "prod" is on (McpModule option "console") while NODE_ENV is "production"',
      );
    });

    it('starts without a console', async () => {
      const server = await startHttpApp(appModule({}), { platform });
      try {
        expect((await fetch(`${server.baseUrl}/mcp/console`)).status).toBe(404);
      } finally {
        await server.close();
      }
    });

    it('serves the console with allowInProduction: true', async () => {
      const server = await startHttpApp(appModule({ console: { allowInProduction: true } }), { platform });
      try {
        const response = await fetch(`${server.baseUrl}/mcp/console`);
        expect(response.status).toBe(200);
        expect(metaOf(await response.text(), 'mcp-endpoint')).toBe('/mcp');
      } finally {
        await server.close();
      }
    });
  });

  describe("an application's global guard", () => {
    const IS_PUBLIC = 'app:is-public';
    const Public = () => SetMetadata(IS_PUBLIC, true);

    /** Refuses every route not marked public, as in the Nest documentation's recipe. */
    @Injectable()
    class PublicOnlyGuard implements CanActivate {
      constructor(private readonly reflector: Reflector) {}
      canActivate(context: ExecutionContext): boolean {
        return (
          this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]) === true
        );
      }
    }

    /** Lets the module's routes through by `isMcpEndpoint()`, refuses the rest. */
    @Injectable()
    class EndpointAwareGuard implements CanActivate {
      canActivate(context: ExecutionContext): boolean {
        return isMcpEndpoint(context);
      }
    }

    const consoleAnswers = async (server: HttpApp): Promise<number[]> => [
      (await fetch(`${server.baseUrl}/mcp/console`)).status,
      (await fetch(`${server.baseUrl}/mcp/console/assets/dom.js`)).status,
    ];

    it('locks the console out of the box, like the endpoints', async () => {
      const server = await startHttpApp(
        appModule({ console: true }, [{ provide: APP_GUARD, useClass: PublicOnlyGuard }]),
        {
          platform,
        },
      );
      try {
        expect(await consoleAnswers(server)).toEqual([403, 403]);
      } finally {
        await server.close();
      }
    });

    it('lets it through with endpointDecorators: [Public()]', async () => {
      const server = await startHttpApp(
        appModule({ console: true, endpointDecorators: [Public()] }, [
          { provide: APP_GUARD, useClass: PublicOnlyGuard },
        ]),
        { platform },
      );
      try {
        expect(await consoleAnswers(server)).toEqual([200, 200]);
      } finally {
        await server.close();
      }
    });

    it('lets it through a guard that asks isMcpEndpoint(context)', async () => {
      const server = await startHttpApp(
        appModule({ console: true }, [{ provide: APP_GUARD, useClass: EndpointAwareGuard }]),
        { platform },
      );
      try {
        expect(await consoleAnswers(server)).toEqual([200, 200]);
      } finally {
        await server.close();
      }
    });
  });
});
