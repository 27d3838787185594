/**
 * The Redis stores on a three-master Redis Cluster: the store contracts run unchanged (every
 * script, MULTI and MGET stays on one slot, or the cluster would refuse it with CROSSSLOT), the
 * keys of one server share its hash tag, pub/sub reaches every hub whatever node it listens on,
 * and the hub's commands fail at once while the cluster cannot serve.
 */
import { Cluster } from 'ioredis';
import { McpStoreUnavailableError } from '../../lib/errors/mcp-store-unavailable.error';
import { RedisHub } from '../../lib/stores/redis/redis-hub';
import { RedisNotificationBus } from '../../lib/stores/redis/redis-notification.bus';
import { RedisReplayStore } from '../../lib/stores/redis/redis-replay.store';
import { RedisSessionStore } from '../../lib/stores/redis/redis-session.store';
import { resolveRedisSettings } from '../../lib/stores/redis/redis-settings';
import { RedisTaskStore } from '../../lib/stores/redis/redis-task.store';
import type { McpEvent } from '../../lib/interfaces/notification-bus.interface';
import { redisCall, startRedisCluster, type RedisClusterSet } from '../support/redis-ha';
import { describeReplayStoreContract, replayEvent } from './replay-store.contract';
import { describeSessionStoreContract, sessionRecord } from './session-store.contract';
import { describeTaskStoreContract, taskRecord } from './task-store.contract';

let cluster: RedisClusterSet;
let hub: RedisHub;
const extraHubs: RedisHub[] = [];

/** A hub on the cluster, as the module makes it from `redis.cluster`. */
async function connect(): Promise<RedisHub> {
  const settings = resolveRedisSettings({ cluster: { nodes: cluster.nodes }, commandTimeoutMs: 1_000 }, 'mcp-test:');
  return RedisHub.connect(settings!);
}

/** How many commands the cluster's nodes ran for `run` (those its scripts call included). */
async function commandsDuring(run: () => Promise<unknown>): Promise<number> {
  await Promise.all(cluster.nodes.map(({ port }) => redisCall(port, 'CONFIG', 'RESETSTAT')));
  await run();
  let calls = 0;
  for (const { port } of cluster.nodes) {
    const stats = String(await redisCall(port, 'INFO', 'commandstats'));
    for (const match of stats.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
      // The probe's own commands, and the cluster client's slot refreshes, do not count.
      if (!['config|resetstat', 'info', 'cluster|slots', 'cluster|nodes'].includes(match[1])) {
        calls += Number(match[2]);
      }
    }
  }
  return calls;
}

/** Every key of every node. */
async function allKeys(): Promise<string[]> {
  const keys = await Promise.all(cluster.nodes.map(({ port }) => redisCall(port, 'KEYS', '*') as Promise<string[]>));
  return keys.flat().sort();
}

beforeAll(async () => {
  cluster = await startRedisCluster();
  hub = await connect();
}, 60_000);

afterAll(async () => {
  await hub?.close();
  await cluster?.stop();
});

beforeEach(async () => {
  await cluster.flush();
});

afterEach(async () => {
  await Promise.all(extraHubs.splice(0).map((other) => other.close()));
});

describeSessionStoreContract(
  'RedisSessionStore on a cluster',
  async () => new RedisSessionStore(hub, { idleTimeoutMs: 60_000 }),
);
describeReplayStoreContract(
  'RedisReplayStore on a cluster',
  (capacity, bytes) => new RedisReplayStore(hub, capacity, 30_000, bytes),
);
describeTaskStoreContract(
  'RedisTaskStore on a cluster',
  async () => new RedisTaskStore(hub, { retentionGraceMs: 120_000 }),
  { work: commandsDuring },
);

describe('Redis stores on a cluster', () => {
  it('keep every key of one server under its hash tag, in one slot', async () => {
    const sessions = new RedisSessionStore(hub, { idleTimeoutMs: 60_000 });
    const tasks = new RedisTaskStore(hub, { retentionGraceMs: 120_000 });
    const replay = new RedisReplayStore(hub, 4, 30_000);
    await sessions.create(sessionRecord('s1', { quotaKey: 'q{1}' }));
    await sessions.subscribe('s1', 'file:///{a}');
    await tasks.create(taskRecord('task_a', Date.now(), { owner: 'principal:{bob}' }));
    await replay.append('s1', replayEvent('a', 0));
    const keys = await allKeys();
    expect(keys.length).toBeGreaterThan(8);
    expect(keys.every((key) => key.startsWith('{mcp-test}:'))).toBe(true);
    const slots = new Set(
      await Promise.all(keys.map((key) => redisCall(cluster.nodes[0].port, 'CLUSTER', 'KEYSLOT', key))),
    );
    expect(slots.size).toBe(1);
  });

  it('deliver a notification to the hubs listening on every node', async () => {
    // Six hubs: each cluster subscriber listens on a node of its own choosing.
    for (let index = 0; index < 5; index += 1) {
      extraHubs.push(await connect());
    }
    const hubs = [hub, ...extraHubs];
    const buses = await Promise.all(hubs.map((each) => RedisNotificationBus.create(each)));
    const received = buses.map(() => [] as McpEvent[]);
    buses.forEach((bus, index) => bus.subscribe((event) => received[index].push(event)));
    const event: McpEvent = { type: 'list_changed', list: 'tools' };
    await buses[5].publish(event);
    const deadline = Date.now() + 5_000;
    while (received.some((events) => events.length === 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(received).toEqual(buses.map(() => [event]));
    buses.forEach((bus) => bus.close());
  });

  it('deliver what one hub publishes on a channel in the order it was published, on every node', async () => {
    // PUBLISH has no key: sent through any node, a message reaches the other nodes' subscribers
    // over the cluster bus, and one sent through another node can overtake it.
    for (let index = 0; index < 5; index += 1) {
      extraHubs.push(await connect());
    }
    const hubs = [hub, ...extraHubs];
    const received = hubs.map(() => [] as string[]);
    const stops = await Promise.all(
      hubs.map((each, index) => each.subscribe(each.key('order'), (payload) => received[index].push(payload))),
    );
    const sent = Array.from({ length: 300 }, (_, index) => String(index));
    // Not awaited one by one: a sender that posts and goes on, as the link's senders do.
    await Promise.all(sent.map((payload) => hub.publish(hub.key('order'), payload)));
    const deadline = Date.now() + 5_000;
    while (received.some((payloads) => payloads.length < sent.length) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    stops.forEach((stop) => stop());
    expect(received).toEqual(hubs.map(() => sent));
  });

  it("accept the application's own Cluster client, hash-tagging the prefix", async () => {
    const client = new Cluster(cluster.nodes, { enableOfflineQueue: false, lazyConnect: true });
    const settings = resolveRedisSettings({ client, keyPrefix: 'app:' });
    expect(settings?.keyPrefix).toBe('{app}:');
    const own = await RedisHub.connect(settings!);
    try {
      const tasks = new RedisTaskStore(own);
      await tasks.create(taskRecord('task_b', Date.now()));
      await expect(tasks.list('principal:alice')).resolves.toEqual([expect.objectContaining({ id: 'task_b' })]);
      expect((await allKeys()).every((key) => key.startsWith('{app}:'))).toBe(true);
    } finally {
      await own.close();
      await client.quit();
    }
  });

  it('fail at once with McpStoreUnavailableError while the cluster does not answer', async () => {
    const other = await connect();
    extraHubs.push(other);
    const tasks = new RedisTaskStore(other);
    await tasks.create(taskRecord('task_c', Date.now()));
    // Every node paused: the slot's owner does not answer, whichever it is.
    await Promise.all(cluster.nodes.map(({ port }) => redisCall(port, 'CLIENT', 'PAUSE', '3000', 'ALL')));
    const started = Date.now();
    await expect(tasks.get('task_c')).rejects.toThrow(McpStoreUnavailableError);
    // The command timeout (1 s) ended the wait, not the end of the pause.
    expect(Date.now() - started).toBeLessThan(2_500);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const read = await tasks.get('task_c').catch(() => undefined);
      if (read !== undefined || Date.now() > deadline) {
        expect(read).toMatchObject({ id: 'task_c' });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
