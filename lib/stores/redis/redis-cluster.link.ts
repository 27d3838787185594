import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ClaimWatcher, ClusterLink, ClusterMessage, StreamClaim } from '../../cluster/cluster-link.interface';
import { redisScript, type RedisHub } from './redis-hub';
import { isClusterClient } from './redis-settings';
import { McpLogger } from '../../telemetry/mcp.logger';
import { messageOf } from '../../protocol/messages/mcp-error';

/** How long a claim lives without being refreshed: an instance that died frees its streams' sessions after this. */
const CLAIM_TTL_MS = 30_000;
/** How often this instance refreshes its claims. */
const CLAIM_REFRESH_MS = 10_000;
/** How often an instance beats (and reads which instances are alive). */
const HEARTBEAT_MS = 1_000;
/**
 * How long an instance counts as alive after its last beat: a hung instance is taken for stopped
 * after this. One that died (its connections closed) is taken for stopped at once, since Redis
 * drops its subscriptions with its socket.
 */
const HEARTBEAT_TTL_MS = 5_000;
/**
 * When an instance that stopped without `close()` leaves the instances' set (which expires
 * after this once no instance beats).
 */
const HEARTBEAT_FORGET_MS = 60_000;

/**
 * `alive(key, ttl, channel_base, exact, ids)`: the instances among `ids` (every one that beat
 * lately when `ids` is empty) alive by Redis's clock: beat within `ttl` ms and, when `exact`
 * (a single Redis, where subscriber counts are the server's), listening on their channel.
 */
const LUA_ALIVE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function alive(key, ttl, channel_base, exact, ids)
  local since = now_ms() - ttl
  local fresh = {}
  if #ids == 0 then
    fresh = redis.call('ZRANGEBYSCORE', key, since, '+inf')
  else
    for _, id in ipairs(ids) do
      local beat = redis.call('ZSCORE', key, id)
      if beat and tonumber(beat) >= since then
        fresh[#fresh + 1] = id
      end
    end
  end
  if exact ~= '1' or #fresh == 0 then
    return fresh
  end
  local channels = {}
  for i, id in ipairs(fresh) do
    channels[i] = channel_base .. id
  end
  local counts = redis.call('PUBSUB', 'NUMSUB', unpack(channels))
  local kept = {}
  for i, id in ipairs(fresh) do
    if tonumber(counts[2 * i]) > 0 then
      kept[#kept + 1] = id
    end
  end
  return kept
end
`;

/**
 * A beat of instance ARGV[1], then the instances alive and all those in the set. KEYS: the
 * instances (a sorted set: the time of each one's last beat). ARGV: id, ttl, channel base,
 * exact, forget after.
 */
const HEARTBEAT = redisScript(`${LUA_ALIVE}
local now = now_ms()
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[5]))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {alive(KEYS[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], {}), redis.call('ZRANGE', KEYS[1], 0, -1)}`);

/**
 * The instances alive among ARGV[4..], and those of them that are in the set at all (the others
 * never beat: an older version, or forgotten). KEYS: the instances. ARGV: ttl, channel base,
 * exact, ids.
 */
const LIVENESS = redisScript(`${LUA_ALIVE}
local ids = {unpack(ARGV, 4)}
local known = {}
for _, id in ipairs(ids) do
  if redis.call('ZSCORE', KEYS[1], id) then
    known[#known + 1] = id
  end
end
return {alive(KEYS[1], tonumber(ARGV[1]), ARGV[2], ARGV[3], ids), known}`);

/**
 * Extends a claim while it is still this instance's (1), makes it again when it is gone (1:
 * lost while Redis was away), and leaves another instance's claim (0: taken over).
 */
const REFRESH = redisScript(`
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`);

/** Deletes a claim only while it is still this instance's. */
const RELEASE = redisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`);

/** Adds a session to an instance's index of claims (KEYS[1]), which lives as long as a claim. */
const INDEX = redisScript(`
redis.call('SADD', KEYS[1], ARGV[1])
return redis.call('PEXPIRE', KEYS[1], ARGV[2])`);

/** Replaces a claim that is still the one found (ARGV[1]) with this instance's (ARGV[2]). */
const TAKE_OVER = redisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`);

interface Envelope {
  readonly from: string;
  readonly message: ClusterMessage;
}

/**
 * The link between instances over Redis: each instance listens on a channel of its own and on
 * one shared by all. Stream claims are keys naming the instance (and the stream), with a TTL
 * that the holder refreshes while it lives.
 *
 * Each instance beats every second into a sorted set (by Redis's clock) and reads there which
 * instances are alive: those that beat within the last five seconds and, on a single Redis,
 * still listen on their channel (Redis drops the subscriptions of a process that died with its
 * socket, so a killed instance is taken for stopped at once). A claim of an instance taken for
 * stopped is taken over by the next instance that claims the stream. For five seconds after
 * this instance reconnected to Redis it takes no instance for stopped (the others may not have
 * reconnected yet), and after one of its own beats was late it judges by subscriptions alone (a
 * process that was blocked may have blocked its neighbours' beats too).
 */
export class RedisClusterLink implements ClusterLink {
  readonly instanceId = randomBytes(8).toString('hex');
  readonly shared = true;
  private readonly logger = new McpLogger('McpRedisClusterLink');
  private readonly handlers = new Set<(message: ClusterMessage) => void>();
  /** The claims of this instance (their values), by session id. */
  private readonly claims = new Map<string, string>();
  /** Releases under way: `close()` awaits them. */
  private readonly releasing = new Set<Promise<void>>();
  private readonly watchers = new Set<ClaimWatcher>();
  private readonly stops: Array<() => void> = [];
  private readonly timers: NodeJS.Timeout[] = [];
  /** The instances alive at the last beat, and those found alive since. */
  private alive = new Set<string>();
  /** The instances told of as stopped (`instance_stopped`), while they are in the set. */
  private stopped = new Set<string>();
  /** Since when (monotonic ms) this instance is connected to Redis; `undefined` while it is not. */
  private connectedSince: number | undefined;
  /** Until when (monotonic ms) the beats are not trusted: one of this instance's was late. */
  private lateUntil = 0;
  private lastBeat: number | undefined;
  private closed = false;
  /** Subscriber counts are exact on a single Redis, and per node in a Redis Cluster. */
  private readonly exactCounts: boolean;

  private constructor(private readonly hub: RedisHub) {
    this.exactCounts = !isClusterClient(hub.client);
  }

  /** A link listening on its channels, known alive to the other instances. */
  static async create(hub: RedisHub): Promise<RedisClusterLink> {
    const link = new RedisClusterLink(hub);
    const receive = (payload: string): void => link.receive(payload);
    link.stops.push(await hub.subscribe(link.channel(link.instanceId), receive));
    link.stops.push(await hub.subscribe(hub.key('link', 'all'), receive));
    await link.beat();
    // Just started: what it read of the others is fresh.
    link.connectedSince = Number.NEGATIVE_INFINITY;
    const disconnected = (): void => {
      link.connectedSince = undefined;
    };
    hub.client.on('close', disconnected);
    link.stops.push(() => hub.client.off('close', disconnected));
    link.timers.push(
      setInterval(() => void link.beat().catch(() => undefined), HEARTBEAT_MS),
      setInterval(() => void link.refreshClaims(), CLAIM_REFRESH_MS),
    );
    link.timers.forEach((timer) => timer.unref());
    return link;
  }

  async send(instanceId: string, message: ClusterMessage): Promise<boolean> {
    if (instanceId === this.instanceId) {
      return true;
    }
    const received = await this.hub.publish(this.channel(instanceId), this.envelope(message));
    if (received === 0) {
      // Not listening: ask Redis again before taking it for alive.
      this.alive.delete(instanceId);
    }
    return received > 0;
  }

  async broadcast(message: ClusterMessage): Promise<void> {
    await this.hub.publish(this.hub.key('link', 'all'), this.envelope(message));
  }

  onMessage(handler: (message: ClusterMessage) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async claimStream(sessionId: string, kind: StreamClaim['kind'], streamId?: string): Promise<boolean> {
    const key = this.claimKey(sessionId);
    const value = this.claimValue(kind, streamId);
    const claim = (): Promise<'OK' | null> =>
      this.hub.run('claim a stream', (client) => client.set(key, value, 'PX', CLAIM_TTL_MS, 'NX'));
    let taken = (await claim()) === 'OK';
    if (!taken) {
      const held = await this.hub.run('find a stream', (client) => client.get(key));
      const holder = held === null ? undefined : parseClaim(held);
      if (held === null) {
        // Released meanwhile.
        taken = (await claim()) === 'OK';
      } else if (
        holder !== undefined &&
        holder.instanceId !== this.instanceId &&
        // An instance that never beat (an older version, during a rolling deploy) keeps its claim.
        !(await this.running([holder.instanceId], true)).has(holder.instanceId)
      ) {
        taken = (await this.hub.eval('take over a stream', TAKE_OVER, [key], [held, value, CLAIM_TTL_MS])) === 1;
        if (taken) {
          this.logger.log(
            `Took over the stream of session ${sessionId} from instance ${holder.instanceId}, which stopped`,
          );
        }
      }
    }
    if (taken) {
      this.claims.set(sessionId, value);
      // Where the others find this instance's streams if it stops (a hint: they check the claim).
      await this.hub
        .eval('index a stream', INDEX, [this.indexKey(this.instanceId)], [sessionId, CLAIM_TTL_MS])
        .catch(() => undefined);
    }
    return taken;
  }

  releaseStream(sessionId: string): Promise<void> {
    const value = this.claims.get(sessionId);
    if (value === undefined) {
      return Promise.resolve();
    }
    this.claims.delete(sessionId);
    const released = this.hub
      .eval('release a stream', RELEASE, [this.claimKey(sessionId)], [value])
      .then(() => this.hub.run('unindex a stream', (client) => client.srem(this.indexKey(this.instanceId), sessionId)))
      .then(() => undefined)
      .finally(() => this.releasing.delete(released));
    this.releasing.add(released);
    return released;
  }

  async streamHolder(sessionId: string): Promise<StreamClaim | undefined> {
    const value = await this.hub.run('find a stream', (client) => client.get(this.claimKey(sessionId)));
    return value === null ? undefined : parseClaim(value);
  }

  async isAlive(instanceId: string): Promise<boolean> {
    return (
      instanceId === this.instanceId || this.alive.has(instanceId) || (await this.running([instanceId])).has(instanceId)
    );
  }

  async streamsOf(instanceId: string): Promise<Array<{ sessionId: string; streamId: string }>> {
    if (instanceId === this.instanceId) {
      return [];
    }
    const first = await this.hub.run('keep the streams of an instance', (client) =>
      client.set(this.hub.key('orphans', instanceId), this.instanceId, 'PX', CLAIM_TTL_MS, 'NX'),
    );
    if (first !== 'OK') {
      return [];
    }
    const sessionIds = await this.hub.run('find the streams of an instance', (client) =>
      client.smembers(this.indexKey(instanceId)),
    );
    const held = await Promise.all(sessionIds.map((sessionId) => this.streamHolder(sessionId)));
    return sessionIds.flatMap((sessionId, index) => {
      const claim = held[index];
      return claim?.instanceId === instanceId && claim.kind === 'get' && claim.streamId !== undefined
        ? [{ sessionId, streamId: claim.streamId }]
        : [];
    });
  }

  watchClaims(watcher: ClaimWatcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.timers.splice(0).forEach((timer) => clearInterval(timer));
    this.handlers.clear();
    this.watchers.clear();
    const claims = [...this.claims.keys()];
    await Promise.all(
      [...claims.map((sessionId) => this.releaseStream(sessionId)), ...this.releasing].map((release) =>
        release.catch(() => undefined),
      ),
    );
    // Stopped for the others at once: their next look does not find this instance.
    await this.hub.run('leave', (client) => client.zrem(this.instancesKey(), this.instanceId)).catch(() => undefined);
    this.stops.splice(0).forEach((stop) => stop());
  }

  /**
   * Refreshes this instance's claims (every 10 s): a claim whose session no longer exists is
   * given up, one another instance took over is dropped; the watchers hear of both.
   */
  async refreshClaims(): Promise<void> {
    if (this.claims.size > 0) {
      await this.hub
        .run('refresh the index of streams', (client) => client.pexpire(this.indexKey(this.instanceId), CLAIM_TTL_MS))
        .catch(() => undefined);
    }
    for (const [sessionId, value] of [...this.claims]) {
      try {
        const exists = await this.sessionExists(sessionId);
        if (this.claims.get(sessionId) !== value) {
          continue;
        }
        if (!exists) {
          await this.releaseStream(sessionId);
          this.tell(sessionId, 'gone');
          continue;
        }
        const kept = await this.hub.eval(
          'refresh a stream claim',
          REFRESH,
          [this.claimKey(sessionId)],
          [value, CLAIM_TTL_MS],
        );
        if (kept === 0 && this.claims.get(sessionId) === value) {
          this.claims.delete(sessionId);
          this.tell(sessionId, 'taken');
        }
      } catch (error) {
        this.logger.warn(`Could not refresh stream claims: ${messageOf(error)}`);
        return;
      }
    }
  }

  /** Beats, reads which instances are alive, and tells of those that stopped. */
  private async beat(): Promise<void> {
    if (this.closed) {
      return;
    }
    const now = performance.now();
    if (this.lastBeat !== undefined && now - this.lastBeat > HEARTBEAT_TTL_MS / 2) {
      // This instance was blocked: whatever blocked it (a busy machine) may have blocked others.
      this.lateUntil = now + HEARTBEAT_TTL_MS;
    }
    this.lastBeat = now;
    let alive: string[];
    let all: string[];
    try {
      [alive, all] = (await this.hub.eval(
        'beat',
        HEARTBEAT,
        [this.instancesKey()],
        [this.instanceId, HEARTBEAT_TTL_MS, this.channel(''), this.exactCounts ? '1' : '0', HEARTBEAT_FORGET_MS],
      )) as [string[], string[]];
    } catch (error) {
      this.connectedSince = undefined;
      throw error;
    }
    this.connectedSince ??= performance.now();
    this.alive = new Set(alive);
    // Those in the set that no longer run (an instance that closed has left it), told of once.
    const suspects = all.filter((id) => id !== this.instanceId && !this.alive.has(id) && !this.stopped.has(id));
    const running = suspects.length === 0 ? new Set<string>() : await this.running(suspects);
    const members = new Set(all);
    this.stopped = new Set([...this.stopped].filter((id) => members.has(id) && !this.alive.has(id)));
    for (const id of suspects.filter((suspect) => !running.has(suspect))) {
      this.stopped.add(id);
      this.deliver({ type: 'instance_stopped', instanceId: id });
    }
  }

  /**
   * The instances among `ids` that run, asked of Redis now: all of them while this instance
   * cannot tell (see the class); with `unknownRun`, those that never beat too.
   */
  private async running(ids: string[], unknownRun = false): Promise<Set<string>> {
    const now = performance.now();
    if (this.connectedSince === undefined || now - this.connectedSince < HEARTBEAT_TTL_MS) {
      return new Set(ids);
    }
    const beatsTrusted = now >= this.lateUntil;
    if (!beatsTrusted && !this.exactCounts) {
      return new Set(ids);
    }
    const [alive, known] = (await this.hub.eval(
      'check instances',
      LIVENESS,
      [this.instancesKey()],
      [beatsTrusted ? HEARTBEAT_TTL_MS : HEARTBEAT_FORGET_MS, this.channel(''), this.exactCounts ? '1' : '0', ...ids],
    )) as [string[], string[]];
    alive.forEach((id) => this.alive.add(id));
    const running = new Set(alive);
    if (unknownRun) {
      const beat = new Set(known);
      ids.filter((id) => !beat.has(id)).forEach((id) => running.add(id));
    }
    return running;
  }

  private async sessionExists(sessionId: string): Promise<boolean> {
    for (const watcher of this.watchers) {
      if (!(await watcher.exists(sessionId))) {
        return false;
      }
    }
    return true;
  }

  private tell(sessionId: string, why: 'gone' | 'taken'): void {
    for (const watcher of this.watchers) {
      try {
        watcher.lost(sessionId, why);
      } catch (error) {
        this.logger.error(`A claim watcher failed: ${messageOf(error)}`);
      }
    }
  }

  private channel(instanceId: string): string {
    return this.hub.key('link', instanceId);
  }

  private instancesKey(): string {
    return this.hub.key('instances');
  }

  /** The sessions whose streams an instance claimed (a set). */
  private indexKey(instanceId: string): string {
    return this.hub.key('streams-of', instanceId);
  }

  private claimKey(sessionId: string): string {
    return this.hub.key('stream', sessionId);
  }

  private claimValue(kind: StreamClaim['kind'], streamId: string | undefined): string {
    return streamId === undefined ? `${this.instanceId} ${kind}` : `${this.instanceId} ${kind} ${streamId}`;
  }

  private envelope(message: ClusterMessage): string {
    const envelope: Envelope = { from: this.instanceId, message };
    return JSON.stringify(envelope);
  }

  private receive(payload: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      this.logger.warn('Dropped a cluster message that is not JSON');
      return;
    }
    // Only the link itself tells that an instance stopped.
    if (envelope.from === this.instanceId || envelope.message.type === 'instance_stopped') {
      return;
    }
    this.deliver(envelope.message);
  }

  private deliver(message: ClusterMessage): void {
    for (const handler of this.handlers) {
      try {
        handler(message);
      } catch (error) {
        this.logger.error(`A ${message.type} handler failed: ${messageOf(error)}`);
      }
    }
  }
}

/** A claim's value: `<instance> <kind>`, then the stream's id when named. */
function parseClaim(value: string): StreamClaim | undefined {
  const [instanceId, kind, streamId] = value.split(' ');
  if (kind !== 'get' && kind !== 'pair') {
    return undefined;
  }
  return streamId === undefined ? { instanceId, kind } : { instanceId, kind, streamId };
}
