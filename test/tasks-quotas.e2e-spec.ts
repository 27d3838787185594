/**
 * The live-task quota counts callers by their quota key: anonymous callers share the anonymous
 * owner (they may all see its tasks, as before) but not one quota. Two anonymous clients on two
 * loopback addresses (127.0.0.1 and 127.0.0.2), over real sockets.
 */
import type { HttpPlatform } from './fixtures/http-app';
import { ACCEPT_BOTH, rawHttp } from './fixtures/raw-rpc';
import { startTasksApp, type TasksApp } from './fixtures/tasks-fixture';
import { modernParts } from './cluster/cluster-helpers';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

describe.each(PLATFORMS)('tasks.maxLivePerOwner per anonymous address (%s)', (platform) => {
  let server: TasksApp;

  beforeAll(async () => {
    // The test leaves its 30-second tasks working: closing the app stops them at once rather than
    // giving them the default 10 s of grace (the quota is the point here, not the shutdown).
    server = await startTasksApp({ tasks: { maxLivePerOwner: 1 }, shutdownGraceMs: 0 }, platform);
  });

  afterAll(async () => {
    await server?.close();
  });

  /** Starts a long task from `localAddress`; resolves with the JSON-RPC answer. */
  async function startFrom(localAddress: string, label: string, id: number): Promise<Record<string, any>> {
    const { body, headers } = modernParts(
      'tools/call',
      { name: 'only_task', arguments: { ms: 30_000, label } },
      { id },
    );
    const answer = await rawHttp(server.url, {
      headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      localAddress,
    });
    return JSON.parse(answer.text) as Record<string, any>;
  }

  it("refuses one address's second live task with -32603 naming the option, and serves another address", async () => {
    const first = await startFrom('127.0.0.1', 'quota-first', 1);
    expect(first.result).toMatchObject({ resultType: 'task', status: 'working' });

    const refused = await startFrom('127.0.0.1', 'quota-refused', 2);
    expect(refused.error).toEqual({
      code: -32603,
      message: 'Too many tasks in progress for this caller: at most 1 (McpModule option tasks.maxLivePerOwner)',
    });

    const elsewhere = await startFrom('127.0.0.2', 'quota-elsewhere', 3);
    expect(elsewhere.result).toMatchObject({ resultType: 'task', status: 'working' });
  });
});
