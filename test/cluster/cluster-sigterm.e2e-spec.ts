/**
 * A real SIGTERM while tasks end and Redis does not take their outcomes: two instances on one
 * Redis (`test/fixtures/shutdown-main.ts`, each a child process of its own), tasks working on the
 * first when Redis pauses its writes for longer than a command may take. The first is told to
 * stop as their work ends: its drain must store every outcome (retried once Redis writes again)
 * before the process exits, so that the other instance reads each task completed, none working.
 */
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { modernPost, pollFor, rpcResultOf, uniqueKeyPrefix } from './cluster-helpers';

const ENTRY = 'test/fixtures/shutdown-main.ts';
const TASKS = 3;
/** How long each task's work takes: it ends while Redis's writes are paused. */
const WORK_MS = 700;
/** Longer than a command may take (`MCP_REDIS_TIMEOUT_MS`), shorter than the grace period. */
const PAUSE_MS = 2_500;

jest.setTimeout(60_000);

describe('cluster: SIGTERM while task outcomes cannot be stored', () => {
  let redis: RedisServerHandle;
  let admin: Redis;
  let stopping: ServerProcess | undefined;
  let staying: ServerProcess | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url);
  });

  afterAll(async () => {
    stopping?.kill();
    staying?.kill();
    admin?.disconnect();
    await redis?.stop();
  });

  it('the drain stores every outcome before the process exits: no task is left working', async () => {
    const env = {
      MCP_REDIS_URL: redis.url,
      MCP_REDIS_PREFIX: uniqueKeyPrefix('sigterm'),
      MCP_REDIS_TIMEOUT_MS: '300',
      MCP_GRACE_MS: '10000',
    };
    [stopping, staying] = await Promise.all([
      startServerProcess(ENTRY, { ...env, MCP_INSTANCE: 'stopping' }),
      startServerProcess(ENTRY, { ...env, MCP_INSTANCE: 'staying' }),
    ]);
    const [server, other] = [stopping, staying];
    const ids: string[] = [];
    for (let n = 0; n < TASKS; n++) {
      const created = rpcResultOf(
        await modernPost(server.url, 'tools/call', {
          name: 'slow',
          arguments: { ms: WORK_MS, label: `ending-${n}` },
          task: { ttl: 60_000 },
        }),
      );
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      ids.push(String(created.taskId));
    }
    await server.line(new RegExp(`PROBE started ending-${TASKS - 1}`));

    // The works end during the pause: every first write of an outcome times out.
    await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'WRITE');
    await server.terminate('SIGTERM', 20_000);
    expect(server.output()).toMatch(new RegExp(`PROBE finished ending-${TASKS - 1}`));
    expect(server.output()).toMatch(/Shutdown complete/);

    for (const taskId of ids) {
      const task = await pollFor(
        async () => rpcResultOf(await modernPost(other.url, 'tasks/get', { taskId })),
        (current) => current.status !== 'working',
        `task ${taskId} to leave working`,
        5_000,
      );
      expect(task).toMatchObject({ taskId, status: 'completed' });
    }
  });
});
