/**
 * The Redis key prefixes of an application's servers: apart by default, and never shared. Two
 * servers on one Redis under one prefix would read each other's sessions and tasks, so that
 * stops startup.
 */
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { ResolvedRedisOptions } from '../stores/redis/redis-settings';
import { describeServer } from '../identity/mcp-servers';
import type { McpServerIdentity } from '../identity/server-identity';

/** The prefix without `redis.keyPrefix`: a lone server's `mcp:` for the default server, `mcp:<name>:` for the others. */
export function defaultKeyPrefix(identity: McpServerIdentity, defaultServer: McpServerIdentity | undefined): string {
  return defaultServer === identity ? 'mcp:' : `mcp:${identity.name}:`;
}

interface PrefixClaim {
  readonly redis: unknown;
  readonly keyPrefix: string;
  readonly identity: McpServerIdentity;
}

/** The prefixes taken so far, per application (keyed by its modules container). */
const CLAIMS = new WeakMap<object, PrefixClaim[]>();

/** Takes a server's prefix in its application; throws when another server took it on the same Redis. */
export function claimKeyPrefix(
  application: object,
  identity: McpServerIdentity,
  redis: ResolvedRedisOptions | undefined,
): void {
  if (redis === undefined) {
    return;
  }
  const claims = CLAIMS.get(application) ?? [];
  CLAIMS.set(application, claims);
  // The same URL, or the same client object, is the same Redis.
  const target = redis.url ?? redis.client;
  const taken = claims.find((claim) => claim.redis === target && claim.keyPrefix === redis.keyPrefix);
  if (taken !== undefined) {
    throw new McpConfigurationError(
      `Two MCP servers use the Redis key prefix "${redis.keyPrefix}" on one Redis: ${describeServer(taken.identity)} ` +
        `and ${describeServer(identity)}. Give each its own redis.keyPrefix, or leave it out (each server then has its own).`,
    );
  }
  claims.push({ redis: target, keyPrefix: redis.keyPrefix, identity });
}
