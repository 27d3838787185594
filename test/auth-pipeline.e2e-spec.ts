/**
 * Guards from the Nest ecosystem on MCP tools, used unchanged: `@nestjs/throttler`'s
 * ThrottlerGuard (on one tool with `@UseGuards`, and global as `APP_GUARD`) and
 * `@nestjs/passport`'s `AuthGuard('bearer')` over `passport-http-bearer`. The MCP module has no
 * auth of its own here: the guards alone decide. Both read `context.switchToHttp().getRequest()`,
 * which on HTTP transports is the platform request (Express req / Fastify request).
 *
 * What the clients get: a guard's refusal (401 or 403) is the JSON-RPC error -32004 with the
 * exception's message and `data.status`; any other HttpException of a guard (ThrottlerException,
 * 429) is a tool execution error, i.e. an ordinary result
 * `{ content: [{ type: 'text', text: <the exception's message> }], isError: true }`; HTTP 200 in
 * both eras (lib/explorers/http-exception.translator.ts). A global guard runs around each call
 * only, never on the MCP endpoint route (the module serves it itself): each call counts once,
 * per tool, as each route would; the handshake and `server/discover` do not.
 *
 * On stdio there is no HTTP request (`undefined`): both guards fail with a TypeError. The client
 * gets the generic `Internal tool error` result, the cause goes to the server log only, and the
 * server keeps serving. ThrottlerModule's `skipIf` is the remedy for a global ThrottlerGuard.
 *
 * Counters live in the application: every test starts its own.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import type { DynamicModule, LoggerService } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpStdioServer } from 'nest-mcp/stdio';
import {
  AUTH_PIPELINE_SERVER,
  GlobalThrottleModule,
  GOOD_TOKEN,
  PassportToolsModule,
  RunProbe,
  THROTTLE,
  ToolThrottleModule,
} from './fixtures/auth-pipeline-fixture';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import {
  legacyRequest,
  answerOf,
  META,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  type RpcMessage,
} from './fixtures/raw-rpc';
import { StdioPeer } from './fixtures/stdio-fixture.module';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

/** ThrottlerException's message: all a refused client learns (no key, tracker, IP or stack). */
const THROTTLED = 'ThrottlerException: Too Many Requests';
/** UnauthorizedException's message, as passport's AuthGuard throws it. */
const UNAUTHORIZED = 'Unauthorized';
/** What the engine answers for a tool whose guard crashed. */
const INTERNAL_TOOL_ERROR = 'Internal tool error';
/** Nest's own answer when the global guard refuses the MCP endpoint route. */
const NEST_429_BODY = { statusCode: 429, message: THROTTLED };

const SERVER_INFO_META = { [META.serverInfo]: AUTH_PIPELINE_SERVER };

type ToolResult = { content: Array<{ type: 'text'; text: string }>; isError?: true };

const ok = (text: string): ToolResult => ({ content: [{ type: 'text', text }] });
const refused = (text: string): ToolResult => ({ content: [{ type: 'text', text }], isError: true });
/** passport's AuthGuard refusing a call: the access-denied error. */
const DENIED = { code: -32004, message: UNAUTHORIZED, data: { status: 401 } };
/** The same as a client reports it (the SDKs prefix the message). */
const DENIED_BY_CLIENT = { code: -32004, data: { status: 401 } };

/** The content and isError of a client's tool result (v2 results also carry `_meta`). */
function essence(result: unknown): ToolResult {
  const { content, isError } = result as ToolResult;
  return isError === undefined ? { content } : { content, isError };
}

/** A rejected promise's reason. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`Expected a rejection, got ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
}

/** A header holding a whole number of seconds within the throttle's ttl. */
function expectSeconds(value: string | null): void {
  expect(value).toMatch(/^\d+$/);
  expect(Number(value)).toBeGreaterThan(0);
  expect(Number(value)).toBeLessThanOrEqual(THROTTLE.ttl / 1000);
}

const legacyCall = (id: number, name: string): RpcMessage => legacyRequest('tools/call', { name, arguments: {} }, id);
const modernCall = (id: number, name: string): RpcMessage => modernRequest('tools/call', { name, arguments: {} }, id);

/** A modern tools/call POST with its headers. */
const postModernCall = (app: HttpApp, id: number, name: string, headers: Record<string, string> = {}) =>
  post(app.url, modernCall(id, name), { ...modernHeaders('tools/call', name), ...headers });

/** The v1 client over Streamable HTTP (legacy era), optionally with extra headers on every request. */
async function legacyClient(app: HttpApp, headers?: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'auth-pipeline-v1', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(app.url, headers === undefined ? undefined : { requestInit: { headers } }),
  );
  return client;
}

/** The v2 client pinned to the modern revision, optionally with extra headers on every request. */
async function modernClient(app: HttpApp, headers?: Record<string, string>): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'auth-pipeline-v2', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await client.connect(new ModernTransport(app.url, headers === undefined ? undefined : { requestInit: { headers } }));
  expect(client.getProtocolEra()).toBe('modern');
  return client;
}

/** Starts `module` on `platform` and closes it (and the clients made for it) after each test. */
function useApp(module: () => DynamicModule, platform: HttpPlatform) {
  const state: { app: HttpApp; probe: RunProbe; clients: Array<{ close(): Promise<void> }> } = {
    app: undefined as unknown as HttpApp,
    probe: undefined as unknown as RunProbe,
    clients: [],
  };
  beforeEach(async () => {
    state.app = await startHttpApp(module(), { platform });
    state.probe = state.app.app.get(RunProbe);
  });
  afterEach(async () => {
    await Promise.all(state.clients.splice(0).map((client) => client.close().catch(() => undefined)));
    await state.app?.close();
  });
  return state;
}

describe.each(PLATFORMS)('ThrottlerGuard on one tool with @UseGuards (%s)', (platform) => {
  const state = useApp(() => ToolThrottleModule.forRoot(), platform);

  it('legacy era, SDK v1 client: calls 1-3 run, call 4 is a tool error result; the unguarded tool keeps working', async () => {
    const client = await legacyClient(state.app);
    state.clients.push(client);
    const results = [];
    for (let call = 1; call <= 4; call += 1) {
      results.push(await client.callTool({ name: 'limited', arguments: {} }));
    }
    expect(results).toEqual([ok('limited run 1'), ok('limited run 2'), ok('limited run 3'), refused(THROTTLED)]);
    expect(state.probe.count('limited')).toBe(3);
    expect(await client.callTool({ name: 'free', arguments: {} })).toEqual(ok('free run 1'));
    expect(await client.callTool({ name: 'free', arguments: {} })).toEqual(ok('free run 2'));
    expect(state.probe.count('limited')).toBe(3);
  });

  it('legacy era, raw POST: the refusal is a 200 answer holding an isError result with the message only', async () => {
    const session = await openLegacySession(state.app.url);
    for (let id = 1; id <= 3; id += 1) {
      const answer = await post(state.app.url, legacyCall(id, 'limited'), session.headers);
      expect({ status: answer.status, message: answerOf(answer) }).toEqual({
        status: 200,
        message: { jsonrpc: '2.0', id, result: ok(`limited run ${id}`) },
      });
    }
    const fourth = await post(state.app.url, legacyCall(4, 'limited'), session.headers);
    expect(fourth.status).toBe(200);
    expect(answerOf(fourth)).toEqual({ jsonrpc: '2.0', id: 4, result: refused(THROTTLED) });
    expect(fourth.text).not.toMatch(/127\.0\.0\.1|ThrottlerGuard|\bat\s|stack/);
    expect(state.probe.count('limited')).toBe(3);
  });

  it('modern era, v2 client pinned to 2026-07-28: calls 1-3 run, call 4 is a tool error result; the unguarded tool works', async () => {
    const client = await modernClient(state.app);
    state.clients.push(client);
    const results = [];
    for (let call = 1; call <= 4; call += 1) {
      results.push(essence(await client.callTool({ name: 'limited', arguments: {} })));
    }
    expect(results).toEqual([ok('limited run 1'), ok('limited run 2'), ok('limited run 3'), refused(THROTTLED)]);
    expect(essence(await client.callTool({ name: 'free', arguments: {} }))).toEqual(ok('free run 1'));
    expect(state.probe.count('limited')).toBe(3);
  });

  it('modern era, raw POST: the refusal is a 200 answer holding a complete isError result', async () => {
    for (let id = 1; id <= 3; id += 1) {
      expect((await postModernCall(state.app, id, 'limited')).status).toBe(200);
    }
    const fourth = await postModernCall(state.app, 4, 'limited');
    expect(fourth.status).toBe(200);
    expect(answerOf(fourth)).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: { ...refused(THROTTLED), resultType: 'complete', _meta: SERVER_INFO_META },
    });
    expect(fourth.text).not.toMatch(/127\.0\.0\.1|ThrottlerGuard|\bat\s|stack/);
    const free = await postModernCall(state.app, 5, 'free');
    expect(answerOf(free).result).toEqual({ ...ok('free run 1'), resultType: 'complete', _meta: SERVER_INFO_META });
    expect(state.probe.count('limited')).toBe(3);
  });

  it('the X-RateLimit-* and Retry-After headers the guard sets reach the client on MCP answers', async () => {
    for (let id = 1; id <= 3; id += 1) {
      const answer = await postModernCall(state.app, id, 'limited');
      expect(answerOf(answer).result?.isError).toBeUndefined();
      expect(answer.headers.get('x-ratelimit-limit')).toBe(String(THROTTLE.limit));
      expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(THROTTLE.limit - id));
      expectSeconds(answer.headers.get('x-ratelimit-reset'));
    }
    const fourth = await postModernCall(state.app, 4, 'limited');
    expect(answerOf(fourth).result).toMatchObject(refused(THROTTLED));
    expectSeconds(fourth.headers.get('retry-after'));
    const free = await postModernCall(state.app, 5, 'free');
    expect(free.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('the 2024-11-05 SSE pair, SDK v1 SSEClientTransport: calls 1-3 run, call 4 is refused', async () => {
    const client = new Client({ name: 'auth-pipeline-sse', version: '1.0.0' });
    state.clients.push(client);
    await client.connect(new SSEClientTransport(new URL('/sse', state.app.baseUrl)));
    const results = [];
    for (let call = 1; call <= 4; call += 1) {
      results.push(await client.callTool({ name: 'limited', arguments: {} }));
    }
    expect(results).toEqual([ok('limited run 1'), ok('limited run 2'), ok('limited run 3'), refused(THROTTLED)]);
    expect(await client.callTool({ name: 'free', arguments: {} })).toEqual(ok('free run 1'));
    expect(state.probe.count('limited')).toBe(3);
  });
});

describe.each(PLATFORMS)('ThrottlerGuard as the global APP_GUARD (%s)', (platform) => {
  const state = useApp(() => GlobalThrottleModule.forRoot(), platform);

  it('counts each MCP call once, per tool, never the endpoint route; /hello has its own budget', async () => {
    for (let id = 1; id <= 3; id += 1) {
      const answer = await postModernCall(state.app, id, 'ping');
      expect({ status: answer.status, result: answerOf(answer).result }).toEqual({
        status: 200,
        result: { ...ok(`pong ${id}`), resultType: 'complete', _meta: SERVER_INFO_META },
      });
    }
    // The fourth call of the tool is refused around the call, as a tool error; the HTTP request is served.
    const fourth = await postModernCall(state.app, 4, 'ping');
    expect(fourth.status).toBe(200);
    expect(answerOf(fourth).result).toMatchObject(refused(THROTTLED));
    expectSeconds(fourth.headers.get('retry-after'));
    expect(state.probe.count('ping')).toBe(3);
    // Another tool has its own budget, as another route would.
    expect(answerOf(await postModernCall(state.app, 5, 'other')).result).toMatchObject(ok('other 1'));

    // An ordinary controller is throttled too, on its own counter.
    const hello = [];
    for (let call = 1; call <= 4; call += 1) {
      const response = await fetch(new URL('/hello', state.app.baseUrl));
      hello.push({ status: response.status, body: await response.json() });
    }
    expect(hello).toEqual([
      { status: 200, body: { hello: 'world' } },
      { status: 200, body: { hello: 'world' } },
      { status: 200, body: { hello: 'world' } },
      { status: 429, body: NEST_429_BODY },
    ]);
  });

  it('legacy era, SDK v1 client: the handshake does not count; calls 1-3 run, call 4 is refused', async () => {
    const client = new Client({ name: 'auth-pipeline-v1', version: '1.0.0' });
    state.clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(state.app.url));
    const results = [];
    for (let call = 1; call <= 4; call += 1) {
      results.push(await client.callTool({ name: 'ping', arguments: {} }));
    }
    expect(results).toEqual([ok('pong 1'), ok('pong 2'), ok('pong 3'), refused(THROTTLED)]);
    expect(state.probe.count('ping')).toBe(3);
  });

  it('modern era, v2 client: server/discover does not count; calls 1-3 run, call 4 is refused', async () => {
    const client = new ModernClient(
      { name: 'auth-pipeline-v2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    state.clients.push(client);
    await client.connect(new ModernTransport(state.app.url));
    const results = [];
    for (let call = 1; call <= 4; call += 1) {
      results.push(essence(await client.callTool({ name: 'ping', arguments: {} })));
    }
    expect(results).toEqual([ok('pong 1'), ok('pong 2'), ok('pong 3'), refused(THROTTLED)]);
    expect(state.probe.count('ping')).toBe(3);
  });

  it('also throttles each tool on its own counter: in one 2025-03-26 batch, ping 4 is a tool error, other runs', async () => {
    // Two POSTs for the handshake, one for the batch: within the endpoint's budget of three.
    const session = await openLegacySession(state.app.url, '2025-03-26');
    const batch = [1, 2, 3, 4].map((id) => legacyCall(id, 'ping'));
    batch.push(legacyCall(5, 'other'));
    const answer = await post(state.app.url, batch, session.headers);
    expect(answer.status).toBe(200);
    const answers = answer.json as RpcMessage[];
    expect(answers.map((message) => message.id).sort()).toEqual([1, 2, 3, 4, 5]);
    const pings = answers.filter((message) => message.id !== 5).map((message) => message.result);
    expect(pings.filter((result) => result?.isError === true)).toEqual([refused(THROTTLED)]);
    expect(pings.filter((result) => result?.isError !== true).map((result) => result?.content[0].text)).toEqual(
      expect.arrayContaining(['pong 1', 'pong 2', 'pong 3']),
    );
    expect(answers.find((message) => message.id === 5)).toEqual({ jsonrpc: '2.0', id: 5, result: ok('other 1') });
    expect(state.probe.count('ping')).toBe(3);
  });
});

describe.each(PLATFORMS)("passport's AuthGuard('bearer') on one tool, MCP auth none (%s)", (platform) => {
  const state = useApp(() => PassportToolsModule.forRoot(), platform);
  const BEARER = { authorization: `Bearer ${GOOD_TOKEN}` };

  it('legacy era, SDK v1 client without a token: whoami is refused as Unauthorized, public_info works', async () => {
    const client = await legacyClient(state.app);
    state.clients.push(client);
    expect(await rejectionOf(client.callTool({ name: 'whoami', arguments: {} }))).toMatchObject(DENIED_BY_CLIENT);
    expect(await client.callTool({ name: 'public_info', arguments: {} })).toEqual(ok('public'));
    expect(state.probe.count('whoami')).toBe(0);
  });

  it('legacy era, SDK v1 client: with the good token whoami returns req.user.name, a wrong token is refused', async () => {
    const good = await legacyClient(state.app, BEARER);
    state.clients.push(good);
    expect(await good.callTool({ name: 'whoami', arguments: {} })).toEqual(ok('ann'));
    const wrong = await legacyClient(state.app, { authorization: 'Bearer bad-token' });
    state.clients.push(wrong);
    expect(await rejectionOf(wrong.callTool({ name: 'whoami', arguments: {} }))).toMatchObject(DENIED_BY_CLIENT);
    expect(state.probe.count('whoami')).toBe(1);
  });

  it('modern era, v2 client: refused without a token, "ann" with it; public_info needs none', async () => {
    const anonymous = await modernClient(state.app);
    state.clients.push(anonymous);
    expect(await rejectionOf(anonymous.callTool({ name: 'whoami', arguments: {} }))).toMatchObject(DENIED_BY_CLIENT);
    expect(essence(await anonymous.callTool({ name: 'public_info', arguments: {} }))).toEqual(ok('public'));
    const ann = await modernClient(state.app, BEARER);
    state.clients.push(ann);
    expect(essence(await ann.callTool({ name: 'whoami', arguments: {} }))).toEqual(ok('ann'));
    expect(state.probe.count('whoami')).toBe(1);
  });

  it('raw POSTs in both eras: the refusal is a 200 access-denied error with no WWW-Authenticate challenge', async () => {
    const modern = await postModernCall(state.app, 1, 'whoami');
    expect(modern.status).toBe(200);
    expect(modern.headers.get('www-authenticate')).toBeNull();
    expect(answerOf(modern)).toEqual({ jsonrpc: '2.0', id: 1, error: DENIED });
    const modernAnn = await postModernCall(state.app, 2, 'whoami', BEARER);
    expect(answerOf(modernAnn).result).toEqual({ ...ok('ann'), resultType: 'complete', _meta: SERVER_INFO_META });

    const session = await openLegacySession(state.app.url);
    const legacy = await post(state.app.url, legacyCall(3, 'whoami'), session.headers);
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get('www-authenticate')).toBeNull();
    expect(answerOf(legacy)).toEqual({ jsonrpc: '2.0', id: 3, error: DENIED });
    // The same session, now with the token: the guard reads each POST's own request.
    const legacyAnn = await post(state.app.url, legacyCall(4, 'whoami'), { ...session.headers, ...BEARER });
    expect(answerOf(legacyAnn)).toEqual({ jsonrpc: '2.0', id: 4, result: ok('ann') });
    expect(state.probe.count('whoami')).toBe(2);
  });

  it('the 2024-11-05 SSE pair: the guard reads the POST /messages request', async () => {
    const anonymous = new Client({ name: 'auth-pipeline-sse', version: '1.0.0' });
    state.clients.push(anonymous);
    await anonymous.connect(new SSEClientTransport(new URL('/sse', state.app.baseUrl)));
    expect(await rejectionOf(anonymous.callTool({ name: 'whoami', arguments: {} }))).toMatchObject(DENIED_BY_CLIENT);
    const ann = new Client({ name: 'auth-pipeline-sse', version: '1.0.0' });
    state.clients.push(ann);
    await ann.connect(new SSEClientTransport(new URL('/sse', state.app.baseUrl), { requestInit: { headers: BEARER } }));
    expect(await ann.callTool({ name: 'whoami', arguments: {} })).toEqual(ok('ann'));
    expect(state.probe.count('whoami')).toBe(1);
  });
});

/** Keeps what the application logged as errors, one string per call. */
class ErrorLog implements LoggerService {
  readonly errors: string[] = [];
  error(...parts: unknown[]): void {
    this.errors.push(parts.map((part) => (part instanceof Error ? String(part.stack) : String(part))).join(' '));
  }
  log(): void {}
  warn(): void {}
  debug(): void {}
  verbose(): void {}
}

describe('the guards on stdio (no HTTP request: args[0] is undefined)', () => {
  let moduleRef: TestingModule | undefined;
  let peer: StdioPeer | undefined;
  let probe: RunProbe;
  let log: ErrorLog;

  async function serve(module: DynamicModule): Promise<StdioPeer> {
    log = new ErrorLog();
    moduleRef = await Test.createTestingModule({ imports: [module] })
      .setLogger(log)
      .compile();
    await moduleRef.init();
    probe = moduleRef.get(RunProbe);
    peer = new StdioPeer(moduleRef.get(McpStdioServer));
    return peer;
  }

  /** Opens the connection's legacy session. */
  async function handshake(connection: StdioPeer, id: number): Promise<void> {
    connection.send(
      legacyRequest(
        'initialize',
        { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stdio', version: '1.0.0' } },
        id,
      ),
    );
    expect((await connection.answer(id)).result?.protocolVersion).toBe('2025-11-25');
    connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  const modernResult = (result: ToolResult) => ({ ...result, resultType: 'complete', _meta: SERVER_INFO_META });

  afterEach(async () => {
    await peer?.end();
    await moduleRef?.close();
    peer = undefined;
    moduleRef = undefined;
  });

  it('ThrottlerGuard on a tool: both eras get the generic tool error, the cause is only logged, the server keeps serving', async () => {
    const connection = await serve(ToolThrottleModule.forRoot());
    connection.send(modernCall(1, 'limited'));
    expect(await connection.answer(1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: modernResult(refused(INTERNAL_TOOL_ERROR)),
    });
    await handshake(connection, 2);
    connection.send(legacyCall(3, 'limited'));
    expect(await connection.answer(3)).toEqual({ jsonrpc: '2.0', id: 3, result: refused(INTERNAL_TOOL_ERROR) });
    connection.send(legacyCall(4, 'free'));
    expect(await connection.answer(4)).toEqual({ jsonrpc: '2.0', id: 4, result: ok('free run 1') });
    expect(probe.count('limited')).toBe(0);
    expect(connection.lines.join('\n')).not.toContain('Cannot read properties');
    expect(log.errors.some((line) => line.includes("Cannot read properties of undefined (reading 'ip')"))).toBe(true);
    expect(connection.isServed).toBe(false);
  });

  it('a global ThrottlerGuard fails every tool on stdio the same way', async () => {
    const connection = await serve(GlobalThrottleModule.forRoot());
    connection.send(modernCall(1, 'ping'));
    connection.send(modernCall(2, 'other'));
    expect(await connection.answer(1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: modernResult(refused(INTERNAL_TOOL_ERROR)),
    });
    expect(await connection.answer(2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: modernResult(refused(INTERNAL_TOOL_ERROR)),
    });
    expect(probe.count('ping') + probe.count('other')).toBe(0);
    connection.send(modernRequest('tools/list', {}, 3));
    expect((await connection.answer(3)).result?.tools.map((tool: { name: string }) => tool.name).sort()).toEqual([
      'other',
      'ping',
    ]);
  });

  it("the remedy: ThrottlerModule's skipIf exempts MCP calls without a request, and stdio tools run", async () => {
    const connection = await serve(GlobalThrottleModule.forRoot({ skipWithoutRequest: true }));
    for (let id = 1; id <= THROTTLE.limit + 1; id += 1) {
      connection.send(modernCall(id, 'ping'));
      expect(await connection.answer(id)).toEqual({ jsonrpc: '2.0', id, result: modernResult(ok(`pong ${id}`)) });
    }
    expect(log.errors).toEqual([]);
  });

  it("passport's AuthGuard: the generic tool error in both eras, public_info still works", async () => {
    const connection = await serve(PassportToolsModule.forRoot());
    connection.send(modernCall(1, 'whoami'));
    expect(await connection.answer(1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: modernResult(refused(INTERNAL_TOOL_ERROR)),
    });
    await handshake(connection, 2);
    connection.send(legacyCall(3, 'whoami'));
    expect(await connection.answer(3)).toEqual({ jsonrpc: '2.0', id: 3, result: refused(INTERNAL_TOOL_ERROR) });
    connection.send(legacyCall(4, 'public_info'));
    expect(await connection.answer(4)).toEqual({ jsonrpc: '2.0', id: 4, result: ok('public') });
    expect(probe.count('whoami')).toBe(0);
    expect(connection.lines.join('\n')).not.toContain('Cannot read properties');
    expect(log.errors.some((line) => line.includes('Cannot read properties of undefined'))).toBe(true);
    expect(connection.isServed).toBe(false);
  });
});
