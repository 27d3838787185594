/**
 * Two instances sharing one Redis when things go wrong: Redis stops while they run (requests
 * that need it fail at once with a clear error, the others are served, service comes back by
 * itself once Redis does), every instance restarts (finished tasks are still read, in both eras)
 * and Redis cannot be reached at boot (the application does not start, and says why). Redis
 * stalls while task works end: their outcomes are kept, answered by the instance that ran them,
 * and stored once Redis answers, also when that instance shuts down meanwhile. Also the startup
 * warning about a missing `requestState.secret`.
 */
import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { freePort } from '../support/ports';
import { McpTaskService } from 'nest-mcp';
import { STORE_UNAVAILABLE } from '../../lib/shared/mcp.messages';
import { CLUSTER_SECRET, startCluster, startClusterApp, type Cluster } from '../fixtures/cluster-fixture';
import { legacyRequest, openLegacySession, post, type RawResponse, waitUntil, withTimeout } from '../fixtures/raw-rpc';
import type { TasksApp } from '../fixtures/tasks-fixture';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import {
  legacyPost,
  modernPost,
  type ModernOptions,
  pollFor,
  RELATED_TASK,
  rpcMessageOf,
  rpcResultOf,
  timed,
  uniqueKeyPrefix,
} from './cluster-helpers';

const TERMINAL = ['completed', 'failed', 'cancelled'];
const ALICE: ModernOptions = { principal: 'alice' };
const LEGACY_TTL_MS = 60_000;
/** A request that needs the store must fail well within this while Redis is away (no hang). */
const FAIL_FAST_MS = 3_000;
/** How long service may take to come back once Redis does (ioredis backs off up to 2 s). */
const RECOVERY_MS = 15_000;
/** Well past the inline window (100 ms): the call is a task by then. */
const PAST_WINDOW_MS = 600;
/**
 * A Redis stall: longer than the instances' command timeout (1 s in the cluster fixture), so
 * that a write made during it fails, and shorter than any wait of the tests.
 */
const STALL_MS = 4_000;
/** Work that ends well within a stall begun once its task exists, even on a loaded machine. */
const ENDS_IN_STALL_MS = 1_200;

const textResult = (text: string) => ({ content: [{ type: 'text', text }] });

/**
 * What a request refused before the engine gets while Redis is away (a legacy session cannot be
 * looked up): 503 with `Retry-After` and its own JSON-RPC -32603 carrying the store's message.
 */
function expectRefusedAtTheGate(response: RawResponse, id: string | number): void {
  expectEngineError(response, id);
}

/**
 * What a request that the engine runs gets while Redis is away: an outage, as at the gate: 503
 * with `Retry-After` (a balancer retries it elsewhere) and its own JSON-RPC -32603 with the
 * store's message, in both eras.
 */
function expectEngineError(response: RawResponse, id: string | number): void {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(rpcMessageOf(response)).toEqual({
    jsonrpc: '2.0',
    id,
    error: { code: -32603, message: STORE_UNAVAILABLE },
  });
}

/**
 * The ids of the tasks whose work ended on `app` from now on (once `settle` returned or threw;
 * it is called as before).
 */
function settledTasks(app: TasksApp): Set<string> {
  // The engine drives the task manager under the service, so that is where the work settles.
  const tasks = app.app.get(McpTaskService).manager;
  const settle = tasks.settle.bind(tasks);
  const ids = new Set<string>();
  jest.spyOn(tasks, 'settle').mockImplementation(async (id, outcome) => {
    try {
      return await settle(id, outcome);
    } finally {
      ids.add(id);
    }
  });
  return ids;
}

describe('cluster: Redis faults and restarts', () => {
  let redis: RedisServerHandle;
  let cluster: Cluster | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    // A test that stopped Redis brings it back, even when it failed before it could.
    await redis.start();
    await cluster?.close();
    cluster = undefined;
  });

  async function modernTaskDone(app: TasksApp, taskId: string): Promise<Record<string, any>> {
    return pollFor(
      async () => rpcResultOf(await modernPost(app.url, 'tasks/get', { taskId }, ALICE)),
      (task) => TERMINAL.includes(task.status),
      `task ${taskId} to end`,
    );
  }

  /**
   * Stalls Redis for `ms` (`CLIENT PAUSE`): `ALL` answers no command, `WRITE` no write (reads
   * go on, and a write sent meanwhile runs once the pause is over).
   */
  async function stallRedis(ms: number, mode: 'ALL' | 'WRITE'): Promise<void> {
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      await admin.call('CLIENT', 'PAUSE', String(ms), mode);
    } finally {
      admin.disconnect();
    }
  }

  it('while Redis is stopped, what needs it fails fast and clearly, the rest is served; then service recovers', async () => {
    cluster = await startCluster({ redisUrl: redis.url, keyPrefix: uniqueKeyPrefix('faults') });
    const [a, b] = cluster.apps;
    const { headers } = await openLegacySession(a.url, '2025-11-25');
    const settled = settledTasks(a);
    // A task whose work ends while Redis is away: storing how it ended fails, which must not
    // bring the instance down.
    const created = rpcResultOf(
      await modernPost(
        a.url,
        'tools/call',
        { name: 'sleepy', arguments: { ms: 1_500, label: 'ends-while-down' } },
        ALICE,
      ),
    );
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });

    await redis.stop();

    for (const app of [a, b]) {
      const legacy = await timed(() => legacyPost(app.url, headers, 'tools/list', {}, 'list'));
      expect(legacy.ms).toBeLessThan(FAIL_FAST_MS);
      expectRefusedAtTheGate(legacy.value, 'list');

      const initialize = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } };
      const fresh = await timed(() => post(app.url, legacyRequest('initialize', initialize)));
      expect(fresh.ms).toBeLessThan(FAIL_FAST_MS);
      expectRefusedAtTheGate(fresh.value, 1);
      expect(fresh.value.headers.get('mcp-session-id')).toBeNull();

      const get = await timed(() => modernPost(app.url, 'tasks/get', { taskId: created.taskId }, { ...ALICE, id: 7 }));
      expect(get.ms).toBeLessThan(FAIL_FAST_MS);
      expectEngineError(get.value, 7);

      // A modern request that needs no store is served as usual.
      const tools = await timed(() => modernPost(app.url, 'tools/list', {}));
      expect(tools.ms).toBeLessThan(FAIL_FAST_MS);
      expect(tools.value.status).toBe(200);
      expect(rpcResultOf(tools.value).tools.length).toBeGreaterThan(3);
      const plain = rpcResultOf(await modernPost(app.url, 'tools/call', { name: 'plain', arguments: {} }));
      expect(plain.content).toEqual(textResult('plain').content);

      // A call that would become a task cannot be handed to one: a clear error, and its work stops.
      const orphan = `orphan-${app.baseUrl}`;
      const call = { name: 'sleepy', arguments: { ms: 30_000, label: orphan } };
      const escalated = await timed(() => modernPost(app.url, 'tools/call', call, { ...ALICE, id: 8 }));
      expect(escalated.ms).toBeLessThan(FAIL_FAST_MS);
      expectEngineError(escalated.value, 8);
      await app.probe.whenAborted(orphan, FAIL_FAST_MS);
    }
    await waitUntil(() => settled.has(created.taskId), 'the work to end while Redis is away');
    // Its outcome is kept on A, which answers from it while Redis is away; B cannot read the task.
    expect(rpcResultOf(await modernPost(a.url, 'tasks/get', { taskId: created.taskId }, ALICE))).toMatchObject({
      status: 'completed',
      result: textResult('slept ends-while-down'),
    });
    expectEngineError(await modernPost(b.url, 'tasks/get', { taskId: created.taskId }, { ...ALICE, id: 9 }), 9);

    await redis.start();

    // A new legacy session works again, on each instance.
    for (const app of [a, b]) {
      const session = await pollFor(
        () => openLegacySession(app.url, '2025-11-25').catch(() => undefined),
        (opened) => opened !== undefined,
        'a legacy session to open again',
        RECOVERY_MS,
        100,
      );
      const list = rpcResultOf(await legacyPost(app.url, session!.headers, 'tools/list', {}, 'list'));
      expect(list.tools.length).toBeGreaterThan(3);
    }
    // Tasks work again, across instances: a task on A is cancelled on B (over the bus, which
    // must have subscribed again) and its work on A aborts.
    let label = '';
    const after = await pollFor(
      async () => {
        label = `after-recovery-${Date.now()}`;
        const call = { name: 'sleepy', arguments: { ms: 30_000, label } };
        return rpcMessageOf(await modernPost(a.url, 'tools/call', call, ALICE));
      },
      (message) => message.result?.resultType === 'task',
      'a task to be created again',
      RECOVERY_MS,
      100,
    );
    const taskId = String(after.result!.taskId);
    rpcResultOf(await modernPost(b.url, 'tasks/cancel', { taskId }, ALICE));
    await a.probe.whenAborted(label, 3_000);
    expect(rpcResultOf(await modernPost(b.url, 'tasks/get', { taskId }, ALICE))).toMatchObject({
      status: 'cancelled',
    });
  }, 40_000);

  it('a task whose work ends during a Redis stall completes with its result, read on both instances after it', async () => {
    cluster = await startCluster({ redisUrl: redis.url, keyPrefix: uniqueKeyPrefix('stall') });
    const [a, b] = cluster.apps;
    const settled = settledTasks(a);
    const work = { name: 'sleepy', arguments: { ms: ENDS_IN_STALL_MS, label: 'ends-in-stall' } };
    const created = rpcResultOf(await modernPost(a.url, 'tools/call', work, ALICE));
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const completed = { taskId: created.taskId, status: 'completed', result: textResult('slept ends-in-stall') };

    await stallRedis(STALL_MS, 'ALL');
    // The work ends during the stall, and storing how it ended fails (the command times out).
    await waitUntil(() => settled.has(created.taskId), 'the work to end during the stall', STALL_MS);
    // A, which ran it, answers from the outcome it keeps, at once, while Redis still stalls.
    const kept = await timed(() => modernPost(a.url, 'tasks/get', { taskId: created.taskId }, ALICE));
    expect(rpcResultOf(kept.value)).toMatchObject(completed);
    expect(kept.ms).toBeLessThan(FAIL_FAST_MS);

    // Once Redis answers, the outcome is stored: every instance reads it.
    const onB = await pollFor(
      async () => rpcMessageOf(await modernPost(b.url, 'tasks/get', { taskId: created.taskId }, ALICE)),
      (message) => TERMINAL.includes(String(message.result?.status)),
      'the task to read ended on B',
      STALL_MS + RECOVERY_MS,
      100,
    );
    expect(onB.result).toMatchObject(completed);
    expect(await modernTaskDone(a, created.taskId)).toMatchObject(completed);
    expect(a.probe.runs('ends-in-stall') + b.probe.runs('ends-in-stall')).toBe(1);
  }, 40_000);

  it('a tasks/result waiting on B is answered once an outcome written during a stall is stored', async () => {
    // A write pause: the outcome's write is held, times out in A's client, then runs in Redis
    // when the pause ends; the retry finds it stored and announces it.
    cluster = await startCluster({ redisUrl: redis.url, keyPrefix: uniqueKeyPrefix('stall-result') });
    const [a, b] = cluster.apps;
    const settled = settledTasks(a);
    const { headers } = await openLegacySession(a.url, '2025-11-25');
    const call = {
      name: 'sleepy',
      arguments: { ms: ENDS_IN_STALL_MS + 800, label: 'result-in-stall' },
      task: { ttl: LEGACY_TTL_MS },
    };
    const { taskId } = rpcResultOf(await legacyPost(a.url, headers, 'tools/call', call, 'call')).task;
    const waiting = legacyPost(b.url, headers, 'tasks/result', { taskId }, 'result');
    // B waits before the stall begins (a request that came in during it could not refresh its session).
    await new Promise((resolve) => setTimeout(resolve, 500));

    await stallRedis(STALL_MS, 'WRITE');
    await waitUntil(() => settled.has(taskId), 'the work to end during the stall', STALL_MS);
    const expected = { ...textResult('slept result-in-stall'), _meta: { [RELATED_TASK]: { taskId } } };
    // A reads the task from the outcome it keeps while the pause lasts (a legacy request could not
    // refresh its session now)...
    await expect(a.app.get(McpTaskService).get(taskId)).resolves.toMatchObject({
      status: 'completed',
      result: textResult('slept result-in-stall'),
    });
    // ...and B, which waited from before the stall, hears of it once it is stored.
    const answered = await withTimeout(waiting, STALL_MS + RECOVERY_MS, 'tasks/result on B');
    expect(rpcResultOf(answered)).toEqual(expected);
    expect(rpcResultOf(await legacyPost(b.url, headers, 'tasks/get', { taskId }, 'g'))).toMatchObject({
      status: 'completed',
    });
  }, 40_000);

  it('an instance closed while task outcomes wait on a Redis stall stores them before it goes: none is left working', async () => {
    cluster = await startCluster({
      redisUrl: redis.url,
      keyPrefix: uniqueKeyPrefix('stall-close'),
      overrides: { shutdownGraceMs: STALL_MS + RECOVERY_MS },
    });
    const [a, b] = cluster.apps;
    const settled = settledTasks(a);
    const labels = ['close-1', 'close-2', 'close-3'];
    const ids: string[] = [];
    for (const label of labels) {
      const work = { name: 'sleepy', arguments: { ms: ENDS_IN_STALL_MS, label } };
      const created = rpcResultOf(await modernPost(a.url, 'tools/call', work, ALICE));
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      ids.push(String(created.taskId));
    }
    await stallRedis(STALL_MS, 'ALL');
    await waitUntil(() => ids.every((id) => settled.has(id)), 'the works to end during the stall', STALL_MS);

    // The shutdown (SIGTERM's app.close()) begins while every outcome waits for Redis.
    await cluster.closeApp(0);

    for (const [index, taskId] of ids.entries()) {
      expect(rpcResultOf(await modernPost(b.url, 'tasks/get', { taskId }, ALICE))).toMatchObject({
        status: 'completed',
        result: textResult(`slept ${labels[index]}`),
      });
    }
  }, 40_000);

  it('an instance closed during a stall longer than its grace gives up on the outcomes by id, and does not hang', async () => {
    const GRACE_MS = 500;
    cluster = await startCluster({
      redisUrl: redis.url,
      keyPrefix: uniqueKeyPrefix('stall-lost'),
      overrides: { shutdownGraceMs: GRACE_MS },
    });
    const [a] = cluster.apps;
    const settled = settledTasks(a);
    const work = { name: 'sleepy', arguments: { ms: ENDS_IN_STALL_MS, label: 'lost-in-stall' } };
    const { taskId } = rpcResultOf(await modernPost(a.url, 'tools/call', work, ALICE));
    await stallRedis(STALL_MS, 'ALL');
    await waitUntil(() => settled.has(taskId), 'the work to end during the stall', STALL_MS);
    const error = jest.spyOn(Logger.prototype, 'error');

    const closing = timed(() => cluster!.closeApp(0));
    // The grace, then one last write within the drain's settle time: the stall outlasts both.
    await waitUntil(
      () => error.mock.calls.some((call) => String(call[0]).includes(`task ${taskId} (completed) could not be stored`)),
      'the outcome to be logged as not stored',
      STALL_MS,
    );
    // The Redis connections close once the stall is over, and the close ends then.
    expect((await closing).ms).toBeLessThan(STALL_MS + RECOVERY_MS);
  }, 40_000);

  it('a modern task that asks while Redis is away fails without an unhandled rejection', async () => {
    // The question cannot be stored: the work gets the error, and nothing is left to settle later.
    cluster = await startCluster({ redisUrl: redis.url, keyPrefix: uniqueKeyPrefix('ask-down') });
    const [a] = cluster.apps;
    const unhandled: unknown[] = [];
    const collect = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', collect);
    try {
      const settled = settledTasks(a);
      const created = rpcResultOf(
        await modernPost(a.url, 'tools/call', { name: 'ask_name', arguments: { ms: 800, label: 'asks-down' } }, ALICE),
      );
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      await redis.stop();
      // The work asks once its sleep is over, fails (the question cannot be stored), and settles.
      await waitUntil(() => settled.has(created.taskId), 'the work to end');
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', collect);
    }
  });

  it('finished tasks of both eras are read from new instances after every instance restarted', async () => {
    cluster = await startCluster({ redisUrl: redis.url, keyPrefix: uniqueKeyPrefix('restart') });
    const [a, b] = cluster.apps;

    const modern = rpcResultOf(
      await modernPost(
        a.url,
        'tools/call',
        { name: 'sleepy', arguments: { ms: PAST_WINDOW_MS, label: 'modern-kept' } },
        ALICE,
      ),
    );
    expect(modern).toMatchObject({ resultType: 'task' });
    const modernDone = await modernTaskDone(b, modern.taskId);
    expect(modernDone).toMatchObject({ status: 'completed', result: textResult('slept modern-kept') });

    const { headers } = await openLegacySession(a.url, '2025-11-25');
    const legacy = rpcResultOf(
      await legacyPost(
        b.url,
        headers,
        'tools/call',
        { name: 'sleepy', arguments: { ms: 100, label: 'legacy-kept' }, task: { ttl: LEGACY_TTL_MS } },
        'call',
      ),
    ).task;
    const legacyResult = rpcResultOf(await legacyPost(a.url, headers, 'tasks/result', { taskId: legacy.taskId }, 'r'));
    expect(legacyResult).toEqual({
      ...textResult('slept legacy-kept'),
      _meta: { [RELATED_TASK]: { taskId: legacy.taskId } },
    });
    const legacyDone = rpcResultOf(await legacyPost(a.url, headers, 'tasks/get', { taskId: legacy.taskId }, 'g'));

    await cluster.closeApp(0);
    await cluster.closeApp(1);
    const fresh = [await cluster.restartApp(0), await cluster.restartApp(1)];
    const gone = [a.baseUrl, b.baseUrl];
    expect(fresh.filter((app) => gone.includes(app.baseUrl))).toEqual([]);

    for (const app of fresh) {
      expect(rpcResultOf(await modernPost(app.url, 'tasks/get', { taskId: modern.taskId }, ALICE))).toEqual(modernDone);
      expect(rpcResultOf(await legacyPost(app.url, headers, 'tasks/result', { taskId: legacy.taskId }, 'r'))).toEqual(
        legacyResult,
      );
      expect(rpcResultOf(await legacyPost(app.url, headers, 'tasks/get', { taskId: legacy.taskId }, 'g'))).toEqual(
        legacyDone,
      );
      // Nothing ran again on the new instances.
      expect(app.probe.runs('modern-kept') + app.probe.runs('legacy-kept')).toBe(0);
    }
  });

  it('an instance does not start when Redis cannot be reached at boot, and says it is Redis', async () => {
    const port = await freePort();
    const { value: failure, ms } = await timed(() =>
      startClusterApp({
        redis: { url: `redis://127.0.0.1:${port}`, keyPrefix: uniqueKeyPrefix('boot'), commandTimeoutMs: 500 },
        requestState: { secret: CLUSTER_SECRET },
      }).then(
        (app) => app.close().then(() => undefined),
        (error: unknown) => error,
      ),
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/Redis/);
    expect((failure as Error).message).toContain(`127.0.0.1:${port}`);
    expect(ms).toBeLessThan(10_000);
  });

  it('warns at startup when redis is set without requestState.secret, and not when it is set', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const apps: TasksApp[] = [];
    try {
      apps.push(await startClusterApp({ redis: { url: redis.url, keyPrefix: uniqueKeyPrefix('warn') } }));
      const warnings = warn.mock.calls.map((call) => String(call[0]));
      expect(warnings).toEqual(expect.arrayContaining([expect.stringContaining('requestState.secret')]));
      const warning = warnings.find((text) => text.includes('requestState.secret'))!;
      expect(warning).toMatch(/redis/);

      warn.mockClear();
      apps.push(
        await startClusterApp({
          redis: { url: redis.url, keyPrefix: uniqueKeyPrefix('warn') },
          requestState: { secret: CLUSTER_SECRET },
        }),
      );
      expect(warn.mock.calls.map((call) => String(call[0]))).not.toContainEqual(
        expect.stringContaining('requestState.secret'),
      );
    } finally {
      warn.mockRestore();
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});
