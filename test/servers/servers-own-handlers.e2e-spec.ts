/**
 * Servers own their handlers (issue 36), over real HTTP on Express and Fastify: a public server
 * (no `include`, no auth) beside an admin server (`include: [AdminModule]`, an API key) serves
 * only what no `include` and no `servers` claim. Admin's tools are unknown on public in both eras;
 * a handler that names both servers is on both; one that names a server is on it whatever its
 * `include`.
 */
import { type DynamicModule, Injectable, Module } from '@nestjs/common';
import { McpModule, McpTool } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from '../fixtures/http-app';
import {
  legacyRequest,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  type RawResponse,
  toolText,
} from '../fixtures/raw-rpc';
import { RecordingLogger } from '../fixtures/recording-logger';
import { AdminTools, PublicToolsModule } from '../fixtures/servers-fixture';

type Server = 'public' | 'admin';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const ADMIN_KEY = 'admin-key-0123456789';
const AUTH: Record<Server, Record<string, string>> = { public: {}, admin: { 'x-api-key': ADMIN_KEY } };
const EMPTY_INPUT = { type: 'object', properties: {} } as const;
const ADMIN_ONLY = ['admin_reindex', 'admin_reset', 'admin_users'];
/** JSON-RPC "Invalid params": what tools/call answers for a tool the server does not have. */
const INVALID_PARAMS = -32602;

/** In AdminModule, and named for both servers: public serves it although it is in admin's include. */
@Injectable()
class SharedTools {
  @McpTool({ description: 'On both servers', input: EMPTY_INPUT, servers: ['public', 'admin'] })
  status(): string {
    return 'shared:status';
  }
}

/** In the root module, which no include names: the include-less public server takes it. */
@Injectable()
class RootTools {
  @McpTool({ description: 'In no include', input: EMPTY_INPUT })
  ping(): string {
    return 'root:pong';
  }
}

@Module({ providers: [AdminTools, SharedTools] })
class AdminModule {}

const TOOLS: Record<Server, string[]> = {
  public: ['echo', 'ping', 'status', 'time'],
  admin: [...ADMIN_ONLY, 'status'],
};

function publicAndAdminModule(): DynamicModule {
  @Module({})
  class PublicAndAdminAppModule {}
  return {
    module: PublicAndAdminAppModule,
    imports: [
      PublicToolsModule,
      AdminModule,
      McpModule.forRoot({ name: 'public', version: '1.0.0', path: 'public' }),
      McpModule.forRoot({
        name: 'admin',
        version: '1.0.0',
        path: 'admin',
        include: [AdminModule],
        auth: { apiKey: { keys: { [ADMIN_KEY]: { id: 'ops', scopes: ['admin'] } } } },
      }),
    ],
    providers: [RootTools],
  };
}

const names = (response: RawResponse): string[] =>
  (response.json.result.tools as Array<{ name: string }>).map((tool) => tool.name).sort();

describe.each(PLATFORMS)('servers own their handlers (%s)', (platform) => {
  let http: HttpApp;
  let logger: RecordingLogger;

  beforeAll(async () => {
    logger = new RecordingLogger();
    http = await startHttpApp(publicAndAdminModule(), {
      platform,
      path: 'public',
      configure: (app) => app.useLogger(logger),
    });
  });
  afterAll(() => http?.close());

  const url = (server: Server): string => `${http.baseUrl}/${server}`;

  it("logs each server's tool names at debug level, named by server", () => {
    const lines = logger.lines
      .filter((line) => line.level === 'debug' && line.message.startsWith('Tools of server'))
      .map((line) => line.message);
    const listedBy = (server: Server) => {
      const prefix = `Tools of server "${server}": `;
      const line = lines.find((message) => message.startsWith(prefix));
      return line?.slice(prefix.length).split(', ').sort();
    };
    expect(lines).toHaveLength(2);
    expect(listedBy('public')).toEqual(TOOLS.public);
    expect(listedBy('admin')).toEqual(TOOLS.admin);
  });

  describe('the modern era (2026-07-28)', () => {
    const modern = (server: Server, method: string, params: Record<string, unknown> = {}) =>
      post(url(server), modernRequest(method, params), {
        ...modernHeaders(method, method === 'tools/call' ? String(params.name) : undefined),
        ...AUTH[server],
      });

    it.each<Server>(['public', 'admin'])('%s lists exactly the tools it owns', async (server) => {
      const listed = await modern(server, 'tools/list');
      expect(listed.status).toBe(200);
      expect(names(listed)).toEqual(TOOLS[server]);
    });

    it.each(ADMIN_ONLY)('public answers %s as an unknown tool, and runs nothing', async (tool) => {
      const called = await modern('public', 'tools/call', { name: tool, arguments: {} });
      expect(called.status).toBe(400);
      expect(called.json.result).toBeUndefined();
      expect(called.json.error).toMatchObject({ code: INVALID_PARAMS, message: `Unknown tool: ${tool}` });
    });

    it('admin runs its own tool with its key; the tool named for both runs on both', async () => {
      expect(toolText(await modern('admin', 'tools/call', { name: 'admin_reset', arguments: {} }))).toBe(
        'admin:reset by ops',
      );
      for (const server of ['public', 'admin'] as const) {
        expect(toolText(await modern(server, 'tools/call', { name: 'status', arguments: {} }))).toBe('shared:status');
      }
      expect((await modern('admin', 'tools/call', { name: 'ping', arguments: {} })).json.error?.code).toBe(
        INVALID_PARAMS,
      );
    });
  });

  describe('the legacy era (2025-11-25 session)', () => {
    it.each<Server>(['public', 'admin'])('%s lists exactly the tools it owns', async (server) => {
      const { headers } = await openLegacySession(url(server), '2025-11-25', { headers: AUTH[server] });
      const listed = await post(url(server), legacyRequest('tools/list', {}, 2), headers);
      expect(listed.status).toBe(200);
      expect(names(listed)).toEqual(TOOLS[server]);
    });

    it('public answers an admin tool as an unknown tool; the shared one runs', async () => {
      const { headers } = await openLegacySession(url('public'), '2025-11-25');
      const foreign = await post(
        url('public'),
        legacyRequest('tools/call', { name: 'admin_reset', arguments: {} }, 2),
        headers,
      );
      expect(foreign.status).toBe(200);
      expect(foreign.json.result).toBeUndefined();
      expect(foreign.json.error).toMatchObject({ code: INVALID_PARAMS, message: 'Unknown tool: admin_reset' });
      const shared = await post(
        url('public'),
        legacyRequest('tools/call', { name: 'status', arguments: {} }, 3),
        headers,
      );
      expect(toolText(shared)).toBe('shared:status');
    });
  });
});

/** In a module only public's include names, yet placed on admin by its decorator. */
@Injectable()
class PlacedTools {
  @McpTool({ description: 'Named for admin, in a public module', input: EMPTY_INPUT, servers: ['admin'] })
  placed(): string {
    return 'placed:admin';
  }
}

@Module({ providers: [PlacedTools] })
class PlacedToolsModule {}

describe("a handler's servers place it whatever the include", () => {
  let http: HttpApp;

  beforeAll(async () => {
    @Module({
      imports: [
        PublicToolsModule,
        PlacedToolsModule,
        McpModule.forRoot({
          name: 'public',
          version: '1.0.0',
          path: 'public',
          include: [PublicToolsModule, PlacedToolsModule],
        }),
        McpModule.forRoot({ name: 'admin', version: '1.0.0', path: 'admin', include: [AdminModule] }),
        AdminModule,
      ],
    })
    class PlacedAppModule {}
    http = await startHttpApp(PlacedAppModule, { path: 'public' });
  });
  afterAll(() => http?.close());

  const list = (server: Server) =>
    post(`${http.baseUrl}/${server}`, modernRequest('tools/list'), modernHeaders('tools/list'));

  it('the server it names takes it, although its include leaves the module out', async () => {
    expect(names(await list('admin'))).toEqual([...ADMIN_ONLY, 'placed', 'status']);
  });

  it('the server whose include names the module does not', async () => {
    expect(names(await list('public'))).toEqual(['echo', 'status', 'time']);
  });
});
