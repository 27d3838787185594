/** The `redis` section of the module options, resolved (`MCP_REDIS_SETTINGS`). */
import type { McpRedisClient, McpRedisOptions } from '../../interfaces/mcp-redis-options.interface';
import { fail, integer, section } from '../../option-checks';

/** The Redis settings, resolved from the module options (`redis`). */
export interface ResolvedRedisOptions {
  /** `redis://` or `rediss://` URL of the server; absent when `client` is given. */
  readonly url?: string;
  /** The application's own ioredis client; absent when `url` is given. */
  readonly client?: McpRedisClient;
  /** Prefix of every key and channel. */
  readonly keyPrefix: string;
  /** How long connecting or a command may take (clients made from `url` only). */
  readonly commandTimeoutMs: number;
}

/** Validates `redis`; `undefined` (memory stores, one instance) when it is not set. */
/**
 * @param defaultKeyPrefix the prefix without `keyPrefix`: `mcp:` for the default server,
 *   `mcp:<name>:` for the others, so that servers sharing one Redis keep apart.
 */
export function resolveRedisSettings(
  options: McpRedisOptions | undefined,
  defaultKeyPrefix = 'mcp:',
): ResolvedRedisOptions | undefined {
  if (options === undefined) {
    return undefined;
  }
  const redis = section(options, 'redis');
  const { url, client } = redis;
  if ((url === undefined) === (client === undefined)) {
    fail('redis', 'needs exactly one of url and client');
  }
  if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url))) {
    fail('redis.url', 'must be a redis:// or rediss:// URL');
  }
  if (
    client !== undefined &&
    (typeof client !== 'object' || client === null || typeof client.duplicate !== 'function')
  ) {
    fail('redis.client', 'must be an ioredis client');
  }
  const keyPrefix = redis.keyPrefix ?? defaultKeyPrefix;
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0 || keyPrefix.length > 100) {
    fail('redis.keyPrefix', 'must be a non-empty string of at most 100 characters');
  }
  return {
    url,
    client,
    keyPrefix,
    commandTimeoutMs: integer(redis.commandTimeoutMs, 'redis.commandTimeoutMs', 5_000, 100, 600_000),
  };
}
