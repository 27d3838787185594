/**
 * `RedisHub` against a real redis-server that refuses to serve: every "cannot serve now" reply
 * (out of memory, read-only...) is an `McpStoreUnavailableError`, whether the command failed
 * alone, in a script or in a transaction; it is logged once a minute with Redis's words, not
 * once per command; a line says when Redis serves again; a stalled command's error says it may
 * still have been done.
 */
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RedisHub } from '../../lib/stores/redis/redis-hub';
import { isStoreUnavailable } from '../../lib/protocol/bounds/store-unavailable';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { uniqueKeyPrefix } from '../cluster/cluster-helpers';

const OOM = /^Redis cannot serve now \(([^)]+)\): OOM command not allowed when used memory > 'maxmemory'/;

describe('RedisHub: Redis refusing to serve', () => {
  let redis: RedisServerHandle;
  let admin: Redis;
  let hub: RedisHub;
  let warn: jest.SpyInstance;
  let log: jest.SpyInstance;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url, { lazyConnect: true });
    await admin.connect();
  });

  afterAll(async () => {
    admin?.disconnect();
    await redis?.stop();
  });

  beforeEach(async () => {
    hub = await RedisHub.connect({ url: redis.url, keyPrefix: uniqueKeyPrefix('hub'), commandTimeoutMs: 200 });
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await admin.config('SET', 'maxmemory', '0');
    await hub.close();
  });

  it('out of memory: a write, a script and a transaction are outages, one warning; a line once Redis serves again', async () => {
    const key = hub.key('k');
    await hub.run('seed', (client) => client.set(key, 'seed'));
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');

    const failures = await Promise.all([
      hub.run('write', (client) => client.set(key, 'x')).catch((error: unknown) => error),
      hub
        .eval('script', { lua: "return redis.call('SET', KEYS[1], 'y')", sha: '0'.repeat(40) }, [key], [])
        .catch((error: unknown) => error),
      hub.run('transaction', (client) => client.multi().set(key, 'z').sadd(hub.key('s'), 'm').exec()).catch((e) => e),
    ]);
    for (const [index, what] of ['write', 'script', 'transaction'].entries()) {
      const error = failures[index] as Error;
      expect(isStoreUnavailable(error)).toBe(true);
      expect(error).toMatchObject({ name: 'McpStoreUnavailableError', unconfirmed: false });
      expect(error.message).toMatch(OOM);
      expect(OOM.exec(error.message)![1]).toBe(what);
    }
    // Reads are served.
    await expect(hub.run('read', (client) => client.get(key))).resolves.toBe('seed');
    const warnings = warn.mock.calls.map((call) => String(call[0]));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(OOM);
    // A read going through is not Redis serving again: writes are still refused.
    expect(log).not.toHaveBeenCalled();

    await admin.config('SET', 'maxmemory', '0');
    await expect(hub.run('write', (client) => client.set(key, 'x'))).resolves.toBe('OK');
    expect(log.mock.calls.map((call) => String(call[0]))).toEqual([
      expect.stringMatching(/^Redis serves again \(write\), after 3 failed command\(s\) in \d+\.\d s$/),
    ]);
  });

  it('a wrong command is a bug, as it is; a stalled command may still have been done', async () => {
    const key = hub.key('typed');
    await hub.run('set', (client) => client.set(key, 'text'));
    await expect(hub.run('wrong type', (client) => client.hget(key, 'field'))).rejects.toMatchObject({
      name: 'ReplyError',
      message: expect.stringMatching(/^WRONGTYPE/),
    });
    // Redis runs nothing for a moment: the publish times out, yet goes through once Redis wakes.
    const channel = hub.key('channel');
    let heard!: (payload: string) => void;
    const received = new Promise<string>((resolve) => (heard = resolve));
    await hub.subscribe(channel, (payload) => heard(payload));
    await admin.client('PAUSE', 1_000, 'ALL');
    const stalled = await hub.run('publish', (client) => client.publish(channel, 'x')).catch((e: unknown) => e);
    expect(stalled).toMatchObject({
      name: 'McpStoreUnavailableError',
      unconfirmed: true,
      message: 'Redis did not answer in time (publish): Command timed out',
    });
    await expect(received).resolves.toBe('x');
  });
});
