/** The `redis` section of the module options, resolved (`MCP_REDIS_SETTINGS`). */
import type {
  McpRedisClient,
  McpRedisClusterOptions,
  McpRedisNode,
  McpRedisOptions,
  McpRedisSentinelOptions,
} from '../../interfaces/mcp-redis-options.interface';
import { fail, integer, section, text } from '../../shared/option-checks';

/** The Redis settings, resolved from the module options (`redis`): exactly one of url, sentinel, cluster and client. */
export interface ResolvedRedisOptions {
  /** `redis://` or `rediss://` URL of the server. */
  readonly url?: string;
  /** A master watched by Redis Sentinel. */
  readonly sentinel?: McpRedisSentinelOptions;
  /** A Redis Cluster. */
  readonly cluster?: McpRedisClusterOptions;
  /** The application's own ioredis client (a `Redis` or a `Cluster`). */
  readonly client?: McpRedisClient;
  /**
   * Prefix of every key and channel; on a Redis Cluster (`cluster`, or a `Cluster` client) a
   * hash tag, so that every key of the server is in one slot.
   */
  readonly keyPrefix: string;
  /** How long connecting or a command may take (clients made by the module only). */
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
  const given = (['url', 'sentinel', 'cluster', 'client'] as const).filter((name) => redis[name] !== undefined);
  if (given.length !== 1) {
    fail('redis', `needs exactly one of url, sentinel, cluster and client (got ${given.join(', ') || 'none'})`);
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
  const sentinel = redis.sentinel === undefined ? undefined : sentinelOf(redis.sentinel);
  const cluster = redis.cluster === undefined ? undefined : clusterOf(redis.cluster);
  const keyPrefix = redis.keyPrefix ?? defaultKeyPrefix;
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0 || keyPrefix.length > 100) {
    fail('redis.keyPrefix', 'must be a non-empty string of at most 100 characters');
  }
  const onCluster = cluster !== undefined || isClusterClient(client);
  return {
    url,
    sentinel,
    cluster,
    client,
    // Outside a cluster the keys stay as they were: a rolling upgrade keeps its sessions.
    keyPrefix: onCluster ? hashTagged(keyPrefix) : keyPrefix,
    commandTimeoutMs: integer(redis.commandTimeoutMs, 'redis.commandTimeoutMs', 5_000, 100, 600_000),
  };
}

/** Whether a client (an application's, or one the module made) is an ioredis `Cluster`. */
export function isClusterClient(client: unknown): boolean {
  return (client as { isCluster?: unknown } | undefined)?.isCluster === true;
}

/**
 * The prefix as a hash tag (`mcp:` becomes `{mcp}:`), so that every key of the server hashes to
 * one slot: every script touches a server-wide index. A prefix that holds a tag already stays.
 */
function hashTagged(prefix: string): string {
  const open = prefix.indexOf('{');
  if (open === -1) {
    const body = prefix.endsWith(':') ? prefix.slice(0, -1) : prefix;
    if (body.length > 0 && !body.includes('}')) {
      return `{${body}}${prefix.slice(body.length)}`;
    }
  } else if (prefix.indexOf('}', open + 1) > open + 1) {
    return prefix;
  }
  fail('redis.keyPrefix', 'on a Redis Cluster must hold a hash tag ({...}) or no brace at all');
}

function sentinelOf(value: McpRedisSentinelOptions): McpRedisSentinelOptions {
  const sentinel = section(value, 'redis.sentinel');
  nodes(sentinel.sentinels, 'redis.sentinel.sentinels');
  text(sentinel.name, 'redis.sentinel.name', true);
  for (const name of ['username', 'password', 'sentinelUsername', 'sentinelPassword'] as const) {
    text(sentinel[name], `redis.sentinel.${name}`, false);
  }
  integer(sentinel.db, 'redis.sentinel.db', 0, 0);
  section(sentinel.tls, 'redis.sentinel.tls');
  section(sentinel.sentinelTLS, 'redis.sentinel.sentinelTLS');
  if (sentinel.enableTLSForSentinelMode !== undefined && typeof sentinel.enableTLSForSentinelMode !== 'boolean') {
    fail('redis.sentinel.enableTLSForSentinelMode', 'must be a boolean');
  }
  return value;
}

function clusterOf(value: McpRedisClusterOptions): McpRedisClusterOptions {
  const cluster = section(value, 'redis.cluster');
  nodes(cluster.nodes, 'redis.cluster.nodes');
  text(cluster.username, 'redis.cluster.username', false);
  text(cluster.password, 'redis.cluster.password', false);
  section(cluster.tls, 'redis.cluster.tls');
  return value;
}

/** A non-empty list of `{ host, port }`. */
function nodes(value: unknown, option: string): void {
  const valid = (node: Partial<McpRedisNode> | null): boolean =>
    typeof node === 'object' &&
    node !== null &&
    typeof node.host === 'string' &&
    node.host.length > 0 &&
    Number.isInteger(node.port) &&
    node.port! >= 1 &&
    node.port! <= 65_535;
  if (!Array.isArray(value) || value.length === 0 || !value.every(valid)) {
    fail(option, 'must be a non-empty array of { host, port } (a port from 1 to 65535)');
  }
}
