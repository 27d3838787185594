/**
 * Scale-out scenarios: one MCP server instance against two instances of the same server sharing
 * one Redis, behind the round-robin proxy (test/support/round-robin-proxy.ts), for tools/call in
 * the modern era (stateless) and in the legacy era (one session, used through the proxy, so
 * consecutive requests land on different instances).
 *
 * Processes: redis-server, instances A and B (the sample's AppModule with `redis` and one
 * `requestState.secret`), and two proxies, each in its own child process: "1×" forwards to A
 * only, "2×" to A and B in turn. Both sides of the ratio pay the same proxy hop, so the ratio
 * is what the second instance adds; "direct" (A without a proxy) shows what the hop costs. A
 * too sees Redis: the single instance uses the same stores as the pair.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism, cpus } from 'node:os';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServerHandle } from '../test/support/redis-server';
import { ChildServer } from './children';
import { load, median, probe, summarize, type Measurement, type Slice } from './load';
import {
  type BenchEra,
  fmt,
  openSession,
  problemWith,
  renderTable,
  requestOf,
  runProblems,
  TOOL_COUNT,
} from './requests';

/** A scale-out scenario: tools/call echo at `connections` concurrent connections. */
export interface ScaleScenario {
  id: string;
  era: BenchEra;
  connections: number;
}

export const SCALE_SCENARIOS: ScaleScenario[] = [
  { id: 'scale-call-modern-16', era: 'modern', connections: 16 },
  { id: 'scale-call-legacy-16', era: 'legacy', connections: 16 },
];

/** Where the proxy runs (printed and written with the results). */
export const PROXY_PLACEMENT = 'own child process';

type TargetName = 'one' | 'two' | 'direct';

/** CPU time per request, in µs, of each kind of process while a target was measured. */
export interface CpuSplit {
  /** The MCP server instances together. */
  servers: number;
  /** The round-robin proxy (0 for the direct target). */
  proxy: number;
  redis: number;
}

export interface ScaleRow {
  scenario: string;
  method: 'tools/call';
  era: BenchEra;
  concurrency: number;
  /** One instance (A) behind the proxy. */
  one: Measurement;
  /** Two instances (A, B) behind the proxy. */
  two: Measurement;
  /** One instance (A) without the proxy. */
  direct: Measurement;
  /** two req/s ÷ one req/s over all rounds: what the second instance adds. */
  ratio: number;
  /** Median over the rounds of two req/s ÷ one req/s, each pair measured back to back. */
  pairedRatio: number;
  /** Lowest and highest per-round ratio. */
  pairedRange: [number, number];
  /** two req/s ÷ direct req/s: a proxy and a second instance against one bare instance. */
  directRatio: number;
  cpuUsPerRequest: Record<TargetName, CpuSplit>;
  /** Average busy cores of the whole machine while each target was measured (max = cores). */
  busyCores: Record<TargetName, number>;
  /** Share of the 2× requests each instance served while measured (round robin: 0.5 each). */
  instanceShare: number[];
}

export interface ScaleResult {
  setup: { proxy: string; instances: number; store: 'redis'; redisPort?: number };
  rows: ScaleRow[];
  failures: string[];
}

export interface ScaleTiming {
  durationS: number;
  rounds: number;
  warmupS: number;
}

/** Busy core-milliseconds of the whole machine so far (every state but idle and iowait). */
function machineBusyMs(): number {
  return cpus().reduce((sum, cpu) => sum + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq, 0);
}

/** CPU time redis-server has used so far (INFO cpu), in µs. */
async function redisCpuUs(client: Redis): Promise<number> {
  const info = await client.info('cpu');
  const field = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

interface Counters {
  servers: number;
  proxy: number;
  redis: number;
  busyMs: number;
  at: number;
}

interface Target {
  name: TargetName;
  url: string;
  proxy?: ChildServer;
  slices: Slice[];
  proxyUs: number[];
  redisUs: number[];
  busy: number[];
}

/** Runs the scale-out scenarios; starts and stops its own Redis and children. */
export async function runScale(scenarios: ScaleScenario[], timing: ScaleTiming): Promise<ScaleResult> {
  const failures: string[] = [];
  const rows: ScaleRow[] = [];
  const children: ChildServer[] = [];
  let redis: RedisServerHandle | undefined;
  let redisClient: Redis | undefined;
  // A bench stopped by a signal exits without reaching `finally`: redis-server must not outlive
  // it (stop() sends SIGTERM synchronously).
  const killRedis = (): void => void redis?.stop();
  process.once('exit', killRedis);
  try {
    redis = await startRedisServer();
    redisClient = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const env = {
      MCP_PAGE_SIZE: '0',
      BENCH_TOOL_COUNT: String(TOOL_COUNT),
      // The sample's own switches: Redis, and one requestState key for the instances to serve as one server.
      MCP_REDIS_URL: redis.url,
      MCP_REQUEST_STATE_SECRET: randomBytes(32).toString('base64url'),
    };
    const [a, b] = await Promise.all([
      ChildServer.start('mcp-server A', 'mcp-server.ts', { env }),
      ChildServer.start('mcp-server B', 'mcp-server.ts', { env }),
    ]);
    children.push(a, b);
    for (const instance of [a, b]) {
      if (instance.ready?.tools !== TOOL_COUNT) {
        throw new Error(`${instance.name} registered ${instance.ready?.tools} tools, expected ${TOOL_COUNT}`);
      }
    }
    const base = (server: ChildServer): string => `http://127.0.0.1:${server.port}`;
    const [oneProxy, twoProxy] = await Promise.all([
      ChildServer.start('proxy 1×', 'proxy-server.ts', { env: { BENCH_PROXY_TARGETS: base(a) } }),
      ChildServer.start('proxy 2×', 'proxy-server.ts', { env: { BENCH_PROXY_TARGETS: `${base(a)},${base(b)}` } }),
    ]);
    children.push(oneProxy, twoProxy);
    console.log(
      `scale-out: instances A ${a.url} and B ${b.url} on Redis ${redis.url}; round-robin proxy (${PROXY_PLACEMENT}) ` +
        `1× → A on ${oneProxy.url}, 2× → A, B on ${twoProxy.url}; ${availableParallelism()} cores`,
    );

    // The session is opened through the pair: initialize and initialized already land on
    // different instances.
    const sessionId = scenarios.some((s) => s.era === 'legacy') ? await openSession(twoProxy.url) : '';
    if (sessionId !== '') {
      console.log(`scale-out legacy session ${sessionId}, opened through the 2× proxy`);
    }

    for (const scenario of scenarios) {
      const spec = requestOf('tools/call', scenario.era, sessionId);
      const label = `scale tools/call ${scenario.era} c=${scenario.connections}`;
      const expected = await probe(a.url, spec);
      const problem = problemWith('tools/call', expected);
      if (problem !== undefined) {
        throw new Error(`${label}: instance A's sample response is not a success: ${problem}`);
      }
      // Two in a row through the pair: one from each instance, both must be A's bytes.
      for (let i = 0; i < 2; i++) {
        const sample = await probe(twoProxy.url, spec);
        if (sample.body !== expected.body) {
          throw new Error(`${label}: an instance behind the proxy answers differently: ${sample.body.slice(0, 300)}`);
        }
      }

      const targets: Target[] = [
        { name: 'one', url: oneProxy.url, proxy: oneProxy },
        { name: 'two', url: twoProxy.url, proxy: twoProxy },
        { name: 'direct', url: a.url },
      ].map((target) => ({ ...target, slices: [], proxyUs: [], redisUs: [], busy: [] }) as Target);
      process.stdout.write(label.padEnd(36));
      for (const target of targets) {
        await load(target.url, spec, scenario.connections, timing.warmupS);
      }
      const counters = async (target: Target): Promise<Counters> => {
        const [aUs, bUs, proxyUs, redisUs] = await Promise.all([
          a.cpuUs(),
          b.cpuUs(),
          target.proxy?.cpuUs() ?? 0,
          redisCpuUs(redisClient!),
        ]);
        return { servers: aUs + bUs, proxy: proxyUs, redis: redisUs, busyMs: machineBusyMs(), at: Date.now() };
      };
      const hitsBefore = await hitsOf(twoProxy);
      for (let round = 0; round < timing.rounds; round++) {
        const order = round % 2 === 0 ? targets : [...targets].reverse();
        for (const target of order) {
          for (const child of children) {
            if (!child.alive) {
              throw new Error(`${child.name} is not running any more: ${child.errors.join('; ')}`);
            }
          }
          const before = await counters(target);
          const slice = await load(
            target.url,
            spec,
            scenario.connections,
            timing.durationS / timing.rounds,
            expected.body,
          );
          const after = await counters(target);
          slice.serverCpuUs = after.servers - before.servers;
          target.slices.push(slice);
          target.proxyUs.push(after.proxy - before.proxy);
          target.redisUs.push(after.redis - before.redis);
          target.busy.push((after.busyMs - before.busyMs) / (after.at - before.at));
        }
      }
      const hitsAfter = await hitsOf(twoProxy);
      const served = hitsAfter.map((hits, i) => hits - hitsBefore[i]);
      const servedTotal = served.reduce((sum, n) => sum + n, 0);

      const measured = {} as Record<TargetName, Measurement>;
      const cpuUsPerRequest = {} as Record<TargetName, CpuSplit>;
      const busyCores = {} as Record<TargetName, number>;
      for (const target of targets) {
        const m = summarize(target.slices);
        measured[target.name] = m;
        const perRequest = (values: number[]): number => values.reduce((sum, v) => sum + v, 0) / m.requests;
        cpuUsPerRequest[target.name] = {
          servers: m.cpuUsPerRequest,
          proxy: perRequest(target.proxyUs),
          redis: perRequest(target.redisUs),
        };
        busyCores[target.name] = median(target.busy);
        failures.push(...runProblems(`${target.name === 'direct' ? 'A direct' : target.name} ${label}`, m));
      }
      const ratios = measured.two.sliceRps.map((rps, i) => rps / measured.one.sliceRps[i]);
      process.stdout.write(
        ` 1× ${fmt(measured.one.rps).padStart(6)} req/s   2× ${fmt(measured.two.rps).padStart(6)} req/s   ` +
          `direct ${fmt(measured.direct.rps).padStart(6)} req/s\n`,
      );
      rows.push({
        scenario: scenario.id,
        method: 'tools/call',
        era: scenario.era,
        concurrency: scenario.connections,
        one: measured.one,
        two: measured.two,
        direct: measured.direct,
        ratio: measured.two.rps / measured.one.rps,
        pairedRatio: median(ratios),
        pairedRange: [Math.min(...ratios), Math.max(...ratios)],
        directRatio: measured.two.rps / measured.direct.rps,
        cpuUsPerRequest,
        busyCores,
        instanceShare: served.map((n) => (servedTotal > 0 ? n / servedTotal : NaN)),
      });
    }
  } catch (error) {
    process.stdout.write('\n');
    failures.push(`scale-out: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    for (const child of children) {
      failures.push(...child.errors.map((message) => `${child.name} reported: ${message}`));
    }
    await Promise.all(children.map((child) => child.stop()));
    redisClient?.disconnect();
    await redis?.stop();
    process.off('exit', killRedis);
  }
  return {
    setup: { proxy: PROXY_PLACEMENT, instances: 2, store: 'redis', redisPort: redis?.port },
    rows,
    failures,
  };
}

async function hitsOf(proxy: ChildServer): Promise<number[]> {
  const reply = proxy.next('hits');
  proxy.send({ type: 'hits' });
  return (await reply).hits;
}

/** The scale-out table and how to read it. */
export function printScale(rows: ScaleRow[]): void {
  if (rows.length === 0) {
    return;
  }
  const header = [
    'scale-out',
    'conc',
    '1× req/s',
    '1× p50',
    '1× p99',
    '2× req/s',
    '2× p50',
    '2× p99',
    'ratio 2×/1×',
    'paired (min–max)',
    'direct req/s',
    '2×/direct',
    'server µs/req 1×/2×',
    'proxy µs/req',
    'redis µs/req 1×/2×',
    'busy cores 1×/2×',
    'A/B share',
  ];
  const lines = rows.map((row) => [
    `tools/call ${row.era}`,
    String(row.concurrency),
    fmt(row.one.rps),
    fmt(row.one.p50, 2),
    fmt(row.one.p99, 2),
    fmt(row.two.rps),
    fmt(row.two.p50, 2),
    fmt(row.two.p99, 2),
    fmt(row.ratio, 3),
    `${fmt(row.pairedRatio, 3)} (${fmt(row.pairedRange[0], 2)}–${fmt(row.pairedRange[1], 2)})`,
    fmt(row.direct.rps),
    fmt(row.directRatio, 3),
    `${fmt(row.cpuUsPerRequest.one.servers)}/${fmt(row.cpuUsPerRequest.two.servers)}`,
    `${fmt(row.cpuUsPerRequest.one.proxy)}/${fmt(row.cpuUsPerRequest.two.proxy)}`,
    `${fmt(row.cpuUsPerRequest.one.redis)}/${fmt(row.cpuUsPerRequest.two.redis)}`,
    `${fmt(row.busyCores.one, 2)}/${fmt(row.busyCores.two, 2)}`,
    row.instanceShare.map((share) => fmt(share, 2)).join('/'),
  ]);
  for (const line of renderTable(header, lines)) {
    console.log(line);
  }
  const cores = availableParallelism();
  console.log(
    `1× = instance A behind the round-robin proxy, 2× = instances A and B (one Redis, one requestState secret) ` +
      `behind it, direct = A without the proxy; the proxy runs in its ${PROXY_PLACEMENT}. ratio = 2× req/s ÷ 1× ` +
      `req/s over all rounds (both pay the proxy hop: it is what the second instance adds); 2×/direct = what a ` +
      `balancer plus a second instance give over one bare instance. µs/req = CPU time per request of the ` +
      `instances together, of the proxy, of redis-server; busy cores = the whole machine (max ${cores}).`,
  );
  if (rows.some((row) => row.busyCores.one > cores * 0.85)) {
    console.log(
      `note: with one instance the machine was already near its ${cores} cores (load generator, proxy, server, ` +
        'Redis): a second instance has no idle core to run on, so a ratio near or below 1 is expected here; ' +
        'with more cores than busy processes it shows what the shared state lets a second instance add.',
    );
  }
}
