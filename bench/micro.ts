/**
 * In-process cost breakdown of one request, without HTTP: what the MCP transport, engine, Nest
 * pipeline and validation each add on top of a hand-written handler. CPU time per operation,
 * median of interleaved repetitions, so other load on the machine distorts it little.
 *
 *   ts-node --transpile-only -r tsconfig-paths/register bench/micro.ts [--iterations 20000] [--only <text>]
 *
 * Not part of `npm run bench`; it is how the profiling findings in bench/README.md were measured.
 */
import 'reflect-metadata';
import { EventEmitter } from 'node:events';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { McpRegistry, McpSessionService } from 'nest-mcp';
import { AppModule } from '../sample/app.module';
import { benchTools } from './bench-tools';
import { ReportingLogger } from './child-runtime';
import { StreamableHttpService } from '../lib/transports/http/streamable-http.service';
import { ANONYMOUS_PRINCIPAL } from '../lib/protocol/call-context';
import { handleToolsCall } from '../lib/protocol/handlers/tools.handler';
import { McpEngine, type RequestFacts, type ResolvedRequest } from '../lib/protocol/engine';
import { classifyMessage, type JsonRpcRequest } from '../lib/protocol/json-rpc';
import { exceedsDepth } from '../lib/transports/http/request-body';
import { passesHostAndOrigin } from '../lib/transports/http/host-origin';
import { readModernEnvelope } from '../lib/protocol/request-meta';
import { checkStandardHeaders } from '../lib/protocol/request-headers';

const { values } = parseArgs({
  options: { iterations: { type: 'string', default: '20000' }, only: { type: 'string' } },
});
const ITERATIONS = Number(values.iterations);
const REPEATS = 7;

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const TEXT = 'hello from the nest-mcp bench';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
const SERVER_INFO = {
  name: 'notes',
  version: '1.0.0',
  title: 'Notes',
  description: 'A small notes server built with nest-mcp',
};

/** Enough of a ServerResponse for our transport and for the floor's handler. */
class FakeResponse extends EventEmitter {
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  statusCode = 0;
  head: Record<string, unknown> = {};
  body = '';
  writeHead(status: number, headers: Record<string, unknown>): this {
    this.statusCode = status;
    this.head = headers;
    this.headersSent = true;
    return this;
  }
  end(payload?: string): void {
    this.body = payload ?? '';
    this.writableEnded = true;
    this.writableFinished = true;
    this.emit('finish');
    this.emit('close');
  }
}

function fakeRequest(headers: Record<string, string>, body: string): Record<string, unknown> {
  // body-parser hands every request a freshly parsed body: so do we.
  return { headers, body: JSON.parse(body), method: 'POST', url: '/mcp', socket: { localAddress: '127.0.0.1' } };
}

const HEADERS = {
  host: '127.0.0.1:3000',
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const MODERN_CALL_HEADERS = {
  ...HEADERS,
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
};
const MODERN_LIST_HEADERS = { ...HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' };
const MODERN_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: TEXT }, _meta: META },
});
const LEGACY_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: TEXT } },
});
const MODERN_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } });
const LEGACY_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

type Op = () => unknown;

/** CPU µs per call of `op`, over `ITERATIONS` sequential (awaited when async) calls. */
async function timeOnce(op: Op): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) {
    const result = op();
    if (result instanceof Promise) {
      await result;
    }
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / ITERATIONS;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule, { logger: new ReportingLogger('Micro') });
  await app.init();
  const registry = app.get(McpRegistry);
  for (const tool of benchTools(Math.max(0, 100 - registry.listTools().length))) {
    registry.addTool(tool);
  }
  const engine = app.get(McpEngine);
  const transport = app.get(StreamableHttpService);
  const sessions = app.get(McpSessionService);

  // One legacy session, opened through the transport like a client would.
  const initRes = new FakeResponse();
  await transport.post(
    fakeRequest(
      HEADERS,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'micro', version: '1' } },
      }),
    ),
    initRes,
  );
  const sessionId = initRes.head['mcp-session-id'] as string;
  const legacyHeaders = { ...HEADERS, 'mcp-protocol-version': LEGACY, 'mcp-session-id': sessionId };
  await transport.post(
    fakeRequest(legacyHeaders, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })),
    new FakeResponse(),
  );
  const record = (await sessions.find(sessionId, ANONYMOUS_PRINCIPAL))!;
  // The rendered lists, as the server answers them (also what the floor serves).
  const listOf = async (headers: Record<string, string>, body: string): Promise<unknown[]> => {
    const res = new FakeResponse();
    await transport.post(fakeRequest(headers, body), res);
    const tools = (JSON.parse(res.body) as { result: { tools: unknown[] } }).result.tools;
    if (tools.length !== 100) {
      throw new Error(`expected 100 tools, got ${tools.length}`);
    }
    return tools;
  };
  const lists = {
    modern: await listOf(MODERN_LIST_HEADERS, MODERN_LIST),
    legacy: await listOf(legacyHeaders, LEGACY_LIST),
  };
  const parsedModernCall = JSON.parse(MODERN_CALL) as JsonRpcRequest;
  const cached = engine.lists.get('tools', registry.version, MODERN, () => {
    throw new Error('the list cache should hold the modern rendering by now');
  });
  const listPayload = JSON.stringify(lists.modern);
  const toolsJson = JSON.stringify(cached);
  const modernTail = JSON.stringify({
    resultType: 'complete',
    ttlMs: 60000,
    cacheScope: 'private',
    _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
  }).slice(1, -1);

  const echoTool = registry.getTool('echo')!;
  const channel = { notify: (): void => undefined };
  const modernFacts = (headers: Record<string, string>): RequestFacts => ({
    era: 'modern',
    transport: 'streamable-http',
    principal: ANONYMOUS_PRINCIPAL,
    headers,
    channel,
    native: { request: {}, response: {} },
  });
  const legacyFacts = (): RequestFacts => ({
    era: 'legacy',
    transport: 'streamable-http',
    principal: ANONYMOUS_PRINCIPAL,
    revision: LEGACY,
    session: sessions.handle(record),
    headers: legacyHeaders,
    channel,
    cancelScope: sessionId,
    native: { request: {}, response: {} },
  });

  /** The floor's controller body, on the same fake response. */
  const floorCall = (body: string, modern: boolean): void => {
    const req = fakeRequest(modern ? MODERN_CALL_HEADERS : legacyHeaders, body);
    const parsed = req.body as { id: number; params: { arguments: { text: string } } };
    const result: Record<string, unknown> = { content: [{ type: 'text', text: parsed.params.arguments.text }] };
    if (modern) {
      result.resultType = 'complete';
      result._meta = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };
    }
    const payload = JSON.stringify({ jsonrpc: '2.0', id: parsed.id, result });
    new FakeResponse().writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
    });
    new FakeResponse().end(payload);
  };
  const floorList = (body: string, modern: boolean): void => {
    const parsed = fakeRequest(HEADERS, body).body as { id: number };
    const result = modern
      ? {
          tools: lists.modern,
          resultType: 'complete',
          ttlMs: 60000,
          cacheScope: 'private',
          _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
        }
      : { tools: lists.legacy };
    const payload = JSON.stringify({ jsonrpc: '2.0', id: parsed.id, result });
    new FakeResponse().writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
    });
    new FakeResponse().end(payload);
  };

  const resolveModern = (
    engine as unknown as {
      resolveModern(f: RequestFacts, m: JsonRpcRequest, p: object): ResolvedRequest;
    }
  ).resolveModern.bind(engine);
  const finish = (engine as unknown as { finish(r: ResolvedRequest, result: object): object }).finish.bind(engine);

  const allOps: Array<[string, Op]> = [
    ['tools/call: floor handler (parse + build + stringify), modern', () => floorCall(MODERN_CALL, true)],
    ['tools/call: floor handler, legacy', () => floorCall(LEGACY_CALL, false)],
    [
      'tools/call modern: transport.post (transport + engine + pipeline)',
      () => transport.post(fakeRequest(MODERN_CALL_HEADERS, MODERN_CALL), new FakeResponse()),
    ],
    [
      'tools/call legacy: transport.post (session lookup + engine + pipeline)',
      () => transport.post(fakeRequest(legacyHeaders, LEGACY_CALL), new FakeResponse()),
    ],
    [
      'tools/call modern: engine.handle + stringify (no transport)',
      async () => {
        const message = JSON.parse(MODERN_CALL) as JsonRpcRequest;
        JSON.stringify(await engine.handle(modernFacts(MODERN_CALL_HEADERS), message));
      },
    ],
    [
      'tools/call legacy: engine.handle + stringify (no transport)',
      async () => {
        const message = JSON.parse(LEGACY_CALL) as JsonRpcRequest;
        JSON.stringify(await engine.handle(legacyFacts(), message));
      },
    ],
    [
      'tools/call modern: resolve + handler + finish, without run() (no AbortController/timer/race)',
      async () => {
        const message = JSON.parse(MODERN_CALL) as JsonRpcRequest;
        const resolved = resolveModern(modernFacts(MODERN_CALL_HEADERS), message, message.params!);
        JSON.stringify({ jsonrpc: '2.0', id: 1, result: finish(resolved, await handleToolsCall(engine, resolved)) });
      },
    ],
    [
      'echo tool: tool.invoke (Nest ExternalContextCreator pipeline)',
      () => echoTool.invoke({ text: TEXT }, { era: 'modern' } as never),
    ],
    ['echo tool: input validation (ajv)', () => echoTool.input.validate({ text: TEXT })],
    ['new AbortController() + .signal', () => new AbortController().signal],
    ['AbortController + addEventListener/removeEventListener', () => abortPair()],
    ['Promise.race([resolved, pending]) (engine.run waits like this)', () => Promise.race([Promise.resolve(1), NEVER])],
    ['transport piece: exceedsDepth(body, 64)', () => exceedsDepth(parsedModernCall, 64)],
    ['transport piece: classifyMessage(body)', () => classifyMessage(parsedModernCall)],
    [
      'transport piece: passesHostAndOrigin (defaults)',
      () => passesHostAndOrigin(MODERN_CALL_HEADERS, '127.0.0.1', {}),
    ],
    ['engine piece: readModernEnvelope', () => readModernEnvelope(parsedModernCall.params)],
    [
      'engine piece: checkStandardHeaders',
      () => checkStandardHeaders(MODERN_CALL_HEADERS, 'tools/call', parsedModernCall.params),
    ],
    ['res.on("close", fn) on a response (serveModern does it)', () => new FakeResponse().on('close', () => undefined)],
    ['setTimeout + clearTimeout (callTimeoutMs > 0)', () => clearTimeout(setTimeout(() => undefined, 60_000))],
    ['tools/list: floor handler (stringify 100 tools), modern', () => floorList(MODERN_LIST, true)],
    [
      'tools/list modern: transport.post',
      () => transport.post(fakeRequest(MODERN_LIST_HEADERS, MODERN_LIST), new FakeResponse()),
    ],
    ['tools/list: floor handler, legacy', () => floorList(LEGACY_LIST, false)],
    [
      'tools/list legacy: transport.post',
      () => transport.post(fakeRequest(legacyHeaders, LEGACY_LIST), new FakeResponse()),
    ],
    ['tools/list: JSON.stringify(the 100 tools as JSON.parse made them)', () => JSON.stringify(lists.modern)],
    ["tools/list: JSON.stringify(the engine's cached rendered tools)", () => JSON.stringify(cached)],
    ['tools/list: Buffer.byteLength(payload)', () => Buffer.byteLength(listPayload)],
    [
      'tools/list: what-if — tools JSON cached per catalog version, spliced into the envelope',
      () => {
        const parsed = fakeRequest(HEADERS, MODERN_LIST).body as { id: number };
        const payload = `{"jsonrpc":"2.0","id":${JSON.stringify(parsed.id)},"result":{"tools":${toolsJson},${modernTail}}}`;
        new FakeResponse().writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        });
      },
    ],
  ];

  const ops = allOps.filter(([label]) => values.only === undefined || label.includes(values.only));

  // Sanity: what the transport answers on the fake response is the success we mean to time.
  for (const [headers, body] of [
    [MODERN_CALL_HEADERS, MODERN_CALL],
    [legacyHeaders, LEGACY_CALL],
    [MODERN_LIST_HEADERS, MODERN_LIST],
    [legacyHeaders, LEGACY_LIST],
  ] as const) {
    const res = new FakeResponse();
    await transport.post(fakeRequest(headers, body), res);
    if (res.statusCode !== 200 || res.body.includes('"error"') || res.body.includes('"isError":true')) {
      throw new Error(`unexpected answer ${res.statusCode}: ${res.body.slice(0, 200)}`);
    }
  }

  for (const [, op] of ops) {
    await timeOnce(op); // warm-up
  }
  const samples = ops.map(() => [] as number[]);
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    for (let i = 0; i < ops.length; i++) {
      samples[i].push(await timeOnce(ops[i][1]));
    }
  }
  console.log(`CPU µs per operation (median of ${REPEATS} × ${ITERATIONS}, min–max in brackets)`);
  ops.forEach(([label], i) => {
    const s = samples[i];
    console.log(
      `${median(s).toFixed(2).padStart(8)}  [${Math.min(...s).toFixed(2)}–${Math.max(...s).toFixed(2)}]  ${label}`,
    );
  });
  await app.close();
}

const NEVER = new Promise<never>(() => undefined);

function abortPair(): void {
  const controller = new AbortController();
  const listener = (): void => undefined;
  controller.signal.addEventListener('abort', listener, { once: true });
  controller.signal.removeEventListener('abort', listener);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
