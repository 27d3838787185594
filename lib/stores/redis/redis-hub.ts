import { createHash } from 'node:crypto';
import type * as IoRedis from 'ioredis';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { McpStoreUnavailableError } from '../../errors/mcp-store-unavailable.error';
import { McpConfigurationError } from '../../errors/mcp-configuration.error';
import { isClusterClient, type ResolvedRedisOptions } from './redis-settings';
import { messageOf } from '../../protocol/messages/mcp-error';
import { markReported } from '../../protocol/bounds/store-unavailable';
import { within } from '../../protocol/messages/thenables';
import { RefusalLog } from '../../protocol/bounds/refusal-log';
import { McpLogger } from '../../telemetry/mcp.logger';

/** A Lua script, run by its SHA1 once Redis knows it. */
export interface RedisScript {
  readonly lua: string;
  readonly sha: string;
}

/** Defines a Lua script once, at load time. */
export function redisScript(lua: string): RedisScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

type PayloadHandler = (payload: string) => void;

/** A client of one Redis (a URL, a Sentinel set) or of a Redis Cluster: the same commands. */
export type RedisClient = Redis | Cluster;

/**
 * Redis errors that say the server cannot serve right now, not that the command is wrong: the
 * store is unavailable (an outage: 503, retried elsewhere or later). Out of memory with
 * `noeviction`; a replica (read-only, or its master link down) during a failover; loading its
 * data; a script running too long; a cluster slot moving or down; too few replicas for
 * `min-replicas-to-write`; a failed RDB save with `stop-writes-on-bgsave-error`; a blocked
 * command unblocked by a role change; the client limit reached. A script's error keeps the code
 * of the command that failed in it (Redis 7), and a transaction's `EXECABORT` the codes of its
 * commands (ioredis's `previousErrors`). `NOAUTH`, `WRONGPASS` and `NOPERM` are not outages but
 * a configuration to fix (no retry helps): they stay errors.
 */
const TRANSIENT_REPLY =
  /^(OOM|LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF|UNBLOCKED|ERR max number of clients reached)\b/;

/** ioredis's errors for a command that was sent but not answered: it may have been done. */
const UNCONFIRMED = /^(Command timed out|Reached the max retries per request limit)/;

/** A Redis error reply (ioredis's `ReplyError`). */
interface ReplyError extends Error {
  readonly previousErrors?: readonly Error[];
}

function isReply(error: unknown): error is ReplyError {
  return error instanceof Error && error.name === 'ReplyError';
}

/**
 * The words of a reply that says Redis cannot serve for now (see `TRANSIENT_REPLY`): the
 * reply's own, or, for a transaction's `EXECABORT`, its failed command's; `undefined` for any
 * other reply (a bug).
 */
function transientReply(error: ReplyError): string | undefined {
  if (TRANSIENT_REPLY.test(error.message)) {
    return error.message;
  }
  return error.message.startsWith('EXECABORT')
    ? error.previousErrors?.find((previous) => TRANSIENT_REPLY.test(previous.message))?.message
    : undefined;
}

/**
 * A failed command as an outage: its kind (one warning a minute each: `OOM`, `READONLY`...,
 * `timeout`, `unreachable`), the message that says it, and whether it may have been done.
 */
function outageOf(
  what: string,
  error: unknown,
  reply: string | undefined,
): { kind: string; message: string; unconfirmed: boolean } {
  if (reply !== undefined) {
    return { kind: reply.split(' ', 1)[0], message: `Redis cannot serve now (${what}): ${reply}`, unconfirmed: false };
  }
  const text = messageOf(error);
  if (UNCONFIRMED.test(text)) {
    return { kind: 'timeout', message: `Redis did not answer in time (${what}): ${text}`, unconfirmed: true };
  }
  return { kind: 'unreachable', message: `Redis is unreachable (${what}): ${text}`, unconfirmed: false };
}

function loadIoredis(): typeof IoRedis {
  try {
    // An optional peer: only applications that configure Redis install it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('ioredis') as typeof IoRedis;
  } catch {
    throw new McpConfigurationError('redis: the "ioredis" package is not installed (npm install ioredis)');
  }
}

/**
 * One instance's connections to Redis: a client for commands and one for pub/sub, shared by
 * every Redis store, the notification bus and the cluster link. Clients made by the module (a
 * URL, a Sentinel set, a cluster) fail commands at once while Redis is unreachable (no offline
 * queue, a command timeout) and reconnect in the background (to the promoted replica after a
 * Sentinel failover; to the new slot owner in a cluster); an application's own client is used
 * as it is configured. In a cluster every key of the server shares one slot (the prefix is a
 * hash tag, see `resolveRedisSettings`), so each script and MULTI runs on one node, and
 * PUBLISH reaches the subscribers of every node.
 */
export class RedisHub {
  private readonly handlers = new Map<string, Set<PayloadHandler>>();
  private closed = false;
  private readonly logger = new McpLogger('McpRedis');
  /** Outages: a warning at most once a minute per kind (out of memory, unreachable...), the rest debug lines. */
  private readonly outages = new RefusalLog(this.logger);
  /** The outage under way: what failed first, and how many commands failed since. */
  private outage:
    { readonly what: string; readonly kind: string; readonly since: number; failures: number } | undefined;

  private constructor(
    readonly client: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly prefix: string,
    /** Whether the command client is ours to close. */
    private readonly ownsClient: boolean,
  ) {
    subscriber.on('message', (channel: string, payload: string) => {
      this.handlers.get(channel)?.forEach((handler) => handler(payload));
    });
    // Registered once connected: every later 'ready' is a reconnection.
    subscriber.on('ready', () => this.resubscribe());
  }

  /** Subscribes again to every channel listened to, after a reconnection. */
  private resubscribe(): void {
    const channels = [...this.handlers.keys()];
    if (channels.length > 0 && !this.closed) {
      // A failure here is the connection dropping again: the next 'ready' tries once more.
      this.subscriber.subscribe(...channels).catch(() => undefined);
    }
  }

  /**
   * Connects to Redis (or takes the application's client) and opens the pub/sub connection.
   * @throws McpStoreUnavailableError when Redis cannot be reached.
   */
  static async connect(options: ResolvedRedisOptions): Promise<RedisHub> {
    const ioredis = loadIoredis();
    // The options type it loosely (applications compile without ioredis); it is an ioredis client.
    let client = options.client as RedisClient | undefined;
    const owns = client === undefined;
    client ??= makeClient(ioredis, options);
    // Unhandled 'error' events would crash the process; the failures reach the callers instead.
    const quiet = (): void => undefined;
    client.on('error', quiet);
    // Subscriptions are made again by the hub after a reconnection: ioredis's own resubscription
    // leaves its promise unhandled, and a Redis that drops the connection again at once (a
    // restart) would then end the process with an unhandled rejection.
    const subscriber = isCluster(client)
      ? // A cluster's subscriber picks a node, and another when it goes, subscribing again itself.
        client.duplicate([], { lazyConnect: true, enableOfflineQueue: true })
      : client.duplicate({ lazyConnect: true, enableOfflineQueue: true, autoResubscribe: false });
    subscriber.on('error', quiet);
    const connecting = (async () => {
      if (client.status === 'wait') {
        await client.connect();
      }
      await subscriber.connect();
      return true;
    })();
    try {
      // A Sentinel client asks its sentinels again and again while none answers: the startup
      // of the module's own clients is bounded, so that it fails with a message instead.
      const limitMs = 2 * options.commandTimeoutMs;
      if (!(await (owns ? within(connecting, limitMs) : connecting))) {
        throw new Error(`no answer within ${limitMs} ms`);
      }
    } catch (error) {
      subscriber.disconnect();
      if (owns) {
        client.disconnect();
      }
      const where = describe(options);
      throw new McpStoreUnavailableError(`Cannot connect to Redis (${where}): ${messageOf(error)}`, error);
    }
    return new RedisHub(client, subscriber, options.keyPrefix, owns);
  }

  /** The key (or channel) `parts` under the prefix. */
  key(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  /** Whether the command connection is up. */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /**
   * Runs Redis commands; a failure to reach Redis, or a Redis that cannot serve for now (see
   * `TRANSIENT_REPLY`), becomes `McpStoreUnavailableError`, logged here once a minute (so that
   * whoever meets it logs a debug line only). Other errors Redis answers (a wrong type, a script
   * error) are bugs and stay as they are.
   */
  async run<T>(what: string, commands: (client: RedisClient) => Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await commands(this.client);
    } catch (error) {
      throw this.failure(what, error);
    }
    if (this.outage !== undefined) {
      this.served(what);
    }
    return value;
  }

  /** The error a failed command is reported with: the outage logged, or a bug as it is. */
  private failure(what: string, error: unknown): unknown {
    const reply = isReply(error) ? transientReply(error) : undefined;
    if (isReply(error) && reply === undefined) {
      return error;
    }
    const { kind, message, unconfirmed } = outageOf(what, error, reply);
    if (this.outage === undefined) {
      this.outage = { what, kind, since: Date.now(), failures: 0 };
    }
    this.outage.failures += 1;
    this.outages.warn(kind, message);
    return markReported(new McpStoreUnavailableError(message, error, { unconfirmed }));
  }

  /**
   * A command went through during an outage. Redis serves again once the command that failed
   * first does (a refusal such as out of memory refuses writes and still serves reads); once any
   * does after Redis could not be reached.
   */
  private served(what: string): void {
    const outage = this.outage!;
    if (outage.kind !== 'unreachable' && outage.kind !== 'timeout' && outage.what !== what) {
      return;
    }
    this.outage = undefined;
    const seconds = ((Date.now() - outage.since) / 1000).toFixed(1);
    this.logger.log(`Redis serves again (${what}), after ${outage.failures} failed command(s) in ${seconds} s`);
  }

  /** Runs a Lua script by SHA1, sending its text the first time Redis does not know it. */
  async eval(what: string, script: RedisScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.run(what, async (client) => {
      try {
        return await client.evalsha(script.sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
          return client.eval(script.lua, keys.length, ...keys, ...args);
        }
        throw error;
      }
    });
  }

  /**
   * Publishes on a channel (a key under the prefix); resolves how many subscribers received it
   * (on a single Redis: those of the server; in a Redis Cluster: those of the node that took it).
   * Publications on one channel arrive in the order they were made, in a cluster too (see
   * `publisherOf`).
   */
  async publish(channel: string, payload: string): Promise<number> {
    return this.run('publish', (client) => publisherOf(client, channel).publish(channel, payload));
  }

  /**
   * Calls `handler` with every payload published on `channel`. The subscription is made again
   * after a reconnection. Resolves once Redis confirmed it; returns how to stop.
   */
  async subscribe(channel: string, handler: PayloadHandler): Promise<() => void> {
    let set = this.handlers.get(channel);
    if (set === undefined) {
      set = new Set();
      this.handlers.set(channel, set);
      try {
        await this.subscriber.subscribe(channel);
      } catch (error) {
        this.handlers.delete(channel);
        throw this.failure('subscribe', error);
      }
    }
    set.add(handler);
    return () => {
      const handlers = this.handlers.get(channel);
      if (handlers?.delete(handler) && handlers.size === 0) {
        this.handlers.delete(channel);
        if (!this.closed) {
          this.subscriber.unsubscribe(channel).catch(() => undefined);
        }
      }
    };
  }

  /** Closes the pub/sub connection, and the command connection when it was made here. */
  async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.handlers.clear();
    await Promise.all([quit(this.subscriber), this.ownsClient ? quit(this.client) : Promise.resolve()]);
  }
}

/**
 * The module's own client: commands fail at once while Redis is away (no offline queue, one
 * retry, a timeout) instead of holding requests, and it reconnects in the background.
 */
function makeClient(ioredis: typeof IoRedis, options: ResolvedRedisOptions): RedisClient {
  const settings: RedisOptions = {
    lazyConnect: true,
    // A request waits for no reconnection: it fails, and the caller says so.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: options.commandTimeoutMs,
    // Closing does not wait long for a socket that is already gone.
    disconnectTimeout: 200,
  };
  const { sentinel, cluster } = options;
  if (sentinel !== undefined) {
    return new ioredis.Redis({
      ...settings,
      ...sentinel,
      sentinelCommandTimeout: options.commandTimeoutMs,
      // Told of a failover by the sentinels (+switch-master), not only when the old master's
      // connection drops: a master demoted in place keeps its clients connected.
      failoverDetector: true,
    });
  }
  if (cluster !== undefined) {
    const { nodes, ...auth } = cluster;
    const { enableOfflineQueue: _queue, lazyConnect: _lazy, ...perNode } = settings;
    return new ioredis.Cluster(nodes, {
      lazyConnect: true,
      enableOfflineQueue: false,
      slotsRefreshTimeout: options.commandTimeoutMs,
      redisOptions: { ...perNode, ...auth },
    });
  }
  return new ioredis.Redis(options.url!, settings);
}

function isCluster(client: RedisClient): client is Cluster {
  return isClusterClient(client);
}

/**
 * The connection a channel's publications go through. PUBLISH names no key, so a cluster client
 * sends it to any node, and a message reaches the subscribers of the other nodes over the
 * cluster bus: two messages sent through two nodes can arrive in either order (a stream's end
 * before its last event, seen with a resume across instances). A channel therefore always goes
 * through the same master, chosen by its name among the masters in a fixed order, as long as
 * they stay the same; a failover may reorder what is published while it happens.
 */
function publisherOf(client: RedisClient, channel: string): Pick<RedisClient, 'publish'> {
  if (!isCluster(client)) {
    return client;
  }
  const masters = mastersInOrder(client);
  return masters.length === 0 ? client : masters[nameHash(channel) % masters.length];
}

type ClusterNode = ReturnType<Cluster['nodes']>[number];

/** The last ordered masters of each cluster client, kept while its live masters stay the same. */
const orderedMasters = new WeakMap<Cluster, { live: ClusterNode[]; ordered: ClusterNode[] }>();

/** A cluster's live masters, ordered by name: sorted again only when the set of them changed. */
function mastersInOrder(client: Cluster): ClusterNode[] {
  const live = client.nodes('master').filter((node) => node.status !== 'end' && node.status !== 'close');
  const last = orderedMasters.get(client);
  if (
    last !== undefined &&
    last.live.length === live.length &&
    last.live.every((node, index) => node === live[index])
  ) {
    return last.ordered;
  }
  const ordered = [...live].sort((a, b) => nodeName(a).localeCompare(nodeName(b)));
  orderedMasters.set(client, { live, ordered });
  return ordered;
}

function nodeName(node: { options: { host?: string; port?: number } }): string {
  return `${node.options.host ?? ''}:${node.options.port ?? ''}`;
}

/** FNV-1a of a channel name: spreads channels over the masters, the same way in every process. */
function nameHash(name: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < name.length; index += 1) {
    hash = Math.imul(hash ^ name.charCodeAt(index), 0x01000193);
  }
  return hash >>> 0;
}

/** Where the hub connects, for messages (no password). */
function describe(options: ResolvedRedisOptions): string {
  const nodes = (list: Array<{ host: string; port: number }>): string =>
    list.map(({ host, port }) => `${host}:${port}`).join(', ');
  if (options.sentinel !== undefined) {
    return `master "${options.sentinel.name}" of the sentinels ${nodes(options.sentinel.sentinels)}`;
  }
  if (options.cluster !== undefined) {
    return `the cluster of ${nodes(options.cluster.nodes)}`;
  }
  return options.url === undefined ? 'the given client' : redactUrl(options.url);
}

async function quit(client: RedisClient): Promise<void> {
  try {
    if (client.status === 'ready') {
      await client.quit();
      // Also ends what QUIT leaves open: a Sentinel client's connections to the sentinels.
      client.disconnect();
      return;
    }
  } catch {
    // Closing anyway below.
  }
  client.disconnect();
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') {
      parsed.password = '***';
    }
    return parsed.toString();
  } catch {
    return 'an invalid URL';
  }
}
