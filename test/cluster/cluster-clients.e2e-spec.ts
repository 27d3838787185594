import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { startCluster, type Cluster } from '../fixtures/cluster-fixture';
import { uniqueKeyPrefix } from './cluster-helpers';

/**
 * The official v1 clients against two instances behind a round-robin proxy, each request going to
 * the next instance: a Streamable HTTP session and a 2024-11-05 SSE pair serve as on one server.
 */
describe('official v1 clients through a round-robin proxy', () => {
  let redis: RedisServerHandle;
  let cluster: Cluster;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis.stop();
  });
  beforeEach(async () => {
    cluster = await startCluster({ redisUrl: redis.url, keyPrefix: uniqueKeyPrefix('clients') });
  });
  afterEach(async () => {
    await cluster.close();
  });

  it('a Streamable HTTP session (2025-11-25): lists and calls land on both instances', async () => {
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(cluster.url));
    for (let i = 0; i < 4; i++) {
      const tools = await client.listTools();
      expect(tools.tools.length).toBeGreaterThan(3);
    }
    const result = await client.callTool({ name: 'sleepy', arguments: { ms: 10 } });
    expect(result.content).toEqual([{ type: 'text', text: 'slept sleepy' }]);
    expect(cluster.proxy.hits.every((hits) => hits > 0)).toBe(true);
    await client.close();
  });

  it('a 2024-11-05 SSE pair: the stream is held by one instance, every call answered on it wherever it ran', async () => {
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(new SSEClientTransport(new URL('/sse', cluster.proxy.url)));
    for (let i = 0; i < 4; i++) {
      const result = await client.callTool({ name: 'sleepy', arguments: { ms: 5, label: `n${i}` } });
      expect(result.content).toEqual([{ type: 'text', text: `slept n${i}` }]);
    }
    // The calls ran on both instances; one of them held the stream all along.
    const ranOn = (index: number) =>
      ['n0', 'n1', 'n2', 'n3'].filter((label) => cluster.apps[index].probe.runs(label) > 0);
    expect([...ranOn(0), ...ranOn(1)].sort()).toEqual(['n0', 'n1', 'n2', 'n3']);
    expect(ranOn(0).length).toBeGreaterThan(0);
    expect(ranOn(1).length).toBeGreaterThan(0);
    await client.close();
  });
});
