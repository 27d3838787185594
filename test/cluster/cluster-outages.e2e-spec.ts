/**
 * A Redis that runs but refuses to serve: out of memory (`maxmemory` with `noeviction`) or
 * read-only (a replica whose master is away, as during a failover). Requests that need a write
 * are outages, not bugs: 503 with `Retry-After`, their own id and a JSON-RPC -32603 with the
 * store-unavailable message, on the Streamable HTTP endpoint and on the simple one, in both
 * eras, whether refused before the engine (a session cannot be opened) or inside it (a task
 * cannot be created); what needs no write is served; the health indicator reports down with
 * Redis's reason; the log has one warning, not a stack trace per request.
 */
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { McpHealthIndicator } from 'nest-mcp';
import { STORE_UNAVAILABLE } from '../../lib/shared/mcp.messages';
import { startCluster, type Cluster } from '../fixtures/cluster-fixture';
import { legacyRequest, openLegacySession, post, type RawResponse } from '../fixtures/raw-rpc';
import { freePort } from '../support/ports';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import {
  legacyPost,
  modernPost,
  type ModernOptions,
  pollFor,
  rpcMessageOf,
  rpcResultOf,
  uniqueKeyPrefix,
} from './cluster-helpers';

const ALICE: ModernOptions = { principal: 'alice' };
/** Long enough that a call becomes a task (the inline window is 100 ms), short enough to end the test. */
const TASK_CALL = (label: string) => ({ name: 'sleepy', arguments: { ms: 30_000, label } });
const IDLE_TIMEOUT_MS = 5_000;
const INITIALIZE = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } };

/** An outage answer: 503, `Retry-After`, the request's own id, -32603 with the store-unavailable message. */
function expectOutage(response: RawResponse, id: string | number): void {
  expect({ status: response.status, retryAfter: response.headers.get('retry-after') }).toEqual({
    status: 503,
    retryAfter: '1',
  });
  expect(rpcMessageOf(response)).toEqual({ jsonrpc: '2.0', id, error: { code: -32603, message: STORE_UNAVAILABLE } });
}

/** The lines logged at `level` (Nest's Logger, which the module's loggers go through) that mention `text`. */
function linesWith(spy: jest.SpyInstance, text: string): string[] {
  return spy.mock.calls.map((call) => String(call[0])).filter((line) => line.includes(text));
}

describe('cluster: Redis refusing to serve (out of memory, read-only)', () => {
  let redis: RedisServerHandle;
  let admin: Redis;
  let cluster: Cluster | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url, { lazyConnect: true });
    await admin.connect();
  });

  afterAll(async () => {
    admin?.disconnect();
    await redis?.stop();
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await admin.config('SET', 'maxmemory', '0');
    await admin.replicaof('NO', 'ONE');
    await cluster?.close();
    cluster = undefined;
  });

  async function start(label: string): Promise<Cluster> {
    cluster = await startCluster({
      redisUrl: redis.url,
      keyPrefix: uniqueKeyPrefix(label),
      instances: 1,
      // A session's activity is recorded at most every tenth of the idle timeout: 500 ms here.
      overrides: { simpleHttpPath: 'rpc', sessions: { idleTimeoutMs: IDLE_TIMEOUT_MS } },
    });
    return cluster;
  }

  it('out of memory: what needs a write answers 503 with its id, health is down, one warning', async () => {
    const [app] = (await start('oom')).apps;
    const rpc = new URL('/rpc', app.baseUrl);
    const { headers } = await openLegacySession(app.url, '2025-11-25');
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const error = jest.spyOn(Logger.prototype, 'error');
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');
    // Past the activity resolution: each legacy request below tries to record the session's
    // activity, which Redis refuses; the session was read, so the request is served all the same.
    await new Promise((resolve) => setTimeout(resolve, IDLE_TIMEOUT_MS / 10 + 100));

    // Inside the engine: a task cannot be created (legacy, task-augmented; modern, past the inline window).
    const legacyCall = { ...TASK_CALL('legacy-oom'), task: { ttl: 60_000 } };
    expectOutage(await legacyPost(app.url, headers, 'tools/call', legacyCall, 'legacy-call'), 'legacy-call');
    expectOutage(await modernPost(app.url, 'tools/call', TASK_CALL('modern-oom'), { ...ALICE, id: 11 }), 11);
    await app.probe.whenAborted('modern-oom', 3_000);
    // The simple endpoint, in both eras.
    expectOutage(await modernPost(rpc, 'tools/call', TASK_CALL('simple-modern-oom'), { ...ALICE, id: 12 }), 12);
    const simpleLegacy = legacyRequest('tools/call', { ...TASK_CALL('simple-legacy-oom'), task: { ttl: 60_000 } }, 13);
    expectOutage(await post(rpc, simpleLegacy, { 'mcp-protocol-version': '2025-11-25' }), 13);
    // Before the engine (the gate): a session cannot be opened; the answer names no session.
    const init = await post(app.url, legacyRequest('initialize', INITIALIZE, 'init-1'));
    expectOutage(init, 'init-1');
    expect(init.headers.get('mcp-session-id')).toBeNull();

    // What needs no write is served (a legacy request whose session's activity cannot be recorded too).
    expect(rpcResultOf(await legacyPost(app.url, headers, 'tools/list', {}, 'list')).tools.length).toBeGreaterThan(3);
    expect(rpcResultOf(await modernPost(app.url, 'tools/call', { name: 'plain', arguments: {} })).content).toEqual([
      { type: 'text', text: 'plain' },
    ]);

    const health = await app.app.get(McpHealthIndicator).isHealthy();
    expect(health.mcp).toMatchObject({
      status: 'down',
      stores: {
        status: 'down',
        kind: 'redis',
        message: expect.stringMatching(/^Redis cannot serve now \(health write\): OOM command not allowed/),
      },
    });

    // One warning with Redis's words; no error (no stack trace) for any of the requests.
    const warnings = linesWith(warn, 'OOM');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Redis cannot serve now \(.+\): OOM command not allowed when used memory/);
    expect(linesWith(error, 'OOM')).toEqual([]);
    expect(error).not.toHaveBeenCalled();

    // Redis takes writes again: so does the server, and the health indicator is up.
    await admin.config('SET', 'maxmemory', '0');
    const call = { name: 'sleepy', arguments: { ms: 300, label: 'after-oom' } };
    const created = rpcResultOf(await modernPost(app.url, 'tools/call', call, ALICE));
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    await pollFor(
      async () => rpcResultOf(await modernPost(app.url, 'tasks/get', { taskId: created.taskId }, ALICE)),
      (task) => task.status === 'completed',
      'the task made after the outage to complete',
    );
    expect((await app.app.get(McpHealthIndicator).isHealthy()).mcp.status).toBe('up');
  });

  it('read-only (a replica whose master is away): 503 with the id, health down with READONLY', async () => {
    const [app] = (await start('readonly')).apps;
    const { headers } = await openLegacySession(app.url, '2025-11-25');
    await admin.replicaof('127.0.0.1', String(await freePort()));

    expectOutage(await modernPost(app.url, 'tools/call', TASK_CALL('modern-readonly'), { ...ALICE, id: 21 }), 21);
    const legacyCall = { ...TASK_CALL('legacy-readonly'), task: { ttl: 60_000 } };
    expectOutage(await legacyPost(app.url, headers, 'tools/call', legacyCall, 22), 22);
    expectOutage(await post(app.url, legacyRequest('initialize', INITIALIZE, 23)), 23);

    const health = await app.app.get(McpHealthIndicator).isHealthy();
    expect(health.mcp).toMatchObject({
      status: 'down',
      stores: { status: 'down', message: expect.stringMatching(/^Redis cannot serve now \(health write\): READONLY /) },
    });
  });
});
