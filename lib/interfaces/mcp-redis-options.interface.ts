/**
 * An ioredis client (`new Redis(...)` of the `ioredis` package). Typed by the little the module
 * checks, so that applications compile without ioredis installed.
 *
 * @publicApi
 */
export interface McpRedisClient {
  duplicate(): unknown;
  readonly status: string;
}

/**
 * Redis for several instances: a URL, or the application's own ioredis client.
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
   * Your own ioredis client, used as you configured it (a second connection, for pub/sub, is
   * made with `duplicate()`). Not closed by the module. Prefer `enableOfflineQueue: false` and a
   * `commandTimeout`, so that requests fail rather than wait while Redis is away.
   */
  client?: McpRedisClient;
  /**
   * Prefix of every key and channel, so that several servers can share one Redis. Servers of
   * one application keep apart by default: the default server (see `name`) uses `mcp:`, each
   * other one `mcp:<name>:`.
   * @default 'mcp:' for the default server, `mcp:<name>:` for the others
   */
  keyPrefix?: string;
  /**
   * Clients made from `url`: how long connecting or one command may take, in ms.
   * @default 5000
   */
  commandTimeoutMs?: number;
}
