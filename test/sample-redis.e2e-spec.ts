/**
 * The sample with `MCP_REDIS_URL` set: two instances of it share one Redis and serve as one
 * server (a legacy session opened on one used on the other, a task started on one read and
 * awaited on the other); without the variable it keeps its state in memory.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_SESSION_STORE } from '../lib/shared/mcp.constants';
import { MemorySessionStore } from '../lib/stores/memory/memory-session.store';
import { RedisSessionStore } from '../lib/stores/redis/redis-session.store';
import { AppModule } from '../sample/app.module';
import { startHttpApp, type HttpApp } from './fixtures/http-app';
import { startRedisServer, type RedisServerHandle } from './support/redis-server';
import { legacyRequest, openLegacySession, post, type RpcMessage } from './fixtures/raw-rpc';

const SECRET = 'sample-redis-request-state-secret-0123456789abcdef';
const SAVED = ['MCP_AUTH', 'MCP_REDIS_URL', 'MCP_REQUEST_STATE_SECRET'].map(
  (name) => [name, process.env[name]] as const,
);

function restoreEnv(): void {
  for (const [name, value] of SAVED) {
    if (value === undefined) {
      delete process.env[name];
    } else {
      process.env[name] = value;
    }
  }
}

describe('sample: MCP_REDIS_URL', () => {
  let redis: RedisServerHandle;
  let a: HttpApp;
  let b: HttpApp;
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    delete process.env.MCP_AUTH;
    process.env.MCP_REDIS_URL = redis.url;
    process.env.MCP_REQUEST_STATE_SECRET = SECRET;
    a = await startHttpApp(AppModule);
    b = await startHttpApp(AppModule);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await a?.close();
    await b?.close();
    await redis?.stop();
    restoreEnv();
  });

  async function connect(url: URL, sessionId?: string): Promise<Client> {
    const client = new Client({ name: 'sample-redis', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, { sessionId });
    clients.push(client);
    await client.connect(transport);
    return client;
  }

  it('keeps sessions in Redis', () => {
    expect(a.app.get(MCP_SESSION_STORE)).toBeInstanceOf(RedisSessionStore);
    expect(b.app.get(MCP_SESSION_STORE)).toBeInstanceOf(RedisSessionStore);
  });

  it('serves on B a session opened on A (official v1 client, same session id)', async () => {
    const onA = await connect(a.url);
    const sessionId = (onA.transport as StreamableHTTPClientTransport).sessionId;
    expect(sessionId).toMatch(/^mcp_[0-9a-f]{32}$/);
    // With a session id the client skips the handshake: B takes the session as A made it.
    const onB = await connect(b.url, sessionId);
    const tools = await onB.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'build_report']));
    const echoed = await onB.callTool({ name: 'echo', arguments: { text: 'from B' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'from B' }]);
  });

  it('runs build_report as a task on A; B reads it and answers tasks/result with its report', async () => {
    const session = await openLegacySession(a.url, '2025-11-25');
    const created = await post(
      a.url,
      legacyRequest('tools/call', { name: 'build_report', arguments: { sections: 2 }, task: { ttl: 60_000 } }, 1),
      session.headers,
    );
    const taskId = (created.json as RpcMessage).result?.task?.taskId as string;
    expect(taskId).toMatch(/^task_[0-9a-f]{32}$/);
    const seen = await post(b.url, legacyRequest('tasks/get', { taskId }, 2), session.headers);
    expect((seen.json as RpcMessage).result).toMatchObject({
      taskId,
      status: expect.stringMatching(/working|completed/),
    });
    const result = await post(b.url, legacyRequest('tasks/result', { taskId }, 3), session.headers);
    const answer = (result.json ?? result.events.find((event) => event.id === 3)) as RpcMessage;
    expect(answer.result).toMatchObject({
      content: [{ type: 'text', text: 'Report ready: 2 sections' }],
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    });
  });
});

describe('sample without MCP_REDIS_URL', () => {
  it('keeps its state in memory', async () => {
    const saved = process.env.MCP_REDIS_URL;
    delete process.env.MCP_REDIS_URL;
    const app = await startHttpApp(AppModule);
    try {
      expect(app.app.get(MCP_SESSION_STORE)).toBeInstanceOf(MemorySessionStore);
    } finally {
      await app.close();
      if (saved !== undefined) {
        process.env.MCP_REDIS_URL = saved;
      }
    }
  });
});
