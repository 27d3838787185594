import { systemClock, type Clock } from '../../protocol/bounds/clock';
import type { McpTaskRecord, McpTaskStore } from '../../interfaces/task-store.interface';
import { isTerminal, taskQuotaKey } from '../../interfaces/task-store.interface';
import { LUA_EXISTING_MEMBERS, LUA_EXTEND_TTL } from './redis-keys';
import { redisScript, type RedisHub } from './redis-hub';

/** Settings of {@link RedisTaskStore}. */
export interface RedisTaskStoreOptions {
  /**
   * How long a task's key outlives its `expiresAt` (default 5 minutes): the sweeper of some
   * instance acts on a due task well before Redis drops it. The expiry only cleans up when no
   * instance runs.
   */
  readonly retentionGraceMs?: number;
  /**
   * The clock the tasks' times are read with (the module's: Redis's), which a key's time to
   * live is counted from. Default: the system clock.
   */
  readonly clock?: Clock;
}

const DEFAULT_RETENTION_GRACE_MS = 5 * 60_000;

/** How many times `update` re-reads a task that another writer changed under it. */
const MAX_UPDATE_ATTEMPTS = 50;

/**
 * Lua: writes a task and keeps its owner's sets, its quota key's sets and the due index in step.
 * KEYS: task, owner set, live set, due index, quota live set, quota ended set; `args` from
 * `first`: JSON, ttl, id, live (1 or 0), expiresAt, updatedAt. An ended task enters its quota
 * key's ended set once, ranked by when it ended.
 */
const LUA_STORE = `${LUA_EXTEND_TTL}
local function store(first)
  local ttl = tonumber(ARGV[first + 1])
  local id = ARGV[first + 2]
  redis.call('SET', KEYS[1], ARGV[first], 'PX', ARGV[first + 1])
  redis.call('SADD', KEYS[2], id)
  extend_ttl(KEYS[2], ttl)
  if ARGV[first + 3] == '1' then
    redis.call('SADD', KEYS[3], id)
    extend_ttl(KEYS[3], ttl)
    redis.call('SADD', KEYS[5], id)
    extend_ttl(KEYS[5], ttl)
    redis.call('ZREM', KEYS[6], id)
  else
    redis.call('SREM', KEYS[3], id)
    redis.call('SREM', KEYS[5], id)
    redis.call('ZADD', KEYS[6], 'NX', ARGV[first + 5], id)
    extend_ttl(KEYS[6], ttl)
  end
  redis.call('ZADD', KEYS[4], ARGV[first + 4], id)
end
`;

const CREATE = redisScript(`${LUA_STORE}
store(1)
return 1
`);

/**
 * The count and the creation in one step: answers 0, creating nothing, when the quota key's live
 * set holds `max` tasks that still exist. Ids whose task expired (no instance swept them) are
 * dropped only then: the walk is bounded by the cap, never by the tasks the key has. ARGV: max,
 * task key base, then as for `store`.
 */
const CREATE_WITHIN = redisScript(`${LUA_STORE}${LUA_EXISTING_MEMBERS}
local max = tonumber(ARGV[1])
if ARGV[6] == '1' and redis.call('SCARD', KEYS[5]) >= max then
  if #existing_members(KEYS[5], ARGV[2]) >= max then
    return 0
  end
end
store(3)
return 1
`);

/**
 * Compare-and-set: stores the task only if its JSON is still the one the caller read. Answers 1
 * when stored, 0 when the task changed meanwhile, -1 when it is gone. ARGV: the JSON read, then
 * as for `store`.
 */
const UPDATE = redisScript(`${LUA_STORE}
local current = redis.call('GET', KEYS[1])
if current == false then
  return -1
end
if current ~= ARGV[1] then
  return 0
end
store(2)
return 1
`);

/**
 * Lua: deletes a task and its entries in its owner's and quota key's sets (not the due index).
 * ARGV from `first`: owner set key base, live set key base, quota live set key base, quota ended
 * set key base. Answers 1 when the task existed.
 */
const LUA_DELETE = `
local function delete_task(task_key, id, first)
  local current = redis.call('GET', task_key)
  if current == false then
    return 0
  end
  local record = cjson.decode(current)
  local owner = record.owner
  local quota = record.quotaKey or owner
  redis.call('DEL', task_key)
  redis.call('SREM', ARGV[first] .. owner, id)
  redis.call('SREM', ARGV[first + 1] .. owner, id)
  redis.call('SREM', ARGV[first + 2] .. quota, id)
  redis.call('ZREM', ARGV[first + 3] .. quota, id)
  return 1
end
`;

/** KEYS: task, due index. ARGV: id, then the key bases of `delete_task`. */
const DELETE = redisScript(`${LUA_DELETE}
redis.call('ZREM', KEYS[2], ARGV[1])
return delete_task(KEYS[1], ARGV[1], 2)
`);

/**
 * KEYS: quota ended set, due index. ARGV: max, task key base, then the key bases of
 * `delete_task`. Deletes the tasks that ended first beyond `max`; answers how many.
 */
const TRIM_ENDED = redisScript(`${LUA_DELETE}
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
if excess <= 0 then
  return 0
end
local ids = redis.call('ZRANGE', KEYS[1], 0, excess - 1)
for _, id in ipairs(ids) do
  delete_task(ARGV[2] .. id, id, 3)
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
end
return #ids
`);

/** KEYS: live set. ARGV: task key base. Counts the ids whose task exists; drops the others. */
const COUNT_LIVE = redisScript(`${LUA_EXISTING_MEMBERS}
return #existing_members(KEYS[1], ARGV[1])
`);

/**
 * Tasks in Redis, shared by every instance. Under the hub's prefix:
 *
 * - `task:<id>`: the record as JSON, expiring `retentionGraceMs` after its `expiresAt`;
 * - `tasks:owner:<owner>`: the set of an owner's task ids, and `tasks:live:<owner>` the set of
 *   those not terminal, each living as long as the owner's longest-lived task;
 * - `tasks:quota-live:<key>`: the set of a quota key's tasks not terminal (`createWithin` counts
 *   it: constant time), and `tasks:quota-ended:<key>` a sorted set of its ended tasks by when
 *   they ended (`trimEnded`);
 * - `tasks:due`: a sorted set of task ids by `expiresAt`, for the sweeper.
 *
 * Ids whose task key expired are dropped from the sets when they are next read. `update` is a
 * compare-and-set on the record's JSON, so `change` may run more than once when instances write
 * the same task at once: it must depend on nothing but the record it is given.
 *
 * @publicApi
 */
export class RedisTaskStore implements McpTaskStore {
  private readonly graceMs: number;
  private readonly clock: Clock;

  constructor(
    private readonly hub: RedisHub,
    options: RedisTaskStoreOptions = {},
  ) {
    const grace = options.retentionGraceMs ?? DEFAULT_RETENTION_GRACE_MS;
    if (!Number.isInteger(grace) || grace < 0) {
      throw new RangeError(`retentionGraceMs must be a non-negative integer (got ${grace})`);
    }
    this.graceMs = grace;
    this.clock = options.clock ?? systemClock;
  }

  async create(record: McpTaskRecord): Promise<void> {
    await this.hub.eval('task create', CREATE, this.keysOf(record), this.storeArgs(record, JSON.stringify(record)));
  }

  async createWithin(record: McpTaskRecord, maxLive: number): Promise<boolean> {
    const reply = await this.hub.eval('task create', CREATE_WITHIN, this.keysOf(record), [
      maxLive,
      this.taskKey(''),
      ...this.storeArgs(record, JSON.stringify(record)),
    ]);
    return reply === 1;
  }

  async trimEnded(quotaKey: string, maxKept: number): Promise<number> {
    const reply = await this.hub.eval(
      'task trimEnded',
      TRIM_ENDED,
      [this.quotaEndedKey(quotaKey), this.dueKey()],
      [maxKept, this.taskKey(''), ...this.deleteBases()],
    );
    return reply as number;
  }

  async get(id: string): Promise<McpTaskRecord | undefined> {
    const json = await this.hub.run('task get', (client) => client.get(this.taskKey(id)));
    return json === null ? undefined : (JSON.parse(json) as McpTaskRecord);
  }

  async update(
    id: string,
    change: (current: McpTaskRecord) => McpTaskRecord | undefined,
  ): Promise<McpTaskRecord | undefined> {
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt += 1) {
      const json = await this.hub.run('task update', (client) => client.get(this.taskKey(id)));
      if (json === null) {
        return undefined;
      }
      const current = JSON.parse(json) as McpTaskRecord;
      // The owner cannot change: the sets to maintain are those of the stored task.
      const keys = this.keysOf(current);
      const next = change(current);
      if (next === undefined) {
        return undefined;
      }
      const nextJson = JSON.stringify(next);
      const reply = await this.hub.eval('task update', UPDATE, keys, [json, ...this.storeArgs(next, nextJson)]);
      if (reply === 1) {
        return JSON.parse(nextJson) as McpTaskRecord;
      }
      if (reply === -1) {
        return undefined;
      }
    }
    throw new Error(`Task ${id} was changed by others ${MAX_UPDATE_ATTEMPTS} times in a row; update abandoned`);
  }

  async delete(id: string): Promise<void> {
    await this.hub.eval('task delete', DELETE, [this.taskKey(id), this.dueKey()], [id, ...this.deleteBases()]);
  }

  async list(owner: string): Promise<McpTaskRecord[]> {
    const ownerKey = this.ownerKey(owner);
    const ids = (await this.hub.run('task list', (client) => client.smembers(ownerKey))).sort();
    const records = await this.read('task list', ids);
    const vanished = ids.filter((_, index) => records[index] === undefined);
    if (vanished.length > 0) {
      await this.hub.run('task list', (client) =>
        client
          .multi()
          .srem(ownerKey, ...vanished)
          .srem(this.liveKey(owner), ...vanished)
          .exec(),
      );
    }
    return records.filter((record): record is McpTaskRecord => record !== undefined);
  }

  async countLive(owner: string): Promise<number> {
    const reply = await this.hub.eval('task countLive', COUNT_LIVE, [this.liveKey(owner)], [this.taskKey('')]);
    return reply as number;
  }

  async due(now: number): Promise<McpTaskRecord[]> {
    const ids = await this.hub.run('task due', (client) => client.zrangebyscore(this.dueKey(), '-inf', now));
    const records = await this.read('task due', ids);
    const vanished = ids.filter((_, index) => records[index] === undefined);
    if (vanished.length > 0) {
      await this.hub.run('task due', (client) => client.zrem(this.dueKey(), ...vanished));
    }
    return records.filter((record): record is McpTaskRecord => record !== undefined);
  }

  /** The tasks of `ids`, in order; `undefined` where the key is gone. */
  private async read(what: string, ids: string[]): Promise<Array<McpTaskRecord | undefined>> {
    if (ids.length === 0) {
      return [];
    }
    const values = await this.hub.run(what, (client) => client.mget(...ids.map((id) => this.taskKey(id))));
    return values.map((json) => (json === null ? undefined : (JSON.parse(json) as McpTaskRecord)));
  }

  private keysOf(record: McpTaskRecord): string[] {
    const quota = taskQuotaKey(record);
    return [
      this.taskKey(record.id),
      this.ownerKey(record.owner),
      this.liveKey(record.owner),
      this.dueKey(),
      this.quotaLiveKey(quota),
      this.quotaEndedKey(quota),
    ];
  }

  /** JSON, ttl, id, live, expiresAt, updatedAt: the arguments of the scripts' `store`. */
  private storeArgs(record: McpTaskRecord, json: string): Array<string | number> {
    // Relative to the clock `expiresAt` was computed with (Redis's, in the module: a key's PX
    // then ends when its task does). A task past its expiry still lives the grace time, for the
    // sweeper to see it.
    const ttl = Math.max(record.expiresAt - this.clock.now(), 0) + this.graceMs;
    const live = isTerminal(record.status) ? 0 : 1;
    return [json, Math.max(Math.ceil(ttl), 1), record.id, live, record.expiresAt, record.updatedAt];
  }

  /** The key bases `delete_task` takes. */
  private deleteBases(): string[] {
    return [this.ownerKey(''), this.liveKey(''), this.quotaLiveKey(''), this.quotaEndedKey('')];
  }

  private taskKey(id: string): string {
    return this.hub.key('task', id);
  }

  private ownerKey(owner: string): string {
    return this.hub.key('tasks', 'owner', owner);
  }

  private liveKey(owner: string): string {
    return this.hub.key('tasks', 'live', owner);
  }

  private dueKey(): string {
    return this.hub.key('tasks', 'due');
  }

  private quotaLiveKey(quotaKey: string): string {
    return this.hub.key('tasks', 'quota-live', quotaKey);
  }

  private quotaEndedKey(quotaKey: string): string {
    return this.hub.key('tasks', 'quota-ended', quotaKey);
  }
}
