import type { McpModuleOptions, McpRedisNode, McpRedisOptions } from 'nest-mcp';

/** Redis high availability for the sample, from the environment (see {@link sampleRedis}). */
export interface SampleRedisHa {
  /** `MCP_REDIS_CLUSTER`: some nodes of a Redis Cluster, `host:port,host:port`. */
  readonly cluster?: string;
  /** `MCP_REDIS_SENTINELS`: some sentinels, `host:port,host:port`. */
  readonly sentinels?: string;
  /** `MCP_REDIS_SENTINEL_NAME`: the master's name the sentinels watch. @default 'mymaster' */
  readonly sentinelName?: string;
}

/**
 * The sample's shared state, from `MCP_REDIS_URL` (or `MCP_REDIS_CLUSTER`, or `MCP_REDIS_SENTINELS`
 * and `MCP_REDIS_SENTINEL_NAME`) and `MCP_REQUEST_STATE_SECRET`: without any the module keeps
 * everything in memory (one process); with one, every instance started with the same Redis and
 * secret serves the same sessions, tasks and notifications (more than one: the module refuses to
 * start, naming them):
 *
 * ```bash
 * MCP_REDIS_URL=redis://127.0.0.1:6379 MCP_REQUEST_STATE_SECRET=$(openssl rand -hex 32) PORT=3001 npm start
 * MCP_REDIS_CLUSTER=10.0.0.1:6379,10.0.0.2:6379 MCP_REQUEST_STATE_SECRET=... npm start
 * MCP_REDIS_SENTINELS=10.0.0.1:26379 MCP_REDIS_SENTINEL_NAME=mymaster MCP_REQUEST_STATE_SECRET=... npm start
 * ```
 */
export function sampleRedis(
  url: string | undefined,
  secret: string | undefined,
  ha: SampleRedisHa = {},
): Pick<McpModuleOptions, 'redis' | 'requestState'> {
  const redis: McpRedisOptions = {};
  const redisUrl = url?.trim();
  if (redisUrl !== undefined && redisUrl !== '') {
    redis.url = redisUrl;
  }
  const cluster = nodesOf(ha.cluster);
  if (cluster !== undefined) {
    redis.cluster = { nodes: cluster };
  }
  const sentinels = nodesOf(ha.sentinels);
  if (sentinels !== undefined) {
    redis.sentinel = { sentinels, name: ha.sentinelName?.trim() || 'mymaster' };
  }
  const requestStateSecret = secret?.trim();
  return {
    ...(Object.keys(redis).length === 0 ? {} : { redis }),
    ...(requestStateSecret === undefined || requestStateSecret === ''
      ? {}
      : { requestState: { secret: requestStateSecret } }),
  };
}

/** `host:port,host:port` as addresses; `undefined` when blank. */
function nodesOf(list: string | undefined): McpRedisNode[] | undefined {
  const entries = (list ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) {
    return undefined;
  }
  return entries.map((entry) => {
    const colon = entry.lastIndexOf(':');
    return { host: entry.slice(0, colon), port: Number(entry.slice(colon + 1)) };
  });
}
