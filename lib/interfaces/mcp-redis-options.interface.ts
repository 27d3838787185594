import type { ConnectionOptions } from 'node:tls';

/**
 * An ioredis client (`new Redis(...)` or `new Redis.Cluster(...)` of the `ioredis` package). Typed
 * by the little the module checks, so that applications compile without ioredis installed.
 *
 * @publicApi
 */
export interface McpRedisClient {
  /** Makes a new connection with the client's options (the module's subscriber connection). */
  duplicate(): unknown;
  /** The connection's state, as ioredis reports it (`wait`, `ready`...). */
  readonly status: string;
}

/**
 * A Redis server's (or a sentinel's) address.
 *
 * @publicApi
 */
export interface McpRedisNode {
  /** Host name or IP address of the server. */
  readonly host: string;
  /** TCP port of the server. */
  readonly port: number;
}

/**
 * A master and its replicas watched by Redis Sentinel: the module asks the sentinels which server
 * is the master, and after a failover reconnects to the promoted replica (ioredis's own Sentinel
 * support; the names are those of ioredis).
 *
 * @publicApi
 */
export interface McpRedisSentinelOptions {
  /** Some of the sentinels' addresses (the others are learnt from them). */
  sentinels: McpRedisNode[];
  /** The master's name in the sentinels' configuration (`sentinel monitor <name> ...`). */
  name: string;
  /** ACL user of the Redis servers (not of the sentinels). */
  username?: string;
  /** Password of the Redis servers (not of the sentinels). */
  password?: string;
  /** ACL user of the sentinels. */
  sentinelUsername?: string;
  /** Password of the sentinels. */
  sentinelPassword?: string;
  /** Database number on the master. @default 0 */
  db?: number;
  /** TLS to the Redis servers (Node's `tls.connect` options). */
  tls?: ConnectionOptions;
  /** TLS to the sentinels too (Node's `tls.connect` options). */
  sentinelTLS?: ConnectionOptions;
  /** Reach the master with `tls`, as ioredis requires for TLS with Sentinel. @default false */
  enableTLSForSentinelMode?: boolean;
}

/**
 * A Redis Cluster. All the keys of one server (one `keyPrefix`) go to one slot: the prefix is made
 * a hash tag (`mcp:` becomes `{mcp}:`), since every script touches a server-wide index.
 *
 * @publicApi
 */
export interface McpRedisClusterOptions {
  /** Some of the cluster's nodes (the others are learnt from them). */
  nodes: McpRedisNode[];
  /** ACL user of the nodes. */
  username?: string;
  /** Password of the nodes. */
  password?: string;
  /** TLS to the nodes (Node's `tls.connect` options). */
  tls?: ConnectionOptions;
}

/**
 * Redis for several instances: exactly one of a URL, a Sentinel set, a Redis Cluster or the
 * application's own ioredis client.
 *
 * @publicApi
 */
export interface McpRedisOptions {
  /**
   * URL of the Redis server: `redis://[user:password@]host:port[/db]`, `rediss://` for TLS.
   * The module makes its clients: commands fail at once while Redis is unreachable (requests
   * are answered with an error, never held) and the connection is retried in the background.
   */
  url?: string;
  /**
   * A master watched by Redis Sentinel. Like `url`, the module makes its clients, which fail
   * commands at once while no master answers; after a failover they reconnect to the promoted
   * replica on their own.
   */
  sentinel?: McpRedisSentinelOptions;
  /**
   * A Redis Cluster (its keys hash-tagged, see {@link McpRedisClusterOptions}). Like `url`, the
   * module makes its clients, which fail commands at once while the cluster cannot serve the
   * slot, and follow slot moves and failovers on their own.
   */
  cluster?: McpRedisClusterOptions;
  /**
   * Your own ioredis client (`Redis` or `Cluster`), used as you configured it (a second
   * connection, for pub/sub, is made with `duplicate()`). Not closed by the module. Prefer
   * `enableOfflineQueue: false` and a `commandTimeout`, so that requests fail rather than wait
   * while Redis is away. With a `Cluster`, the keys are hash-tagged as with `cluster`.
   */
  client?: McpRedisClient;
  /**
   * Prefix of every key and channel, so that several servers can share one Redis. Servers of
   * one application keep apart by default: the default server (see `name`) uses `mcp:`, each
   * other one `mcp:<name>:`. On a Redis Cluster the prefix is made a hash tag (`{mcp}:`) unless
   * it holds one already (`{...}`), so that all the keys of one server share one slot.
   * @default 'mcp:' for the default server, `mcp:<name>:` for the others
   */
  keyPrefix?: string;
  /**
   * Clients made by the module (`url`, `sentinel`, `cluster`): how long connecting or one
   * command may take, in ms.
   * @default 5000
   */
  commandTimeoutMs?: number;
}
