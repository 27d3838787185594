import { createHash } from 'node:crypto';
import type * as IoRedis from 'ioredis';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { McpStoreUnavailableError } from '../../errors/mcp-store-unavailable.error';
import { McpConfigurationError } from '../../errors/mcp-configuration.error';
import type { ResolvedRedisOptions } from './redis-settings';
import { messageOf } from '../../protocol/mcp-error';

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
 * Redis errors that say the server cannot serve right now (loading its data, a replica during a
 * failover, a busy script...), not that the command is wrong: the store is unavailable.
 */
const TRANSIENT_REPLY = /^(LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF)\b/;

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
    })();
    try {
      // A Sentinel client asks its sentinels again and again while none answers: the startup
      // of the module's own clients is bounded, so that it fails with a message instead.
      await (owns ? within(connecting, 2 * options.commandTimeoutMs) : connecting);
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
   * Runs Redis commands; a failure to reach Redis, or a Redis that cannot serve for now,
   * becomes `McpStoreUnavailableError`. Other errors Redis answers (a wrong type, a script
   * error) are bugs and stay as they are.
   */
  async run<T>(what: string, commands: (client: RedisClient) => Promise<T>): Promise<T> {
    try {
      return await commands(this.client);
    } catch (error) {
      if (error instanceof Error && error.name === 'ReplyError' && !TRANSIENT_REPLY.test(error.message)) {
        throw error;
      }
      throw new McpStoreUnavailableError(`Redis is unreachable (${what}): ${messageOf(error)}`, error);
    }
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

  /** Publishes on a channel (a key under the prefix). */
  async publish(channel: string, payload: string): Promise<void> {
    await this.run('publish', (client) => client.publish(channel, payload));
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
        throw new McpStoreUnavailableError(`Redis is unreachable (subscribe): ${messageOf(error)}`, error);
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

/** `work`, or a rejection when it has not settled within `ms`. */
async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function isCluster(client: RedisClient): client is Cluster {
  return (client as { isCluster?: boolean }).isCluster === true;
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
