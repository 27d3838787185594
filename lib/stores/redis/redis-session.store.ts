import type { McpSessionState } from '../../protocol/messages/session-handle';
import {
  sessionQuotaKey,
  type McpSessionAdmission,
  type McpSessionCaps,
  type McpSessionRecord,
  type McpSessionStore,
} from '../../interfaces/session-store.interface';
import { LUA_EXISTING_MEMBERS, LUA_EXTEND_TTL } from './redis-keys';
import { redisScript, type RedisHub } from './redis-hub';

/** Settings of {@link RedisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** `sessions.idleTimeoutMs`: the keys of a session outlive its last activity by more than this. */
  readonly idleTimeoutMs: number;
}

const CREATED: McpSessionAdmission = Object.freeze({ outcome: 'created' });
const SERVER_FULL: McpSessionAdmission = Object.freeze({ outcome: 'server-full' });

/** Prefix of the hash fields that hold one state key each, as JSON. */
const STATE_FIELD = 'st:';

/** Lua: the quota key's index of a session hash (`quota_base .. key`), or false when the hash is gone. */
const LUA_QUOTA_INDEX = `
local function quota_index(hash, quota_base)
  local fields = redis.call('HMGET', hash, 'quotaKey', 'principalId')
  local key = fields[1] or fields[2]
  if key then
    return quota_base .. key
  end
  return false
end
`;

/**
 * Lua: the session's keys live `ttl` more ms (the hash, its subscription set, its uri sets, and
 * its quota key's index at least as long).
 */
const LUA_REFRESH = `${LUA_QUOTA_INDEX}
local function refresh(hash, subs, uri_base, ttl, quota_base)
  redis.call('PEXPIRE', hash, ttl)
  local quota = quota_index(hash, quota_base)
  if quota then
    extend_ttl(quota, tonumber(ttl))
  end
  if redis.call('PEXPIRE', subs, ttl) == 1 then
    for _, uri in ipairs(redis.call('SMEMBERS', subs)) do
      extend_ttl(uri_base .. uri, tonumber(ttl))
    end
  end
end
`;

/**
 * Lua: writes a session (KEYS: hash, index, quota index) from ARGV: ttl, id, lastActivity, then
 * the field/value pairs from `first`.
 */
const LUA_CREATE = `${LUA_EXTEND_TTL}
local function create(first)
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], unpack(ARGV, first))
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
  extend_ttl(KEYS[3], tonumber(ARGV[1]))
end
`;

/** KEYS: hash, index, quota index. ARGV: ttl, id, lastActivity, field/value pairs. */
const CREATE = redisScript(`${LUA_CREATE}
create(4)
return 1
`);

/**
 * The check and the creation in one step. KEYS: hash, index, quota index. ARGV: ttl, id,
 * lastActivity, maxSessions, maxPerPrincipal, candidates, session key base, field/value pairs.
 * Answers 1 when created, 0 when the server is full, and the quota key's longest idle session
 * ids when it is at its cap. The quota index may name sessions whose hash expired (no instance
 * swept them): they are the longest idle, so the candidates looked at are checked and dropped.
 */
const CREATE_WITHIN = redisScript(`${LUA_CREATE}
local id = ARGV[2]
local max_per = tonumber(ARGV[5])
if redis.call('ZSCORE', KEYS[3], id) == false and redis.call('ZCARD', KEYS[3]) >= max_per then
  local candidates = redis.call('ZRANGE', KEYS[3], 0, tonumber(ARGV[6]) - 1)
  local kept = {}
  for _, candidate in ipairs(candidates) do
    if redis.call('EXISTS', ARGV[7] .. candidate) == 1 then
      kept[#kept + 1] = candidate
    else
      redis.call('ZREM', KEYS[3], candidate)
      redis.call('ZREM', KEYS[2], candidate)
    end
  end
  if redis.call('ZCARD', KEYS[3]) >= max_per then
    return kept
  end
end
if redis.call('ZSCORE', KEYS[2], id) == false and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  return 0
end
create(8)
return 1
`);

/**
 * KEYS: hash, subs. ARGV: ttl, uri key base, quota key base, number of pairs to set, the pairs,
 * then the fields to remove. Only an existing session is changed (a deleted one is not brought
 * back).
 */
const UPDATE = redisScript(`${LUA_EXTEND_TTL}${LUA_REFRESH}
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
local pairs_end = 4 + 2 * tonumber(ARGV[4])
if pairs_end > 4 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 5, pairs_end))
end
if #ARGV > pairs_end then
  redis.call('HDEL', KEYS[1], unpack(ARGV, pairs_end + 1))
end
refresh(KEYS[1], KEYS[2], ARGV[2], ARGV[1], ARGV[3])
return redis.call('HGETALL', KEYS[1])
`);

/** KEYS: hash, subs, index. ARGV: ttl, uri key base, at, id, quota key base. */
const TOUCH = redisScript(`${LUA_EXTEND_TTL}${LUA_REFRESH}
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local last = tonumber(redis.call('HGET', KEYS[1], 'lastActivity'))
if last == nil or tonumber(ARGV[3]) > last then
  redis.call('HSET', KEYS[1], 'lastActivity', ARGV[3])
end
redis.call('ZADD', KEYS[3], 'GT', ARGV[3], ARGV[4])
local quota = quota_index(KEYS[1], ARGV[5])
if quota then
  redis.call('ZADD', quota, 'GT', ARGV[3], ARGV[4])
end
refresh(KEYS[1], KEYS[2], ARGV[2], ARGV[1], ARGV[5])
return 1
`);

/** KEYS: hash, index, subs. ARGV: id, uri key base, quota key base. Answers 1 when the session existed. */
const DELETE = redisScript(`${LUA_QUOTA_INDEX}
local quota = quota_index(KEYS[1], ARGV[3])
if quota then
  redis.call('ZREM', quota, ARGV[1])
end
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

/**
 * KEYS: hash, subs, uri set. ARGV: id, uri, ttl, the most subscriptions (0: no bound). Answers 0
 * when the session holds that many others already, 1 otherwise (an unknown session is ignored).
 */
const SUBSCRIBE = redisScript(`${LUA_EXTEND_TTL}
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 1
end
local max = tonumber(ARGV[4])
if max > 0 and redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 0 and redis.call('SCARD', KEYS[2]) >= max then
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
 * - `sessions`: a sorted set of the session ids by last activity (`idleSince`, `count`), and
 *   `sessions:quota:<key>` one per quota key (`sessions.maxPerPrincipal`, the longest idle first);
 * - `session:<id>:subs`: the set of uris the session subscribed to, and `subscribers:<uri>` the
 *   set of sessions subscribed to a uri.
 *
 * The sweeper ends idle sessions through `delete`; in case no instance runs it, every key but the
 * index expires a while after the session's last activity. Index entries whose hash expired are
 * still reported by `idleSince`, so the next sweep deletes them; a quota index names them until
 * it expires, or until its key reaches its cap (`createWithin` drops them then). Records read
 * are fresh objects: unlike the memory store, two reads never give the same object.
 *
 * @publicApi
 */
export class RedisSessionStore implements McpSessionStore {
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

  async create(record: McpSessionRecord): Promise<void> {
    await this.hub.eval('session create', CREATE, this.createKeys(record), [
      this.ttlMs,
      record.id,
      String(record.lastActivity),
      ...fieldsOf(record),
    ]);
  }

  async createWithin(record: McpSessionRecord, caps: McpSessionCaps): Promise<McpSessionAdmission> {
    const reply = await this.hub.eval('session create', CREATE_WITHIN, this.createKeys(record), [
      this.ttlMs,
      record.id,
      String(record.lastActivity),
      caps.maxSessions,
      caps.maxPerPrincipal,
      caps.candidates,
      this.sessionKey(''),
      ...fieldsOf(record),
    ]);
    if (Array.isArray(reply)) {
      return { outcome: 'principal-full', idlest: reply as string[] };
    }
    return reply === 1 ? CREATED : SERVER_FULL;
  }

  async get(id: string): Promise<McpSessionRecord | undefined> {
    const fields = await this.hub.run('session get', (client) => client.hgetall(this.sessionKey(id)));
    return toRecord(fields);
  }

  async update(id: string, patch: Partial<McpSessionState>): Promise<McpSessionRecord | undefined> {
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
      [this.ttlMs, this.uriKey(''), this.quotaKey(''), set.length / 2, ...set, ...removed],
    );
    return Array.isArray(reply) ? toRecord(pairsToObject(reply as string[])) : undefined;
  }

  async touch(id: string, at: number): Promise<void> {
    await this.hub.eval(
      'session touch',
      TOUCH,
      [this.sessionKey(id), this.subsKey(id), this.indexKey()],
      [this.ttlMs, this.uriKey(''), String(at), id, this.quotaKey('')],
    );
  }

  async delete(id: string): Promise<boolean> {
    const reply = await this.hub.eval(
      'session delete',
      DELETE,
      [this.sessionKey(id), this.indexKey(), this.subsKey(id)],
      [id, this.uriKey(''), this.quotaKey('')],
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
    await this.subscribeWithin(id, uri, 0);
  }

  async subscribeWithin(id: string, uri: string, max: number): Promise<boolean> {
    const reply = await this.hub.eval(
      'session subscribe',
      SUBSCRIBE,
      [this.sessionKey(id), this.subsKey(id), this.uriKey(uri)],
      [id, uri, this.ttlMs, max],
    );
    return reply === 1;
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

  /** The index of the sessions counted under a quota key. */
  private quotaKey(key: string): string {
    return this.hub.key('sessions', 'quota', key);
  }

  private createKeys(record: McpSessionRecord): string[] {
    return [this.sessionKey(record.id), this.indexKey(), this.quotaKey(sessionQuotaKey(record))];
  }
}

/** The hash fields of a record: one per top-level field, one per state key. */
function fieldsOf(record: McpSessionRecord): string[] {
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
  if (record.quotaKey !== undefined) {
    fields.push('quotaKey', record.quotaKey);
  }
  for (const [name, value] of Object.entries(record.state)) {
    if (value !== undefined) {
      fields.push(STATE_FIELD + name, JSON.stringify(value));
    }
  }
  return fields;
}

function pairsToObject(pairs: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let index = 0; index + 1 < pairs.length; index += 2) {
    fields[pairs[index]] = pairs[index + 1];
  }
  return fields;
}

function toRecord(fields: Record<string, string>): McpSessionRecord | undefined {
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
    ...(fields.quotaKey === undefined ? {} : { quotaKey: fields.quotaKey }),
    createdAt: Number(fields.createdAt),
    lastActivity: Number(fields.lastActivity),
    state: state as unknown as McpSessionState,
  };
}
