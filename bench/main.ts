/**
 * `npm run bench`: the MCP sample server against a floor (a plain Nest app that hand-builds the
 * same bytes), for tools/call echo and tools/list, in the modern (2026-07-28, stateless) and the
 * legacy (one initialized session) era; then scale-out: two instances on one Redis behind a
 * round-robin proxy against one (bench/scale-out.ts). See bench/README.md.
 *
 *   ts-node --transpile-only -r tsconfig-paths/register bench/main.ts [options]
 *     --duration <s>   measured seconds per target and scenario (default 8)
 *     --rounds <n>     slices the measured seconds are cut into, alternating server and floor (default 16; short alternating slices keep the machine's background load out of the ratios)
 *     --warmup <s>     unmeasured seconds per target before each scenario (default 1)
 *     --only <ids>     comma-separated scenario ids or prefixes (call-modern, list, call-legacy-16, scale...)
 *     --no-floor       skip the floor runs (profiling)
 *     --cpu-prof       V8 CPU profiles of the measured windows, per scenario, of the server and the floor:
 *                      bench/results/profiles/<scenario>.{server,floor}.cpuprofile and <scenario>.requests.json
 *                      (compare them with bench/analyze-profile.ts --compare <scenario>)
 *     --patch <names>  experiment: also run a second MCP server with these monkeypatches (bench/patches.ts,
 *                      e.g. lean-run), measured in the same rounds as the server and the floor
 *     --telemetry      also run the MCP server with the OpenTelemetry SDK registered globally (no-op exporters,
 *                      bench/telemetry-sdk.ts), measured in the same rounds: its ratios to the floor and its
 *                      cost over the plain server (throughput, CPU per request)
 *     --out <file>     results file (default bench/results/latest.json)
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ChildServer, stopAll } from './children';
import { load, median, probe, summarize, type Measurement, type Probe, type RequestSpec, type Slice } from './load';
import {
  type BenchEra,
  fmt,
  LEGACY,
  type Method,
  MODERN,
  openSession,
  problemWith,
  renderTable,
  requestOf,
  runProblems,
  TOOL_COUNT,
} from './requests';
import { HeldConnections } from './held-load';
import { printScale, runScale, SCALE_SCENARIOS, type ScaleRow } from './scale-out';
import type { BenchPlatform } from './child-runtime';
import { printTargets, summarizeTargets, target, type TargetResult } from './targets';
import { writeRatioChart } from './chart';
import { printColdStart, runColdStart, type ColdStartDetails } from './cold-start';
import { MEMORY_DEFAULTS, runMemory } from './memory';
import { REDIS_COMMANDS_DEFAULTS, runRedisCommands } from './redis-commands';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '16' },
    warmup: { type: 'string', default: '1' },
    only: { type: 'string' },
    'no-floor': { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    patch: { type: 'string', default: '' },
    telemetry: { type: 'boolean', default: false },
    platform: { type: 'string', default: 'express,fastify' },
    runs: { type: 'string', default: '3' },
    'cold-repeats': { type: 'string', default: '5' },
    soak: { type: 'string', default: String(MEMORY_DEFAULTS.soakS) },
    out: { type: 'string', default: join(__dirname, 'results', 'latest.json') },
  },
});
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const ROUNDS = Math.max(1, Math.floor(Number(args.rounds)));
const RUNS = Math.max(1, Math.floor(Number(args.runs)));
const PLATFORMS = args.platform.split(',').map((name): BenchPlatform => {
  const platform = name.trim();
  if (platform !== 'express' && platform !== 'fastify') {
    throw new Error(`--platform takes express and/or fastify, not "${platform}"`);
  }
  return platform;
});

interface Scenario {
  id: string;
  method: Method;
  era: BenchEra;
  connections: number;
  /** Minimum server/floor throughput ratio, for the scenarios with a target. */
  target?: number;
  /** Overload: the most the server's p99 latency may be, as a multiple of the floor's. */
  p99Target?: number;
  /** Driven over connections held open from slice to slice (see `driverFor`). */
  held?: boolean;
}

/** Fastify: the most CPU per request the server may spend, as a multiple of the floor's. */
const FASTIFY_CPU_TARGET = 1.2;

const SCENARIOS: Scenario[] = [
  { id: 'call-modern-1', method: 'tools/call', era: 'modern', connections: 1 },
  { id: 'call-modern-16', method: 'tools/call', era: 'modern', connections: 16, target: 0.85 },
  { id: 'call-modern-128', method: 'tools/call', era: 'modern', connections: 128, p99Target: 1.2, held: true },
  { id: 'call-legacy-1', method: 'tools/call', era: 'legacy', connections: 1 },
  { id: 'call-legacy-16', method: 'tools/call', era: 'legacy', connections: 16, target: 0.85 },
  { id: 'call-legacy-128', method: 'tools/call', era: 'legacy', connections: 128, p99Target: 1.2, held: true },
  { id: 'list-modern-16', method: 'tools/list', era: 'modern', connections: 16, target: 0.8 },
  { id: 'list-legacy-16', method: 'tools/list', era: 'legacy', connections: 16, target: 0.8 },
];

/** Seconds of unmeasured load that open each slice of a held-connection scenario. */
const LEAD_IN_S = 0.1;

/** How one target of a scenario is driven, slice after slice. */
interface Driver {
  /** Runs unmeasured load for `durationS` seconds. */
  warm(durationS: number): Promise<void>;
  /** Called right before a measured slice (and before the server's CPU time is read); returns its requests. */
  lead(): Promise<number>;
  slice(durationS: number, expectBody: string): Promise<Slice>;
  close(): void;
}

/**
 * The driver of a target. Most scenarios use autocannon, which connects anew for every slice.
 * The held ones (the overload scenarios) keep their connections from slice to slice
 * (bench/held-load.ts says why), and open each slice with `LEAD_IN_S` of unmeasured load: a
 * server that sat idle while the other targets were measured answers its first rounds slower,
 * and a 0.5 s slice's p99 would count those (measured: in such slices the slow answers were the
 * first 50 ms; without the lead-in, the p99 of a slice that followed another target's was some
 * 5 ms higher than that of one that followed its own, on the floor and on the server alike).
 */
async function driverFor(scenario: Scenario, url: string, spec: RequestSpec): Promise<Driver> {
  if (scenario.held !== true) {
    return {
      warm: async (durationS) => void (await load(url, spec, scenario.connections, durationS)),
      lead: async () => 0,
      slice: (durationS, expectBody) => load(url, spec, scenario.connections, durationS, expectBody),
      close: () => {},
    };
  }
  const held = await HeldConnections.open(url, spec, scenario.connections);
  return {
    warm: async (durationS) => void (await held.run(durationS)),
    lead: async () => (await held.run(LEAD_IN_S)).requests,
    slice: (durationS, expectBody) => held.run(durationS, expectBody),
    close: () => held.close(),
  };
}

function headerNames(response: Probe): string {
  return Object.keys(response.headers)
    .filter((name) => name !== 'date')
    .sort()
    .join(',');
}

interface Row {
  scenario: string;
  platform: BenchPlatform;
  method: Method;
  era: BenchEra;
  concurrency: number;
  server: Measurement;
  floor?: Measurement;
  ratio?: number;
  /** Median over the rounds of server req/s ÷ floor req/s, each pair measured back to back. */
  pairedRatio?: number;
  /** Lowest and highest per-round ratio: a wide spread means a noisy machine. */
  pairedRange?: [number, number];
  /** Median over the rounds of floor CPU µs/request ÷ server CPU µs/request. */
  cpuRatio?: number;
  /** Experiments (--patch): the patched server, and its ratios to the floor. */
  patched?: Measurement;
  patchedPaired?: Pick<Row, 'pairedRatio' | 'pairedRange' | 'cpuRatio'>;
  /** --telemetry: the server with the OpenTelemetry SDK, its ratios to the floor, its cost over the plain server. */
  telemetry?: Measurement;
  telemetryPaired?: Pick<Row, 'pairedRatio' | 'pairedRange' | 'cpuRatio'>;
  telemetryCost?: TelemetryCost;
  target?: number;
  met?: boolean;
  p99Target?: number;
}

/** What telemetry costs: the server with the OpenTelemetry SDK against the plain one. */
interface TelemetryCost {
  /** Telemetry req/s ÷ plain req/s over all rounds (1 = free). */
  throughput: number;
  /** Median and range of the per-round telemetry ÷ plain req/s. */
  pairedThroughput: number;
  pairedThroughputRange: [number, number];
  /** Telemetry CPU µs/request ÷ plain CPU µs/request over all rounds. */
  cpuPerRequest: number;
  /** Median of the per-round CPU µs/request ratios. */
  pairedCpuPerRequest: number;
  /** CPU µs per request telemetry adds. */
  addedCpuUs: number;
}

/** What the telemetry child's SDK recorded over the whole run: proof it measured something. */
interface TelemetrySummary {
  sdk: string;
  /** The module's startup line ("OpenTelemetry: traces, metrics (server ...)"). */
  startupLine: string;
  spansEnded: number;
  spansExported: number;
  metricExports: number;
}

/** What the telemetry child registers (bench/telemetry-sdk.ts). */
const TELEMETRY_SDK =
  'NodeTracerProvider + BatchSpanProcessor + dropping exporter, AsyncLocalStorage context, W3C propagator; ' +
  'MeterProvider + PeriodicExportingMetricReader (5 s) + dropping exporter';

/** The commit measured, and whether lib/ or sample/ had uncommitted changes. */
function sourceVersion(): { commit?: string; dirty?: boolean } {
  try {
    const cwd = resolve(__dirname, '..');
    const commit = execSync('git rev-parse --short HEAD', { cwd, encoding: 'utf8' }).trim();
    const dirty =
      execSync('git status --porcelain --untracked-files=no -- lib sample', { cwd, encoding: 'utf8' }).trim().length >
      0;
    return { commit, dirty };
  } catch {
    return {};
  }
}

/** Per-round ratios: each round measured the server and the floor back to back. */
function paired(server: Measurement, floor: Measurement): Pick<Row, 'pairedRatio' | 'pairedRange' | 'cpuRatio'> {
  const ratios = server.sliceRps.map((rps, i) => rps / floor.sliceRps[i]);
  const cpu = server.sliceCpuUs.map((us, i) => floor.sliceCpuUs[i] / us);
  return {
    pairedRatio: median(ratios),
    pairedRange: [Math.min(...ratios), Math.max(...ratios)],
    cpuRatio: median(cpu),
  };
}

function printTable(rows: Row[]): void {
  const header = [
    'scenario',
    'conc',
    'req/s',
    'p50 ms',
    'p99 ms',
    'floor req/s',
    'floor p50',
    'floor p99',
    'ratio',
    'paired (min–max)',
    'cpu µs/req',
    'floor µs/req',
    'cpu ratio',
  ];
  const lines = rows.map((row) => [
    `${row.platform} ${row.method} ${row.era}`,
    String(row.concurrency),
    fmt(row.server.rps),
    fmt(row.server.p50, 2),
    fmt(row.server.p99, 2),
    fmt(row.floor?.rps),
    fmt(row.floor?.p50, 2),
    fmt(row.floor?.p99, 2),
    fmt(row.ratio, 3),
    row.pairedRatio === undefined
      ? '-'
      : `${row.pairedRatio.toFixed(3)} (${row.pairedRange![0].toFixed(2)}–${row.pairedRange![1].toFixed(2)})` +
        (row.target === undefined ? '' : ` ≥${row.target}`),
    fmt(row.server.cpuUsPerRequest),
    fmt(row.floor?.cpuUsPerRequest),
    fmt(row.cpuRatio, 3),
  ]);
  if (rows.some((row) => row.patched !== undefined)) {
    header.push('patched req/s', 'patched paired', 'patched cpu ratio');
    rows.forEach((row, i) =>
      lines[i].push(fmt(row.patched?.rps), fmt(row.patchedPaired?.pairedRatio, 3), fmt(row.patchedPaired?.cpuRatio, 3)),
    );
  }
  if (rows.some((row) => row.telemetry !== undefined)) {
    header.push('otel ratio', 'otel paired', 'otel cpu ratio');
    rows.forEach((row, i) =>
      lines[i].push(
        row.telemetry === undefined || row.floor === undefined ? '-' : (row.telemetry.rps / row.floor.rps).toFixed(3),
        fmt(row.telemetryPaired?.pairedRatio, 3),
        fmt(row.telemetryPaired?.cpuRatio, 3),
      ),
    );
  }
  for (const line of renderTable(header, lines)) {
    console.log(line);
  }
  const clientBound = rows.filter(
    (row) =>
      Math.max(row.server.clientCpuShare, row.floor?.clientCpuShare ?? 0, row.telemetry?.clientCpuShare ?? 0) > 0.9,
  );
  if (clientBound.length > 0) {
    console.log(
      `note: the load generator used > 90% of a core in ${clientBound.map((row) => row.scenario).join(', ')}: ` +
        'there the client may be the limit and the ratio understates the gap.',
    );
  }
  console.log(
    'ratio = server req/s ÷ floor req/s over all rounds; paired = median of the per-round ratios (server and ' +
      'floor measured back to back); cpu ratio = median per-round floor CPU µs/req ÷ server CPU µs/req, the ratio ' +
      'a saturated core would give (least sensitive to other load on the machine).' +
      (rows.some((row) => row.telemetry !== undefined)
        ? ' otel = the same ratios for the server with the OpenTelemetry SDK (--telemetry).'
        : ''),
  );
}

/** The telemetry child against the plain server, measured in the same rounds. */
function telemetryCost(telemetry: Measurement, server: Measurement): TelemetryCost {
  const rps = telemetry.sliceRps.map((value, i) => value / server.sliceRps[i]);
  return {
    throughput: telemetry.rps / server.rps,
    pairedThroughput: median(rps),
    pairedThroughputRange: [Math.min(...rps), Math.max(...rps)],
    cpuPerRequest: telemetry.cpuUsPerRequest / server.cpuUsPerRequest,
    pairedCpuPerRequest: median(telemetry.sliceCpuUs.map((us, i) => us / server.sliceCpuUs[i])),
    addedCpuUs: telemetry.cpuUsPerRequest - server.cpuUsPerRequest,
  };
}

function printTelemetry(rows: Row[], sdk: TelemetrySummary | undefined): void {
  const header = [
    'scenario',
    'conc',
    'plain req/s',
    'otel req/s',
    'otel p50',
    'otel p99',
    'otel÷plain req/s',
    'paired (min–max)',
    'plain µs/req',
    'otel µs/req',
    'otel÷plain cpu',
    'paired',
    '+µs/req',
  ];
  const lines = rows
    .filter((row) => row.telemetry !== undefined && row.telemetryCost !== undefined)
    .map((row) => {
      const cost = row.telemetryCost!;
      return [
        `${row.method} ${row.era}`,
        String(row.concurrency),
        fmt(row.server.rps),
        fmt(row.telemetry!.rps),
        fmt(row.telemetry!.p50, 2),
        fmt(row.telemetry!.p99, 2),
        cost.throughput.toFixed(3),
        `${cost.pairedThroughput.toFixed(3)} (${cost.pairedThroughputRange[0].toFixed(2)}–${cost.pairedThroughputRange[1].toFixed(2)})`,
        fmt(row.server.cpuUsPerRequest),
        fmt(row.telemetry!.cpuUsPerRequest),
        cost.cpuPerRequest.toFixed(3),
        cost.pairedCpuPerRequest.toFixed(3),
        fmt(cost.addedCpuUs),
      ];
    });
  console.log(
    `Telemetry cost: the server with the OpenTelemetry SDK registered globally (${TELEMETRY_SDK}) against the ` +
      'plain server, in the same rounds:',
  );
  for (const line of renderTable(header, lines)) {
    console.log(line);
  }
  console.log(
    'otel÷plain req/s = throughput kept with telemetry on (1 = free); otel÷plain cpu = CPU per request with ' +
      'telemetry ÷ without (paired: median per round); +µs/req = CPU added per request.',
  );
  if (sdk !== undefined) {
    console.log(
      `SDK check: the module logged "${sdk.startupLine}"; ${sdk.spansEnded} spans ended, ${sdk.spansExported} ` +
        `exported (${sdk.spansEnded - sdk.spansExported} dropped by a full batch queue), ${sdk.metricExports} ` +
        'metric exports.',
    );
  }
}

/** The servers measured in the rounds, and what each one's slices are. */
type TargetKind = 'server' | 'patched' | 'telemetry' | 'floor';

/**
 * The server/floor scenarios: starts the MCP server and the floor (and the patched server of an
 * experiment, the server with the OpenTelemetry SDK of --telemetry), measures, stops them.
 * Problems go to `failures`.
 */
async function runBase(
  platform: BenchPlatform,
  scenarios: Scenario[],
  withFloor: boolean,
  profileDir: string | undefined,
  failures: string[],
): Promise<{ rows: Row[]; telemetry?: TelemetrySummary }> {
  const rows: Row[] = [];
  let telemetrySummary: TelemetrySummary | undefined;
  const env = { MCP_PAGE_SIZE: '0', BENCH_TOOL_COUNT: String(TOOL_COUNT), BENCH_PLATFORM: platform };
  const [server, floor, patched, telemetry] = await Promise.all([
    ChildServer.start('mcp-server', 'mcp-server.ts', { env }),
    withFloor ? ChildServer.start('floor-server', 'floor-server.ts', { env }) : undefined,
    args.patch !== ''
      ? ChildServer.start('mcp-server-patched', 'mcp-server.ts', { env: { ...env, BENCH_PATCH: args.patch } })
      : undefined,
    args.telemetry
      ? ChildServer.start('mcp-server-telemetry', 'mcp-server.ts', { env: { ...env, BENCH_TELEMETRY: '1' } })
      : undefined,
  ]);
  console.log(
    `${platform}: MCP server (sample AppModule, ${server.ready?.tools} tools) on ${server.url}` +
      (floor ? `; floor on ${floor.url}` : ''),
  );
  if (patched) {
    console.log(
      `EXPERIMENT: a second MCP server runs with patches [${args.patch}] (bench/patches.ts) on ${patched.url}`,
    );
  }
  if (telemetry) {
    console.log(
      `TELEMETRY: a second MCP server runs with the OpenTelemetry SDK (${TELEMETRY_SDK}) on ${telemetry.url}; ` +
        `it logged "${telemetry.ready?.telemetry ?? 'nothing about OpenTelemetry'}"`,
    );
  }

  try {
    if (server.ready?.tools !== TOOL_COUNT) {
      throw new Error(`the server registered ${server.ready?.tools} tools, expected ${TOOL_COUNT}`);
    }
    // The plain server must record nothing (no SDK: no telemetry, the hot path unchanged), and
    // the telemetry child must record both: otherwise the comparison measures nothing.
    for (const child of [server, patched]) {
      if (child?.ready?.telemetry !== undefined) {
        throw new Error(`${child.name} has telemetry on without an SDK: "${child.ready.telemetry}"`);
      }
    }
    if (telemetry && !/^OpenTelemetry: traces, metrics\b/.test(telemetry.ready?.telemetry ?? '')) {
      throw new Error(
        `the telemetry server did not pick up the global SDK (startup line: ${telemetry.ready?.telemetry ?? 'none'})`,
      );
    }
    const sessionId = await openSession(server.url);
    console.log(`legacy session ${sessionId} (${LEGACY})`);
    // Each variant has its own legacy session: sessions live in their process.
    const variants = [
      ...(patched ? [{ kind: 'patched' as const, child: patched, sessionId: await openSession(patched.url) }] : []),
      ...(telemetry
        ? [{ kind: 'telemetry' as const, child: telemetry, sessionId: await openSession(telemetry.url) }]
        : []),
    ];

    // The floor serves the same tool list, in each era's rendering.
    const lists: Record<BenchEra, unknown[]> = { legacy: [], modern: [] };
    for (const era of ['legacy', 'modern'] as const) {
      const response = await probe(server.url, requestOf('tools/list', era, sessionId));
      const problem = problemWith('tools/list', response);
      if (problem !== undefined) {
        throw new Error(`tools/list ${era} on the server: ${problem}`);
      }
      lists[era] = (JSON.parse(response.body) as { result: { tools: unknown[] } }).result.tools;
    }
    if (floor) {
      floor.send({ type: 'tools', legacy: lists.legacy, modern: lists.modern });
      await floor.next('ack');
    }

    for (const scenario of scenarios) {
      const spec = requestOf(scenario.method, scenario.era, sessionId);
      const label = `${platform} ${scenario.method} ${scenario.era} c=${scenario.connections}`;
      // Profiles are named per platform: analyze-profile.ts --compare fastify-call-modern-16.
      const profileName = platform === 'express' ? scenario.id : `${platform}-${scenario.id}`;

      // Check the answers before measuring: a benchmark of errors would look fast.
      const expected = await probe(server.url, spec);
      const problem = problemWith(scenario.method, expected);
      if (problem !== undefined) {
        throw new Error(`${label}: the server's sample response is not a success: ${problem}`);
      }
      if (floor) {
        const floorSample = await probe(floor.url, spec);
        if (floorSample.body !== expected.body) {
          throw new Error(
            `${label}: floor body differs from the server's\n  server: ${expected.body}\n  floor:  ${floorSample.body}`,
          );
        }
        if (headerNames(floorSample) !== headerNames(expected)) {
          throw new Error(
            `${label}: floor headers differ: server [${headerNames(expected)}], floor [${headerNames(floorSample)}]`,
          );
        }
      }
      for (const variant of variants) {
        const before = variant.kind === 'telemetry' ? await variant.child.telemetry() : undefined;
        const sample = await probe(variant.child.url, requestOf(scenario.method, scenario.era, variant.sessionId));
        if (sample.body !== expected.body) {
          throw new Error(`${label}: the ${variant.kind} server answers differently: ${sample.body.slice(0, 300)}`);
        }
        if (before !== undefined) {
          // The probe's own span, flushed through the batch processor to the exporter.
          const after = await variant.child.telemetry();
          const name = scenario.method === 'tools/call' ? 'tools/call echo' : scenario.method;
          if (after.spansExported <= before.spansExported || after.lastSpan !== name) {
            throw new Error(
              `${label}: the telemetry server exported no span "${name}" for the probe ` +
                `(${after.spansExported - before.spansExported} new, last "${after.lastSpan ?? 'none'}")`,
            );
          }
        }
      }

      // Warm every target up, then alternate short slices (server, variants, floor, floor,
      // variants, server, ...) so that all see the same background load: on a shared 2-core
      // machine the ratio is what holds.
      process.stdout.write(`${label.padEnd(38)}`);
      const targets: {
        kind: TargetKind;
        child: ChildServer;
        spec: RequestSpec;
        slices: Slice[];
        driver?: Driver;
        /** Requests of the lead-ins, which the profiles see but the slices do not count. */
        unmeasured: number;
      }[] = [
        { kind: 'server', child: server, spec, slices: [], unmeasured: 0 },
        ...variants.map((variant) => ({
          kind: variant.kind,
          child: variant.child,
          spec: requestOf(scenario.method, scenario.era, variant.sessionId),
          slices: [] as Slice[],
          unmeasured: 0,
        })),
        ...(floor ? [{ kind: 'floor' as const, child: floor, spec, slices: [] as Slice[], unmeasured: 0 }] : []),
      ];
      const slicesOf = (kind: TargetKind): Slice[] | undefined =>
        targets.find((target) => target.kind === kind)?.slices;
      const profiled = targets.filter((target) => target.kind !== 'patched');
      try {
        for (const target of targets) {
          target.driver = await driverFor(scenario, target.child.url, target.spec);
          await target.driver.warm(WARMUP);
        }
        // Profiled: the server, the floor and the telemetry server (not an experiment's).
        if (profileDir !== undefined) {
          await Promise.all(profiled.map((target) => target.child.profile('start')));
        }
        for (let round = 0; round < ROUNDS; round++) {
          const order = round % 2 === 0 ? targets : [...targets].reverse();
          for (const target of order) {
            if (!target.child.alive) {
              throw new Error(`${target.child.name} is not running any more: ${target.child.errors.join('; ')}`);
            }
            target.unmeasured += await target.driver!.lead();
            const cpuBefore = await target.child.cpuUs();
            const slice = await target.driver!.slice(DURATION / ROUNDS, expected.body);
            slice.serverCpuUs = (await target.child.cpuUs()) - cpuBefore;
            target.slices.push(slice);
          }
        }
      } finally {
        for (const target of targets) {
          target.driver?.close();
        }
      }
      const measured = summarize(slicesOf('server')!);
      const floorSlices = slicesOf('floor');
      const patchedSlices = slicesOf('patched');
      const telemetrySlices = slicesOf('telemetry');
      if (profileDir !== undefined) {
        await Promise.all(
          profiled.map((target) =>
            target.child.profile('stop', join(profileDir, `${profileName}.${target.kind}.cpuprofile`)),
          ),
        );
        // Every request the profile saw, the lead-ins' included.
        const seen = (kind: TargetKind, slices: Slice[] | undefined): number | undefined =>
          slices ? summarize(slices).requests + targets.find((target) => target.kind === kind)!.unmeasured : undefined;
        const counts = {
          server: seen('server', slicesOf('server')),
          floor: seen('floor', floorSlices),
          telemetry: seen('telemetry', telemetrySlices),
        };
        writeFileSync(join(profileDir, `${profileName}.requests.json`), JSON.stringify(counts));
      }
      failures.push(...runProblems(`server ${label}`, measured));
      process.stdout.write(` server ${fmt(measured.rps).padStart(6)} req/s`);
      let floorMeasured: Measurement | undefined;
      if (floorSlices) {
        floorMeasured = summarize(floorSlices);
        failures.push(...runProblems(`floor ${label}`, floorMeasured));
        process.stdout.write(`   floor ${fmt(floorMeasured.rps).padStart(6)} req/s`);
      }
      let patchedMeasured: Measurement | undefined;
      if (patchedSlices) {
        patchedMeasured = summarize(patchedSlices);
        failures.push(...runProblems(`patched server ${label}`, patchedMeasured));
        process.stdout.write(`   patched ${fmt(patchedMeasured.rps).padStart(6)} req/s`);
      }
      let telemetryMeasured: Measurement | undefined;
      if (telemetrySlices) {
        telemetryMeasured = summarize(telemetrySlices);
        failures.push(...runProblems(`telemetry server ${label}`, telemetryMeasured));
        process.stdout.write(`   otel ${fmt(telemetryMeasured.rps).padStart(6)} req/s`);
      }
      process.stdout.write('\n');

      const ratio = floorMeasured ? measured.rps / floorMeasured.rps : undefined;
      const pairedRatios = floorMeasured ? paired(measured, floorMeasured) : {};
      rows.push({
        scenario: scenario.id,
        platform,
        method: scenario.method,
        era: scenario.era,
        concurrency: scenario.connections,
        server: measured,
        floor: floorMeasured,
        ratio,
        ...pairedRatios,
        ...(patchedMeasured
          ? {
              patched: patchedMeasured,
              patchedPaired: floorMeasured ? paired(patchedMeasured, floorMeasured) : undefined,
            }
          : {}),
        ...(telemetryMeasured
          ? {
              telemetry: telemetryMeasured,
              telemetryPaired: floorMeasured ? paired(telemetryMeasured, floorMeasured) : undefined,
              telemetryCost: telemetryCost(telemetryMeasured, measured),
            }
          : {}),
        target: scenario.target,
        // The verdict's figure (baseTargets): the median of the paired rounds.
        met:
          scenario.target === undefined || pairedRatios.pairedRatio === undefined
            ? undefined
            : pairedRatios.pairedRatio >= scenario.target,
        p99Target: scenario.p99Target,
      });
      if (!server.alive) {
        break;
      }
    }
    if (telemetry?.alive) {
      const counts = await telemetry.telemetry();
      telemetrySummary = {
        sdk: TELEMETRY_SDK,
        startupLine: telemetry.ready?.telemetry ?? '',
        spansEnded: counts.spansEnded,
        spansExported: counts.spansExported,
        metricExports: counts.metricExports,
      };
    }
  } catch (error) {
    process.stdout.write('\n');
    failures.push(error instanceof Error ? error.message : String(error));
  }

  failures.push(...server.errors.map((message) => `server reported: ${message}`));
  if (patched) {
    failures.push(...patched.errors.map((message) => `patched server reported: ${message}`));
  }
  if (telemetry) {
    failures.push(...telemetry.errors.map((message) => `telemetry server reported: ${message}`));
  }
  if (floor) {
    failures.push(...floor.errors.map((message) => `floor reported: ${message}`));
  }
  await stopAll();
  return { rows, telemetry: telemetrySummary };
}

/** The targets of the server/floor rows of one run (see the README's table of targets). */
function baseTargets(rows: Row[]): TargetResult[] {
  const targets: TargetResult[] = [];
  for (const row of rows) {
    if (row.floor === undefined || row.pairedRatio === undefined) {
      continue;
    }
    const name = `${row.platform} ${row.method} ${row.era} c=${row.concurrency}`;
    const id = `${row.platform}/${row.scenario}`;
    if (row.target !== undefined) {
      targets.push(target(`${id}:ratio`, `${name}: req/s ÷ floor`, row.pairedRatio, 'at-least', row.target, 'ratio'));
      if (row.platform === 'fastify') {
        // CPU per request, which a saturated core turns into throughput, read as "times the
        // floor's": the median of the per-round server µs ÷ floor µs (the inverse of the median
        // cpu ratio differs from it when the rounds are even in number).
        const floorCpu = row.floor.sliceCpuUs;
        const cpu = median(row.server.sliceCpuUs.map((us, i) => us / floorCpu[i]));
        targets.push(target(`${id}:cpu`, `${name}: CPU/request ÷ floor`, cpu, 'at-most', FASTIFY_CPU_TARGET, '×'));
      }
    }
    if (row.p99Target !== undefined) {
      const failed = row.server.non2xx + row.server.errors + row.server.timeouts + row.server.mismatches;
      // Paired like the throughput: the median of the per-round p99 ratios, each pair measured
      // back to back. The p99 of all rounds together is one stall of the machine away from
      // doubling (1.0 to 2.9 between three runs of the same code here).
      const floorP99 = row.floor.sliceP99;
      const p99 = median(row.server.sliceP99.map((value, i) => value / floorP99[i]));
      targets.push(
        target(`${id}:p99`, `${name}: p99 ÷ floor p99`, p99, 'at-most', row.p99Target, '×'),
        target(`${id}:failed`, `${name}: failed or timed-out requests`, failed, 'at-most', 0, 'requests'),
      );
    }
  }
  return targets;
}

/** What one run measured. */
interface RunResult {
  rows: Row[];
  telemetry?: TelemetrySummary;
  scale?: { rows: ScaleRow[]; setup: Record<string, unknown> };
  /** Per platform: startup with and without McpModule, and tools/list of 1,000 tools. */
  coldStart?: ColdStartDetails[];
  /** Heap per idle legacy session and the soak (bench/memory.ts), on the first platform. */
  memory?: unknown;
  /** Redis commands per tools/call (bench/redis-commands.ts), on the first platform. */
  redis?: unknown;
  targets: TargetResult[];
}

async function runOnce(
  run: number,
  selected: (id: string) => boolean,
  profileDir: string | undefined,
  failures: string[],
): Promise<RunResult> {
  const scenarios = SCENARIOS.filter((s) => selected(s.id));
  const withFloor = !args['no-floor'];
  const rows: Row[] = [];
  let telemetry: TelemetrySummary | undefined;
  if (scenarios.length > 0) {
    for (const platform of PLATFORMS) {
      const base = await runBase(platform, scenarios, withFloor, profileDir, failures);
      rows.push(...base.rows);
      telemetry ??= base.telemetry;
    }
  }
  // Scale-out has no target: it is measured in the first run only.
  const scaleScenarios = run === 1 ? SCALE_SCENARIOS.filter((s) => selected(s.id)) : [];
  const scale =
    scaleScenarios.length > 0
      ? await runScale(scaleScenarios, { durationS: DURATION, rounds: ROUNDS, warmupS: WARMUP })
      : undefined;
  failures.push(...(scale?.failures ?? []));
  const targets = baseTargets(rows);
  let coldStart: ColdStartDetails[] | undefined;
  if (selected('cold-start')) {
    coldStart = [];
    for (const platform of PLATFORMS) {
      console.log(`${platform}: cold start (startup with and without McpModule; tools/list of 1,000 tools)`);
      const cold = await runColdStart({
        repeats: Math.max(1, Math.floor(Number(args['cold-repeats']))),
        listDurationS: DURATION,
        listRounds: ROUNDS,
        warmupS: WARMUP,
        platform,
      });
      failures.push(...cold.failures);
      targets.push(...cold.targets);
      coldStart.push(cold.details);
    }
  }
  // Neither depends on the platform's speed: measured once per run, on the first platform.
  let memory: unknown;
  if (selected('memory')) {
    console.log(`${PLATFORMS[0]}: memory (heap per idle legacy session; a ${args.soak} s mixed soak)`);
    const measured = await runMemory({ ...MEMORY_DEFAULTS, soakS: Number(args.soak), platform: PLATFORMS[0] });
    failures.push(...measured.failures);
    targets.push(...measured.targets);
    memory = measured.details;
  }
  let redis: unknown;
  if (selected('redis')) {
    console.log(`${PLATFORMS[0]}: Redis commands per tools/call (INFO commandstats)`);
    const measured = await runRedisCommands({ ...REDIS_COMMANDS_DEFAULTS, platform: PLATFORMS[0] });
    failures.push(...measured.failures);
    targets.push(...measured.targets);
    redis = measured.details;
  }
  return {
    rows,
    telemetry,
    scale: scale === undefined ? undefined : { rows: scale.rows, setup: scale.setup },
    coldStart,
    memory,
    redis,
    targets,
  };
}

function printRun(result: RunResult): void {
  const { rows, telemetry, scale, coldStart } = result;
  for (const details of coldStart ?? []) {
    console.log('');
    printColdStart(details);
  }
  if (rows.length > 0) {
    console.log('');
    printTable(rows);
  }
  if (rows.some((row) => row.telemetryCost !== undefined)) {
    console.log('');
    printTelemetry(rows, telemetry);
  }
  if (scale !== undefined && scale.rows.length > 0) {
    console.log('');
    printScale(scale.rows);
    console.log('');
    console.log('Scale-out (2 instances ÷ 1 instance, both behind the round-robin proxy, on one Redis):');
    for (const row of scale.rows) {
      console.log(
        `  ${`${row.method} ${row.era} c=${row.concurrency}`.padEnd(28)} ${fmt(row.ratio, 3).padStart(6)}  ` +
          `(paired ${fmt(row.pairedRatio, 3)}, 2× over direct ${fmt(row.directRatio, 3)}, ` +
          `${availableParallelism()} cores, proxy in its ${String(scale.setup.proxy)})`,
      );
    }
  }
}

async function main(): Promise<number> {
  const startedAt = Date.now();
  const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  const only = args.only?.split(',').map((id) => id.trim());
  const selected = (id: string): boolean => only === undefined || only.some((prefix) => id.startsWith(prefix));
  const profileDir = args['cpu-prof'] ? join(__dirname, 'results', 'profiles') : undefined;
  const failures: string[] = [];
  if (profileDir !== undefined) {
    mkdirSync(profileDir, { recursive: true });
  }
  const scenarioCount = SCENARIOS.filter((s) => selected(s.id)).length * PLATFORMS.length;
  console.log(
    `nest-mcp bench: ${RUNS} run${RUNS === 1 ? '' : 's'} of ${scenarioCount} server/floor scenarios on ${PLATFORMS.join(' and ')}; ` +
      `per target ${WARMUP}s warm-up + ${DURATION}s measured in ${ROUNDS} alternating slices; ` +
      `${availableParallelism()} cores, load average ${loadAtStart.join(' ')}; node ${process.version}`,
  );
  if (loadAtStart[0] > availableParallelism() * 0.75) {
    console.log('warning: the machine is already busy; absolute figures will be low, ratios are more robust');
  }
  const runs: RunResult[] = [];
  for (let run = 1; run <= RUNS; run++) {
    console.log(`\n== run ${run} of ${RUNS}`);
    const result = await runOnce(run, selected, profileDir, failures);
    printRun(result);
    runs.push(result);
  }
  const targets = summarizeTargets(runs.map((result) => result.targets));
  if (targets.length > 0) {
    console.log('');
    console.log(
      `Targets over ${RUNS} run${RUNS === 1 ? '' : 's'} (each run's figure, their median, the verdict on the median):`,
    );
    printTargets(targets, RUNS);
  }

  const out = resolve(args.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        date: new Date(startedAt).toISOString(),
        node: process.version,
        cores: availableParallelism(),
        loadAverageAtStart: loadAtStart,
        durationS: DURATION,
        rounds: ROUNDS,
        warmupS: WARMUP,
        runs: RUNS,
        platforms: PLATFORMS,
        tools: TOOL_COUNT,
        revisions: { modern: MODERN, legacy: LEGACY },
        source: sourceVersion(),
        patches: args.patch === '' ? [] : args.patch.split(','),
        targets,
        results: runs,
        failures,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nResults written to ${relative(process.cwd(), out)}`);
  const chart = writeRatioChart(out, targets, {
    title: 'nest-mcp bench: ratios against the floors',
    subtitle: `${new Date(startedAt).toISOString().slice(0, 10)} · ${RUNS} run${RUNS === 1 ? '' : 's'} · ${sourceVersion().commit ?? ''}`,
  });
  if (chart !== undefined) {
    console.log(`Chart of the ratios: ${relative(process.cwd(), chart)}`);
  }
  if (profileDir !== undefined) {
    console.log(
      `CPU profiles: ${relative(process.cwd(), profileDir)}/[fastify-]<scenario>.{server,floor}.cpuprofile ` +
        '(npx ts-node --transpile-only bench/analyze-profile.ts --compare <scenario>)',
    );
  }
  console.log(`Took ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);

  if (failures.length > 0) {
    console.error('\nBENCH FAILED: the server errored or answered something else than the expected success:');
    for (const failure of failures) {
      console.error(`  - ${failure}`);
    }
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error(error);
    await stopAll();
    process.exit(1);
  },
);
