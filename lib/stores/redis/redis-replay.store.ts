import type { JSONRPCMessage } from '../../protocol/messages/json-rpc';
import {
  checkReplayBounds,
  replayWindow,
  type ReplayByteBounds,
  type McpReplayEvent,
  type McpReplayStore,
  type McpReplayWindow,
} from '../../interfaces/replay-store.interface';
import { redisScript, type RedisHub } from './redis-hub';

/**
 * The bookkeeping every script shares. KEYS: the order of sessions, the bytes per session, the
 * total, the clock. A kept event is `{"g":<clock>,"n":<bytes>,"streamId":…,"seq":…,"message":…}`:
 * its place among all sessions' events and its size lead, so that a script reads them without
 * decoding the message, and an event reads as JSON.
 */
const LUA_REPLAY = `
local order, sizes, total_key, clock = KEYS[2], KEYS[3], KEYS[4], KEYS[5]

local function size_of(entry)
  return tonumber(string.match(entry, '^{"g":%d+,"n":(%d+),')) or 0
end

-- The session's buffer is gone: its bytes leave the total; with no buffer left, nothing is.
local function forget(sid, list)
  local bytes = tonumber(redis.call('HGET', sizes, sid) or '0')
  redis.call('DEL', list)
  redis.call('HDEL', sizes, sid)
  redis.call('ZREM', order, sid)
  if redis.call('ZCARD', order) == 0 then
    redis.call('DEL', sizes, total_key, clock)
  elseif bytes ~= 0 then
    redis.call('DECRBY', total_key, bytes)
  end
end

-- Drops the session's oldest event (the session then ranks by its next one); returns the bytes
-- that left the total.
local function drop_oldest(sid, list)
  local entry = redis.call('LPOP', list)
  local head = redis.call('LINDEX', list, 0)
  if not entry or not head then
    -- Its last event, or its list expired with its TTL while its bytes were still counted.
    local bytes = tonumber(redis.call('HGET', sizes, sid) or '0')
    forget(sid, list)
    return bytes
  end
  local bytes = size_of(entry)
  redis.call('HINCRBY', sizes, sid, -bytes)
  redis.call('DECRBY', total_key, bytes)
  redis.call('ZADD', order, tonumber(string.match(head, '^{"g":(%d+),')) or 0, sid)
  return bytes
end
`;

/**
 * `append_event(list, sid, fields, data, capacity, ttl, session_bytes, total_bytes, base)`: keeps
 * an event (its fields before its message, as JSON; its message's JSON, empty for a priming
 * event) within the bounds; `base` is the key of a session's list without its id. Returns 0 when
 * the event is too large to keep, else 1.
 */
const LUA_APPEND = `
local function append_event(list, sid, fields, data, capacity, ttl, session_bytes, total_bytes, base)
  local size = #data
  if size > session_bytes then
    -- Not kept, and nothing before it either: a resume from before it is told events were lost.
    forget(sid, list)
    return 0
  end
  local g = redis.call('INCR', clock)
  local message = ''
  if size > 0 then
    message = ',"message":' .. data
  end
  local count = redis.call('RPUSH', list, '{"g":' .. g .. ',"n":' .. size .. ',' .. fields .. message .. '}')
  redis.call('PEXPIRE', list, ttl)
  local bytes = size
  if count == 1 then
    -- A new buffer (or one whose list expired, still counted).
    local stale = tonumber(redis.call('HGET', sizes, sid) or '0')
    if stale ~= 0 then
      redis.call('DECRBY', total_key, stale)
    end
    redis.call('HSET', sizes, sid, size)
    redis.call('ZADD', order, g, sid)
  else
    bytes = redis.call('HINCRBY', sizes, sid, size)
    -- A list written before events carried their place (an older version) ranks from its first.
    redis.call('ZADD', order, 'NX', g, sid)
  end
  local total = redis.call('INCRBY', total_key, size)
  while count > capacity or bytes > session_bytes do
    local dropped = drop_oldest(sid, list)
    count = count - 1
    bytes = bytes - dropped
    total = total - dropped
  end
  while total > total_bytes do
    local oldest = redis.call('ZRANGE', order, 0, 0)[1]
    if not oldest then
      break
    end
    total = total - drop_oldest(oldest, base .. oldest)
  end
  return 1
end
`;

/**
 * KEYS: the session's list, then the shared keys. ARGV: session id, the event's fields before
 * its message (JSON), its message (JSON, empty for a priming event), capacity, TTL, the
 * session's bytes, the total bytes, the key of a session's list without its id.
 */
const APPEND = redisScript(`${LUA_REPLAY}${LUA_APPEND}
return append_event(KEYS[1], ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]),
  tonumber(ARGV[7]), ARGV[8])
`);

/**
 * Appends after the last buffered event of a stream (its seq + 1, 0 when none is); returns
 * the seq. KEYS as APPEND. ARGV as APPEND, but the stream's id (as JSON) for the event's fields.
 */
const APPEND_NEXT = redisScript(`${LUA_REPLAY}${LUA_APPEND}
local pattern = '"streamId":' .. string.gsub(ARGV[2], '%p', '%%%0') .. ',"seq":(%d+)'
local seq = 0
for _, entry in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local found = tonumber(string.match(entry, pattern))
  if found and found >= seq then
    seq = found + 1
  end
end
append_event(KEYS[1], ARGV[1], '"streamId":' .. ARGV[2] .. ',"seq":' .. seq, ARGV[3], tonumber(ARGV[4]), ARGV[5],
  tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8])
return seq
`);

/** KEYS: the session's list, then the shared keys. ARGV: session id. */
const CLEAR = redisScript(`${LUA_REPLAY}
forget(ARGV[1], KEYS[1])
return 1
`);

/** A kept event as stored, with its bookkeeping. */
interface StoredEvent extends McpReplayEvent {
  readonly g?: number;
  readonly n?: number;
}

/**
 * Replay buffers in Redis, shared by every instance: `replay:<sessionId>` under the hub's prefix
 * is a list of the session's last events (JSON), across its streams, oldest first: at most
 * `capacity` of them and `sessionBytes` of messages. Over all sessions, at most `totalBytes`
 * are kept, the oldest of all dropped first: `replay-order` ranks the sessions by their oldest
 * event (a sorted set), `replay-bytes` holds each session's bytes (a hash), `replay-total` their
 * sum and `replay-clock` the order of appends. One script keeps the four in step with the lists,
 * so the bounds hold across instances. A buffer is dropped with its session, and expires `ttlMs`
 * after its last event in case no instance is left to drop it (its bytes leave the total when
 * it would be the oldest).
 *
 * @publicApi
 */
export class RedisReplayStore implements McpReplayStore {
  private readonly shared: string[];
  private readonly listBase: string;

  constructor(
    private readonly hub: RedisHub,
    private readonly capacity: number,
    private readonly ttlMs: number,
    private readonly bounds: ReplayByteBounds = {
      sessionBytes: Number.MAX_SAFE_INTEGER,
      totalBytes: Number.MAX_SAFE_INTEGER,
    },
  ) {
    checkReplayBounds(capacity, bounds);
    if (!Number.isInteger(ttlMs) || ttlMs < 1) {
      throw new RangeError(`A replay buffer's TTL must be a positive integer (got ${ttlMs})`);
    }
    this.shared = [hub.key('replay-order'), hub.key('replay-bytes'), hub.key('replay-total'), hub.key('replay-clock')];
    this.listBase = hub.key('replay', '');
  }

  async append(sessionId: string, event: McpReplayEvent, data?: string): Promise<void> {
    const message = data ?? (event.message === undefined ? '' : JSON.stringify(event.message));
    await this.hub.eval(
      'replay append',
      APPEND,
      [this.key(sessionId), ...this.shared],
      [
        sessionId,
        `"streamId":${JSON.stringify(event.streamId)},"seq":${event.seq}`,
        message,
        this.capacity,
        this.ttlMs,
        this.bounds.sessionBytes,
        this.bounds.totalBytes,
        this.listBase,
      ],
    );
  }

  async appendNext(sessionId: string, streamId: string, _message: JSONRPCMessage, data: string): Promise<number> {
    const seq = await this.hub.eval(
      'replay append',
      APPEND_NEXT,
      [this.key(sessionId), ...this.shared],
      [
        sessionId,
        JSON.stringify(streamId),
        data,
        this.capacity,
        this.ttlMs,
        this.bounds.sessionBytes,
        this.bounds.totalBytes,
        this.listBase,
      ],
    );
    return Number(seq);
  }

  async after(sessionId: string, streamId: string, seq: number): Promise<McpReplayWindow> {
    const stored = await this.hub.run('replay after', (client) => client.lrange(this.key(sessionId), 0, -1));
    return replayWindow(stored.map(readEvent), streamId, seq);
  }

  async clear(sessionId: string): Promise<void> {
    await this.hub.eval('replay clear', CLEAR, [this.key(sessionId), ...this.shared], [sessionId]);
  }

  private key(sessionId: string): string {
    return this.hub.key('replay', sessionId);
  }
}

/** A stored event without its bookkeeping. */
function readEvent(json: string): McpReplayEvent {
  const { streamId, seq, message } = JSON.parse(json) as StoredEvent;
  return message === undefined ? { streamId, seq } : { streamId, seq, message };
}
