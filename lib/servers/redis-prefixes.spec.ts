import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { ResolvedRedisOptions } from '../stores/redis/redis-settings';
import { claimKeyPrefix, defaultKeyPrefix } from './redis-prefixes';
import { resolveServerIdentity } from '../identity/server-identity';

const publicServer = resolveServerIdentity({ name: 'public' }, { streamable: 'public' }, true, undefined);
const adminServer = resolveServerIdentity({ name: 'admin' }, { streamable: 'admin' }, true, undefined);

function redis(keyPrefix: string, url = 'redis://127.0.0.1:6379'): ResolvedRedisOptions {
  return { url, keyPrefix, commandTimeoutMs: 5000 };
}

describe('defaultKeyPrefix', () => {
  it('keeps mcp: for the default server and gives the others their name', () => {
    expect(defaultKeyPrefix(publicServer, publicServer)).toBe('mcp:');
    expect(defaultKeyPrefix(adminServer, publicServer)).toBe('mcp:admin:');
  });
});

describe('claimKeyPrefix', () => {
  it('lets servers on their own prefixes, or on other Redis servers, through', () => {
    const application = {};
    claimKeyPrefix(application, publicServer, redis('mcp:'));
    claimKeyPrefix(application, adminServer, redis('mcp:admin:'));
    claimKeyPrefix(application, adminServer, redis('mcp:', 'redis://10.0.0.2:6379'));
    claimKeyPrefix(application, adminServer, undefined);
  });

  it('refuses a prefix another server of the application took on the same Redis', () => {
    const application = {};
    claimKeyPrefix(application, publicServer, redis('shared:'));
    const claim = () => claimKeyPrefix(application, adminServer, redis('shared:'));
    expect(claim).toThrow(McpConfigurationError);
    expect(claim).toThrow('Two MCP servers use the Redis key prefix "shared:" on one Redis: server "public"');
  });

  it('keeps applications apart', () => {
    claimKeyPrefix({}, publicServer, redis('mcp:'));
    expect(() => claimKeyPrefix({}, adminServer, redis('mcp:'))).not.toThrow();
  });
});
