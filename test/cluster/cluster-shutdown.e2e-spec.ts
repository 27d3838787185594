/**
 * A rolling deploy, in small: two instances sharing one Redis (`test/fixtures/shutdown-main.ts`,
 * each in a child process of its own), a balancer in front, an SDK v1 client with a legacy
 * session, and a real SIGTERM to the instance that holds the session's GET stream.
 *
 * The balancer is the round-robin proxy with failover: like a real one, it sends a request the
 * draining instance refuses (503) or can no longer take (connection refused) to the other.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Collector, streamWatchingFetch } from '../fixtures/raw-rpc';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/round-robin-proxy';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { legacyPost, rpcResultOf, uniqueKeyPrefix } from './cluster-helpers';

const ENTRY = 'test/fixtures/shutdown-main.ts';
const GRACE_MS = 1_500;
/** The promise of issue 15: the process is gone within the grace period plus one second. */
const EXIT_BOUND_MS = GRACE_MS + 1_000;
/** Work that outlives the grace period. */
const FOREVER_MS = 60_000;
const NAMES = ['A', 'B'];

jest.setTimeout(60_000);

/** The text of the first content block of a tool result. */
function firstText(result: unknown): string {
  return String((result as { content?: Array<{ text?: unknown }> }).content?.[0]?.text);
}

describe('cluster: SIGTERM to one of two instances behind a balancer', () => {
  let redis: RedisServerHandle;
  let instances: ServerProcess[] = [];
  let proxy: RoundRobinProxy | undefined;
  let client: V1Client | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  afterEach(async () => {
    instances.forEach((instance) => instance.kill());
    await client?.close().catch(() => undefined);
    await proxy?.close();
  });

  it('the session goes on on the other instance: its GET stream reconnects there, and its tasks stay readable', async () => {
    const keyPrefix = uniqueKeyPrefix('shutdown');
    instances = await Promise.all(
      NAMES.map((name) =>
        startServerProcess(ENTRY, {
          MCP_INSTANCE: name,
          MCP_GRACE_MS: String(GRACE_MS),
          MCP_REDIS_URL: redis.url,
          MCP_REDIS_PREFIX: keyPrefix,
        }),
      ),
    );
    try {
      proxy = await startRoundRobinProxy(
        instances.map((instance) => instance.baseUrl),
        { failover: true },
      );
      const { fetch, streams } = streamWatchingFetch();
      client = new V1Client({ name: 'shutdown-cluster-e2e', version: '1.0.0' });
      const listChanged = new Collector<unknown>();
      client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) =>
        listChanged.push(notification),
      );
      const transport = new V1StreamableHTTPClientTransport(new URL('/mcp', proxy.url), {
        fetch,
        reconnectionOptions: {
          maxRetries: 10,
          initialReconnectionDelay: 100,
          maxReconnectionDelay: 500,
          reconnectionDelayGrowFactor: 1.5,
        },
      });
      await client.connect(transport);
      const [firstGet] = await streams.waitFor(1, (stream) => stream.method === 'GET');
      expect(firstGet.status).toBe(200);

      // The instance to stop is the one that holds the session's GET stream.
      const holder = proxy.routes.find((route) => route.method === 'GET')!.target;
      const victim = instances[holder];
      const survivor = instances[1 - holder];
      const session = {
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': transport.protocolVersion ?? '2025-11-25',
      };

      // Two tasks of the session whose work runs on the victim: one ends within the grace
      // period, the other would run for a minute.
      const startTask = async (label: string, ms: number): Promise<string> => {
        const created = rpcResultOf(
          await legacyPost(
            victim.url,
            session,
            'tools/call',
            { name: 'slow', arguments: { ms, label }, task: { ttl: 60_000 } },
            label,
          ),
        );
        return String(created.task.taskId);
      };
      const quick = await startTask('task-quick', 800);
      const stuck = await startTask('task-stuck', FOREVER_MS);
      await victim.line(/PROBE started task-quick/);
      await victim.line(/PROBE started task-stuck/);

      const exiting = victim.terminate();
      // The victim ends the stream; the client reconnects through the balancer, which sends it
      // to the survivor, and resumes the session's stream there.
      await expect(firstGet.end).resolves.toBe('ended');
      const [, secondGet] = await streams.waitFor(2, (stream) => stream.method === 'GET', 10_000);
      expect(secondGet.status).toBe(200);
      expect(proxy.routes.filter((route) => route.method === 'GET').at(-1)!.target).toBe(1 - holder);

      // While the victim drains, the session goes on: requests it refuses go to the survivor.
      const triedBefore = proxy.hits[holder];
      expect(firstText(await client.callTool({ name: 'whoami' }))).toBe(NAMES[1 - holder]);
      expect(firstText(await client.callTool({ name: 'whoami' }))).toBe(NAMES[1 - holder]);
      expect(proxy.hits[holder]).toBeGreaterThan(triedBefore);

      // The stuck task holds the victim until the grace period ends, and no longer.
      const exit = await exiting;
      expect(exit.ms).toBeGreaterThanOrEqual(GRACE_MS);
      expect(exit.ms).toBeLessThan(EXIT_BOUND_MS);

      // And after: the resumed stream carries what the session hears.
      expect(firstText(await client.callTool({ name: 'announce' }))).toBe('announced');
      await listChanged.waitFor(1);

      // The victim's tasks stay readable from the survivor: the one that ended within the grace
      // period completed, with its result; the other failed, saying why.
      expect(rpcResultOf(await legacyPost(survivor.url, session, 'tasks/get', { taskId: quick }))).toMatchObject({
        taskId: quick,
        status: 'completed',
      });
      expect(firstText(rpcResultOf(await legacyPost(survivor.url, session, 'tasks/result', { taskId: quick })))).toBe(
        'slept task-quick',
      );
      expect(rpcResultOf(await legacyPost(survivor.url, session, 'tasks/get', { taskId: stuck }))).toMatchObject({
        taskId: stuck,
        status: 'failed',
        statusMessage: 'Server shutting down: the task was stopped before it finished',
      });
      const output = victim.output();
      expect(output).toMatch(/PROBE aborted task-stuck: Server shutting down: the task was stopped before it finished/);
      expect(output).toMatch(/Grace of 1500 ms over: aborting 0 calls, failing 1 task/);
      expect(output).toMatch(/Shutdown complete in \d+ ms \(0 calls aborted, 1 task failed\)/);
    } catch (error) {
      const outputs = instances.map((instance, index) => `--- ${NAMES[index]} ---\n${instance.output()}`);
      throw new Error(`${String(error)}\n${outputs.join('\n')}`, { cause: error });
    }
  });
});
