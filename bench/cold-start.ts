/**
 * Cold start (issue 20): what McpModule adds to an application's startup, what 1,000 tools add
 * over 10, and tools/list of 1,000 tools in one page against a floor that returns the same bytes.
 *
 * Startup is timed on compiled JavaScript run by plain `node`, as users run a built app: the
 * cold-start app (bench/cold-start/app.ts) and the library are compiled with tsc once per run
 * into bench/results/cold-start-build/ (CommonJS). Each measurement spawns a fresh process and
 * stops the clock when the answer to the bench's first `initialize` (2025-11-25) arrives: the
 * time spans `spawn()` to that answer, node's own boot, loading the code, Nest's bootstrap,
 * listening and the first request included.
 *
 * tools/list uses the bench's long-running children (mcp-server.ts, floor-server.ts) with 1,000
 * tools, measured in alternating slices like bench/main.ts.
 *
 * CLI (for this section alone):
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/cold-start.ts
 *     [--repeats 5] [--duration 8] [--rounds 16] [--warmup 1] [--platform express|fastify] [--out <file>]
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ChildServer } from './children';
import { load, median, probe, summarize, type Measurement, type Probe, type Slice } from './load';
import { BASE_HEADERS, LEGACY, openSession, problemWith, requestOf, runProblems } from './requests';
import { printTargets, summarizeTargets, target, type TargetResult } from './targets';

/** How the section runs. */
export interface ColdStartOptions {
  /** Spawns per startup variant (default 5). */
  repeats: number;
  /** Measured seconds of tools/list per target (server, floor). */
  listDurationS: number;
  /** Slices the measured seconds are cut into, alternating server and floor. */
  listRounds: number;
  /** Unmeasured seconds of tools/list per target before the slices. */
  warmupS: number;
  /** The Nest HTTP platform of every app of the section. */
  platform: 'express' | 'fastify';
}

/** What the section measured: its targets, what went wrong, and every timing. */
export interface ColdStartResult {
  targets: TargetResult[];
  failures: string[];
  details: ColdStartDetails;
}

/** A startup app: with or without McpModule, and how many `@McpTool` methods it carries. */
export interface Variant {
  id: 'without-10' | 'with-10' | 'with-1000' | 'without-1000';
  module: boolean;
  tools: number;
}

/** In this order, then reversed, repeat after repeat (A B C D D C B A ...). */
const VARIANTS: Variant[] = [
  { id: 'without-10', module: false, tools: 10 },
  { id: 'with-10', module: true, tools: 10 },
  { id: 'with-1000', module: true, tools: 1000 },
  { id: 'without-1000', module: false, tools: 1000 },
];

/** The child's own milestones, ms since its process started (performance.now() in the child). */
export interface ChildMarks {
  /** The app's first line ran: node's own boot. */
  entered: number;
  /** Nest, the decorators, the providers and (with the module) the library loaded. */
  loaded: number;
  /** NestFactory.create resolved: the module graph and its providers built. */
  created: number;
  /** app.listen resolved: init (the module's discovery and registry) and the routes done. */
  listening: number;
  /** CPU time (user + system) the child used until then: what a busy machine distorts least. */
  cpuMs: number;
}

/** What the app prints when it listens. */
type ListeningLine = ChildMarks & { port: number; platform: string; tools: number };

/** One spawn of one variant. */
export interface StartupSample {
  variant: Variant['id'];
  /** spawn() to the answer of the first initialize (200 with a result): the figure. */
  spawnToAnswerMs: number;
  /** spawn() to the child's "listening" line on stdout. */
  spawnToListenLineMs: number;
  /** POSTs refused before one was answered (the port is printed once listening: expected 0). */
  refused: number;
  child: ChildMarks;
}

/** The spawns of one variant, folded. */
export interface VariantSummary {
  variant: Variant['id'];
  module: boolean;
  tools: number;
  samples: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Medians of the child's milestones. */
  medianChild: ChildMarks;
  /** Median of the listen line to the answer (the first request, and reading the line). */
  medianListenLineToAnswerMs: number;
}

/** tools/list of 1,000 tools, the server against its floor. */
export interface ListDetails {
  tools: number;
  connections: number;
  /** Bytes of one tools/list answer (modern era). */
  bodyBytes: number;
  server: Measurement;
  floor: Measurement;
  /** server req/s ÷ floor req/s of each round (measured back to back). */
  pairedRatios: number[];
  /** Their median: the target's figure. */
  pairedRatio: number;
  /** Floor CPU µs/request ÷ server CPU µs/request, median per round. */
  cpuRatio: number;
}

/** Every timing of the section (JSON). */
export interface ColdStartDetails {
  platform: 'express' | 'fastify';
  node: string;
  build: { dir: string; tscMs: number; fresh: boolean };
  repeats: number;
  order: string;
  /** Every measured spawn, in the order run (the warm-up spawn is not among them). */
  startup: StartupSample[];
  variants: VariantSummary[];
  /** The module's share with 1,000 tools: with-1000 − without-1000 (medians). */
  moduleMsWith1000: number;
  /** What 1,000 tool providers cost without the module: without-1000 − without-10 (medians). */
  providersMsWithout: number;
  list?: ListDetails;
}

const ROOT = resolve(__dirname, '..');
const BUILD_DIR = join(__dirname, 'results', 'cold-start-build');
const BUILD_CONFIG = join(__dirname, 'cold-start', 'tsconfig.build.json');
const APP = join(BUILD_DIR, 'bench', 'cold-start', 'app.js');
const LIBRARY_ENTRY = join(BUILD_DIR, 'lib', 'index.js');
/** The library as it is published: bundled into one file (scripts/bundle-library.mjs). */
const LIBRARY_BUNDLE = join(BUILD_DIR, 'library-bundle', 'index.js');
const LIST_TOOLS = 1000;
const LIST_CONNECTIONS = 16;
/** One spawn must answer within this; a hung child is a failure, not a long sample. */
const SPAWN_TIMEOUT_MS = 60_000;
/** Between POSTs refused while the child's port does not accept yet. */
const RETRY_MS = 3;

const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'nest-mcp-bench', version: '1.0.0' } },
});

const live = new Set<ChildProcess>();
// A spawned app never outlives the bench (children.ts turns SIGINT/SIGTERM into process.exit).
process.on('exit', () => {
  for (const child of live) {
    child.kill('SIGKILL');
  }
});

/** Runs tsc on the cold-start build config; rejects with its output when it fails. */
function tsc(): Promise<number> {
  const started = performance.now();
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '-p', BUILD_CONFIG],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          fail(new Error(`tsc failed: ${error.message}\n${stdout}${stderr}`.slice(0, 3000)));
        } else {
          done(performance.now() - started);
        }
      },
    );
  });
}

/** Bundles the compiled library as `npm run build` does, into LIBRARY_BUNDLE. */
function bundle(): Promise<void> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [join(ROOT, 'scripts', 'bundle-library.mjs'), join(BUILD_DIR, 'lib'), '--out', LIBRARY_BUNDLE],
      { cwd: ROOT },
      (error, stdout, stderr) => (error ? fail(new Error(`bundling failed: ${stdout}${stderr}`)) : done()),
    );
  });
}

/**
 * Compiles the app and the library with tsc (incremental: a run with unchanged sources only
 * checks them), then bundles the library as it is published. If the outputs are missing while
 * the build info says they are current, the directory is wiped and built afresh.
 */
async function build(): Promise<{ tscMs: number; fresh: boolean }> {
  let fresh = !existsSync(BUILD_DIR);
  let tscMs = await tsc();
  if (!existsSync(APP) || !existsSync(LIBRARY_ENTRY)) {
    rmSync(BUILD_DIR, { recursive: true, force: true });
    fresh = true;
    tscMs += await tsc();
  }
  await bundle();
  return { tscMs, fresh };
}

/** The environment of a spawned app: the parent's, without what would make node load ts-node. */
function appEnv(variant: Variant, platform: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key !== 'NODE_OPTIONS' && !key.startsWith('TS_NODE_')) {
      env[key] = value;
    }
  }
  return {
    ...env,
    COLD_MODULE: variant.module ? '1' : '0',
    COLD_TOOLS: String(variant.tools),
    BENCH_PLATFORM: platform,
    PORT: '0',
  };
}

/** POSTs the initialize on a new connection; rejects with the socket error (ECONNREFUSED...). */
function postInitialize(port: number): Promise<Probe> {
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: { ...BASE_HEADERS, 'content-length': Buffer.byteLength(INITIALIZE_BODY) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [key, value] of Object.entries(res.headers)) {
            headers[key] = Array.isArray(value) ? value.join(', ') : (value ?? '');
          }
          done({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(INITIALIZE_BODY);
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** Kills a spawned app and waits until it is gone, so that it does not load the next one. */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGKILL');
    await exited;
  }
  live.delete(child);
}

/**
 * Spawns the app once and times spawn() → the answer to its first initialize. The child prints
 * its port when it listens; a refused POST is retried every few ms. Returns the sample and the
 * answer (checked by the caller). The child is killed in every case.
 */
async function spawnOnce(variant: Variant, platform: string): Promise<{ sample: StartupSample; answer: Probe }> {
  const started = performance.now();
  const child = spawn(process.execPath, [APP], {
    cwd: ROOT,
    env: appEnv(variant, platform),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  try {
    const listening = await new Promise<{ at: number; marks: ListeningLine }>((done, fail) => {
      let stdout = '';
      const timer = setTimeout(() => fail(new Error(`no port within ${SPAWN_TIMEOUT_MS} ms`)), SPAWN_TIMEOUT_MS);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        const line = /^COLD-START-LISTENING (.*)$/m.exec(stdout);
        if (line !== null) {
          clearTimeout(timer);
          done({ at: performance.now(), marks: JSON.parse(line[1]) as ListeningLine });
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        fail(new Error(`exited (code ${code}, signal ${signal}) before listening`));
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        fail(error);
      });
    });
    let refused = 0;
    let answer: Probe;
    for (;;) {
      try {
        answer = await postInitialize(listening.marks.port);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ECONNREFUSED' || performance.now() - started > SPAWN_TIMEOUT_MS) {
          throw error;
        }
        refused++;
        await delay(RETRY_MS);
      }
    }
    const answered = performance.now();
    if (listening.marks.platform !== platform || listening.marks.tools !== variant.tools) {
      throw new Error(
        `the app ran on ${listening.marks.platform} with ${listening.marks.tools} tools, not ${platform} with ${variant.tools}`,
      );
    }
    if (stderr !== '') {
      // An app that logs an error (or warns) while starting is not the startup we mean to time.
      throw new Error(`wrote to stderr while starting: ${stderr.slice(-1500)}`);
    }
    if (variant.module) {
      // Not timed: the module must have found every decorated method, or the figure is not
      // about registering `variant.tools` tools.
      const listed = await probe(`http://127.0.0.1:${listening.marks.port}/mcp`, requestOf('tools/list', 'modern', ''));
      const tools = (JSON.parse(listed.body) as { result?: { tools?: unknown[] } }).result?.tools;
      if (listed.status !== 200 || tools?.length !== variant.tools) {
        throw new Error(
          `tools/list lists ${tools?.length} tools, expected ${variant.tools}: ${listed.body.slice(0, 300)}`,
        );
      }
    }
    const { entered, loaded, created, listening: listenedAt, cpuMs } = listening.marks;
    return {
      sample: {
        variant: variant.id,
        spawnToAnswerMs: answered - started,
        spawnToListenLineMs: listening.at - started,
        refused,
        child: { entered, loaded, created, listening: listenedAt, cpuMs },
      },
      answer,
    };
  } catch (error) {
    throw new Error(
      `cold start ${variant.id}: ${error instanceof Error ? error.message : String(error)}` +
        (stderr === '' || (error instanceof Error && error.message.startsWith('wrote to stderr'))
          ? ''
          : `\n${stderr.slice(-1500)}`),
    );
  } finally {
    await kill(child);
  }
}

/** Why an initialize answer is not the module's success, or undefined when it is. */
function initializeProblem(answer: Probe): string | undefined {
  if (answer.status !== 200) {
    return `HTTP ${answer.status}: ${answer.body.slice(0, 300)}`;
  }
  try {
    const parsed = JSON.parse(answer.body) as { result?: { protocolVersion?: unknown } };
    if (parsed.result?.protocolVersion !== LEGACY) {
      return `not an initialize result for ${LEGACY}: ${answer.body.slice(0, 300)}`;
    }
  } catch {
    return `not JSON: ${answer.body.slice(0, 300)}`;
  }
  if (answer.headers['mcp-session-id'] === undefined) {
    return 'no Mcp-Session-Id header';
  }
  return undefined;
}

function summarizeVariant(variant: Variant, samples: StartupSample[]): VariantSummary {
  const times = samples.map((sample) => sample.spawnToAnswerMs);
  const medianOf = (pick: (sample: StartupSample) => number): number => median(samples.map(pick));
  return {
    variant: variant.id,
    module: variant.module,
    tools: variant.tools,
    samples: samples.length,
    medianMs: median(times),
    minMs: times.length > 0 ? Math.min(...times) : NaN,
    maxMs: times.length > 0 ? Math.max(...times) : NaN,
    medianChild: {
      entered: medianOf((s) => s.child.entered),
      loaded: medianOf((s) => s.child.loaded),
      created: medianOf((s) => s.child.created),
      listening: medianOf((s) => s.child.listening),
      cpuMs: medianOf((s) => s.child.cpuMs),
    },
    medianListenLineToAnswerMs: medianOf((s) => s.spawnToAnswerMs - s.spawnToListenLineMs),
  };
}

/**
 * Every variant `repeats` times, alternating A B C D D C B A ... so that background load falls
 * on all alike; one unmeasured spawn first (the app with the module and 1,000 tools loads every
 * file the others load) so that the first sample does not pay for a cold disk cache. The answers
 * of the apps without the module must be the module's bytes.
 */
async function measureStartup(
  options: ColdStartOptions,
  failures: string[],
): Promise<{ samples: StartupSample[]; summaries: VariantSummary[] }> {
  const samples: StartupSample[] = [];
  let moduleBody: string | undefined;
  const handBuilt: { variant: Variant; body: string }[] = [];
  const check = (variant: Variant, answer: Probe): boolean => {
    const problem = initializeProblem(answer);
    if (problem !== undefined) {
      failures.push(`cold start ${variant.id}: initialize answered ${problem}`);
      return false;
    }
    if (variant.module) {
      moduleBody ??= answer.body;
      if (answer.body !== moduleBody) {
        failures.push(`cold start ${variant.id}: the module's initialize answer changed between apps: ${answer.body}`);
      }
    } else {
      handBuilt.push({ variant, body: answer.body });
    }
    return true;
  };
  const warmUp = VARIANTS.find((variant) => variant.id === 'with-1000')!;
  try {
    check(warmUp, (await spawnOnce(warmUp, options.platform)).answer);
  } catch (error) {
    failures.push(`warm-up spawn: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (let repeat = 0; repeat < options.repeats; repeat++) {
    for (const variant of repeat % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
      try {
        const { sample, answer } = await spawnOnce(variant, options.platform);
        if (check(variant, answer)) {
          samples.push(sample);
        }
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
  }
  // The hand-built answer must be the module's, byte for byte (the session id is a header).
  const differing = handBuilt.find(({ body }) => body !== moduleBody);
  if (differing !== undefined) {
    failures.push(
      moduleBody === undefined
        ? 'cold start: no answer of the module to compare the hand-built initialize with'
        : `cold start ${differing.variant.id}: the hand-built initialize differs from the module's\n` +
            `  module:     ${moduleBody}\n  hand-built: ${differing.body}`,
    );
  }
  const summaries = VARIANTS.map((variant) =>
    summarizeVariant(
      variant,
      samples.filter((sample) => sample.variant === variant.id),
    ),
  );
  for (const summary of summaries) {
    if (summary.samples < options.repeats) {
      failures.push(`cold start ${summary.variant}: ${summary.samples} of ${options.repeats} spawns measured`);
    }
  }
  return { samples, summaries };
}

function headerNames(response: Probe): string {
  return Object.keys(response.headers)
    .filter((name) => name !== 'date')
    .sort()
    .join(',');
}

/**
 * tools/list (modern era) of 1,000 tools in one page at c=16: the MCP server child against the
 * floor child, which is sent the server's own rendering of the list and must answer the same
 * bytes. Warm-up of each, then alternating slices server, floor, floor, server ... `alongside`
 * (the build) is awaited after the children started and before anything is measured.
 */
async function measureList(
  options: ColdStartOptions,
  failures: string[],
  alongside: Promise<unknown>,
): Promise<ListDetails | undefined> {
  const env = { BENCH_TOOL_COUNT: String(LIST_TOOLS), MCP_PAGE_SIZE: '0', BENCH_PLATFORM: options.platform };
  const started = await Promise.allSettled([
    ChildServer.start('mcp-server-1000', 'mcp-server.ts', { env }),
    ChildServer.start('floor-server-1000', 'floor-server.ts', { env }),
  ]);
  const [server, floor] = started.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
  let details: ListDetails | undefined;
  try {
    await alongside.catch(() => undefined);
    const notStarted = started.find((result) => result.status === 'rejected');
    if (notStarted !== undefined || server === undefined || floor === undefined) {
      throw new Error(`tools/list 1000: a child did not start: ${String(notStarted?.reason)}`);
    }
    if (server.ready?.tools !== LIST_TOOLS) {
      throw new Error(`tools/list 1000: the server registered ${server.ready?.tools} tools, expected ${LIST_TOOLS}`);
    }
    // The floor serves the server's own rendering of the list, in both eras (its message takes both).
    const sessionId = await openSession(server.url);
    const lists: { legacy: unknown[]; modern: unknown[] } = { legacy: [], modern: [] };
    for (const era of ['legacy', 'modern'] as const) {
      const response = await probe(server.url, requestOf('tools/list', era, sessionId));
      const problem = problemWith('tools/list', response, LIST_TOOLS);
      if (problem !== undefined) {
        throw new Error(`tools/list 1000 ${era} on the server: ${problem}`);
      }
      lists[era] = (JSON.parse(response.body) as { result: { tools: unknown[] } }).result.tools;
    }
    floor.send({ type: 'tools', legacy: lists.legacy, modern: lists.modern });
    await floor.next('ack');

    // Check before measuring: the same bytes and header names from both.
    const spec = requestOf('tools/list', 'modern', '');
    const expected = await probe(server.url, spec);
    const problem = problemWith('tools/list', expected, LIST_TOOLS);
    if (problem !== undefined) {
      throw new Error(`tools/list 1000 modern: the server's sample response is not a success: ${problem}`);
    }
    // The children choose their platform from BENCH_PLATFORM: one that ignored it would be
    // measured under the other platform's name (the floor's header names must equal these).
    if (options.platform === 'fastify' && expected.headers['x-powered-by'] === 'Express') {
      throw new Error('tools/list 1000: the server runs on Express although BENCH_PLATFORM=fastify');
    }
    const floorSample = await probe(floor.url, spec);
    if (floorSample.body !== expected.body) {
      throw new Error(
        `tools/list 1000 modern: the floor's body differs from the server's (${floorSample.body.length} vs ` +
          `${expected.body.length} characters): ${floorSample.body.slice(0, 300)}`,
      );
    }
    if (headerNames(floorSample) !== headerNames(expected)) {
      throw new Error(
        `tools/list 1000 modern: floor headers differ: server [${headerNames(expected)}], ` +
          `floor [${headerNames(floorSample)}]`,
      );
    }

    const measured = [
      { child: server, slices: [] as Slice[] },
      { child: floor, slices: [] as Slice[] },
    ];
    for (const { child } of measured) {
      await load(child.url, spec, LIST_CONNECTIONS, options.warmupS);
    }
    const rounds = Math.max(1, Math.floor(options.listRounds));
    for (let round = 0; round < rounds; round++) {
      for (const entry of round % 2 === 0 ? measured : [...measured].reverse()) {
        if (!entry.child.alive) {
          throw new Error(`${entry.child.name} is not running any more: ${entry.child.errors.join('; ')}`);
        }
        const cpuBefore = await entry.child.cpuUs();
        const slice = await load(
          entry.child.url,
          spec,
          LIST_CONNECTIONS,
          options.listDurationS / rounds,
          expected.body,
        );
        slice.serverCpuUs = (await entry.child.cpuUs()) - cpuBefore;
        entry.slices.push(slice);
      }
    }
    const serverMeasured = summarize(measured[0].slices);
    const floorMeasured = summarize(measured[1].slices);
    failures.push(...runProblems('server tools/list modern 1000 tools c=16', serverMeasured));
    failures.push(...runProblems('floor tools/list modern 1000 tools c=16', floorMeasured));
    const pairedRatios = serverMeasured.sliceRps.map((rps, i) => rps / floorMeasured.sliceRps[i]);
    details = {
      tools: LIST_TOOLS,
      connections: LIST_CONNECTIONS,
      bodyBytes: Buffer.byteLength(expected.body),
      server: serverMeasured,
      floor: floorMeasured,
      pairedRatios,
      pairedRatio: median(pairedRatios),
      cpuRatio: median(serverMeasured.sliceCpuUs.map((us, i) => floorMeasured.sliceCpuUs[i] / us)),
    };
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    failures.push(...(server?.errors ?? []).map((message) => `mcp-server (1000 tools) reported: ${message}`));
    failures.push(...(floor?.errors ?? []).map((message) => `floor (1000 tools) reported: ${message}`));
    await Promise.all([server?.stop(), floor?.stop()]);
  }
  return details;
}

/**
 * Runs the cold-start section: tools/list of 1,000 tools against its floor (while tsc compiles
 * the startup apps), then startup with and without McpModule, with 10 and 1,000 tools. Returns
 * its three targets (NaN where it could not measure, with the reason in `failures`) and every
 * timing in `details`.
 */
export async function runColdStart(options: ColdStartOptions): Promise<ColdStartResult> {
  const failures: string[] = [];
  const details: ColdStartDetails = {
    platform: options.platform,
    node: process.version,
    build: { dir: relative(ROOT, BUILD_DIR), tscMs: NaN, fresh: false },
    repeats: options.repeats,
    order: `${VARIANTS.map((variant) => variant.id).join(' ')}, then reversed, alternately`,
    startup: [],
    variants: [],
    moduleMsWith1000: NaN,
    providersMsWithout: NaN,
  };
  // tsc runs while the tools/list children start (both only load the CPU, nothing is measured
  // yet); the startup spawns come last, once those children are stopped.
  const building = build();
  // Handled here too: tsc may fail before anything awaits it.
  building.catch(() => undefined);
  details.list = await measureList(options, failures, building);
  try {
    Object.assign(details.build, await building);
    const { samples, summaries } = await measureStartup(options, failures);
    details.startup = samples;
    details.variants = summaries;
  } catch (error) {
    failures.push(`cold start: ${error instanceof Error ? error.message : String(error)}`);
  }
  const medianOf = (id: Variant['id']): number =>
    details.variants.find((summary) => summary.variant === id)?.medianMs ?? NaN;
  details.moduleMsWith1000 = medianOf('with-1000') - medianOf('without-1000');
  details.providersMsWithout = medianOf('without-1000') - medianOf('without-10');

  const targets = [
    target(
      `${options.platform}/cold-start:module-ms`,
      `${options.platform} cold start: McpModule adds (10 tools)`,
      medianOf('with-10') - medianOf('without-10'),
      'at-most',
      150,
      'ms',
    ),
    target(
      `${options.platform}/cold-start:1000-tools-ms`,
      `${options.platform} cold start: 1,000 tools add over 10 (McpModule)`,
      medianOf('with-1000') - medianOf('with-10'),
      'at-most',
      1000,
      'ms',
    ),
    target(
      `${options.platform}/list-modern-1000-16:ratio`,
      `${options.platform} tools/list modern c=16, 1,000 tools ÷ floor`,
      details.list?.pairedRatio ?? NaN,
      'at-least',
      0.8,
      'ratio',
    ),
  ];
  return { targets, failures, details };
}

/** The section's own table (CLI): median and min–max per variant, and where the time goes. */
export function printColdStart(details: ColdStartDetails): void {
  console.log(
    `Cold start (${details.platform}, node ${details.node}; tsc ${(details.build.tscMs / 1000).toFixed(1)} s` +
      `${details.build.fresh ? ', fresh build' : ''}): spawn → first initialize answered, ms`,
  );
  for (const summary of details.variants) {
    const child = summary.medianChild;
    console.log(
      `  ${summary.variant.padEnd(13)} ${summary.medianMs.toFixed(0).padStart(5)} ` +
        `(${summary.minMs.toFixed(0)}–${summary.maxMs.toFixed(0)}, n=${summary.samples})   in the child: ` +
        `node boot ${child.entered.toFixed(0)}, code loaded ${child.loaded.toFixed(0)}, created ` +
        `${child.created.toFixed(0)}, listening ${child.listening.toFixed(0)} (CPU ${child.cpuMs.toFixed(0)}); listen ` +
        `line → answer ` +
        `${summary.medianListenLineToAnswerMs.toFixed(0)}`,
    );
  }
  console.log(
    `  the module's share with 1,000 tools (with-1000 − without-1000): ${details.moduleMsWith1000.toFixed(0)} ms; ` +
      `1,000 tools' providers without the module (without-1000 − without-10): ${details.providersMsWithout.toFixed(0)} ms`,
  );
  const list = details.list;
  if (list !== undefined) {
    console.log(
      `tools/list of ${list.tools} tools (${list.bodyBytes} bytes), c=${list.connections}: server ` +
        `${list.server.rps.toFixed(0)} req/s, floor ${list.floor.rps.toFixed(0)} req/s; paired ` +
        `${list.pairedRatio.toFixed(3)} (${Math.min(...list.pairedRatios).toFixed(2)}–` +
        `${Math.max(...list.pairedRatios).toFixed(2)}), cpu ratio ${list.cpuRatio.toFixed(3)}, server CPU ` +
        `${list.server.cpuUsPerRequest.toFixed(0)} µs/req, floor ${list.floor.cpuUsPerRequest.toFixed(0)} µs/req`,
    );
  }
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      repeats: { type: 'string', default: '5' },
      duration: { type: 'string', default: '8' },
      rounds: { type: 'string', default: '16' },
      warmup: { type: 'string', default: '1' },
      platform: { type: 'string', default: 'express' },
      out: { type: 'string', default: join(__dirname, 'results', 'cold-start.json') },
    },
  });
  const startedAt = Date.now();
  runColdStart({
    repeats: Math.max(1, Math.floor(Number(values.repeats))),
    listDurationS: Number(values.duration),
    listRounds: Number(values.rounds),
    warmupS: Number(values.warmup),
    platform: values.platform === 'fastify' ? 'fastify' : 'express',
  }).then(
    (result) => {
      printColdStart(result.details);
      console.log('');
      printTargets(summarizeTargets([result.targets]), 1);
      const out = resolve(values.out);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
      console.log(
        `\nResults written to ${relative(process.cwd(), out)}; took ${((Date.now() - startedAt) / 1000).toFixed(0)} s`,
      );
      if (result.failures.length > 0) {
        console.error('\nCOLD START FAILED:');
        for (const failure of result.failures) {
          console.error(`  - ${failure}`);
        }
        process.exit(1);
      }
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
