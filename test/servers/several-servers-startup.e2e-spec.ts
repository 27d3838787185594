/**
 * Several MCP servers outside HTTP (issue 17): the startup errors of a handler no server takes
 * (two servers of one name or on one path are in test/module-wiring.e2e-spec.ts; a handler whose
 * servers name a server its include leaves out is served, test/servers/servers-own-handlers.e2e-spec.ts), and stdio
 * serving a server chosen by name, in process on PassThrough streams.
 */
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { PassThrough } from 'node:stream';
import { getMcpToken, McpConfigurationError, McpModule, McpTool } from 'nest-mcp';
import { McpStdioServer, type McpStdioListenOptions } from 'nest-mcp/stdio';
import { startupError } from '../fixtures/pipeline-app';
import { legacyRequest, modernRequest, type RpcMessage } from '../fixtures/raw-rpc';
import { twoServersModule } from '../fixtures/servers-fixture';
import { StdioPeer } from '../fixtures/stdio-fixture.module';

const PUBLIC_TOOLS = ['echo', 'time'];
const ADMIN_TOOLS = ['admin_reindex', 'admin_reset', 'admin_users'];
const EMPTY_INPUT = { type: 'object', properties: {} } as const;

@Injectable()
class StrayTools {
  @McpTool({ description: 'In a module no server includes', input: EMPTY_INPUT })
  stray(): string {
    return 'stray';
  }
}

@Module({ providers: [StrayTools] })
class StrayToolsModule {}

@Injectable()
class LostTools {
  @McpTool({ description: 'Names a server the application does not have', input: EMPTY_INPUT, servers: ['nope'] })
  lost(): string {
    return 'lost';
  }
}

/** Names public, which serves it, and a server with a typo in its name. */
@Injectable()
class TypoTools {
  @McpTool({ description: 'Names a known and an unknown server', input: EMPTY_INPUT, servers: ['public', 'admn'] })
  typo(): string {
    return 'typo';
  }
}

describe('several servers: a handler no server takes stops startup', () => {
  it('a handler in a module no include names, and no server without include: the error names Class.method, its module and why', async () => {
    const error = await startupError({ imports: [twoServersModule(), StrayToolsModule] });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain('No MCP server takes this handler');
    expect(error.message).toContain(
      "StrayTools.stray is in StrayToolsModule, which no server's include names, and every server has an include",
    );
    // Only the stray one: the fixture's own handlers are all claimed.
    expect(error.message).not.toMatch(/PublicTools|AdminTools/);
  });

  it('servers naming an unknown server: the error names it and the known servers', async () => {
    const error = await startupError({
      imports: [
        McpModule.forRoot({ name: 'public', version: '1.0.0', path: 'public' }),
        McpModule.forRoot({ name: 'admin', version: '1.0.0', path: 'admin' }),
      ],
      providers: [LostTools],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain('LostTools.lost names "nope" in servers, and the servers are "public", "admin"');
  });

  it('servers naming an unknown server beside a known one: the error names it, although the known one takes it', async () => {
    const error = await startupError({
      imports: [
        McpModule.forRoot({ name: 'public', version: '1.0.0', path: 'public' }),
        McpModule.forRoot({ name: 'admin', version: '1.0.0', path: 'admin' }),
      ],
      providers: [TypoTools],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain('TypoTools.typo names "admn" in servers, and the servers are "public", "admin"');
  });
});

describe('several servers over stdio (in process)', () => {
  let app: INestApplicationContext;
  const peers: StdioPeer[] = [];

  beforeAll(async () => {
    app = await NestFactory.createApplicationContext(twoServersModule(), { logger: false });
  });
  afterEach(async () => {
    await Promise.all(peers.splice(0).map((peer) => peer.end()));
  });
  afterAll(() => app?.close());

  const connect = (server: McpStdioServer, options: Omit<McpStdioListenOptions, 'input'> = {}): StdioPeer => {
    const peer = new StdioPeer(server, options);
    peers.push(peer);
    return peer;
  };

  const toolNames = (message: RpcMessage): string[] =>
    (message.result?.tools as Array<{ name: string }>).map((tool) => tool.name).sort();

  /** The legacy handshake, then tools/list in the session; and a modern tools/list beside it. */
  async function listBothEras(peer: StdioPeer): Promise<{ legacy: string[]; modern: string[] }> {
    peer.send(
      legacyRequest('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'stdio-e2e', version: '1.0.0' },
      }),
    );
    const init = await peer.answer(1);
    expect(init.result?.protocolVersion).toBe('2025-11-25');
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    peer.send(legacyRequest('tools/list', {}, 2));
    peer.send(modernRequest('tools/list', {}, 3));
    return { legacy: toolNames(await peer.answer(2)), modern: toolNames(await peer.answer(3)) };
  }

  it("listen({ server: 'admin' }) serves admin's tools, in both eras", async () => {
    const peer = connect(app.get(McpStdioServer), { server: 'admin' });
    await expect(listBothEras(peer)).resolves.toEqual({ legacy: ADMIN_TOOLS, modern: ADMIN_TOOLS });
    peer.send(legacyRequest('tools/call', { name: 'admin_users', arguments: {} }, 4));
    expect((await peer.answer(4)).result?.content?.[0]?.text).toBe('admin:users');
    peer.send(legacyRequest('tools/call', { name: 'echo', arguments: {} }, 5));
    expect((await peer.answer(5)).error?.code).toBe(-32602);
  });

  it("the principal given to listen({ server: 'admin' }) reaches admin's tools", async () => {
    // Stdio has no bearer: the process that spawned the server is the client, served as the principal given.
    const peer = connect(app.get(McpStdioServer), {
      server: 'admin',
      principal: { id: 'stdio-ops', scopes: ['admin'] },
    });
    peer.send(modernRequest('tools/call', { name: 'admin_reset', arguments: {} }, 1));
    expect((await peer.answer(1)).result?.content?.[0]?.text).toBe('admin:reset by stdio-ops');
  });

  it('listen() without a server serves the default (first) one: public', async () => {
    const peer = connect(app.get(McpStdioServer));
    await expect(listBothEras(peer)).resolves.toEqual({ legacy: PUBLIC_TOOLS, modern: PUBLIC_TOOLS });
  });

  it("admin's own McpStdioServer (by its token) serves admin without being told", async () => {
    const peer = connect(app.get<McpStdioServer>(getMcpToken(McpStdioServer, 'admin')));
    await expect(listBothEras(peer)).resolves.toEqual({ legacy: ADMIN_TOOLS, modern: ADMIN_TOOLS });
    // And it can be pointed back at public by name.
    const back = connect(app.get<McpStdioServer>(getMcpToken(McpStdioServer, 'admin')), { server: 'public' });
    await expect(listBothEras(back)).resolves.toEqual({ legacy: PUBLIC_TOOLS, modern: PUBLIC_TOOLS });
  });

  it("listen({ server: 'nope' }) rejects with McpConfigurationError naming it", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const listening = app.get(McpStdioServer).listen({ server: 'nope', input, output });
    await expect(listening).rejects.toBeInstanceOf(McpConfigurationError);
    await expect(listening).rejects.toThrow('No MCP server is named "nope"');
    input.end();
  });
});
