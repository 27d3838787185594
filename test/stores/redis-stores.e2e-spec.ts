import type { Redis } from 'ioredis';
import { McpStoreUnavailableError } from '../../lib/errors/mcp-store-unavailable.error';
import { RedisHub } from '../../lib/stores/redis/redis-hub';
import { RedisReplayStore } from '../../lib/stores/redis/redis-replay.store';
import { RedisSessionStore } from '../../lib/stores/redis/redis-session.store';
import { RedisTaskStore } from '../../lib/stores/redis/redis-task.store';
import { flushRedis, startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { dataOf, describeReplayStoreContract, replayEvent, sizedEvent } from './replay-store.contract';
import { describeSessionStoreContract, sessionRecord } from './session-store.contract';
import { describeTaskStoreContract, taskRecord } from './task-store.contract';
import { waitUntil } from '../support/waiting';

const PREFIX = 'mcp-test:';
const IDLE_MS = 60_000;
/** What the session store gives a session's keys: the idle timeout plus as much again (60 s at least). */
const SESSION_TTL_MS = IDLE_MS + Math.max(IDLE_MS, 60_000);
const REPLAY_TTL_MS = 30_000;
const GRACE_MS = 120_000;

let server: RedisServerHandle;
let hub: RedisHub;
const extraHubs: RedisHub[] = [];

async function connect(keyPrefix = PREFIX): Promise<RedisHub> {
  return RedisHub.connect({ url: server.url, keyPrefix, commandTimeoutMs: 1000 });
}

/** Another instance's connections, closed after the test. */
async function otherHub(keyPrefix = PREFIX): Promise<RedisHub> {
  const other = await connect(keyPrefix);
  extraHubs.push(other);
  return other;
}

function redis(): Redis {
  return hub.client as Redis;
}

/** Every key on the server, sorted. */
async function allKeys(): Promise<string[]> {
  return (await redis().keys('*')).sort();
}

/** How many commands Redis ran for `run` (those its scripts call included). */
async function commandsDuring(run: () => Promise<unknown>): Promise<number> {
  await redis().config('RESETSTAT');
  await run();
  const stats = await redis().info('commandstats');
  let calls = 0;
  for (const match of stats.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
    // The RESETSTAT and INFO of the probe itself do not count.
    if (match[1] !== 'config|resetstat' && match[1] !== 'info') {
      calls += Number(match[2]);
    }
  }
  return calls;
}

/** Polls `probe` until it resolves true (a rejection counts as false), failing after `timeoutMs`. */
function eventually(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  return waitUntil(() => probe().catch(() => false), 'the condition', timeoutMs, { intervalMs: 50 });
}

beforeAll(async () => {
  server = await startRedisServer();
  hub = await connect();
});

afterAll(async () => {
  await hub?.close();
  await server?.stop();
});

beforeEach(async () => {
  await flushRedis(server.url);
});

afterEach(async () => {
  await Promise.all(extraHubs.splice(0).map((other) => other.close()));
});

describeSessionStoreContract('RedisSessionStore', async () => new RedisSessionStore(hub, { idleTimeoutMs: IDLE_MS }));
describeReplayStoreContract(
  'RedisReplayStore',
  (capacity, bytes) => new RedisReplayStore(hub, capacity, REPLAY_TTL_MS, bytes),
);
describeTaskStoreContract('RedisTaskStore', async () => new RedisTaskStore(hub, { retentionGraceMs: GRACE_MS }), {
  work: commandsDuring,
});

describe('RedisSessionStore', () => {
  let store: RedisSessionStore;

  beforeEach(() => {
    store = new RedisSessionStore(hub, { idleTimeoutMs: IDLE_MS });
  });

  it('keeps a session in a hash with one field per state key, its subscriptions in sets, all expiring', async () => {
    await store.create(sessionRecord('s1', { lastActivity: 4_000 }));
    await store.subscribe('s1', 'file:///a');
    expect(await allKeys()).toEqual([
      `${PREFIX}session:s1`,
      `${PREFIX}session:s1:subs`,
      `${PREFIX}sessions`,
      `${PREFIX}sessions:quota:alice`,
      `${PREFIX}subscribers:file:///a`,
    ]);
    await expect(redis().zscore(`${PREFIX}sessions:quota:alice`, 's1')).resolves.toBe('4000');
    await expect(redis().hgetall(`${PREFIX}session:s1`)).resolves.toEqual({
      id: 's1',
      principalId: 'alice',
      createdAt: '1000',
      lastActivity: '4000',
      'st:protocolVersion': '"2025-06-18"',
      'st:clientCapabilities': '{"sampling":{},"roots":{"listChanged":true}}',
      'st:clientInfo': '{"name":"contract-client","version":"1.2.3"}',
      'st:logLevel': '"warning"',
      'st:initialized': 'true',
    });
    await expect(redis().zscore(`${PREFIX}sessions`, 's1')).resolves.toBe('4000');
    for (const key of [
      `${PREFIX}session:s1`,
      `${PREFIX}session:s1:subs`,
      `${PREFIX}subscribers:file:///a`,
      `${PREFIX}sessions:quota:alice`,
    ]) {
      const ttl = await redis().pttl(key);
      expect(ttl).toBeGreaterThan(SESSION_TTL_MS - 5_000);
      expect(ttl).toBeLessThanOrEqual(SESSION_TTL_MS);
    }
  });

  it('leaves no key behind once its sessions are deleted', async () => {
    await store.create(sessionRecord('s1'));
    await store.create(sessionRecord('s2'));
    await store.subscribe('s1', 'file:///a');
    await store.subscribe('s2', 'file:///a');
    await store.subscribe('s2', 'file:///b');
    await store.update('s2', { logLevel: 'debug' });
    await store.delete('s1');
    await store.delete('s2');
    await expect(allKeys()).resolves.toEqual([]);
  });

  it('writes only the patched state fields on update', async () => {
    await store.create(sessionRecord('s1'));
    await redis().hset(`${PREFIX}session:s1`, 'st:logLevel', '"error"');
    // A patch of another key does not write back the logLevel this instance read earlier.
    await store.update('s1', { initialized: false });
    await expect(store.get('s1')).resolves.toMatchObject({ state: { logLevel: 'error', initialized: false } });
  });

  it('refreshes the expiry of the session, its subscription sets and the index score on touch', async () => {
    await store.create(sessionRecord('s1', { lastActivity: 1_000 }));
    await store.subscribe('s1', 'file:///a');
    const keys = [`${PREFIX}session:s1`, `${PREFIX}session:s1:subs`, `${PREFIX}subscribers:file:///a`];
    for (const key of keys) {
      await redis().pexpire(key, 5_000);
    }
    await store.touch('s1', 9_000);
    for (const key of keys) {
      await expect(redis().pttl(key)).resolves.toBeGreaterThan(SESSION_TTL_MS - 5_000);
    }
    await expect(redis().zscore(`${PREFIX}sessions`, 's1')).resolves.toBe('9000');

    // An older activity refreshes the expiry but moves nothing back.
    await redis().pexpire(keys[0], 5_000);
    await store.touch('s1', 2_000);
    await expect(redis().pttl(keys[0])).resolves.toBeGreaterThan(SESSION_TTL_MS - 5_000);
    await expect(redis().zscore(`${PREFIX}sessions`, 's1')).resolves.toBe('9000');
  });

  it('refreshes the expiry of the session on update', async () => {
    await store.create(sessionRecord('s1'));
    await redis().pexpire(`${PREFIX}session:s1`, 5_000);
    await store.update('s1', { logLevel: 'debug' });
    await expect(redis().pttl(`${PREFIX}session:s1`)).resolves.toBeGreaterThan(SESSION_TTL_MS - 5_000);
  });

  it('still reports a session whose keys expired as idle, so that the sweeper deletes what is left', async () => {
    await store.create(sessionRecord('gone', { lastActivity: 1_000 }));
    await store.create(sessionRecord('kept', { lastActivity: 1_000 }));
    await store.subscribe('gone', 'file:///a');
    await store.subscribe('kept', 'file:///a');
    // What the expiry does when no instance sweeps: the hash is gone, its index entry is not.
    await redis().del(`${PREFIX}session:gone`);

    await expect(store.get('gone')).resolves.toBeUndefined();
    await expect(store.update('gone', { logLevel: 'debug' })).resolves.toBeUndefined();
    await store.touch('gone', 50_000);
    await expect(redis().exists(`${PREFIX}session:gone`)).resolves.toBe(0);
    expect((await store.idleSince(2_000)).sort()).toEqual(['gone', 'kept']);
    await expect(store.subscribers('file:///a')).resolves.toEqual(['kept']);
    await store.subscribe('gone', 'file:///b');
    await expect(store.subscribers('file:///b')).resolves.toEqual([]);

    await expect(store.delete('gone')).resolves.toBe(true);
    await expect(store.delete('gone')).resolves.toBe(false);
    await expect(store.idleSince(2_000)).resolves.toEqual(['kept']);
    await store.delete('kept');
    // The quota index does not know the gone session's hash is gone: it expires, or the next
    // creation of its quota key at its cap drops it.
    await expect(allKeys()).resolves.toEqual([`${PREFIX}sessions:quota:alice`]);
    await expect(redis().zrange(`${PREFIX}sessions:quota:alice`, 0, -1)).resolves.toEqual(['gone']);
    const caps = { maxSessions: 10, maxPerPrincipal: 1, candidates: 1 };
    await expect(store.createWithin(sessionRecord('next'), caps)).resolves.toEqual({ outcome: 'created' });
    await expect(redis().zrange(`${PREFIX}sessions:quota:alice`, 0, -1)).resolves.toEqual(['next']);
  });

  it('is shared between instances: one reads what another wrote, deletes once', async () => {
    const other = new RedisSessionStore(await otherHub(), { idleTimeoutMs: IDLE_MS });
    await store.create(sessionRecord('s1'));
    await other.update('s1', { logLevel: 'debug' });
    await other.subscribe('s1', 'file:///a');
    await expect(store.get('s1')).resolves.toMatchObject({ state: { logLevel: 'debug' } });
    await expect(store.subscribers('file:///a')).resolves.toEqual(['s1']);
    await expect(other.count()).resolves.toBe(1);

    for (let round = 0; round < 10; round += 1) {
      await store.create(sessionRecord(`race${round}`));
      const answers = await Promise.all([store.delete(`race${round}`), other.delete(`race${round}`)]);
      expect(answers.filter(Boolean)).toHaveLength(1);
    }
  });

  it('keeps the sessions of another key prefix apart', async () => {
    const other = new RedisSessionStore(await otherHub('other-app:'), { idleTimeoutMs: IDLE_MS });
    await store.create(sessionRecord('s1'));
    await store.subscribe('s1', 'file:///a');
    await expect(other.get('s1')).resolves.toBeUndefined();
    await expect(other.count()).resolves.toBe(0);
    await expect(other.subscribers('file:///a')).resolves.toEqual([]);
    await expect(other.delete('s1')).resolves.toBe(false);
    await expect(store.get('s1')).resolves.toBeDefined();
  });

  it('refuses an idle timeout that is not a positive integer', () => {
    expect(() => new RedisSessionStore(hub, { idleTimeoutMs: 0 })).toThrow(RangeError);
    expect(() => new RedisSessionStore(hub, { idleTimeoutMs: 1.5 })).toThrow(RangeError);
  });
});

describe('RedisReplayStore', () => {
  it('keeps a session buffer in one list of at most `capacity` events that expires after its last event', async () => {
    const store = new RedisReplayStore(hub, 3, REPLAY_TTL_MS);
    for (let seq = 0; seq < 5; seq += 1) {
      await store.append('s1', replayEvent('a', seq));
    }
    await expect(allKeys()).resolves.toEqual(
      ['replay-bytes', 'replay-clock', 'replay-order', 'replay-total', 'replay:s1'].map((key) => PREFIX + key),
    );
    const stored = await redis().lrange(`${PREFIX}replay:s1`, 0, -1);
    // Each event leads with its place among all appends and its size, and reads as JSON.
    const size = dataOf(replayEvent('a', 2)).length;
    expect(stored[0]).toMatch(new RegExp(`^\\{"g":3,"n":${size},"streamId":"a","seq":2,"message":\\{`));
    expect(stored.map((json) => JSON.parse(json))).toEqual(
      [2, 3, 4].map((seq) => ({ g: seq + 1, n: size, ...replayEvent('a', seq) })),
    );
    await expect(redis().zrange(`${PREFIX}replay-order`, 0, -1, 'WITHSCORES')).resolves.toEqual(['s1', '3']);
    await expect(redis().hgetall(`${PREFIX}replay-bytes`)).resolves.toEqual({ s1: String(3 * size) });
    await expect(redis().get(`${PREFIX}replay-total`)).resolves.toBe(String(3 * size));
    const ttl = await redis().pttl(`${PREFIX}replay:s1`);
    expect(ttl).toBeGreaterThan(REPLAY_TTL_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(REPLAY_TTL_MS);

    await redis().pexpire(`${PREFIX}replay:s1`, 1_000);
    await store.append('s1', replayEvent('a', 5));
    await expect(redis().pttl(`${PREFIX}replay:s1`)).resolves.toBeGreaterThan(REPLAY_TTL_MS - 5_000);

    // Nothing is left behind once no session keeps a buffer.
    await store.clear('s1');
    await expect(allKeys()).resolves.toEqual([]);
  });

  it('holds the total across instances, the oldest of all dropped first whichever instance appended it', async () => {
    const bytes = { sessionBytes: 2_000, totalBytes: 3_000 };
    const store = new RedisReplayStore(hub, 10, REPLAY_TTL_MS, bytes);
    const other = new RedisReplayStore(await otherHub(), 10, REPLAY_TTL_MS, bytes);
    await store.append('s1', sizedEvent('a', 0, 1_000));
    await other.append('s2', sizedEvent('a', 0, 1_000));
    await store.append('s3', sizedEvent('a', 0, 1_000));
    await other.append('s3', sizedEvent('a', 1, 1_000));
    await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [], found: false });
    await expect(other.after('s2', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 0, 1_000)], found: false });
    await expect(redis().get(`${PREFIX}replay-total`)).resolves.toBe('3000');
    await expect(redis().zrange(`${PREFIX}replay-order`, 0, -1)).resolves.toEqual(['s2', 's3']);
  });

  it('takes back the bytes of a buffer that expired with its TTL once it would be the oldest', async () => {
    const store = new RedisReplayStore(hub, 10, REPLAY_TTL_MS, { sessionBytes: 2_000, totalBytes: 3_000 });
    await store.append('s1', sizedEvent('a', 0, 2_000));
    await store.append('s2', sizedEvent('a', 0, 1_000));
    // s1's list expires (no instance was left to drop it); its bytes are still counted.
    await redis().del(`${PREFIX}replay:s1`);
    await store.append('s3', sizedEvent('a', 0, 1_000));
    await expect(store.after('s2', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 0, 1_000)], found: false });
    await expect(store.after('s3', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 0, 1_000)], found: false });
    await expect(redis().get(`${PREFIX}replay-total`)).resolves.toBe('2000');
    await expect(redis().hgetall(`${PREFIX}replay-bytes`)).resolves.toEqual({ s2: '1000', s3: '1000' });
    // A session whose list expired starts again from what it appends.
    await redis().del(`${PREFIX}replay:s2`);
    await store.append('s2', sizedEvent('a', 1, 500));
    await expect(redis().get(`${PREFIX}replay-total`)).resolves.toBe('1500');
  });

  it('reads events without their bookkeeping, and those written before events carried it', async () => {
    const store = new RedisReplayStore(hub, 10, REPLAY_TTL_MS, { sessionBytes: 2_000, totalBytes: 3_000 });
    await redis().rpush(`${PREFIX}replay:s1`, JSON.stringify(replayEvent('a', 0)));
    await store.append('s1', replayEvent('a', 1));
    await store.append('s1', { streamId: 'a', seq: 2 });
    await expect(store.after('s1', 'a', -1)).resolves.toEqual({
      events: [replayEvent('a', 0), replayEvent('a', 1), { streamId: 'a', seq: 2 }],
      found: false,
    });
    const [, , priming] = await redis().lrange(`${PREFIX}replay:s1`, 0, -1);
    expect(priming).toBe('{"g":2,"n":0,"streamId":"a","seq":2}');
    // The session ranks among all as of its first event it counted.
    await expect(redis().zrange(`${PREFIX}replay-order`, 0, -1, 'WITHSCORES')).resolves.toEqual(['s1', '1']);
    const window = await store.after('s1', 'a', 0);
    expect(window.events.map((event) => Object.keys(event))).toEqual([
      ['streamId', 'seq', 'message'],
      ['streamId', 'seq'],
    ]);
  });

  it('is shared between instances', async () => {
    const store = new RedisReplayStore(hub, 10, REPLAY_TTL_MS);
    const other = new RedisReplayStore(await otherHub(), 10, REPLAY_TTL_MS);
    await store.append('s1', replayEvent('a', 0));
    await other.append('s1', replayEvent('a', 1));
    await expect(other.after('s1', 'a', 0)).resolves.toEqual({ events: [replayEvent('a', 1)], found: true });
    await other.clear('s1');
    await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [], found: false });
  });

  it('refuses a TTL that is not a positive integer', () => {
    expect(() => new RedisReplayStore(hub, 4, 0)).toThrow(RangeError);
  });
});

describe('RedisTaskStore', () => {
  let store: RedisTaskStore;
  let now: number;

  beforeEach(() => {
    store = new RedisTaskStore(hub, { retentionGraceMs: GRACE_MS });
    now = Date.now();
  });

  /** Whether a TTL is what a key expiring at `at` (epoch ms) has left, give or take 5 s. */
  function expectTtlNear(ttl: number, at: number): void {
    expect(ttl).toBeLessThanOrEqual(at - now);
    expect(ttl).toBeGreaterThan(at - now - 5_000);
  }

  it('keeps a task as JSON expiring a grace time after its expiry, with owner sets and a due index', async () => {
    const record = taskRecord('task_a', now, { expiresAt: now + 60_000 });
    await store.create(record);
    expect(await allKeys()).toEqual([
      `${PREFIX}task:task_a`,
      `${PREFIX}tasks:due`,
      `${PREFIX}tasks:live:principal:alice`,
      `${PREFIX}tasks:owner:principal:alice`,
      `${PREFIX}tasks:quota-live:principal:alice`,
    ]);
    expect(JSON.parse((await redis().get(`${PREFIX}task:task_a`))!)).toEqual(record);
    await expect(redis().zscore(`${PREFIX}tasks:due`, 'task_a')).resolves.toBe(String(now + 60_000));
    for (const key of [
      `${PREFIX}task:task_a`,
      `${PREFIX}tasks:owner:principal:alice`,
      `${PREFIX}tasks:live:principal:alice`,
      `${PREFIX}tasks:quota-live:principal:alice`,
    ]) {
      expectTtlNear(await redis().pttl(key), now + 60_000 + GRACE_MS);
    }
  });

  it('moves the expiry of the key with the task, and lets a task past its expiry live the grace time', async () => {
    await store.create(taskRecord('task_a', now));
    await store.update('task_a', (current) => ({ ...current, expiresAt: now + 600_000 }));
    expectTtlNear(await redis().pttl(`${PREFIX}task:task_a`), now + 600_000 + GRACE_MS);
    // The owner's sets live as long as its longest task.
    expectTtlNear(await redis().pttl(`${PREFIX}tasks:owner:principal:alice`), now + 600_000 + GRACE_MS);
    await store.create(taskRecord('task_b', now, { expiresAt: now + 1_000 }));
    expectTtlNear(await redis().pttl(`${PREFIX}tasks:owner:principal:alice`), now + 600_000 + GRACE_MS);

    await store.update('task_a', (current) => ({ ...current, expiresAt: now - 3_600_000 }));
    expectTtlNear(await redis().pttl(`${PREFIX}task:task_a`), now + GRACE_MS);
    await expect(store.get('task_a')).resolves.toMatchObject({ expiresAt: now - 3_600_000 });
  });

  it("counts a key's time to live by the clock the task's times were read with, not this process's", async () => {
    // The module's clock is Redis's: an hour ahead of this process's here.
    const ahead = now + 3_600_000;
    const skewed = new RedisTaskStore(hub, {
      retentionGraceMs: GRACE_MS,
      clock: { now: () => Date.now() + 3_600_000 },
    });
    await skewed.create(taskRecord('task_a', ahead, { expiresAt: ahead + 60_000 }));
    expectTtlNear(await redis().pttl(`${PREFIX}task:task_a`), now + 60_000 + GRACE_MS);
  });

  it('leaves no key behind once its tasks are deleted', async () => {
    await store.create(taskRecord('task_a', now));
    await store.create(taskRecord('task_b', now, { owner: 'session:s1', status: 'completed' }));
    await store.update('task_a', (current) => ({ ...current, status: 'failed' }));
    await store.delete('task_a');
    await store.delete('task_b');
    await expect(allKeys()).resolves.toEqual([]);
  });

  it('drops the ids of expired task keys from the owner sets and the due index when it reads them', async () => {
    await store.create(taskRecord('task_a', now));
    await store.create(taskRecord('task_b', now, { expiresAt: now - 1 }));
    await store.create(taskRecord('task_c', now, { status: 'completed', expiresAt: now - 1 }));
    // What the expiry does when no instance sweeps.
    await redis().del(`${PREFIX}task:task_b`, `${PREFIX}task:task_c`);

    await expect(store.countLive('principal:alice')).resolves.toBe(1);
    await expect(redis().smembers(`${PREFIX}tasks:live:principal:alice`)).resolves.toEqual(['task_a']);
    expect((await store.list('principal:alice')).map((record) => record.id)).toEqual(['task_a']);
    await expect(redis().smembers(`${PREFIX}tasks:owner:principal:alice`)).resolves.toEqual(['task_a']);
    await expect(store.due(now)).resolves.toEqual([]);
    await expect(redis().zrange(`${PREFIX}tasks:due`, 0, -1)).resolves.toEqual(['task_a']);
    await store.delete('task_b');
    await store.delete('task_a');
    // The quota sets cannot tell whose expired tasks they name: they expire with them (the live
    // set is also cleaned when its key is at the cap, the ended set when it is trimmed).
    await expect(allKeys()).resolves.toEqual([
      `${PREFIX}tasks:quota-ended:principal:alice`,
      `${PREFIX}tasks:quota-live:principal:alice`,
    ]);
    await expect(redis().smembers(`${PREFIX}tasks:quota-live:principal:alice`)).resolves.toEqual(['task_b']);
    expectTtlNear(await redis().pttl(`${PREFIX}tasks:quota-live:principal:alice`), now + 60_000 + GRACE_MS);
    await expect(store.createWithin(taskRecord('task_d', now), 1)).resolves.toBe(true);
    await expect(redis().smembers(`${PREFIX}tasks:quota-live:principal:alice`)).resolves.toEqual(['task_d']);
    await expect(store.trimEnded('principal:alice', 0)).resolves.toBe(1);
    await expect(redis().exists(`${PREFIX}tasks:quota-ended:principal:alice`)).resolves.toBe(0);
  });

  it('lands every one of concurrent updates from two instances', async () => {
    const other = new RedisTaskStore(await otherHub(), { retentionGraceMs: GRACE_MS });
    await store.create(taskRecord('task_a', now, { statusMessage: '0', result: { increments: [] } }));
    const increment =
      (by: string) =>
      (current: ReturnType<typeof taskRecord>): ReturnType<typeof taskRecord> => ({
        ...current,
        statusMessage: String(Number(current.statusMessage) + 1),
        result: { increments: [...(current.result!.increments as string[]), by] },
      });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        index % 2 === 0
          ? store.update('task_a', increment(`a${index}`))
          : other.update('task_a', increment(`b${index}`)),
      ),
    );
    const stored = (await other.get('task_a'))!;
    expect(stored.statusMessage).toBe('20');
    const increments = stored.result!.increments as string[];
    expect([...increments].sort()).toEqual(
      Array.from({ length: 20 }, (_, index) => `${index % 2 === 0 ? 'a' : 'b'}${index}`).sort(),
    );
    // Each update resolved with the task as it stored it: the counts 1 to 20, once each.
    expect(results.map((result) => Number(result!.statusMessage)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, index) => index + 1),
    );
  });

  it('runs the change again on the task as another writer left it, and stops for a task deleted meanwhile', async () => {
    const key = `${PREFIX}task:task_a`;
    await store.create(taskRecord('task_a', now, { statusMessage: 'first' }));
    const seen: Array<string | undefined> = [];
    const updated = await store.update('task_a', (current) => {
      seen.push(current.statusMessage);
      if (seen.length === 1) {
        // Sent on the store's own connection, so Redis runs it before the store's write.
        void redis().set(key, JSON.stringify({ ...current, statusMessage: 'theirs' }), 'KEEPTTL');
      }
      return { ...current, status: 'completed' };
    });
    expect(seen).toEqual(['first', 'theirs']);
    expect(updated).toMatchObject({ status: 'completed', statusMessage: 'theirs' });
    await expect(store.get('task_a')).resolves.toEqual(updated);

    let calls = 0;
    const gone = await store.update('task_a', (current) => {
      calls += 1;
      void redis().del(key);
      return { ...current, status: 'failed' };
    });
    expect(gone).toBeUndefined();
    expect(calls).toBe(1);
    await expect(store.get('task_a')).resolves.toBeUndefined();
  });

  it('gives up on a task that changes under every attempt', async () => {
    const key = `${PREFIX}task:task_a`;
    await store.create(taskRecord('task_a', now, { statusMessage: '0' }));
    let calls = 0;
    await expect(
      store.update('task_a', (current) => {
        calls += 1;
        void redis().set(key, JSON.stringify({ ...current, statusMessage: String(calls) }), 'KEEPTTL');
        return { ...current, status: 'completed' };
      }),
    ).rejects.toThrow(/update abandoned/);
    expect(calls).toBe(50);
    await expect(store.get('task_a')).resolves.toMatchObject({ status: 'working', statusMessage: '50' });
  });

  it('refuses a negative grace time', () => {
    expect(() => new RedisTaskStore(hub, { retentionGraceMs: -1 })).toThrow(RangeError);
  });
});

describe('Redis stores while Redis is down', () => {
  it('fail at once with McpStoreUnavailableError, and work again once Redis is back', async () => {
    const sessions = new RedisSessionStore(hub, { idleTimeoutMs: IDLE_MS });
    const replay = new RedisReplayStore(hub, 4, REPLAY_TTL_MS);
    const tasks = new RedisTaskStore(hub, { retentionGraceMs: GRACE_MS });
    await sessions.create(sessionRecord('s1'));

    await server.stop();
    try {
      await eventually(async () => !hub.ready, 5_000);
      const operations: Array<[string, () => Promise<unknown>]> = [
        ['session create', () => sessions.create(sessionRecord('s2'))],
        ['session get', () => sessions.get('s1')],
        ['session update', () => sessions.update('s1', { logLevel: 'debug' })],
        ['session touch', () => sessions.touch('s1', 5_000)],
        ['session delete', () => sessions.delete('s1')],
        ['session count', () => sessions.count()],
        ['session idleSince', () => sessions.idleSince(5_000)],
        ['session subscribe', () => sessions.subscribe('s1', 'file:///a')],
        ['session subscribers', () => sessions.subscribers('file:///a')],
        ['replay append', () => replay.append('s1', replayEvent('a', 0))],
        ['replay after', () => replay.after('s1', 'a', 0)],
        ['replay clear', () => replay.clear('s1')],
        ['task create', () => tasks.create(taskRecord('task_a', Date.now()))],
        ['task get', () => tasks.get('task_a')],
        ['task update', () => tasks.update('task_a', (current) => current)],
        ['task list', () => tasks.list('principal:alice')],
        ['task countLive', () => tasks.countLive('principal:alice')],
        ['task due', () => tasks.due(Date.now())],
        ['task delete', () => tasks.delete('task_a')],
      ];
      for (const [what, operation] of operations) {
        const started = Date.now();
        const error = await operation().then(
          () => undefined,
          (reason: unknown) => reason,
        );
        expect({ what, error }).toEqual({ what, error: expect.any(McpStoreUnavailableError) });
        // Bounded by the command timeout (1 s), not by a reconnection wait.
        expect(Date.now() - started).toBeLessThan(3_000);
      }
    } finally {
      await server.start();
    }
    // The restarted server has no scripts cached: the stores send them again.
    await eventually(async () => (await sessions.count()) === 0);
    await sessions.create(sessionRecord('s3'));
    await sessions.subscribe('s3', 'file:///a');
    await expect(sessions.update('s3', { logLevel: 'debug' })).resolves.toMatchObject({ state: { logLevel: 'debug' } });
    await replay.append('s3', replayEvent('a', 0));
    await expect(replay.after('s3', 'a', -1)).resolves.toEqual({ events: [replayEvent('a', 0)], found: false });
    await tasks.create(taskRecord('task_a', Date.now()));
    await expect(tasks.update('task_a', (current) => ({ ...current, status: 'completed' }))).resolves.toMatchObject({
      status: 'completed',
    });
    await expect(tasks.countLive('principal:alice')).resolves.toBe(0);
    await expect(sessions.delete('s3')).resolves.toBe(true);
  });
  it('fail with McpStoreUnavailableError after the command timeout when Redis does not answer', async () => {
    const tasks = new RedisTaskStore(hub, { retentionGraceMs: GRACE_MS });
    const pauser = await otherHub();
    await pauser.client.call('CLIENT', 'PAUSE', '3000', 'ALL');
    const started = Date.now();
    await expect(tasks.get('task_a')).rejects.toThrow(McpStoreUnavailableError);
    // The command timeout (1 s) ended the wait, not the end of the pause.
    expect(Date.now() - started).toBeLessThan(2_500);
    await eventually(async () => (await tasks.get('task_a')) === undefined);
  });
});

describe('startRedisServer', () => {
  it('says how to install redis-server when it is missing', async () => {
    const configured = process.env.REDIS_SERVER;
    process.env.REDIS_SERVER = '/nonexistent/redis-server';
    try {
      await expect(startRedisServer()).rejects.toThrow(/apt-get install redis-server/);
    } finally {
      if (configured === undefined) {
        delete process.env.REDIS_SERVER;
      } else {
        process.env.REDIS_SERVER = configured;
      }
    }
  });
});
