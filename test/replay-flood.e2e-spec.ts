/**
 * The replay flood of issue 34, against the sample in a process of its own: an anonymous legacy
 * client has `search_notes` echo a 3.5 MiB query into `ctx.log`, call after call, session after
 * session. Every log line is an event of a legacy SSE stream, kept for `Last-Event-ID` resumes:
 * counted by events only (256 a session), the buffers grew with every call until the heap ran
 * out (memory store) or Redis grew without bound. With the byte bounds at their defaults
 * (`http.replayBufferBytes` 4 MiB a session, `http.replayTotalBytes` 64 MiB for the server),
 * what is kept stays under 64 MiB whatever the client sends.
 *
 * The sample runs with a 160 MiB heap, as in a small container, so that what it keeps shows
 * rather than hides in a heap left to grow: the flood sends 140 MiB of events. Measured on main
 * (where a buffer held 256 events of any size): the memory store died of heap exhaustion at the
 * 32nd call, and Redis reached 165 MiB of `used_memory`. With the bounds: a peak RSS of about
 * 290 MiB on the memory store (265 MiB with Redis, where the process keeps no events) and 78 MiB
 * of `used_memory` in Redis (64 MiB of events, each rounded up by its allocator); the process
 * survives a heap as small as 128 MiB.
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { legacyRequest, openLegacySession, post } from './fixtures/raw-rpc';
import { startSample, type SampleProcess } from './support/console-sample';
import { startRedisServer, type RedisServerHandle } from './support/redis-server';

const MIB = 1024 * 1024;
/** The argument the client sent: under the 4 MiB body limit. */
const QUERY = 'x'.repeat(3.5 * MIB);
/** 40 calls: 140 MiB of events, over more sessions than the total holds one of. */
const SESSIONS = 20;
const CALLS_PER_SESSION = 2;
const SAMPLE_ENV = { NODE_OPTIONS: '--max-old-space-size=160' };

/** The peak resident set of process `pid` so far (VmHWM), in MiB. */
function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)![1]) / 1024;
}

/** Redis's `used_memory`, in MiB. */
async function redisUsedMiB(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/^used_memory:(\d+)\r?$/m.exec(info)![1]) / MIB;
}

/** The flood, one call at a time; each call is answered on its SSE stream, log line first. */
async function flood(sample: SampleProcess): Promise<void> {
  const url = new URL('/mcp', sample.baseUrl);
  for (let session = 0; session < SESSIONS; session += 1) {
    const { headers } = await openLegacySession(url, '2025-11-25');
    for (let call = 0; call < CALLS_PER_SESSION; call += 1) {
      const answer = await post(
        url,
        legacyRequest('tools/call', { name: 'search_notes', arguments: { query: QUERY } }, call + 1),
        headers,
      ).catch((error: unknown) => {
        throw new Error(
          `Call ${session * CALLS_PER_SESSION + call + 1} failed (${String(error)}):\n${sample.output()}`,
        );
      });
      expect(answer.events.map((message) => message.method ?? message.id)).toEqual(['notifications/message', call + 1]);
    }
  }
}

describe('a replay flood of 40 log lines of 3.5 MiB against the sample (160 MiB heap)', () => {
  let sample: SampleProcess | undefined;
  let redisServer: RedisServerHandle | undefined;
  let redis: Redis | undefined;

  afterEach(async () => {
    await sample?.stop();
    sample = undefined;
    redis?.disconnect();
    redis = undefined;
    await redisServer?.stop();
    redisServer = undefined;
  });

  it('memory store: the server lives and its RSS peaks under 400 MiB', async () => {
    sample = await startSample(SAMPLE_ENV);
    await flood(sample);
    expect(peakRssMiB(sample.pid)).toBeLessThan(400);
  }, 60_000);

  it('Redis store: used_memory stays under 100 MiB, and the RSS of the server under 400 MiB', async () => {
    redisServer = await startRedisServer();
    redis = new Redis(redisServer.url);
    sample = await startSample({
      ...SAMPLE_ENV,
      MCP_REDIS_URL: redisServer.url,
      MCP_REQUEST_STATE_SECRET: 'replay-flood-request-state-secret-0123456789',
    });
    await flood(sample);
    expect(await redisUsedMiB(redis)).toBeLessThan(100);
    expect(peakRssMiB(sample.pid)).toBeLessThan(400);
  }, 60_000);
});
