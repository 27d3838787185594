import type { McpModuleOptions } from 'nest-mcp';

/**
 * The sample's shared state, from `MCP_REDIS_URL` and `MCP_REQUEST_STATE_SECRET`: without a URL
 * the module keeps everything in memory (one process); with one, every instance started with the
 * same URL and secret serves the same sessions, tasks and notifications:
 *
 * ```bash
 * MCP_REDIS_URL=redis://127.0.0.1:6379 MCP_REQUEST_STATE_SECRET=$(openssl rand -hex 32) PORT=3001 npm start
 * ```
 */
export function sampleRedis(
  url: string | undefined,
  secret: string | undefined,
): Pick<McpModuleOptions, 'redis' | 'requestState'> {
  const redisUrl = url?.trim();
  const requestStateSecret = secret?.trim();
  return {
    ...(redisUrl === undefined || redisUrl === '' ? {} : { redis: { url: redisUrl } }),
    ...(requestStateSecret === undefined || requestStateSecret === ''
      ? {}
      : { requestState: { secret: requestStateSecret } }),
  };
}
