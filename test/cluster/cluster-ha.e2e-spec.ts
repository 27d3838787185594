/**
 * Two instances on Redis high availability: on a Sentinel set, sessions, tasks and notifications
 * keep working across a failover without a restart (requests during the switch may get 503); on
 * a three-master Redis Cluster, a session opened on A is used on B, a task started on A is read
 * on B, and a change made on A reaches B's stream.
 */
import { McpStoreUnavailableError } from '../../lib/errors/mcp-store-unavailable.error';
import { RedisHub } from '../../lib/stores/redis/redis-hub';
import { resolveRedisSettings } from '../../lib/stores/redis/redis-settings';
import { startCluster, type Cluster } from '../fixtures/cluster-fixture';
import { freePort } from '../support/ports';
import { openLegacySession, type RawResponse, type RpcMessage, type SseReader } from '../fixtures/raw-rpc';
import type { TasksApp } from '../fixtures/tasks-fixture';
import {
  startRedisCluster,
  startRedisSentinelSet,
  type RedisClusterSet,
  type RedisSentinelSet,
} from '../support/redis-ha';
import { legacyPost, openLegacyStream, pollFor, rpcResultOf, uniqueKeyPrefix } from './cluster-helpers';

const LEGACY_TTL_MS = 60_000;
/** How long the module's clients may take to find the promoted replica. */
const FAILOVER_RECOVERY_MS = 20_000;

/** A label no other test uses (the probes count runs by label). */
let labels = 0;
const label = (name: string): string => `${name}-${(labels += 1)}`;

/** The next message of `stream` that `wanted` accepts, passing over the others. */
async function nextMatching(stream: SseReader, wanted: (message: RpcMessage) => boolean): Promise<RpcMessage> {
  for (;;) {
    const message = await stream.next();
    if (wanted(message)) {
      return message;
    }
  }
}

/**
 * What every test here checks on its two instances: the legacy session opened on A serves on B,
 * a task started on A ends and its result is read on B, and a tools-list change made on A
 * reaches the session's GET stream `stream` held by B.
 */
async function sessionTaskAndNotification(
  a: TasksApp,
  b: TasksApp,
  headers: Record<string, string>,
  stream: SseReader,
): Promise<void> {
  expect(
    rpcResultOf(await legacyPost(b.url, headers, 'tools/call', { name: 'plain', arguments: {} }, 'plain')),
  ).toEqual(expect.objectContaining({ content: expect.any(Array) }));

  const work = label('ha-task');
  const created = rpcResultOf(
    await legacyPost(
      a.url,
      headers,
      'tools/call',
      { name: 'sleepy', arguments: { ms: 200, label: work }, task: { ttl: LEGACY_TTL_MS } },
      'call',
    ),
  );
  const { taskId } = created.task as { taskId: string };
  const result = rpcResultOf(await legacyPost(b.url, headers, 'tasks/result', { taskId }, 'result'));
  expect(result.content).toEqual([{ type: 'text', text: `slept ${work}` }]);
  expect(a.probe.runs(work)).toBe(1);

  rpcResultOf(
    await legacyPost(a.url, headers, 'tools/call', { name: 'touch_note', arguments: { lists: true } }, 'touch'),
  );
  await expect(
    nextMatching(stream, (message) => message.method === 'notifications/tools/list_changed'),
  ).resolves.toMatchObject({ method: 'notifications/tools/list_changed' });
}

describe('cluster: Redis Sentinel at startup', () => {
  it('stops the startup with an error naming the sentinels when none answers, instead of waiting', async () => {
    const port = await freePort();
    const settings = resolveRedisSettings({
      sentinel: { sentinels: [{ host: '127.0.0.1', port }], name: 'mymaster' },
      commandTimeoutMs: 500,
    });
    const connecting = RedisHub.connect(settings!);
    await expect(connecting).rejects.toThrow(McpStoreUnavailableError);
    await expect(connecting).rejects.toThrow(
      `Cannot connect to Redis (master "mymaster" of the sentinels 127.0.0.1:${port})`,
    );
  });
});

describe('cluster: Redis Sentinel', () => {
  let sentinel: RedisSentinelSet;
  let cluster: Cluster;
  let streams: AbortController;

  beforeAll(async () => {
    sentinel = await startRedisSentinelSet();
  }, 60_000);

  afterAll(async () => {
    await sentinel?.stop();
  });

  beforeEach(async () => {
    streams = new AbortController();
    cluster = await startCluster({
      redisUrl: { sentinel: { sentinels: sentinel.sentinels, name: sentinel.name } },
      keyPrefix: uniqueKeyPrefix('sentinel'),
    });
  });

  afterEach(async () => {
    streams.abort();
    await cluster?.close();
  });

  it('sessions, tasks and notifications keep working after a failover, without a restart', async () => {
    const [a, b] = cluster.apps;
    const { headers } = await openLegacySession(a.url, '2025-11-25');
    const stream = await openLegacyStream(b.url, headers, streams.signal);
    await sessionTaskAndNotification(a, b, headers, stream);

    // Tool calls on both instances all through the switch: each is answered, with its result or
    // with 503 (the store is away for a moment), never with an error of another kind.
    const answers: string[] = [];
    let switching = true;
    const calls = (async () => {
      for (let index = 0; switching; index += 1) {
        const app = index % 2 === 0 ? a : b;
        const response: RawResponse = await legacyPost(app.url, headers, 'tools/call', { name: 'plain' }, index);
        answers.push(
          response.status === 200 ? `200 ${JSON.stringify(response.json?.result?.content)}` : `${response.status}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const before = await sentinel.masterPort();
    const after = await sentinel.failover().finally(() => (switching = false));
    await calls;
    expect(after).not.toBe(before);
    const plain = `200 ${JSON.stringify([{ type: 'text', text: 'plain' }])}`;
    expect(answers.filter((answer) => answer !== plain && answer !== '503')).toEqual([]);
    expect(answers.length).toBeGreaterThan(10);

    // Then both instances serve again.
    for (const app of [a, b]) {
      await pollFor(
        async () => (await legacyPost(app.url, headers, 'tools/call', { name: 'plain' }, 'q')).status,
        (status) => status === 200,
        `a tool call on ${app.url.toString()} after the failover`,
        FAILOVER_RECOVERY_MS,
        100,
      );
    }
    // The session opened before the failover, on the old master, is served from the new one, and
    // the GET stream B held throughout still carries what A announces.
    await sessionTaskAndNotification(a, b, headers, stream);
    const other = await openLegacySession(b.url, '2025-11-25');
    await sessionTaskAndNotification(b, a, other.headers, await openLegacyStream(a.url, other.headers, streams.signal));
  }, 90_000);
});

describe('cluster: Redis Cluster', () => {
  let redisCluster: RedisClusterSet;
  let cluster: Cluster;
  let streams: AbortController;

  beforeAll(async () => {
    redisCluster = await startRedisCluster();
  }, 60_000);

  afterAll(async () => {
    await redisCluster?.stop();
  });

  beforeEach(async () => {
    streams = new AbortController();
    cluster = await startCluster({
      redisUrl: { cluster: { nodes: redisCluster.nodes } },
      keyPrefix: uniqueKeyPrefix('cluster'),
    });
  });

  afterEach(async () => {
    streams.abort();
    await cluster?.close();
  });

  it('a session opened on A is used on B, a task of A is read on B, a change on A reaches B', async () => {
    const [a, b] = cluster.apps;
    const first = await openLegacySession(a.url, '2025-11-25');
    await sessionTaskAndNotification(a, b, first.headers, await openLegacyStream(b.url, first.headers, streams.signal));
    const second = await openLegacySession(b.url, '2025-11-25');
    await sessionTaskAndNotification(
      b,
      a,
      second.headers,
      await openLegacyStream(a.url, second.headers, streams.signal),
    );
  });
});
