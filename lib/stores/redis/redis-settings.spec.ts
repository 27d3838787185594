import { McpConfigurationError } from '../../errors/mcp-configuration.error';
import type { McpRedisClient, McpRedisOptions } from '../../interfaces/mcp-redis-options.interface';
import { resolveRedisSettings } from './redis-settings';

const NODES = [{ host: '127.0.0.1', port: 7000 }];
const SENTINEL = { sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'mymaster' };

function refusal(options: unknown): string {
  try {
    resolveRedisSettings(options as McpRedisOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigurationError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

/** Stands in for an ioredis client: the little the resolver looks at. */
function client(isCluster: boolean): McpRedisClient {
  return { duplicate: () => undefined, status: 'wait', ...(isCluster ? { isCluster: true } : {}) };
}

describe('resolveRedisSettings', () => {
  it('needs exactly one of url, sentinel, cluster and client, naming what it got', () => {
    expect(refusal({})).toMatch(/redis.*exactly one of url, sentinel, cluster and client \(got none\)/);
    expect(refusal({ url: 'redis://h', cluster: { nodes: NODES } })).toMatch(/\(got url, cluster\)/);
    expect(refusal({ sentinel: SENTINEL, client: client(false) })).toMatch(/\(got sentinel, client\)/);
  });

  it('takes a Sentinel set, keeping the key prefix as it is', () => {
    const sentinel = {
      ...SENTINEL,
      password: 'p',
      sentinelPassword: 's',
      db: 2,
      tls: {},
      enableTLSForSentinelMode: true,
    };
    expect(resolveRedisSettings({ sentinel })).toEqual({
      sentinel,
      keyPrefix: 'mcp:',
      commandTimeoutMs: 5_000,
    });
  });

  it('refuses a Sentinel set without sentinels, with a bad address or without a master name', () => {
    expect(refusal({ sentinel: { name: 'm' } })).toMatch(
      /redis\.sentinel\.sentinels.*non-empty array of \{ host, port \}/,
    );
    expect(refusal({ sentinel: { ...SENTINEL, sentinels: [] } })).toMatch(/redis\.sentinel\.sentinels/);
    expect(refusal({ sentinel: { ...SENTINEL, sentinels: [{ host: 'h', port: 0 }] } })).toMatch(
      /redis\.sentinel\.sentinels/,
    );
    expect(refusal({ sentinel: { sentinels: SENTINEL.sentinels } })).toMatch(/redis\.sentinel\.name.*required/);
    expect(refusal({ sentinel: { ...SENTINEL, db: -1 } })).toMatch(/redis\.sentinel\.db/);
    expect(refusal({ sentinel: { ...SENTINEL, password: 3 } })).toMatch(/redis\.sentinel\.password/);
    expect(refusal({ sentinel: { ...SENTINEL, enableTLSForSentinelMode: 'yes' } })).toMatch(
      /redis\.sentinel\.enableTLSForSentinelMode.*boolean/,
    );
    expect(refusal({ sentinel: 'host:26379' })).toMatch(/redis\.sentinel.*object/);
  });

  it('takes a cluster and makes the key prefix a hash tag, so that a server keeps to one slot', () => {
    expect(resolveRedisSettings({ cluster: { nodes: NODES } })).toEqual({
      cluster: { nodes: NODES },
      keyPrefix: '{mcp}:',
      commandTimeoutMs: 5_000,
    });
    expect(resolveRedisSettings({ cluster: { nodes: NODES } }, 'mcp:notes:')?.keyPrefix).toBe('{mcp:notes}:');
    expect(resolveRedisSettings({ cluster: { nodes: NODES }, keyPrefix: 'app' })?.keyPrefix).toBe('{app}');
    expect(resolveRedisSettings({ cluster: { nodes: NODES }, keyPrefix: 'x:{app}:' })?.keyPrefix).toBe('x:{app}:');
  });

  it('refuses a cluster without nodes, and a prefix whose braces make no hash tag', () => {
    expect(refusal({ cluster: {} })).toMatch(/redis\.cluster\.nodes/);
    expect(refusal({ cluster: { nodes: [{ host: '', port: 7000 }] } })).toMatch(/redis\.cluster\.nodes/);
    for (const keyPrefix of ['{}:', 'a{b:', 'a}b:', ':']) {
      expect(refusal({ cluster: { nodes: NODES }, keyPrefix })).toMatch(/redis\.keyPrefix.*hash tag/);
    }
  });

  it("hash-tags the prefix for an application's Cluster client, and leaves it for a plain client", () => {
    expect(resolveRedisSettings({ client: client(true) })?.keyPrefix).toBe('{mcp}:');
    expect(resolveRedisSettings({ client: client(false) })?.keyPrefix).toBe('mcp:');
    expect(resolveRedisSettings({ url: 'redis://h', keyPrefix: 'a{b:' })?.keyPrefix).toBe('a{b:');
  });
});
