/**
 * The module's own JavaScript per request, without the network: the Nest route of the MCP
 * endpoint and the floor's (bench/floor-server.ts's controller, the same bytes hand-built) on
 * Fastify, called directly with Fastify's request and reply objects over Node's own
 * `IncomingMessage` and `ServerResponse` (no socket, nothing written). What is left is what the
 * route costs: Nest's router and guards, the module's checks, the engine, the tool, the answer.
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/route-cost.ts [--era modern|legacy] [--evict 2] [--rounds 15] [--calls 3000] [--telemetry]
 *
 * Two regimes. Warm (`--evict 0`): the same request in a tight loop, everything in the CPU's
 * caches, the least the route can cost. Cold (`--evict <MiB>`, 2 by default): before every
 * call a walk through that much memory pushes the route's code and data out of the caches, as
 * the kernel, the HTTP parser and the other connections do between two requests of a real
 * server; the walk itself is not counted. A real server sits between the two, nearer the cold
 * one: on the 2-core machine the cold difference is about what `npm run bench` measures
 * between the server and the floor.
 *
 * Figures are CPU µs per call (`process.cpuUsage`) of alternating rounds, and the difference
 * `mcp − floor` as the median of the per-round differences. One process does both, so the
 * noise of a shared machine moves them together: a change of a microsecond or two shows.
 *
 * With `--telemetry`, the OpenTelemetry SDK of the bench's telemetry child (bench/telemetry-sdk.ts)
 * is registered first: run with and without it, `mcp − floor` grows by what recording costs.
 *
 * With `--alloc`, the figure is the heap each call allocates instead (bytes, from V8's heap
 * statistics across a round that no garbage collection interrupted): what a request makes,
 * which the machine's noise does not move, so a change of a few objects shows in one run.
 */
import 'reflect-metadata';
import { Controller, Module, Post, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { IncomingMessage, ServerResponse, type IncomingHttpHeaders } from 'node:http';
import { Socket } from 'node:net';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { AppModule } from '../sample/app.module';
import { floorAnswer, type FloorLists, type FloorRequest } from './floor-answer';
import { requestOf, type BenchEra } from './requests';

const { values: args } = parseArgs({
  options: {
    era: { type: 'string', default: 'modern' },
    evict: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '15' },
    calls: { type: 'string', default: '3000' },
    alloc: { type: 'boolean', default: false },
    telemetry: { type: 'boolean', default: false },
  },
});

/** The tools/list scenarios are not measured here: the floor answers calls only. */
const NO_LISTS: FloorLists = { legacy: [], modern: [] };

/** The floor of bench/floor-server.ts (floor-answer.ts), taken over from Fastify as it is there. */
@Controller('floor')
class FloorController {
  @Post()
  post(
    @Req() req: { body: FloorRequest; headers: IncomingHttpHeaders },
    @Res() reply: { raw: ServerResponse; hijack(): void },
  ): void {
    const { payload, head } = floorAnswer(req.body, req.headers, NO_LISTS);
    reply.hijack();
    reply.raw.writeHead(200, head);
    reply.raw.end(payload);
  }
}

@Module({ imports: [AppModule], controllers: [FloorController] })
class RouteCostModule {}

type RouteHandler = (request: unknown, reply: unknown) => unknown;

/** Where Fastify keeps a reply's headers (read by the module's answers, see platform-fastify.ts). */
const REPLY_HEADERS = Symbol('fastify.reply.headers');

interface Answer {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

async function main(): Promise<void> {
  const era = args.era as BenchEra;
  const evictBytes = Number(args.evict) * 1024 * 1024;
  const rounds = Number(args.rounds);
  const calls = Number(args.calls);

  const adapter = new FastifyAdapter();
  // The route options themselves: a later onRoute hook (the module's) may put its own handler there.
  const routes = new Map<string, { handler: unknown }>();
  adapter.getInstance().addHook('onRoute', (route: { url: string; method: string | string[]; handler: unknown }) => {
    if ([route.method].flat().includes('POST')) {
      routes.set(route.url, route);
    }
  });
  if (args.telemetry) {
    // Registered before the app is created, as the bench's telemetry child does: the module finds
    // the global providers at startup. The floor records nothing either way.
    (await import('./telemetry-sdk')).registerTelemetrySdk();
  }
  const app = await NestFactory.create(RouteCostModule, adapter, { logger: ['error', 'warn'] });
  await app.init();

  // One socket for every call, as on a kept-alive connection.
  const socket = new Socket();
  Object.defineProperty(socket, 'localAddress', { value: '127.0.0.1' });
  const call = async (url: string, headers: Record<string, string>, body: unknown): Promise<Answer> => {
    const raw = new IncomingMessage(socket);
    raw.method = 'POST';
    raw.url = url;
    raw.headers = headers;
    const res = new ServerResponse(raw);
    const answer: Answer = { status: 0, body: '', headers: {} };
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, status: number, head?: Record<string, unknown>) {
      answer.headers = head ?? {};
      return (writeHead as (status: number, head?: unknown) => ServerResponse).call(this, status, head);
    } as typeof res.writeHead;
    res.end = function (this: ServerResponse, chunk?: string | Buffer) {
      answer.body = chunk === undefined ? '' : chunk.toString();
      return this;
    } as typeof res.end;
    const reply = { raw: res, hijack: () => undefined, getHeaders: () => ({}), [REPLY_HEADERS]: {} };
    await (routes.get(url)!.handler as RouteHandler)(
      { raw, body, headers, url, method: 'POST', id: 'route-cost' },
      reply,
    );
    answer.status = res.statusCode;
    return answer;
  };

  const base = {
    host: '127.0.0.1:3000',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  let session = '';
  if (era === 'legacy') {
    const init = await call('/mcp', base, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'route-cost', version: '1' } },
    });
    session = String(init.headers['mcp-session-id']);
    await call(
      '/mcp',
      { ...base, 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': session },
      {
        jsonrpc: '2.0',
        method: 'notifications/initialized',
      },
    );
  }
  const spec = requestOf('tools/call', era, session);
  // The length a client sends with the body (the module reads it, the floor does not).
  const headers = {
    ...spec.headers,
    host: base.host,
    'content-length': String(Buffer.byteLength(spec.body)),
  };
  for (const url of ['/floor', '/mcp']) {
    const answer = await call(url, headers, JSON.parse(spec.body));
    if (answer.status !== 200 || !answer.body.includes('hello from the nest-mcp bench')) {
      throw new Error(`${url} did not answer the call: ${answer.status} ${answer.body}`);
    }
  }

  if (args.alloc) {
    await measureAllocation(era, calls, rounds, (url) => call(url, headers, JSON.parse(spec.body)));
    await app.close();
    return;
  }

  const junk = new Int32Array(evictBytes / 4);
  const evict = (): void => {
    // One read and write per 64-byte cache line.
    for (let i = 0; i < junk.length; i += 16) {
      junk[i] += 1;
    }
  };
  const round = async (url: string): Promise<number> => {
    let evicting = 0;
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) {
      if (evictBytes > 0) {
        const before = process.cpuUsage();
        evict();
        const spent = process.cpuUsage(before);
        evicting += spent.user + spent.system;
      }
      // A body of its own per call, as the platform's parser gives every request.
      await call(url, headers, JSON.parse(spec.body));
    }
    const spent = process.cpuUsage(start);
    return (spent.user + spent.system - evicting) / calls;
  };

  for (let i = 0; i < 3; i++) {
    await round('/floor');
    await round('/mcp');
  }
  const floor: number[] = [];
  const mcp: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // Alternating which goes first, so that neither always follows the other.
    const order = i % 2 === 0 ? (['/mcp', '/floor'] as const) : (['/floor', '/mcp'] as const);
    for (const url of order) {
      (url === '/mcp' ? mcp : floor).push(await round(url));
    }
  }
  const differences = mcp.map((value, i) => value - floor[i]);
  const regime = evictBytes > 0 ? `cold (${args.evict} MiB evicted before each call)` : 'warm';
  console.log(
    `route cost, fastify tools/call ${era}, ${regime}, ${rounds} rounds of ${calls} calls: ` +
      `floor ${median(floor).toFixed(2)} µs, mcp ${median(mcp).toFixed(2)} µs, ` +
      `mcp − floor ${median(differences).toFixed(2)} µs [${Math.min(...differences).toFixed(2)}–${Math.max(...differences).toFixed(2)}]`,
  );
  await app.close();
}

/**
 * Heap bytes per call of each route. Rounds that a garbage collection interrupted are dropped
 * (the heap shrank within them) and run again; the bodies are parsed before the round, as the
 * platform's parser would have made them anyway.
 */
async function measureAllocation(
  era: BenchEra,
  calls: number,
  rounds: number,
  callRoute: (url: string) => Promise<Answer>,
): Promise<void> {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  let collections = 0;
  const observer = new PerformanceObserver((list) => {
    collections += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  // The observer hears of a collection in a later task: long enough for it to have heard.
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));
  const round = async (url: string): Promise<number | undefined> => {
    collect();
    await settle();
    const seen = collections;
    const before = getHeapStatistics().used_heap_size;
    for (let i = 0; i < calls; i++) {
      await callRoute(url);
    }
    const after = getHeapStatistics().used_heap_size;
    await settle();
    return collections === seen ? (after - before) / calls : undefined;
  };
  const measured = { '/floor': [] as number[], '/mcp': [] as number[] };
  for (let warm = 0; warm < 3; warm++) {
    await round('/floor');
    await round('/mcp');
  }
  for (let attempts = 0; measured['/mcp'].length < rounds && attempts < rounds * 4; attempts++) {
    for (const url of ['/floor', '/mcp'] as const) {
      const bytes = await round(url);
      if (bytes !== undefined) {
        measured[url].push(bytes);
      }
    }
  }
  observer.disconnect();
  if (measured['/mcp'].length === 0 || measured['/floor'].length === 0) {
    throw new Error(`every round of ${calls} calls met a garbage collection: try fewer --calls`);
  }
  const floor = median(measured['/floor']);
  const mcp = median(measured['/mcp']);
  console.log(
    `route allocation, fastify tools/call ${era}, ${measured['/mcp'].length} rounds of ${calls} calls: ` +
      `floor ${floor.toFixed(0)} B, mcp ${mcp.toFixed(0)} B, mcp − floor ${(mcp - floor).toFixed(0)} B per call`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
