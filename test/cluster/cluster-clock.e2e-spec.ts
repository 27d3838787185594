/**
 * One clock across instances: two instances on one Redis (`test/fixtures/shutdown-main.ts`, each
 * in a child process of its own), one of them with a wall clock an hour ahead
 * (`test/support/shifted-clock.ts` shifts its `Date`, as an unsynchronised machine would), both
 * sweeping sessions and tasks every 100 ms. The skewed instance's sweeps must end nothing of the
 * honest one's early, and it must say at startup that its clock is off.
 */
import { openLegacySession } from '../fixtures/raw-rpc';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { legacyPost, modernPost, pollFor, rpcResultOf, uniqueKeyPrefix } from './cluster-helpers';

const ENTRY = 'test/fixtures/shutdown-main.ts';
const HOUR_MS = 3_600_000;
const IDLE_TIMEOUT_MS = 3_000;
const SWEEP_MS = 100;
/** Many sweeps of the skewed instance: any of them would have ended what an hour ahead sees as old. */
const SEVERAL_SWEEPS_MS = 1_000;
/** `refresh` writes a session's activity at a tenth of the idle timeout: the last write may be that old. */
const ACTIVITY_RESOLUTION_MS = IDLE_TIMEOUT_MS / 10;

jest.setTimeout(60_000);

describe('cluster: one instance with a clock an hour ahead', () => {
  let redis: RedisServerHandle;
  let honest: ServerProcess;
  let skewed: ServerProcess;

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = {
      MCP_REDIS_URL: redis.url,
      MCP_REDIS_PREFIX: uniqueKeyPrefix('clock'),
      MCP_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
      MCP_SWEEP_MS: String(SWEEP_MS),
    };
    [honest, skewed] = await Promise.all([
      startServerProcess(ENTRY, { ...env, MCP_INSTANCE: 'honest' }),
      startServerProcess(ENTRY, { ...env, MCP_INSTANCE: 'skewed', CLOCK_SHIFT_MS: String(HOUR_MS) }, undefined, [
        'test/support/shifted-clock.ts',
      ]),
    ]);
  });

  afterAll(async () => {
    honest?.kill();
    skewed?.kill();
    await redis?.stop();
  });

  /** Resolves once either instance wrote a line matching `pattern`. */
  function eitherWrote(pattern: RegExp, what: string, timeoutMs = 5_000): Promise<string> {
    return pollFor(
      () => Promise.resolve(`${honest.output()}\n${skewed.output()}`),
      (output) => pattern.test(output),
      what,
      timeoutMs,
    );
  }

  /** Runs `check`; on failure shows what both instances wrote. */
  async function showingOutput(check: () => Promise<void>): Promise<void> {
    try {
      await check();
    } catch (error) {
      const outputs = [`--- honest ---\n${honest.output()}`, `--- skewed ---\n${skewed.output()}`];
      throw new Error(`${String(error)}\n${outputs.join('\n')}`, { cause: error });
    }
  }

  it('the skewed instance says at startup that its clock is an hour ahead of Redis, whose clock it uses', async () => {
    await showingOutput(async () => {
      const warning = await skewed.line(/clock is \d+(\.\d+)? s ahead of Redis/);
      expect(warning).toMatch(/clock is 360\d(\.\d+)? s ahead of Redis/);
      expect(warning).toMatch(/uses Redis's clock/);
      expect(honest.output()).not.toMatch(/ahead of Redis|behind Redis/);
    });
  });

  it('a session of the honest instance is not ended by the sweeps of the skewed one, and ends once idle, saying so', async () => {
    await showingOutput(async () => {
      const session = await openLegacySession(honest.url);
      await new Promise((resolve) => setTimeout(resolve, SEVERAL_SWEEPS_MS));
      // Alive, on either instance.
      expect((await legacyPost(honest.url, session.headers, 'ping')).status).toBe(200);
      expect((await legacyPost(skewed.url, session.headers, 'ping')).status).toBe(200);
      const lastActive = Date.now();

      // Left idle, it ends after the idle timeout, and not before; the sweep that ends it says so.
      const ended = new RegExp(`Ended 1 idle session .*${session.sessionId} \\(idle since `);
      await eitherWrote(ended, 'the sweep to end the idle session', 10_000);
      expect(Date.now() - lastActive).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS - ACTIVITY_RESOLUTION_MS - 100);
      expect((await legacyPost(honest.url, session.headers, 'ping')).status).toBe(404);
    });
  });

  /**
   * Starts `slow` on the honest instance as a modern task (no session: what ends sessions plays
   * no part) and polls it there until it leaves `working`.
   */
  async function runTask(
    label: string,
    ms: number,
    ttl: number,
  ): Promise<{ taskId: string; task: Record<string, any> }> {
    const created = rpcResultOf(
      await modernPost(honest.url, 'tools/call', { name: 'slow', arguments: { ms, label }, task: { ttl } }),
    );
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = String(created.taskId);
    const task = await pollFor(
      async () => rpcResultOf(await modernPost(honest.url, 'tasks/get', { taskId })),
      (current) => current.status !== 'working',
      `task ${taskId} to end`,
      10_000,
      100,
    );
    return { taskId, task };
  }

  it('a task working on the honest instance is not failed as expired by the skewed one; it completes', async () => {
    await showingOutput(async () => {
      const { taskId, task } = await runTask('clock-task', 1_500, 60_000);
      expect(task).toMatchObject({ taskId, status: 'completed' });
      expect(honest.output()).not.toMatch(/PROBE aborted clock-task/);
    });
  });

  it('a task past its TTL fails as expired, not before its TTL, and the sweep that fails it says so', async () => {
    await showingOutput(async () => {
      const started = Date.now();
      const { taskId, task } = await runTask('clock-expiring', 30_000, 1_000);
      // Not before its TTL (the instances' clock is Redis's, this process's is the machine's: 50 ms of slack).
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000 - 50);
      expect(task).toMatchObject({ taskId, status: 'failed', statusMessage: 'Task expired' });
      await eitherWrote(new RegExp(`Failed 1 expired task .*${taskId}`), 'the sweep to say it failed the task');
      await honest.line(/PROBE aborted clock-expiring: Task expired/);
    });
  });
});
