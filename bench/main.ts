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
 *     --out <file>     results file (default bench/results/latest.json)
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ChildServer, stopAll } from './children';
import { load, median, probe, summarize, type Measurement, type Probe, type Slice } from './load';
import {
  type Era,
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
import { printScale, runScale, SCALE_SCENARIOS } from './scale-out';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '16' },
    warmup: { type: 'string', default: '1' },
    only: { type: 'string' },
    'no-floor': { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    patch: { type: 'string', default: '' },
    out: { type: 'string', default: join(__dirname, 'results', 'latest.json') },
  },
});
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const ROUNDS = Math.max(1, Math.floor(Number(args.rounds)));

interface Scenario {
  id: string;
  method: Method;
  era: Era;
  connections: number;
  /** Minimum server/floor ratio, for the scenarios with a target. */
  target?: number;
}

const SCENARIOS: Scenario[] = [
  { id: 'call-modern-1', method: 'tools/call', era: 'modern', connections: 1 },
  { id: 'call-modern-16', method: 'tools/call', era: 'modern', connections: 16, target: 0.85 },
  { id: 'call-modern-128', method: 'tools/call', era: 'modern', connections: 128 },
  { id: 'call-legacy-1', method: 'tools/call', era: 'legacy', connections: 1 },
  { id: 'call-legacy-16', method: 'tools/call', era: 'legacy', connections: 16, target: 0.85 },
  { id: 'call-legacy-128', method: 'tools/call', era: 'legacy', connections: 128 },
  { id: 'list-modern-16', method: 'tools/list', era: 'modern', connections: 16, target: 0.8 },
  { id: 'list-legacy-16', method: 'tools/list', era: 'legacy', connections: 16, target: 0.8 },
];

function headerNames(response: Probe): string {
  return Object.keys(response.headers)
    .filter((name) => name !== 'date')
    .sort()
    .join(',');
}

interface Row {
  scenario: string;
  method: Method;
  era: Era;
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
  target?: number;
  met?: boolean;
}

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
    `${row.method} ${row.era}`,
    String(row.concurrency),
    fmt(row.server.rps),
    fmt(row.server.p50, 2),
    fmt(row.server.p99, 2),
    fmt(row.floor?.rps),
    fmt(row.floor?.p50, 2),
    fmt(row.floor?.p99, 2),
    row.ratio === undefined ? '-' : `${row.ratio.toFixed(3)}${row.target === undefined ? '' : ` (≥${row.target})`}`,
    row.pairedRatio === undefined
      ? '-'
      : `${row.pairedRatio.toFixed(3)} (${row.pairedRange![0].toFixed(2)}–${row.pairedRange![1].toFixed(2)})`,
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
  for (const line of renderTable(header, lines)) {
    console.log(line);
  }
  const clientBound = rows.filter((row) => Math.max(row.server.clientCpuShare, row.floor?.clientCpuShare ?? 0) > 0.9);
  if (clientBound.length > 0) {
    console.log(
      `note: the load generator used > 90% of a core in ${clientBound.map((row) => row.scenario).join(', ')}: ` +
        'there the client may be the limit and the ratio understates the gap.',
    );
  }
  console.log(
    'ratio = server req/s ÷ floor req/s over all rounds; paired = median of the per-round ratios (server and ' +
      'floor measured back to back); cpu ratio = median per-round floor CPU µs/req ÷ server CPU µs/req, the ratio ' +
      'a saturated core would give (least sensitive to other load on the machine).',
  );
}

/**
 * The server/floor scenarios: starts the MCP server and the floor (and the patched server of an
 * experiment), measures, stops them. Problems go to `failures`.
 */
async function runBase(
  scenarios: Scenario[],
  withFloor: boolean,
  profileDir: string | undefined,
  failures: string[],
): Promise<Row[]> {
  const rows: Row[] = [];
  const env = { MCP_PAGE_SIZE: '0', BENCH_TOOL_COUNT: String(TOOL_COUNT) };
  const [server, floor, patched] = await Promise.all([
    ChildServer.start('mcp-server', 'mcp-server.ts', { env }),
    withFloor ? ChildServer.start('floor-server', 'floor-server.ts', { env }) : undefined,
    args.patch !== ''
      ? ChildServer.start('mcp-server-patched', 'mcp-server.ts', { env: { ...env, BENCH_PATCH: args.patch } })
      : undefined,
  ]);
  console.log(
    `MCP server (sample AppModule, ${server.ready?.tools} tools) on ${server.url}` +
      (floor ? `; floor on ${floor.url}` : ''),
  );
  if (patched) {
    console.log(
      `EXPERIMENT: a second MCP server runs with patches [${args.patch}] (bench/patches.ts) on ${patched.url}`,
    );
  }

  try {
    if (server.ready?.tools !== TOOL_COUNT) {
      throw new Error(`the server registered ${server.ready?.tools} tools, expected ${TOOL_COUNT}`);
    }
    const sessionId = await openSession(server.url);
    console.log(`legacy session ${sessionId} (${LEGACY})`);
    const patchedSessionId = patched ? await openSession(patched.url) : '';

    // The floor serves the same tool list, in each era's rendering.
    const lists: Record<Era, unknown[]> = { legacy: [], modern: [] };
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
      const patchedSpec = requestOf(scenario.method, scenario.era, patchedSessionId);
      const label = `${scenario.method} ${scenario.era} c=${scenario.connections}`;

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
      if (patched) {
        const patchedSample = await probe(patched.url, patchedSpec);
        if (patchedSample.body !== expected.body) {
          throw new Error(`${label}: the patched server answers differently: ${patchedSample.body.slice(0, 300)}`);
        }
      }

      // Warm every target up, then alternate short slices (server, floor, floor, server, ...) so
      // that all see the same background load: on a shared 2-core machine the ratio is what holds.
      process.stdout.write(`${label.padEnd(30)}`);
      const targets = [
        { child: server, spec, slices: [] as Slice[] },
        ...(patched ? [{ child: patched, spec: patchedSpec, slices: [] as Slice[] }] : []),
        ...(floor ? [{ child: floor, spec, slices: [] as Slice[] }] : []),
      ];
      for (const target of targets) {
        await load(target.child.url, target.spec, scenario.connections, WARMUP);
      }
      if (profileDir !== undefined) {
        await Promise.all([server.profile('start'), floor?.profile('start')]);
      }
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? targets : [...targets].reverse();
        for (const target of order) {
          if (!target.child.alive) {
            throw new Error(`${target.child.name} is not running any more: ${target.child.errors.join('; ')}`);
          }
          const cpuBefore = await target.child.cpuUs();
          const slice = await load(
            target.child.url,
            target.spec,
            scenario.connections,
            DURATION / ROUNDS,
            expected.body,
          );
          slice.serverCpuUs = (await target.child.cpuUs()) - cpuBefore;
          target.slices.push(slice);
        }
      }
      const serverSlices = targets[0].slices;
      const floorSlices = floor ? targets[targets.length - 1].slices : [];
      const measured = summarize(serverSlices);
      if (profileDir !== undefined) {
        await Promise.all([
          server.profile('stop', join(profileDir, `${scenario.id}.server.cpuprofile`)),
          floor?.profile('stop', join(profileDir, `${scenario.id}.floor.cpuprofile`)),
        ]);
        const counts = { server: measured.requests, floor: floor ? summarize(floorSlices).requests : undefined };
        writeFileSync(join(profileDir, `${scenario.id}.requests.json`), JSON.stringify(counts));
      }
      failures.push(...runProblems(`server ${label}`, measured));
      process.stdout.write(` server ${fmt(measured.rps).padStart(6)} req/s`);
      let floorMeasured: Measurement | undefined;
      if (floor) {
        floorMeasured = summarize(floorSlices);
        failures.push(...runProblems(`floor ${label}`, floorMeasured));
        process.stdout.write(`   floor ${fmt(floorMeasured.rps).padStart(6)} req/s`);
      }
      let patchedMeasured: Measurement | undefined;
      if (patched) {
        patchedMeasured = summarize(targets[1].slices);
        failures.push(...runProblems(`patched server ${label}`, patchedMeasured));
        process.stdout.write(`   patched ${fmt(patchedMeasured.rps).padStart(6)} req/s`);
      }
      process.stdout.write('\n');

      const ratio = floorMeasured ? measured.rps / floorMeasured.rps : undefined;
      rows.push({
        scenario: scenario.id,
        method: scenario.method,
        era: scenario.era,
        concurrency: scenario.connections,
        server: measured,
        floor: floorMeasured,
        ratio,
        ...(floorMeasured ? paired(measured, floorMeasured) : {}),
        ...(patchedMeasured
          ? {
              patched: patchedMeasured,
              patchedPaired: floorMeasured ? paired(patchedMeasured, floorMeasured) : undefined,
            }
          : {}),
        target: scenario.target,
        met: scenario.target === undefined || ratio === undefined ? undefined : ratio >= scenario.target,
      });
      if (!server.alive) {
        break;
      }
    }
  } catch (error) {
    process.stdout.write('\n');
    failures.push(error instanceof Error ? error.message : String(error));
  }

  failures.push(...server.errors.map((message) => `server reported: ${message}`));
  if (patched) {
    failures.push(...patched.errors.map((message) => `patched server reported: ${message}`));
  }
  if (floor) {
    failures.push(...floor.errors.map((message) => `floor reported: ${message}`));
  }
  await stopAll();
  return rows;
}

async function main(): Promise<number> {
  const startedAt = Date.now();
  const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  const only = args.only?.split(',').map((id) => id.trim());
  const selected = (id: string): boolean => only === undefined || only.some((prefix) => id.startsWith(prefix));
  const scenarios = SCENARIOS.filter((s) => selected(s.id));
  const scaleScenarios = SCALE_SCENARIOS.filter((s) => selected(s.id));
  const withFloor = !args['no-floor'];
  const profileDir = args['cpu-prof'] ? join(__dirname, 'results', 'profiles') : undefined;
  const failures: string[] = [];
  if (profileDir !== undefined) {
    mkdirSync(profileDir, { recursive: true });
  }

  console.log(
    `nest-mcp bench: ${scenarios.length + scaleScenarios.length} scenarios; per target ${WARMUP}s warm-up + ${DURATION}s measured ` +
      `in ${ROUNDS} alternating slices; ${availableParallelism()} cores, load average ${loadAtStart.join(' ')}; ` +
      `node ${process.version}`,
  );
  if (loadAtStart[0] > availableParallelism() * 0.75) {
    console.log('warning: the machine is already busy; absolute figures will be low, ratios are more robust');
  }
  const rows = scenarios.length > 0 ? await runBase(scenarios, withFloor, profileDir, failures) : [];
  const scale =
    scaleScenarios.length > 0
      ? await runScale(scaleScenarios, { durationS: DURATION, rounds: ROUNDS, warmupS: WARMUP })
      : undefined;
  failures.push(...(scale?.failures ?? []));

  if (rows.length > 0) {
    console.log('');
    printTable(rows);
    console.log('');
    console.log('Targets (server req/s ÷ floor req/s):');
    for (const row of rows.filter((r) => r.target !== undefined)) {
      const verdict = row.met === undefined ? 'n/a (no floor)' : row.met ? 'MET' : 'MISSED';
      console.log(
        `  ${`${row.method} ${row.era} c=${row.concurrency}`.padEnd(28)} ${fmt(row.ratio, 3).padStart(6)} ≥ ${row.target}  ` +
          `${verdict.padEnd(7)} (paired ${fmt(row.pairedRatio, 3)}, cpu ratio ${fmt(row.cpuRatio, 3)})`,
      );
    }
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
          `${availableParallelism()} cores, proxy in its ${scale.setup.proxy})`,
      );
    }
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
        tools: TOOL_COUNT,
        revisions: { modern: MODERN, legacy: LEGACY },
        source: sourceVersion(),
        patches: args.patch === '' ? [] : args.patch.split(','),
        rows,
        ...(scale === undefined ? {} : { scale: { ...scale.setup, rows: scale.rows } }),
        failures,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nResults written to ${relative(process.cwd(), out)}`);
  if (profileDir !== undefined) {
    console.log(
      `CPU profiles: ${relative(process.cwd(), profileDir)}/<scenario>.{server,floor}.cpuprofile ` +
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
