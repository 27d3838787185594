import type { McpTaskRecord, TaskStore } from '../../tasks/task-store.interface';
import { isTerminal } from '../../tasks/task-store.interface';
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
}

const DEFAULT_RETENTION_GRACE_MS = 5 * 60_000;

/** How many times `update` re-reads a task that another writer changed under it. */
const MAX_UPDATE_ATTEMPTS = 50;

/**
 * Lua: writes a task and keeps its owner's sets and the due index in step. KEYS: task, owner
 * set, live set, due index; `args` from `first`: JSON, ttl, id, live (1 or 0), expiresAt.
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
  else
    redis.call('SREM', KEYS[3], id)
  end
  redis.call('ZADD', KEYS[4], ARGV[first + 4], id)
end
`;

const CREATE = redisScript(`${LUA_STORE}
store(1)
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

/** KEYS: task, due index. ARGV: id, owner set key base, live set key base. */
const DELETE = redisScript(`
redis.call('ZREM', KEYS[2], ARGV[1])
local current = redis.call('GET', KEYS[1])
if current == false then
  return 0
end
local owner = cjson.decode(current).owner
redis.call('DEL', KEYS[1])
redis.call('SREM', ARGV[2] .. owner, ARGV[1])
redis.call('SREM', ARGV[3] .. owner, ARGV[1])
return 1
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
 * - `tasks:due`: a sorted set of task ids by `expiresAt`, for the sweeper.
 *
 * Ids whose task key expired are dropped from the sets when they are next read. `update` is a
 * compare-and-set on the record's JSON, so `change` may run more than once when instances write
 * the same task at once: it must depend on nothing but the record it is given.
 *
 * @publicApi
 */
export class RedisTaskStore implements TaskStore {
  private readonly graceMs: number;

  constructor(
    private readonly hub: RedisHub,
    options: RedisTaskStoreOptions = {},
  ) {
    const grace = options.retentionGraceMs ?? DEFAULT_RETENTION_GRACE_MS;
    if (!Number.isInteger(grace) || grace < 0) {
      throw new RangeError(`retentionGraceMs must be a non-negative integer (got ${grace})`);
    }
    this.graceMs = grace;
  }

  async create(record: McpTaskRecord): Promise<void> {
    await this.hub.eval('task create', CREATE, this.keysOf(record), this.storeArgs(record, JSON.stringify(record)));
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
    await this.hub.eval(
      'task delete',
      DELETE,
      [this.taskKey(id), this.dueKey()],
      [id, this.ownerKey(''), this.liveKey('')],
    );
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
    return [this.taskKey(record.id), this.ownerKey(record.owner), this.liveKey(record.owner), this.dueKey()];
  }

  /** JSON, ttl, id, live, expiresAt: the arguments of the scripts' `store`. */
  private storeArgs(record: McpTaskRecord, json: string): Array<string | number> {
    // Relative to this process's clock, the one `expiresAt` was computed with (not Redis's).
    // A task already past its expiry still lives the grace time, for the sweeper to see it.
    const ttl = Math.max(record.expiresAt - Date.now(), 0) + this.graceMs;
    return [json, Math.max(Math.ceil(ttl), 1), record.id, isTerminal(record.status) ? 0 : 1, record.expiresAt];
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
}
