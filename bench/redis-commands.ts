/**
 * Redis commands per request, counted by Redis itself (`INFO commandstats`): a legacy
 * tools/call (one session, in Redis) and a modern one (stateless), on one server instance that
 * keeps its state in a private redis-server.
 *
 * For each era: `CONFIG RESETSTAT`, `requests` tools/call echo, `INFO commandstats`; then the
 * same again over an idle window of the same length with no request, which counts what the
 * server does on its own meanwhile (timers, sweeps, heartbeats) and the bench's own RESETSTAT:
 * subtracted, per command, from the loaded window, to a hundredth of a command per request.
 * Commands a Lua script calls count in commandstats on their own, beside the EVALSHA that ran
 * them: a MONITOR connection during the loaded window tells which came from scripts
 * (`fromScripts`).
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/redis-commands.ts [--requests 2000]
 *     [--platform express|fastify]
 */
import { randomBytes } from 'node:crypto';
import { createConnection, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServerHandle } from '../test/support/redis-server';
import { ChildServer } from './children';
import { platformProblem } from './memory';
import { probe, type RequestSpec } from './load';
import { type BenchEra, openSession, problemWith, requestOf, TOOL_COUNT } from './requests';
import { printTargets, summarizeTargets, target, type TargetResult } from './targets';

/** Options of {@link runRedisCommands}. */
export interface RedisCommandsOptions {
  /** tools/call requests counted per era (default 2000). */
  requests: number;
  platform: 'express' | 'fastify';
}

/** The defaults of {@link RedisCommandsOptions}. */
export const REDIS_COMMANDS_DEFAULTS: RedisCommandsOptions = { requests: 2000, platform: 'express' };

/** The targets: a legacy call reads its session (one HGETALL), a modern one nothing. */
const LIMITS: Record<BenchEra, number> = { legacy: 1, modern: 0 };

/** Concurrent connections sending the counted requests. */
const CONNECTIONS = 4;
/** Unmeasured requests per era first: the first calls load the scripts, compile the code paths. */
const WARMUP_REQUESTS = 50;

/** Calls per command, from `INFO commandstats` (`cmdstat_hgetall:calls=2000,...` → hgetall: 2000). */
async function commandCalls(admin: Redis): Promise<Record<string, number>> {
  const info = await admin.info('commandstats');
  const calls: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_(\S+?):calls=(\d+)/gm)) {
    calls[match[1]] = Number(match[2]);
  }
  return calls;
}

/** Commands and counts, largest first. */
function sorted(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([, a], [, b]) => b - a));
}

/** Sends `count` copies of `spec` over `CONNECTIONS` connections; the answers that were not `expected`. */
async function sendAll(url: string, spec: RequestSpec, count: number, expected: string): Promise<string[]> {
  const problems: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < count) {
        next++;
        try {
          const answer = await probe(url, spec);
          if (answer.status !== 200 || answer.body !== expected) {
            problems.push(`HTTP ${answer.status}: ${answer.body.slice(0, 200)}`);
          }
        } catch (error) {
          problems.push(`request failed: ${String(error)}`);
        }
      }
    }),
  );
  return problems;
}

/**
 * Counts, from MONITOR, the commands that Lua scripts ran, by name. MONITOR runs on a raw socket:
 * ioredis's monitor mode can fail with "Command queue state error" when commands are already
 * flowing as it starts. Each monitored command is one line: `+<time> [<db> <source>] "<name>" ...`,
 * with `lua` as the source of a script's commands.
 */
class ScriptTally {
  readonly fromScripts: Record<string, number> = {};
  counting = false;
  private buffered = '';

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      let end: number;
      while ((end = this.buffered.indexOf('\r\n')) >= 0) {
        const line = this.buffered.slice(0, end);
        this.buffered = this.buffered.slice(end + 2);
        const match = /^\+[\d.]+ \[\d+ lua\] "([^"]+)"/.exec(line);
        if (this.counting && match !== null) {
          const name = match[1].toLowerCase();
          this.fromScripts[name] = (this.fromScripts[name] ?? 0) + 1;
        }
      }
    });
    // A monitor that went away only leaves fromScripts short; the counts themselves come from INFO.
    socket.on('error', () => undefined);
  }

  /** Connects and enters MONITOR (resolves on its +OK). */
  static async start(port: number): Promise<ScriptTally> {
    const socket = createConnection({ host: '127.0.0.1', port });
    await new Promise<void>((done, fail) => {
      socket.once('error', fail);
      socket.once('connect', () => socket.write('MONITOR\r\n'));
      socket.once('data', (chunk) => {
        socket.off('error', fail);
        if (String(chunk).startsWith('+OK')) {
          done();
        } else {
          fail(new Error(`MONITOR: ${String(chunk).trim()}`));
        }
      });
    });
    return new ScriptTally(socket);
  }

  reset(): void {
    for (const name of Object.keys(this.fromScripts)) {
      delete this.fromScripts[name];
    }
  }

  stop(): void {
    this.socket.destroy();
  }
}

interface EraCount {
  requests: number;
  durationS: number;
  /** Per command: (calls in the loaded window − calls in the idle window) ÷ requests. */
  perRequest: Record<string, number>;
  total: number;
  loaded: Record<string, number>;
  idle: Record<string, number>;
  /** Of the loaded window's calls, those a Lua script made (MONITOR), per request. */
  fromScriptsPerRequest: Record<string, number>;
  /**
   * Age of the legacy session when the loaded window ended: under 15 s, its activity was not
   * due to be written back yet (see bench/README.md, "Redis commands per request").
   */
  sessionAgeS?: number;
}

async function countEra(
  era: BenchEra,
  url: string,
  sessionId: string,
  requests: number,
  admin: Redis,
  tally: ScriptTally,
  sessionOpenedAt: number,
): Promise<EraCount> {
  const spec = requestOf('tools/call', era, sessionId);
  const sample = await probe(url, spec);
  const problem = problemWith('tools/call', sample);
  if (problem !== undefined) {
    throw new Error(`tools/call ${era}: the sample response is not a success: ${problem}`);
  }
  const warmupProblems = await sendAll(url, spec, WARMUP_REQUESTS, sample.body);
  if (warmupProblems.length > 0) {
    throw new Error(`tools/call ${era}: ${warmupProblems.length} failed warm-up requests (${warmupProblems[0]})`);
  }

  tally.reset();
  tally.counting = true;
  await admin.config('RESETSTAT');
  const start = Date.now();
  const problems = await sendAll(url, spec, requests, sample.body);
  const end = Date.now();
  const durationMs = end - start;
  const loaded = await commandCalls(admin);
  tally.counting = false;
  if (problems.length > 0) {
    throw new Error(`tools/call ${era}: ${problems.length} of ${requests} requests failed (${problems[0]})`);
  }

  // The same length of time with no request: what the server (and this bench) do by themselves.
  await admin.config('RESETSTAT');
  await new Promise((done) => setTimeout(done, durationMs));
  const idle = await commandCalls(admin);

  const perRequest: Record<string, number> = {};
  for (const name of new Set([...Object.keys(loaded), ...Object.keys(idle)])) {
    // To a hundredth: the two windows may hold one beat of the server's heartbeat more or less
    // (a few commands a second), which is not the requests' doing.
    const value = Math.round((((loaded[name] ?? 0) - (idle[name] ?? 0)) / requests) * 100) / 100;
    if (value !== 0) {
      perRequest[name] = value;
    }
  }
  const fromScriptsPerRequest: Record<string, number> = {};
  for (const [name, calls] of Object.entries(tally.fromScripts)) {
    fromScriptsPerRequest[name] = calls / requests;
  }
  return {
    requests,
    durationS: durationMs / 1000,
    perRequest: sorted(perRequest),
    total: Object.values(perRequest).reduce((sum, value) => sum + value, 0),
    loaded: sorted(loaded),
    idle: sorted(idle),
    fromScriptsPerRequest: sorted(fromScriptsPerRequest),
    ...(era === 'legacy' ? { sessionAgeS: (end - sessionOpenedAt) / 1000 } : {}),
  };
}

/**
 * The Redis section: commands per legacy and per modern tools/call, counted by a private
 * redis-server (`redis:legacy-call-commands`, `redis:modern-call-commands`), with the per-command
 * breakdown in `details`. Starts and stops its own redis-server and server child, also on error.
 */
export async function runRedisCommands(
  options: RedisCommandsOptions,
): Promise<{ targets: TargetResult[]; failures: string[]; details: unknown }> {
  const targets: TargetResult[] = [];
  const failures: string[] = [];
  const details: Record<string, unknown> = { platform: options.platform, connections: CONNECTIONS };
  let redis: RedisServerHandle | undefined;
  let admin: Redis | undefined;
  let tally: ScriptTally | undefined;
  let child: ChildServer | undefined;
  // A bench stopped by a signal exits without reaching `finally`: redis-server must not outlive
  // it (stop() sends SIGTERM synchronously).
  const killRedis = (): void => void redis?.stop();
  process.once('exit', killRedis);
  try {
    redis = await startRedisServer();
    admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    child = await ChildServer.start('mcp-server (redis commands)', 'mcp-server.ts', {
      env: {
        BENCH_PLATFORM: options.platform,
        MCP_PAGE_SIZE: '0',
        BENCH_TOOL_COUNT: String(TOOL_COUNT),
        MCP_REDIS_URL: redis.url,
        MCP_REQUEST_STATE_SECRET: randomBytes(32).toString('base64url'),
      },
    });
    const problem = platformProblem(child, options.platform);
    if (problem !== undefined) {
      throw new Error(problem);
    }
    tally = await ScriptTally.start(redis.port);
    // Opened right before the legacy era is counted (see EraCount.sessionAgeS).
    const sessionId = await openSession(child.url);
    const sessionOpenedAt = Date.now();
    for (const era of ['legacy', 'modern'] as const) {
      try {
        const count = await countEra(era, child.url, sessionId, options.requests, admin, tally, sessionOpenedAt);
        details[era] = count;
        targets.push(
          target(
            `redis:${era}-call-commands`,
            `Redis commands per ${era} tools/call`,
            count.total,
            'at-most',
            LIMITS[era],
            'commands/request',
          ),
        );
      } catch (error) {
        failures.push(`redis commands: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (child.errors.length > 0) {
      failures.push(`redis commands: the server reported errors: ${child.errors.join('; ')}`);
    }
  } catch (error) {
    failures.push(`redis commands: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    tally?.stop();
    admin?.disconnect();
    await child?.stop();
    await redis?.stop();
    process.off('exit', killRedis);
  }
  return { targets, failures, details };
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: String(REDIS_COMMANDS_DEFAULTS.requests) },
      platform: { type: 'string', default: REDIS_COMMANDS_DEFAULTS.platform },
    },
  });
  if (values.platform !== 'express' && values.platform !== 'fastify') {
    throw new Error(`--platform must be express or fastify, not ${values.platform}`);
  }
  const started = Date.now();
  runRedisCommands({ requests: Number(values.requests), platform: values.platform }).then(
    (result) => {
      console.log(JSON.stringify(result.details, null, 2));
      printTargets(summarizeTargets([result.targets]), 1);
      for (const failure of result.failures) {
        console.log(`FAILURE: ${failure}`);
      }
      console.log(`redis commands section: ${((Date.now() - started) / 1000).toFixed(0)} s`);
      process.exit(result.failures.length > 0 ? 1 : 0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
