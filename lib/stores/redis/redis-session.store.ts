import type { SessionState } from '../../protocol/session-handle';
import type { SessionRecord, SessionStore } from '../../sessions/session-store.interface';
import { LUA_EXISTING_MEMBERS, LUA_EXTEND_TTL } from './redis-keys';
import { redisScript, type RedisHub } from './redis-hub';

/** Settings of {@link RedisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** `sessions.idleTimeoutMs`: the keys of a session outlive its last activity by more than this. */
  readonly idleTimeoutMs: number;
}

/** Prefix of the hash fields that hold one state key each, as JSON. */
const STATE_FIELD = 'st:';

/** Lua: the session's keys live `ttl` more ms (the hash, its subscription set, its uri sets). */
const LUA_REFRESH = `
local function refresh(hash, subs, uri_base, ttl)
  redis.call('PEXPIRE', hash, ttl)
  if redis.call('PEXPIRE', subs, ttl) == 1 then
    for _, uri in ipairs(redis.call('SMEMBERS', subs)) do
      extend_ttl(uri_base .. uri, tonumber(ttl))
    end
  end
end
`;

/** KEYS: hash, index. ARGV: ttl, id, lastActivity, field/value pairs. */
const CREATE = redisScript(`
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
return 1
`);

/**
 * KEYS: hash, subs. ARGV: ttl, uri key base, number of pairs to set, the pairs, then the fields
 * to remove. Only an existing session is changed (a deleted one is not brought back).
 */
const UPDATE = redisScript(`${LUA_EXTEND_TTL}${LUA_REFRESH}
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
local pairs_end = 3 + 2 * tonumber(ARGV[3])
if pairs_end > 3 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 4, pairs_end))
end
if #ARGV > pairs_end then
  redis.call('HDEL', KEYS[1], unpack(ARGV, pairs_end + 1))
end
refresh(KEYS[1], KEYS[2], ARGV[2], ARGV[1])
return redis.call('HGETALL', KEYS[1])
`);

/** KEYS: hash, subs, index. ARGV: ttl, uri key base, at, id. */
const TOUCH = redisScript(`${LUA_EXTEND_TTL}${LUA_REFRESH}
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local last = tonumber(redis.call('HGET', KEYS[1], 'lastActivity'))
if last == nil or tonumber(ARGV[3]) > last then
  redis.call('HSET', KEYS[1], 'lastActivity', ARGV[3])
end
redis.call('ZADD', KEYS[3], 'GT', ARGV[3], ARGV[4])
refresh(KEYS[1], KEYS[2], ARGV[2], ARGV[1])
return 1
`);

/** KEYS: hash, index, subs. ARGV: id, uri key base. Answers 1 when the session existed. */
const DELETE = redisScript(`
local existed = redis.call('DEL', KEYS[1]) + redis.call('ZREM', KEYS[2], ARGV[1])
for _, uri in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  redis.call('SREM', ARGV[2] .. uri, ARGV[1])
end
redis.call('DEL', KEYS[3])
if existed > 0 then
  return 1
end
return 0
`);

/** KEYS: hash, subs, uri set. ARGV: id, uri, ttl. */
const SUBSCRIBE = redisScript(`${LUA_EXTEND_TTL}
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[1])
extend_ttl(KEYS[3], tonumber(ARGV[3]))
return 1
`);

/** KEYS: subs, uri set. ARGV: id, uri. */
const UNSUBSCRIBE = redisScript(`
redis.call('SREM', KEYS[1], ARGV[2])
redis.call('SREM', KEYS[2], ARGV[1])
return 1
`);

/** KEYS: uri set. ARGV: session key base. The ids whose session still exists; drops the others. */
const SUBSCRIBERS = redisScript(`${LUA_EXISTING_MEMBERS}
return existing_members(KEYS[1], ARGV[1])
`);

/**
 * Sessions in Redis, shared by every instance. Under the hub's prefix:
 *
 * - `session:<id>`: a hash of `id`, `principalId`, `createdAt`, `lastActivity` and one `st:<key>`
 *   field per state key (JSON), so that a state change writes only its own fields;
 * - `sessions`: a sorted set of the session ids by last activity (`idleSince`, `count`);
 * - `session:<id>:subs`: the set of uris the session subscribed to, and `subscribers:<uri>` the
 *   set of sessions subscribed to a uri.
 *
 * The sweeper ends idle sessions through `delete`; in case no instance runs it, every key but the
 * index expires a while after the session's last activity. Index entries whose hash expired are
 * still reported by `idleSince`, so the next sweep deletes them. Records read are fresh objects:
 * unlike the memory store, two reads never give the same object.
 *
 * @publicApi
 */
export class RedisSessionStore implements SessionStore {
  /** How long a session's keys live after its last activity. */
  private readonly ttlMs: number;

  constructor(
    private readonly hub: RedisHub,
    options: RedisSessionStoreOptions,
  ) {
    const idle = options.idleTimeoutMs;
    if (!Number.isInteger(idle) || idle < 1) {
      throw new RangeError(`idleTimeoutMs must be a positive integer (got ${idle})`);
    }
    // Long enough that the sweeper (every sweepIntervalMs ≤ the idle timeout) ends it first.
    this.ttlMs = idle + Math.max(idle, 60_000);
  }

  async create(record: SessionRecord): Promise<void> {
    const fields: string[] = [
      'id',
      record.id,
      'principalId',
      record.principalId,
      'createdAt',
      String(record.createdAt),
      'lastActivity',
      String(record.lastActivity),
    ];
    for (const [name, value] of Object.entries(record.state)) {
      if (value !== undefined) {
        fields.push(STATE_FIELD + name, JSON.stringify(value));
      }
    }
    await this.hub.eval(
      'session create',
      CREATE,
      [this.sessionKey(record.id), this.indexKey()],
      [this.ttlMs, record.id, String(record.lastActivity), ...fields],
    );
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const fields = await this.hub.run('session get', (client) => client.hgetall(this.sessionKey(id)));
    return toRecord(fields);
  }

  async update(id: string, patch: Partial<SessionState>): Promise<SessionRecord | undefined> {
    const set: string[] = [];
    const removed: string[] = [];
    for (const [name, value] of Object.entries(patch)) {
      if (value === undefined) {
        removed.push(STATE_FIELD + name);
      } else {
        set.push(STATE_FIELD + name, JSON.stringify(value));
      }
    }
    const reply = await this.hub.eval(
      'session update',
      UPDATE,
      [this.sessionKey(id), this.subsKey(id)],
      [this.ttlMs, this.uriKey(''), set.length / 2, ...set, ...removed],
    );
    return Array.isArray(reply) ? toRecord(pairsToObject(reply as string[])) : undefined;
  }

  async touch(id: string, at: number): Promise<void> {
    await this.hub.eval(
      'session touch',
      TOUCH,
      [this.sessionKey(id), this.subsKey(id), this.indexKey()],
      [this.ttlMs, this.uriKey(''), String(at), id],
    );
  }

  async delete(id: string): Promise<boolean> {
    const reply = await this.hub.eval(
      'session delete',
      DELETE,
      [this.sessionKey(id), this.indexKey(), this.subsKey(id)],
      [id, this.uriKey('')],
    );
    return reply === 1;
  }

  async count(): Promise<number> {
    return this.hub.run('session count', (client) => client.zcard(this.indexKey()));
  }

  async idleSince(cutoff: number): Promise<string[]> {
    return this.hub.run('session idleSince', (client) => client.zrangebyscore(this.indexKey(), '-inf', `(${cutoff}`));
  }

  async subscribe(id: string, uri: string): Promise<void> {
    await this.hub.eval(
      'session subscribe',
      SUBSCRIBE,
      [this.sessionKey(id), this.subsKey(id), this.uriKey(uri)],
      [id, uri, this.ttlMs],
    );
  }

  async unsubscribe(id: string, uri: string): Promise<void> {
    await this.hub.eval('session unsubscribe', UNSUBSCRIBE, [this.subsKey(id), this.uriKey(uri)], [id, uri]);
  }

  async subscribers(uri: string): Promise<string[]> {
    const reply = await this.hub.eval('session subscribers', SUBSCRIBERS, [this.uriKey(uri)], [this.sessionKey('')]);
    return reply as string[];
  }

  private sessionKey(id: string): string {
    return this.hub.key('session', id);
  }

  private subsKey(id: string): string {
    return this.hub.key('session', id, 'subs');
  }

  private uriKey(uri: string): string {
    return this.hub.key('subscribers', uri);
  }

  private indexKey(): string {
    return this.hub.key('sessions');
  }
}

function pairsToObject(pairs: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let index = 0; index + 1 < pairs.length; index += 2) {
    fields[pairs[index]] = pairs[index + 1];
  }
  return fields;
}

function toRecord(fields: Record<string, string>): SessionRecord | undefined {
  if (fields.id === undefined) {
    return undefined;
  }
  const state: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name.startsWith(STATE_FIELD)) {
      state[name.slice(STATE_FIELD.length)] = JSON.parse(value);
    }
  }
  return {
    id: fields.id,
    principalId: fields.principalId,
    createdAt: Number(fields.createdAt),
    lastActivity: Number(fields.lastActivity),
    state: state as unknown as SessionState,
  };
}
