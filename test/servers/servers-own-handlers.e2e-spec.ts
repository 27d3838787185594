/**
 * Servers own their handlers (issue 36), through the testing kit on Express and Fastify: a public server
 * (no `include`, no auth) beside an admin server (`include: [AdminModule]`, an API key) serves
 * only what no `include` and no `servers` claim. Admin's tools are unknown on public in both eras;
 * a handler that names both servers is on both; one that names a server is on it whatever its
 * `include`.
 */
import { type DynamicModule, type INestApplication, Injectable, Module } from '@nestjs/common';
import { McpModule, McpTool } from 'nest-mcp';
import { createMcpTestClient, type McpTestClient } from 'nest-mcp/testing';
import type { HttpPlatform } from '../fixtures/http-app';
import { RecordingLogger } from '../fixtures/recording-logger';
import { AdminTools, PublicToolsModule } from '../fixtures/servers-fixture';
import { mcpApp } from '../support/mcp-app';

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

const names = (tools: ReadonlyArray<{ name: string }>): string[] => tools.map((tool) => tool.name).sort();

describe.each(PLATFORMS)('servers own their handlers (%s)', (platform) => {
  let app: INestApplication;
  let logger: RecordingLogger;
  /** A client of `server` speaking `revision`, with the server's credentials. */
  const client = (server: Server, revision?: string): Promise<McpTestClient> =>
    createMcpTestClient(app, { server, revision, headers: AUTH[server] });

  beforeAll(async () => {
    logger = new RecordingLogger();
    app = await mcpApp(publicAndAdminModule(), { platform, configure: (made) => made.useLogger(logger) });
  });
  afterAll(() => app?.close());

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

  describe.each([
    ['2026-07-28', 400],
    ['2025-11-25', 200],
  ])('speaking %s', (revision, unknownStatus) => {
    it.each<Server>(['public', 'admin'])('%s lists exactly the tools it owns', async (server) => {
      expect(names(await (await client(server, revision)).listTools())).toEqual(TOOLS[server]);
    });

    it.each(ADMIN_ONLY)('public answers %s as an unknown tool, and runs nothing', async (tool) => {
      await expect((await client('public', revision)).callTool(tool)).rejects.toMatchObject({
        name: 'McpTestError',
        status: unknownStatus,
        code: INVALID_PARAMS,
        message: `Unknown tool: ${tool}`,
      });
    });

    it('admin runs its own tool with its key; the tool named for both runs on both', async () => {
      const admin = await client('admin', revision);
      expect((await admin.callTool('admin_reset')).content).toEqual([{ type: 'text', text: 'admin:reset by ops' }]);
      for (const server of ['public', 'admin'] as const) {
        const shared = await (await client(server, revision)).callTool('status');
        expect(shared.content).toEqual([{ type: 'text', text: 'shared:status' }]);
      }
      await expect(admin.callTool('ping')).rejects.toMatchObject({ code: INVALID_PARAMS });
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
  let app: INestApplication;

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
    app = await mcpApp(PlacedAppModule);
  });
  afterAll(() => app?.close());

  const list = async (server: Server) => names(await (await createMcpTestClient(app, { server })).listTools());

  it('the server it names takes it, although its include leaves the module out', async () => {
    expect(await list('admin')).toEqual([...ADMIN_ONLY, 'placed', 'status']);
  });

  it('the server whose include names the module does not', async () => {
    expect(await list('public')).toEqual(['echo', 'status', 'time']);
  });
});
