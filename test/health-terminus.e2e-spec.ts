/**
 * `McpHealthIndicator` under `@nestjs/terminus`, over real HTTP: a `/health` route answers 200
 * with the details on memory stores; on a real redis-server, 200 while it runs, 503 with the
 * reason once it is stopped (at once with a client made from `redis.url`, after the probe
 * timeout with an application's own client that queues commands) or refuses writes (out of
 * memory, read-only), and 200 again once it is back.
 * Also the protocol-level probes the README documents: `ping` (legacy era) and `server/discover`.
 */
import { Redis } from 'ioredis';
import { healthAppModule } from './fixtures/health-fixture';
import { startHttpApp, type HttpApp } from './fixtures/http-app';
import {
  legacyRequest,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  waitUntil,
  type RawResponse,
} from './fixtures/raw-rpc';
import { startRedisServer, type RedisServerHandle } from './support/redis-server';
import { freePort } from './support/ports';

const SECRET = 'health-e2e-request-state-secret-0123456789abcdef';
/** How long service may take to come back once Redis does (ioredis backs off up to 2 s). */
const RECOVERY_MS = 15_000;

const registry = { status: 'up', loaded: true, tools: 2, resources: 0, resourceTemplates: 0, prompts: 1 };

async function health(app: HttpApp): Promise<RawResponse> {
  const response = await fetch(new URL('/health', app.baseUrl));
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: JSON.parse(text), events: [] };
}

describe('McpHealthIndicator with @nestjs/terminus', () => {
  describe('memory stores', () => {
    let app: HttpApp;

    beforeAll(async () => {
      app = await startHttpApp(healthAppModule());
    });

    afterAll(async () => {
      await app?.close();
    });

    it('answers 200 with the stores and the registry in the details', async () => {
      const response = await health(app);
      expect(response.status).toBe(200);
      const mcp = { status: 'up', stores: { status: 'up', kind: 'memory', sessions: 0 }, registry };
      expect(response.json).toEqual({ status: 'ok', info: { mcp }, error: {}, details: { mcp } });
    });

    it('counts the legacy sessions open', async () => {
      const { headers } = await openLegacySession(app.url);
      expect((await health(app)).json.details.mcp.stores.sessions).toBe(1);
      await fetch(app.url, { method: 'DELETE', headers });
      expect((await health(app)).json.details.mcp.stores.sessions).toBe(0);
    });

    describe('protocol-level probes', () => {
      it('ping answers {} on a legacy session', async () => {
        const { headers } = await openLegacySession(app.url);
        const response = await post(app.url, legacyRequest('ping', undefined, 7), headers);
        expect(response.status).toBe(200);
        expect(response.json).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
      });

      it('ping is gone from the modern era (404, -32601); server/discover answers without a session', async () => {
        const ping = await post(app.url, modernRequest('ping', {}, 8), modernHeaders('ping'));
        expect(ping.status).toBe(404);
        expect(ping.json.error).toMatchObject({ code: -32601 });

        const discover = await post(app.url, modernRequest('server/discover', {}, 9), modernHeaders('server/discover'));
        expect(discover.status).toBe(200);
        expect(discover.json.result).toMatchObject({
          resultType: 'complete',
          supportedVersions: expect.arrayContaining(['2026-07-28']),
          capabilities: expect.objectContaining({ tools: expect.any(Object) }),
        });
      });
    });
  });

  describe('Redis from redis.url', () => {
    let redis: RedisServerHandle;
    let app: HttpApp;

    beforeAll(async () => {
      redis = await startRedisServer();
      app = await startHttpApp(healthAppModule({ redis: { url: redis.url }, requestState: { secret: SECRET } }));
    });

    afterAll(async () => {
      await app?.close();
      await redis?.stop();
    });

    it('answers 200 while Redis runs, with its PING time and the shared session count', async () => {
      await openLegacySession(app.url);
      const response = await health(app);
      expect(response.status).toBe(200);
      expect(response.json.status).toBe('ok');
      expect(response.json.details.mcp).toEqual({
        status: 'up',
        stores: { status: 'up', kind: 'redis', sessions: 1, responseTime: expect.any(Number) },
        registry,
      });
    });

    it('answers 503 with the reason while Redis refuses writes (out of memory, read-only), 200 once it takes them', async () => {
      const admin = new Redis(redis.url);
      try {
        await admin.config('SET', 'maxmemory-policy', 'noeviction');
        await admin.config('SET', 'maxmemory', '1');
        const oom = await health(app);
        expect(oom.status).toBe(503);
        expect(oom.json.error.mcp).toMatchObject({
          status: 'down',
          message: expect.stringMatching(/^stores: Redis cannot serve now \(health write\): OOM command not allowed/),
          stores: { status: 'down', kind: 'redis', message: expect.stringMatching(/OOM/) },
        });
        await admin.config('SET', 'maxmemory', '0');
        expect((await health(app)).status).toBe(200);

        // A replica whose master is away: read-only.
        await admin.replicaof('127.0.0.1', String(await freePort()));
        const readOnly = await health(app);
        expect(readOnly.status).toBe(503);
        expect(readOnly.json.error.mcp.stores.message).toMatch(/^Redis cannot serve now \(health write\): READONLY /);
        await admin.replicaof('NO', 'ONE');
        expect((await health(app)).status).toBe(200);
      } finally {
        await admin.config('SET', 'maxmemory', '0');
        await admin.replicaof('NO', 'ONE');
        admin.disconnect();
      }
    });

    it('answers 503 with the reason once Redis is stopped, and 200 again once it is back', async () => {
      await redis.stop();
      const started = Date.now();
      const down = await health(app);
      // Clients made from redis.url have no offline queue: the probe fails at once.
      expect(Date.now() - started).toBeLessThan(1000);
      expect(down.status).toBe(503);
      expect(down.json.status).toBe('error');
      expect(down.json.info).toEqual({});
      const mcp = down.json.error.mcp;
      expect(mcp).toEqual({
        status: 'down',
        message: expect.stringMatching(/^stores: Redis is unreachable \(health ping\): /),
        stores: { status: 'down', kind: 'redis', message: expect.stringMatching(/^Redis is unreachable/) },
        registry,
      });
      expect(down.json.details).toEqual({ mcp });

      await redis.start();
      await waitUntil(async () => (await health(app)).status === 200, 'health back to 200', RECOVERY_MS);
      expect((await health(app)).json.details.mcp.stores).toMatchObject({ status: 'up', kind: 'redis' });
    });
  });

  describe("Redis through the application's own client (offline queue on)", () => {
    let redis: RedisServerHandle;
    let client: Redis;
    let app: HttpApp;

    beforeAll(async () => {
      redis = await startRedisServer();
      // ioredis's defaults (commands wait in the offline queue while it reconnects), but a short
      // disconnectTimeout: closing a socket still connecting to a stopped Redis waits that long.
      client = new Redis(redis.url, { lazyConnect: true, disconnectTimeout: 200 });
      client.on('error', () => undefined);
      app = await startHttpApp(healthAppModule({ redis: { client }, requestState: { secret: SECRET } }, 300));
    });

    afterAll(async () => {
      await app?.close();
      // The module closes only the clients it made.
      client?.disconnect();
      await redis?.stop();
    });

    it('answers 503 after the probe timeout when the PING waits in the queue', async () => {
      expect((await health(app)).status).toBe(200);
      await redis.stop();
      const started = Date.now();
      const down = await health(app);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(down.status).toBe(503);
      expect(down.json.error.mcp.stores).toEqual({
        status: 'down',
        kind: 'redis',
        message: 'Redis did not answer PING within 300 ms',
      });
    });
  });
});
