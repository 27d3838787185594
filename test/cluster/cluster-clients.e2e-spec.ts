import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { Collector, MODERN_REVISION } from '../fixtures/raw-rpc';
import { NOTE_URI } from '../fixtures/cluster-fixture';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { startCluster, type Cluster } from '../fixtures/cluster-fixture';
import { uniqueKeyPrefix } from './cluster-helpers';

/**
 * The official clients against two instances sharing one Redis: the v1 clients behind a
 * round-robin proxy (each request to the next instance), where a Streamable HTTP session and a
 * 2024-11-05 SSE pair serve as on one server; the v2 client listening on one instance while a
 * change is made on the other.
 */
describe('official clients against two instances', () => {
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

  it('v1, Streamable HTTP: a resource update made through one instance reaches the GET stream held by either', async () => {
    const client = new Client({ name: 'c', version: '1' });
    const updates = new Collector<string>();
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) =>
      updates.push(notification.params.uri),
    );
    await client.connect(new StreamableHTTPClientTransport(cluster.url));
    await client.subscribeResource({ uri: NOTE_URI });
    // Each call lands on the next instance: the change is made on both, the stream is on one.
    for (let i = 0; i < 2; i++) {
      await client.callTool({ name: 'touch_note', arguments: {} });
    }
    await expect(updates.waitFor(2)).resolves.toEqual([NOTE_URI, NOTE_URI]);
    await client.close();
  });

  it('v2, 2026-07-28: listen() on A hears a change made on B', async () => {
    const [a, b] = cluster.apps;
    const connect = async (url: URL): Promise<ClientV2> => {
      const client = new ClientV2(
        { name: 'v2-cluster', version: '2.0.0' },
        { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
      );
      await client.connect(new StreamableHTTPClientTransportV2(url));
      return client;
    };
    const listener = await connect(a.url);
    const changer = await connect(b.url);
    const tools = new Collector<unknown>();
    const updates = new Collector<string>();
    listener.setNotificationHandler('notifications/tools/list_changed', (notification) => tools.push(notification));
    listener.setNotificationHandler('notifications/resources/updated', (notification) =>
      updates.push(notification.params.uri),
    );
    const subscription = await listener.listen({ toolsListChanged: true, resourceSubscriptions: [NOTE_URI] });
    const result = await changer.callTool({ name: 'touch_note', arguments: { lists: true } });
    expect(result.content).toEqual([{ type: 'text', text: 'touched 1' }]);
    await expect(updates.waitFor(1)).resolves.toEqual([NOTE_URI]);
    await tools.waitFor(1);
    await subscription.close();
    await changer.close();
    await listener.close();
  });
});
