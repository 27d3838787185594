/**
 * The Redis link between instances and the Redis notification bus, with a real redis-server:
 * two hubs stand for two instances.
 */
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { ClusterMessage } from '../../lib/cluster/cluster-link.interface';
import { RedisHub } from '../../lib/stores/redis/redis-hub';
import { RedisClusterLink } from '../../lib/stores/redis/redis-cluster.link';
import { RedisNotificationBus } from '../../lib/stores/redis/redis-notification.bus';
import { MemoryClusterLink } from '../../lib/stores/memory/memory-cluster.link';
import type { McpEvent } from '../../lib/interfaces/notification-bus.interface';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { waitUntil } from '../support/waiting';

let server: RedisServerHandle;
const closers: Array<() => Promise<void> | void> = [];
let prefixCount = 0;

async function instance(
  keyPrefix: string,
): Promise<{ hub: RedisHub; link: RedisClusterLink; bus: RedisNotificationBus }> {
  const hub = await RedisHub.connect({ url: server.url, keyPrefix, commandTimeoutMs: 1000 });
  const link = await RedisClusterLink.create(hub);
  const bus = await RedisNotificationBus.create(hub);
  closers.push(async () => {
    await link.close();
    bus.close();
    await hub.close();
  });
  return { hub, link, bus };
}

async function pair() {
  const prefix = `link${(prefixCount += 1)}:`;
  return [await instance(prefix), await instance(prefix)] as const;
}

/** Resolves with what `subscribe` receives until `count` items arrived (or rejects after 3 s). */
function collect<T>(subscribe: (push: (item: T) => void) => void, count: number): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const items: T[] = [];
    const timer = setTimeout(
      () => reject(new Error(`got ${items.length} of ${count}: ${JSON.stringify(items)}`)),
      3000,
    );
    subscribe((item) => {
      items.push(item);
      if (items.length === count) {
        clearTimeout(timer);
        resolve(items);
      }
    });
  });
}

const message = (sessionId: string): ClusterMessage => ({
  type: 'session_message',
  sessionId,
  message: { jsonrpc: '2.0', method: 'notifications/message', params: { sessionId } },
});

beforeAll(async () => {
  // The failing handler below is logged; the log is not what these tests read.
  Logger.overrideLogger(false);
  server = await startRedisServer();
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) {
    await close();
  }
});

afterAll(async () => {
  await server.stop();
});

describe('RedisClusterLink', () => {
  it('sends to one instance, in order, and never to the sender itself', async () => {
    const [a, b] = await pair();
    const atA: ClusterMessage[] = [];
    a.link.onMessage((received) => atA.push(received));
    const atB = collect<ClusterMessage>((push) => b.link.onMessage(push), 3);
    await a.link.send(b.link.instanceId, message('s1'));
    await a.link.send(a.link.instanceId, message('to-self'));
    await a.link.send(b.link.instanceId, message('s2'));
    await a.link.send(b.link.instanceId, message('s3'));
    expect((await atB).map((received) => (received as { sessionId: string }).sessionId)).toEqual(['s1', 's2', 's3']);
    expect(atA).toEqual([]);
  });

  it('broadcasts to every other instance, not back to the sender', async () => {
    const [a, b] = await pair();
    const c = await instance(a.hub.key(''));
    const atA: ClusterMessage[] = [];
    a.link.onMessage((received) => atA.push(received));
    const atB = collect<ClusterMessage>((push) => b.link.onMessage(push), 1);
    const atC = collect<ClusterMessage>((push) => c.link.onMessage(push), 1);
    await a.link.broadcast({ type: 'session_ended', sessionId: 's1', reason: 'deleted' });
    await expect(atB).resolves.toEqual([{ type: 'session_ended', sessionId: 's1', reason: 'deleted' }]);
    await expect(atC).resolves.toEqual([{ type: 'session_ended', sessionId: 's1', reason: 'deleted' }]);
    // A later message of B to A proves A's listener ran meanwhile: it got nothing of its own.
    const back = collect<ClusterMessage>((push) => a.link.onMessage(push), 1);
    await b.link.send(a.link.instanceId, message('back'));
    await back;
    expect(atA).toEqual([message('back')]);
  });

  it('grants a stream claim to one instance at a time, names its holder, and frees it on release', async () => {
    const [a, b] = await pair();
    const claims = await Promise.all([a.link.claimStream('s1', 'get'), b.link.claimStream('s1', 'pair')]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const winner = claims[0] ? a.link : b.link;
    const loser = claims[0] ? b.link : a.link;
    await expect(loser.streamHolder('s1')).resolves.toEqual({
      instanceId: winner.instanceId,
      kind: claims[0] ? 'get' : 'pair',
    });
    await expect(winner.claimStream('s1', 'get')).resolves.toBe(false);
    // Only the holder's release frees it.
    await loser.releaseStream('s1');
    await expect(loser.streamHolder('s1')).resolves.toBeDefined();
    await winner.releaseStream('s1');
    await expect(loser.streamHolder('s1')).resolves.toBeUndefined();
    await expect(loser.claimStream('s1', 'get')).resolves.toBe(true);
  });

  it('gives every claim a TTL, and gives its claims up when it closes', async () => {
    const [a, b] = await pair();
    await a.link.claimStream('s1', 'get');
    await a.link.claimStream('s2', 'pair');
    const ttl = await a.hub.client.pttl(a.hub.key('stream', 's1'));
    expect(ttl).toBeGreaterThan(20_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    await a.link.close();
    await expect(b.link.streamHolder('s1')).resolves.toBeUndefined();
    await expect(b.link.streamHolder('s2')).resolves.toBeUndefined();
  });

  it('fails a claim with McpStoreUnavailableError while Redis is away, then works again, subscriptions included', async () => {
    const [a, b] = await pair();
    await server.stop();
    try {
      const started = Date.now();
      await expect(a.link.claimStream('s1', 'get')).rejects.toMatchObject({ name: 'McpStoreUnavailableError' });
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await server.start();
    }
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await expect(a.link.claimStream('s1', 'get')).resolves.toBe(true);
        break;
      } catch (error) {
        if (Date.now() > deadline) {
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    // B's subscriptions were made again on its new connection: A's messages reach it.
    const received: ClusterMessage[] = [];
    b.link.onMessage((item) => received.push(item));
    const events: McpEvent[] = [];
    b.bus.subscribe((event) => events.push(event));
    const until = Date.now() + 10_000;
    while (received.length === 0 || events.length === 0) {
      if (Date.now() > until) {
        throw new Error(`after the restart B got ${received.length} messages and ${events.length} events`);
      }
      await a.link.send(b.link.instanceId, message('after-restart'));
      await a.bus.publish({ type: 'list_changed', list: 'tools' });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(received[0]).toEqual(message('after-restart'));
    expect(events[0]).toEqual({ type: 'list_changed', list: 'tools' });
  });
});

describe('RedisClusterLink: liveness', () => {
  /** Resolves once `check` holds (polled), or rejects after 3 s. */
  const eventually = (check: () => Promise<boolean>, what: string): Promise<void> =>
    waitUntil(check, what, 3_000, { intervalMs: 20 });

  /** Redis's clock, in ms. */
  async function redisNow(hub: RedisHub): Promise<number> {
    const [seconds, micros] = await hub.client.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  it('takes over the claim of an instance whose connections dropped (killed), and says a message for it reached no one', async () => {
    const [a, b] = await pair();
    await expect(a.link.claimStream('s1', 'get', 'stream-of-a')).resolves.toBe(true);
    await expect(a.link.claimStream('s2', 'pair')).resolves.toBe(true);
    // Alive: its claim holds.
    await expect(b.link.isAlive(a.link.instanceId)).resolves.toBe(true);
    await expect(b.link.claimStream('s1', 'get')).resolves.toBe(false);
    await expect(b.link.send(a.link.instanceId, message('s1'))).resolves.toBe(true);

    const stopped = collect<ClusterMessage>(
      (push) => b.link.onMessage((item) => item.type === 'instance_stopped' && push(item)),
      1,
    );
    // Its sockets close, as when its process is killed: nothing released, its claim still stored.
    await a.hub.close();
    await eventually(async () => !(await b.link.send(a.link.instanceId, message('s1'))), 'undelivered');
    await expect(b.link.isAlive(a.link.instanceId)).resolves.toBe(false);
    await expect(b.link.streamHolder('s1')).resolves.toEqual({
      instanceId: a.link.instanceId,
      kind: 'get',
      streamId: 'stream-of-a',
    });
    // Its GET streams (not its SSE pairs), for one instance to keep their messages (the first to ask).
    await expect(b.link.streamsOf(a.link.instanceId)).resolves.toEqual([{ sessionId: 's1', streamId: 'stream-of-a' }]);
    await expect(b.link.streamsOf(a.link.instanceId)).resolves.toEqual([]);
    await expect(b.link.claimStream('s1', 'get', 'stream-of-a')).resolves.toBe(true);
    // Its heartbeat tells B's handlers too, once.
    await expect(stopped).resolves.toEqual([{ type: 'instance_stopped', instanceId: a.link.instanceId }]);
    await expect(b.link.streamHolder('s1')).resolves.toEqual({
      instanceId: b.link.instanceId,
      kind: 'get',
      streamId: 'stream-of-a',
    });
  });

  it('takes an instance that no longer beats for stopped (hung), even while it listens', async () => {
    const [a] = await pair();
    const hung = 'feedfacefeedface';
    const listener = (a.hub.client as Redis).duplicate({ enableOfflineQueue: true });
    closers.push(() => void listener.disconnect());
    await listener.subscribe(a.hub.key('link', hung));
    const instances = a.hub.key('instances');
    await a.hub.client.set(a.hub.key('stream', 's1'), `${hung} get x`);

    await a.hub.client.zadd(instances, (await redisNow(a.hub)) - 1_000, hung);
    await expect(a.link.isAlive(hung)).resolves.toBe(true);
    await expect(a.link.claimStream('s1', 'get')).resolves.toBe(false);

    // Its last beat is older than the heartbeat's TTL (5 s).
    await a.hub.client.zadd(instances, (await redisNow(a.hub)) - 6_000, hung);
    const b = await instance(a.hub.key(''));
    await expect(b.link.isAlive(hung)).resolves.toBe(false);
    await expect(b.link.claimStream('s1', 'get')).resolves.toBe(true);

    // An instance that never beat (an older version, in a rolling deploy) keeps its claims.
    await a.hub.client.set(a.hub.key('stream', 's2'), 'cafebabecafebabe get y');
    await expect(b.link.claimStream('s2', 'get')).resolves.toBe(false);
  });

  it('gives up the claim of a session that no longer exists, and drops one another instance took over', async () => {
    const [a, b] = await pair();
    const lost: Array<[string, string]> = [];
    a.link.watchClaims({
      exists: async (sessionId) => sessionId !== 'vanished',
      lost: (sessionId, why) => lost.push([sessionId, why]),
    });
    await a.link.claimStream('vanished', 'get', 'x');
    await a.link.claimStream('kept', 'get', 'y');
    await a.link.claimStream('taken', 'get', 'z');
    await a.hub.client.set(a.hub.key('stream', 'taken'), `${b.link.instanceId} get z`);

    await a.link.refreshClaims();
    expect(lost).toEqual([
      ['vanished', 'gone'],
      ['taken', 'taken'],
    ]);
    // The claim of the vanished session is not made again; the other instance keeps its own.
    await expect(b.link.streamHolder('vanished')).resolves.toBeUndefined();
    await expect(b.link.streamHolder('kept')).resolves.toMatchObject({ instanceId: a.link.instanceId });
    await expect(b.link.streamHolder('taken')).resolves.toMatchObject({ instanceId: b.link.instanceId });
    await a.link.refreshClaims();
    expect(lost).toHaveLength(2);
    await expect(b.link.streamHolder('vanished')).resolves.toBeUndefined();
  });

  it('closes after the releases under way, and is taken for stopped within a beat', async () => {
    const [a, b] = await pair();
    await a.link.claimStream('s1', 'get');
    await a.link.claimStream('s2', 'get');
    await expect(b.link.isAlive(a.link.instanceId)).resolves.toBe(true);
    void a.link.releaseStream('s1');
    await a.link.close();
    await a.hub.close();
    await expect(b.link.streamHolder('s1')).resolves.toBeUndefined();
    await expect(b.link.streamHolder('s2')).resolves.toBeUndefined();
    // Within a beat of the others (what they read of it is a beat old at most).
    await eventually(async () => !(await b.link.isAlive(a.link.instanceId)), 'taken for stopped');
  });
});

describe('RedisNotificationBus', () => {
  it('delivers every event to every instance, the publisher included, in publication order', async () => {
    const [a, b] = await pair();
    const events: McpEvent[] = [
      { type: 'list_changed', list: 'tools' },
      { type: 'resource_updated', uri: 'x://1' },
      { type: 'elicitation_complete', sessionId: 's1', elicitationId: 'e1' },
    ];
    const atA = collect<McpEvent>((push) => a.bus.subscribe(push), 3);
    const atB = collect<McpEvent>((push) => b.bus.subscribe(push), 3);
    for (const event of events) {
      await a.bus.publish(event);
    }
    await expect(atA).resolves.toEqual(events);
    await expect(atB).resolves.toEqual(events);
  });

  it('stops delivering to an unsubscribed handler, and a failing handler does not stop the others', async () => {
    const [a, b] = await pair();
    const stopped: McpEvent[] = [];
    const stop = b.bus.subscribe((event) => stopped.push(event));
    b.bus.subscribe(() => {
      throw new Error('handler failure');
    });
    stop();
    const atB = collect<McpEvent>((push) => b.bus.subscribe(push), 1);
    await a.bus.publish({ type: 'list_changed', list: 'prompts' });
    await expect(atB).resolves.toEqual([{ type: 'list_changed', list: 'prompts' }]);
    expect(stopped).toEqual([]);
  });
});

describe('RedisHub errors', () => {
  it('reports a Redis that cannot serve for now (a read-only replica) as unavailable, and a wrong command as it is', async () => {
    const [a] = await pair();
    const key = a.hub.key('probe');
    await a.hub.run('set', (client) => client.set(key, 'text'));
    await expect(a.hub.run('wrong type', (client) => client.hget(key, 'field'))).rejects.toMatchObject({
      name: 'ReplyError',
      message: expect.stringMatching(/^WRONGTYPE/),
    });
    // A replica of a master that does not answer refuses writes with READONLY.
    await a.hub.client.replicaof('127.0.0.1', '1');
    try {
      await expect(a.hub.run('write', (client) => client.set(key, 'other'))).rejects.toMatchObject({
        name: 'McpStoreUnavailableError',
        message: expect.stringContaining('READONLY'),
      });
    } finally {
      await a.hub.client.replicaof('NO', 'ONE');
    }
    await expect(a.hub.run('write', (client) => client.set(key, 'other'))).resolves.toBe('OK');
  });
});

describe('MemoryClusterLink', () => {
  it('is alone: nothing is delivered, claims are exclusive and released', async () => {
    const link = new MemoryClusterLink();
    const received: ClusterMessage[] = [];
    link.onMessage((item) => received.push(item));
    await link.send('other', message('s1'));
    await link.broadcast(message('s1'));
    expect(received).toEqual([]);
    expect(link.shared).toBe(false);
    await expect(link.claimStream('s1', 'get')).resolves.toBe(true);
    await expect(link.claimStream('s1', 'pair')).resolves.toBe(false);
    await expect(link.streamHolder('s1')).resolves.toEqual({ instanceId: link.instanceId, kind: 'get' });
    await link.releaseStream('s1');
    await expect(link.streamHolder('s1')).resolves.toBeUndefined();
  });
});
