/**
 * Summarizes the V8 CPU profiles written by `bench/main.ts --cpu-prof`: where the CPU time of a
 * scenario goes, by area (our lib/, Nest, Express, Node's HTTP, GC...) and by function, and with
 * `--compare`, what the MCP server spends per request beyond the floor, area by area.
 *
 *   ts-node --transpile-only bench/analyze-profile.ts --compare call-modern-16 [--top 25]
 *   ts-node --transpile-only bench/analyze-profile.ts bench/results/profiles/x.server.cpuprofile
 *
 * Self time is exact per sample. "Inclusive" time adds everything a function called
 * synchronously; work resumed after an `await` is charged to the microtask that resumed it.
 * Samples taken in the bench's own IPC/profiler code are left out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface RawProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface Summary {
  /** Busy µs (not idle, not the bench's own code). */
  busy: number;
  areas: Map<string, number>;
  self: Map<string, number>;
  inclusive: Map<string, number>;
  /** Time with the floor's controller on the stack (the floor's counterpart of "all of nest-mcp"). */
  floorHandler: number;
  /** Time charged to the innermost nest-mcp function on the stack (its own code and what it calls outside lib/). */
  attributed: Map<string, number>;
}

const ROOT_MARK = '/work/main/';

function shortUrl(url: string): string {
  const cut = url.indexOf(ROOT_MARK);
  return (cut >= 0 ? url.slice(cut + ROOT_MARK.length) : url).replace(/^file:\/\//, '');
}

/**
 * Function name and file. Line numbers are those of the JavaScript ts-node generated (types and
 * interfaces removed), not of the .ts source, so they only tell anonymous functions apart.
 */
function keyOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (url === '') {
    return functionName || '(anonymous)';
  }
  return functionName ? `${functionName} ${shortUrl(url)}` : `(anonymous) ${shortUrl(url)} js:${lineNumber + 1}`;
}

function areaOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'V8 (program)';
  const u = shortUrl(url);
  if (u.startsWith('lib/')) return `nest-mcp ${u.split('/').slice(0, -1).join('/')}/`;
  if (u.startsWith('sample/')) return 'sample/';
  if (u.startsWith('bench/')) return 'bench (floor handler)';
  if (u.includes('node_modules/@nestjs/core')) return '@nestjs/core';
  if (u.includes('node_modules/@nestjs/')) return '@nestjs/other';
  if (u.includes('node_modules/express') || u.includes('node_modules/router')) return 'express + router';
  if (/node_modules\/(body-parser|raw-body|iconv-lite|type-is|content-type|media-typer|on-finished|mime)/.test(u))
    return 'body-parser & co';
  if (u.includes('node_modules/')) return `node_modules/${u.split('node_modules/')[1].split('/')[0]}`;
  if (/^node:internal\/(abort_controller|event_target)/.test(u)) return 'node: AbortController/EventTarget';
  if (u === 'node:timers' || u === 'node:internal/timers') return 'node: timers';
  if (u.startsWith('node:internal/process/task_queues') || functionName === 'runMicrotasks')
    return 'node: microtasks/ticks';
  if (u.startsWith('node:_http') || u === 'node:http') return 'node: http';
  if (u === 'node:events' || u === 'node:domain') return 'node: events';
  if (u.startsWith('node:internal/streams') || u === 'node:net' || u.startsWith('node:internal/stream_base'))
    return 'node: streams/net';
  if (u.startsWith('node:')) return 'node: other';
  if (u === '' && /^write/.test(functionName)) return 'socket write (syscall)';
  return u === '' ? `native (${functionName})` : u;
}

function summarize(file: string): Summary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as RawProfile;
  const byId = new Map<number, ProfileNode>();
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) {
      parentOf.set(child, node.id);
    }
  }
  const summary: Summary = {
    busy: 0,
    floorHandler: 0,
    areas: new Map(),
    self: new Map(),
    inclusive: new Map(),
    attributed: new Map(),
  };
  const add = (map: Map<string, number>, key: string, us: number): void => {
    map.set(key, (map.get(key) ?? 0) + us);
  };
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      return;
    }
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      stack.push(byId.get(at)!);
    }
    if (stack.some((frame) => frame.callFrame.url.includes('bench/child-runtime'))) {
      return; // the bench's IPC and profiler control, not the server's work
    }
    summary.busy += delta;
    add(summary.self, keyOf(node), delta);
    add(summary.areas, areaOf(node), delta);
    const owner = stack.find((frame) => shortUrl(frame.callFrame.url).startsWith('lib/'));
    if (owner !== undefined) {
      add(summary.attributed, keyOf(owner), delta);
    }
    if (stack.some((frame) => frame.callFrame.url.includes('bench/floor-server'))) {
      summary.floorHandler += delta;
    }
    const seen = new Set<string>();
    for (const frame of stack) {
      const key = keyOf(frame);
      if (!seen.has(key)) {
        seen.add(key);
        add(summary.inclusive, key, delta);
      }
    }
  });
  return summary;
}

function top(map: Map<string, number>, n: number, filter: (key: string) => boolean = () => true): [string, number][] {
  return [...map.entries()]
    .filter(([key]) => filter(key))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    compare: { type: 'string' },
    dir: { type: 'string', default: join(__dirname, 'results', 'profiles') },
    top: { type: 'string', default: '25' },
  },
});
const n = Number(values.top);

if (values.compare !== undefined) {
  const id = values.compare;
  const counts = JSON.parse(readFileSync(join(values.dir, `${id}.requests.json`), 'utf8')) as {
    server: number;
    floor?: number;
  };
  const server = summarize(join(values.dir, `${id}.server.cpuprofile`));
  const floorFile = join(values.dir, `${id}.floor.cpuprofile`);
  const floor = existsSync(floorFile) && counts.floor ? summarize(floorFile) : undefined;
  const per = (us: number | undefined, requests: number | undefined): number =>
    us === undefined || !requests ? 0 : us / requests;
  const serverTotal = per(server.busy, counts.server);
  const floorTotal = per(floor?.busy, counts.floor);
  console.log(
    `${id}: server ${counts.server} requests, ${serverTotal.toFixed(1)} µs CPU/request (sampled); ` +
      (floor ? `floor ${counts.floor} requests, ${floorTotal.toFixed(1)} µs/request; ` : '') +
      (floor ? `predicted ratio ${(floorTotal / serverTotal).toFixed(3)}` : ''),
  );
  console.log('\nµs per request by area (sorted by server − floor):');
  console.log(`${'area'.padEnd(40)} ${'server'.padStart(8)} ${'floor'.padStart(8)} ${'Δ'.padStart(8)}`);
  const areas = new Set([...server.areas.keys(), ...(floor?.areas.keys() ?? [])]);
  [...areas]
    .map((area) => {
      const s = per(server.areas.get(area), counts.server);
      const f = per(floor?.areas.get(area), counts.floor);
      return { area, s, f, d: s - f };
    })
    .sort((a, b) => b.d - a.d)
    .filter((row) => Math.abs(row.d) >= 0.2 || row.s >= 1)
    .forEach((row) =>
      console.log(
        `${row.area.padEnd(40)} ${row.s.toFixed(1).padStart(8)} ${row.f.toFixed(1).padStart(8)} ${row.d.toFixed(1).padStart(8)}`,
      ),
    );
  console.log(
    `${'TOTAL'.padEnd(40)} ${serverTotal.toFixed(1).padStart(8)} ${floorTotal.toFixed(1).padStart(8)} ${(serverTotal - floorTotal).toFixed(1).padStart(8)}`,
  );
  console.log(`\nTop ${n} nest-mcp functions, inclusive synchronous µs per request:`);
  for (const [key, us] of top(server.inclusive, n, (k) => / lib\//.test(k))) {
    console.log(`${per(us, counts.server).toFixed(1).padStart(8)}  ${key}`);
  }
  console.log(
    `\nTop ${n} nest-mcp functions, µs per request of their own code plus what they call outside lib/ ` +
      '(Node, Nest, ajv...):',
  );
  let attributedTotal = 0;
  for (const us of server.attributed.values()) attributedTotal += us;
  console.log(`${per(attributedTotal, counts.server).toFixed(1).padStart(8)}  (all of nest-mcp)`);
  if (floor) {
    console.log(
      `${per(floor.floorHandler, counts.floor).toFixed(1).padStart(8)}  (the floor's controller, for comparison: ` +
        'it builds, serializes and writes the same response)',
    );
  }
  for (const [key, us] of top(server.attributed, n)) {
    console.log(`${per(us, counts.server).toFixed(1).padStart(8)}  ${key}`);
  }
  console.log(`\nTop ${n} functions by self µs per request (server):`);
  for (const [key, us] of top(server.self, n)) {
    console.log(`${per(us, counts.server).toFixed(1).padStart(8)}  ${key}`);
  }
} else {
  const file = positionals[0];
  if (file === undefined) {
    console.error('usage: analyze-profile.ts --compare <scenario> | <file.cpuprofile>');
    process.exit(2);
  }
  const summary = summarize(file);
  const pct = (us: number): string => `${((100 * us) / summary.busy).toFixed(1).padStart(5)}%`;
  console.log(`${file}: ${(summary.busy / 1e6).toFixed(2)} s busy`);
  console.log('\nSelf time by area:');
  for (const [key, us] of top(summary.areas, 40)) console.log(`${pct(us)}  ${key}`);
  console.log(`\nTop ${n} functions by self time:`);
  for (const [key, us] of top(summary.self, n)) console.log(`${pct(us)}  ${key}`);
  console.log(`\nTop ${n} nest-mcp functions by inclusive (synchronous) time:`);
  for (const [key, us] of top(summary.inclusive, n, (k) => / lib\//.test(k))) console.log(`${pct(us)}  ${key}`);
}
