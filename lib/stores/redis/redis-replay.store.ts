import {
  replayWindow,
  type ReplayEvent,
  type ReplayStore,
  type ReplayWindow,
} from '../../sessions/replay-store.interface';
import { redisScript, type RedisHub } from './redis-hub';

/** KEYS: list. ARGV: event JSON, capacity, ttl. */
const APPEND = redisScript(`
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);

/**
 * Replay buffers in Redis, shared by every instance: `replay:<sessionId>` under the hub's
 * prefix is a list of the session's last `capacity` events (JSON), across its streams, oldest
 * first. A buffer is dropped with its session, and expires `ttlMs` after its last event in case
 * no instance is left to drop it.
 *
 * @publicApi
 */
export class RedisReplayStore implements ReplayStore {
  constructor(
    private readonly hub: RedisHub,
    private readonly capacity: number,
    private readonly ttlMs: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`A replay buffer holds at least one event (got ${capacity})`);
    }
    if (!Number.isInteger(ttlMs) || ttlMs < 1) {
      throw new RangeError(`A replay buffer's TTL must be a positive integer (got ${ttlMs})`);
    }
  }

  async append(sessionId: string, event: ReplayEvent): Promise<void> {
    await this.hub.eval(
      'replay append',
      APPEND,
      [this.key(sessionId)],
      [JSON.stringify(event), this.capacity, this.ttlMs],
    );
  }

  async after(sessionId: string, streamId: string, seq: number): Promise<ReplayWindow> {
    const stored = await this.hub.run('replay after', (client) => client.lrange(this.key(sessionId), 0, -1));
    return replayWindow(
      stored.map((json) => JSON.parse(json) as ReplayEvent),
      streamId,
      seq,
    );
  }

  async clear(sessionId: string): Promise<void> {
    await this.hub.run('replay clear', (client) => client.del(this.key(sessionId)));
  }

  private key(sessionId: string): string {
    return this.hub.key('replay', sessionId);
  }
}
