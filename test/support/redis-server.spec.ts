/**
 * What `startRedisServer` says when redis-server cannot be run: what to install, not a spawn
 * ENOENT. The PATH (and REDIS_SERVER) are pointed at an empty directory for each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisServerNotFoundError, startRedisServer } from './redis-server';

/** The error `startRedisServer()` fails with; a server that did start is stopped, and fails the test. */
async function startFailure(): Promise<Error> {
  const outcome = await startRedisServer().then(
    async (server) => {
      await server.stop();
      return new Error(`redis-server started on port ${server.port}, which this test must prevent`);
    },
    (reason: unknown) => reason,
  );
  if (!(outcome instanceof RedisServerNotFoundError)) {
    throw outcome;
  }
  return outcome;
}

describe('startRedisServer without redis-server', () => {
  const saved = { PATH: process.env.PATH, REDIS_SERVER: process.env.REDIS_SERVER };
  let empty: string;

  beforeEach(() => {
    empty = mkdtempSync(join(tmpdir(), 'nest-mcp-no-redis-'));
    process.env.PATH = empty;
    delete process.env.REDIS_SERVER;
  });

  afterEach(() => {
    process.env.PATH = saved.PATH;
    if (saved.REDIS_SERVER === undefined) {
      delete process.env.REDIS_SERVER;
    } else {
      process.env.REDIS_SERVER = saved.REDIS_SERVER;
    }
    rmSync(empty, { recursive: true, force: true });
  });

  it('fails at once and says what to install when it is not on the PATH', async () => {
    const started = Date.now();
    const error = await startFailure();
    expect(error.message).toBe(
      'redis-server was not found on the PATH: install it (Debian/Ubuntu: apt-get install redis-server) ' +
        'to run the Redis suites, or set REDIS_SERVER to its path',
    );
    expect(error.message).not.toContain('ENOENT');
    // No other port is tried: none could help a missing binary.
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('names the path REDIS_SERVER gives when nothing is there', async () => {
    const missing = join(empty, 'redis-server');
    process.env.REDIS_SERVER = missing;
    const error = await startFailure();
    expect(error.message).toBe(
      `redis-server was not found at ${missing} (REDIS_SERVER): install it (Debian/Ubuntu: ` +
        'apt-get install redis-server) to run the Redis suites, or point REDIS_SERVER at it',
    );
  });
});
