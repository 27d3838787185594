/**
 * What counts as an error, read from the real SDK's in-memory readers, in both eras, over
 * Streamable HTTP, the simple POST endpoint (`/rpc`) and the 2024-11-05 SSE pair on Express and
 * Fastify, and over stdio:
 *
 * - the caller's faults (-32700, -32600, -32601, -32602, -32002, -32020, -32021, -32022) keep
 *   `rpc.response.status_code` on the span and the metric, without status ERROR or `error.type`
 *   (as HTTP 4xx on a SERVER span);
 * - the server's faults (-32603 from a throwing resource or prompt) are errors, with the same
 *   `error.type` on the span and the metric;
 * - a request the client cancelled, or lost, and a `subscriptions/listen` stream its client
 *   closed are no errors, but say so in `nest_mcp.request.outcome` (`cancelled`, `closed`);
 * - a handler's unexpected exception is an `exception` event on the span it ran in, with its
 *   stack, and nothing of it reaches the client.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { TestingModule } from '@nestjs/testing';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { McpStdioServer } from 'nest-mcp/stdio';
import type { HttpPlatform } from '../fixtures/http-app';
import {
  answerOf,
  legacyRequest,
  modernHeaders,
  modernRequest,
  MODERN_REVISION,
  openLegacySession,
  post,
  send,
  SseReader,
  type RawResponse,
  waitUntil,
} from '../fixtures/raw-rpc';
import { flush } from '../support/waiting';
import { createStdioFixture, StdioPeer, StdioProbe } from '../fixtures/stdio-fixture.module';
import {
  BROKEN_URI,
  SECRET_DETAIL,
  startTelemetryOutcomesApp,
  THROWER,
  type TelemetryOutcomesApp,
} from '../fixtures/telemetry-outcomes-app';
import { registerOtelGlobals, resetOtelGlobals, TestTelemetry } from '../fixtures/telemetry-sdk';

const DURATION = 'mcp.server.operation.duration';
const OUTCOME = 'nest_mcp.request.outcome';

/** The one finished span of request `id`, of legacy session `session` if given (waits for it to end). */
async function spanOf(telemetry: TestTelemetry, id: string, session?: string): Promise<ReadableSpan> {
  const ofId = (): ReadableSpan[] =>
    telemetry
      .finished()
      .filter(
        (span) =>
          span.attributes['jsonrpc.request.id'] === id &&
          (session === undefined || span.attributes['mcp.session.id'] === session),
      );
  await waitUntil(() => ofId().length > 0, `the span of request ${id}`);
  expect(ofId()).toHaveLength(1);
  return ofId()[0];
}

/** The duration points of `method` (all of them, or those whose `key` is `value`). */
async function pointsOf(
  telemetry: TestTelemetry,
  method: string,
  match: Record<string, string> = {},
): Promise<Array<Record<string, unknown>>> {
  const points = await telemetry.points(DURATION);
  return points
    .map((point) => point.attributes as Record<string, unknown>)
    .filter(
      (attributes) =>
        attributes['mcp.method.name'] === method &&
        Object.entries(match).every(([key, value]) => attributes[key] === value),
    );
}

/** How many operations the duration histogram recorded, in all. */
async function recordings(telemetry: TestTelemetry): Promise<number> {
  const points = await telemetry.points(DURATION);
  return points.reduce((sum, point) => sum + (point.value as { count: number }).count, 0);
}

/** A caller's fault: the code as `rpc.response.status_code`, no ERROR, no `error.type`, on span and metric. */
async function expectCallerFault(telemetry: TestTelemetry, id: string, code: number, session?: string): Promise<void> {
  const span = await spanOf(telemetry, id, session);
  expect({ id, status: span.status.code, attributes: span.attributes }).toEqual({
    id,
    status: SpanStatusCode.UNSET,
    attributes: expect.objectContaining({ 'rpc.response.status_code': String(code) }),
  });
  expect(span.attributes).not.toHaveProperty(['error.type']);
  expect(span.attributes).not.toHaveProperty([OUTCOME]);
  const method = String(span.attributes['mcp.method.name']);
  const points = await pointsOf(telemetry, method, { 'rpc.response.status_code': String(code) });
  expect(points.length).toBeGreaterThan(0);
  for (const point of points) {
    expect(point).not.toHaveProperty(['error.type']);
  }
}

/** A server's fault: status ERROR, `error.type` and `rpc.response.status_code` = code on span and metric. */
async function expectServerFault(
  telemetry: TestTelemetry,
  id: string,
  code: number,
  session?: string,
): Promise<ReadableSpan> {
  const span = await spanOf(telemetry, id, session);
  expect(span.status.code).toBe(SpanStatusCode.ERROR);
  expect(span.attributes).toMatchObject({ 'error.type': String(code), 'rpc.response.status_code': String(code) });
  const method = String(span.attributes['mcp.method.name']);
  const points = await pointsOf(telemetry, method, { 'rpc.response.status_code': String(code) });
  expect(points.length).toBeGreaterThan(0);
  for (const point of points) {
    expect(point['error.type']).toBe(String(code));
  }
  return span;
}

/** The `exception` event of a span: the thrower's stack and the message, as the SDK records them. */
function expectException(span: ReadableSpan): void {
  const exceptions = span.events.filter((event) => event.name === 'exception');
  expect(exceptions).toHaveLength(1);
  const [event] = exceptions;
  expect(event.attributes).toMatchObject({
    'exception.type': 'Error',
    'exception.message': expect.stringContaining(SECRET_DETAIL),
    'exception.stacktrace': expect.stringContaining(THROWER),
  });
}

/** Nothing of the exception is in what the client got. */
function expectNothingLeaked(response: RawResponse): void {
  expect(response.text).not.toContain(SECRET_DETAIL);
  expect(response.text).not.toContain(THROWER);
}

beforeAll(() => registerOtelGlobals());
afterAll(() => resetOtelGlobals());

describe.each<HttpPlatform>(['express', 'fastify'])('request outcomes over HTTP (%s)', (platform) => {
  let telemetry: TestTelemetry;
  let server: TelemetryOutcomesApp;
  let legacy: Record<string, string>;

  beforeAll(async () => {
    telemetry = new TestTelemetry();
    server = await startTelemetryOutcomesApp(
      { telemetry: telemetry.options, simpleHttpPath: 'rpc', ssePath: 'sse', sseMessagesPath: 'messages' },
      platform,
    );
    legacy = (await openLegacySession(server.url)).headers;
  });

  afterAll(async () => {
    await server?.close();
    await telemetry?.shutdown();
  });

  /** A legacy request in the session. */
  const legacyPost = (id: string, method: string, params?: Record<string, unknown>) =>
    post(server.url, legacyRequest(method, params, id), legacy);
  /** A modern request to `/mcp`, or to `/rpc`. */
  const modernPost = (
    id: string,
    method: string,
    params: Record<string, unknown> = {},
    headers: Record<string, string> = {},
    path = 'mcp',
  ) => post(server.route(path), modernRequest(method, params, id), { ...modernHeaders(method), ...headers });

  describe("the caller's faults: status code kept, no ERROR, no error.type", () => {
    const CASES: Array<[string, number, () => Promise<RawResponse>]> = [
      ['-32601 legacy: an unknown method', -32601, () => legacyPost('l-32601', 'x/unknown')],
      ['-32601 modern', -32601, () => modernPost('m-32601', 'x/unknown')],
      ['-32601 modern on /rpc', -32601, () => modernPost('r-32601', 'x/unknown', {}, {}, 'rpc')],
      [
        '-32601 legacy on /rpc',
        -32601,
        () =>
          post(server.route('rpc'), legacyRequest('x/unknown', {}, 'rl-32601'), {
            'mcp-protocol-version': '2025-06-18',
          }),
      ],
      ['-32602 legacy: an unknown tool', -32602, () => legacyPost('l-32602', 'tools/call', { name: 'nope' })],
      ['-32602 modern', -32602, () => modernPost('m-32602', 'tools/call', { name: 'nope' }, { 'mcp-name': 'nope' })],
      [
        '-32602 modern on /rpc',
        -32602,
        () => modernPost('r-32602', 'tools/call', { name: 'nope' }, { 'mcp-name': 'nope' }, 'rpc'),
      ],
      [
        '-32002 legacy: an unknown resource',
        -32002,
        () => legacyPost('l-32002', 'resources/read', { uri: 'outcomes://nothing' }),
      ],
      [
        '-32600 legacy: initialize again in the session',
        -32600,
        () =>
          legacyPost('l-32600', 'initialize', {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'again', version: '0' },
          }),
      ],
      [
        '-32020 modern: a header that disagrees with the body',
        -32020,
        () => modernPost('m-32020', 'tools/list', {}, { 'mcp-method': 'prompts/list' }),
      ],
      [
        '-32020 modern on /rpc',
        -32020,
        () => modernPost('r-32020', 'tools/list', {}, { 'mcp-method': 'prompts/list' }, 'rpc'),
      ],
      [
        '-32021 modern: a question the client did not declare it can answer',
        -32021,
        () => modernPost('m-32021', 'tools/call', { name: 'ask_name' }, { 'mcp-name': 'ask_name' }),
      ],
      [
        '-32022 modern: a revision the server does not serve',
        -32022,
        () =>
          post(
            server.url,
            modernRequest('tools/list', {}, 'm-32022', { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }),
            { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2099-01-01' },
          ),
      ],
    ];

    it.each(CASES)('%s', async (_title, code, request) => {
      const response = await request();
      expect(answerOf(response).error?.code).toBe(code);
      await expectCallerFault(telemetry, String(answerOf(response).id), code);
    });

    it('-32700: a body that is not JSON is refused before it is a message: no span, no point, no error', async () => {
      const spans = telemetry.finished().length;
      const recorded = await recordings(telemetry);
      const response = await post(server.url, '{"jsonrpc": "2.0", "id": "p-1", ', modernHeaders('tools/list'));
      expect(response.json.error.code).toBe(-32700);
      await flush();
      expect(telemetry.finished()).toHaveLength(spans);
      expect(await recordings(telemetry)).toBe(recorded);
    });
  });

  describe("the server's faults: status ERROR and the same error.type on span and metric", () => {
    it('-32603 legacy: a resource that throws', async () => {
      const response = await legacyPost('l-broken-resource', 'resources/read', { uri: BROKEN_URI });
      expect(answerOf(response).error?.code).toBe(-32603);
      expectNothingLeaked(response);
      expectException(await expectServerFault(telemetry, 'l-broken-resource', -32603));
    });

    it('-32603 modern: a prompt that throws', async () => {
      const response = await modernPost(
        'm-broken-prompt',
        'prompts/get',
        { name: 'broken_prompt' },
        { 'mcp-name': 'broken_prompt' },
      );
      expect(answerOf(response).error?.code).toBe(-32603);
      expectNothingLeaked(response);
      expectException(await expectServerFault(telemetry, 'm-broken-prompt', -32603));
    });

    it('-32603 modern on /rpc: a resource that throws', async () => {
      const response = await modernPost(
        'r-broken-resource',
        'resources/read',
        { uri: BROKEN_URI },
        { 'mcp-name': BROKEN_URI },
        'rpc',
      );
      expect(answerOf(response).error?.code).toBe(-32603);
      expectNothingLeaked(response);
      expectException(await expectServerFault(telemetry, 'r-broken-resource', -32603));
    });
  });

  describe('a throwing tool: an exception event with its stack, nothing of it on the wire', () => {
    it.each([
      ['legacy', () => legacyPost('l-explode', 'tools/call', { name: 'explode' })],
      ['modern', () => modernPost('m-explode', 'tools/call', { name: 'explode' }, { 'mcp-name': 'explode' })],
      [
        'modern on /rpc',
        () => modernPost('r-explode', 'tools/call', { name: 'explode' }, { 'mcp-name': 'explode' }, 'rpc'),
      ],
    ])('%s', async (_era, request) => {
      const response = await request();
      const answer = answerOf(response);
      expect(answer.result?.isError).toBe(true);
      expectNothingLeaked(response);
      const span = await spanOf(telemetry, String(answer.id));
      expect(span.attributes['error.type']).toBe('tool_error');
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expectException(span);
    });
  });

  describe('cancelled requests and closed listen streams: no errors, counted by nest_mcp.request.outcome', () => {
    it('legacy: a slow tool call cancelled by notifications/cancelled', async () => {
      const stop = new AbortController();
      const call = send(server.url, {
        body: legacyRequest(
          'tools/call',
          { name: 'wait_for_abort', arguments: { label: `l-cancel-${platform}` } },
          'l-cancel',
        ),
        headers: legacy,
        signal: stop.signal,
      }).catch(() => undefined);
      await server.probe.waitFor('started', `l-cancel-${platform}`);
      const cancel = await post(
        server.url,
        {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 'l-cancel', reason: 'no longer needed' },
        },
        legacy,
      );
      expect(cancel.status).toBe(202);
      await server.probe.waitFor('aborted', `l-cancel-${platform}`);
      const span = await spanOf(telemetry, 'l-cancel');
      stop.abort();
      await call;
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.attributes).not.toHaveProperty(['error.type']);
      expect(span.attributes[OUTCOME]).toBe('cancelled');
      const points = await pointsOf(telemetry, 'tools/call', {
        [OUTCOME]: 'cancelled',
        'mcp.protocol.version': '2025-11-25',
      });
      expect(points).toHaveLength(1);
      expect(points[0]).not.toHaveProperty(['error.type']);
    });

    it('modern: a slow tool call whose client went away', async () => {
      const stop = new AbortController();
      const label = `m-lost-${platform}`;
      const call = send(server.url, {
        body: modernRequest('tools/call', { name: 'wait_for_abort', arguments: { label } }, 'm-lost'),
        headers: modernHeaders('tools/call', 'wait_for_abort'),
        signal: stop.signal,
      }).then(
        (response) => response.body?.cancel(),
        () => undefined,
      );
      await server.probe.waitFor('started', label);
      stop.abort();
      await call;
      const span = await spanOf(telemetry, 'm-lost');
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.attributes).not.toHaveProperty(['error.type']);
      expect(span.attributes[OUTCOME]).toBe('cancelled');
    });

    it('modern: a subscriptions/listen stream closed by its client', async () => {
      const stop = new AbortController();
      const response = await send(server.url, {
        body: modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'm-listen'),
        headers: modernHeaders('subscriptions/listen'),
        signal: stop.signal,
      });
      expect(response.status).toBe(200);
      const reader = new SseReader(response);
      expect((await reader.next()).method).toBe('notifications/subscriptions/acknowledged');
      stop.abort();
      const span = await spanOf(telemetry, 'm-listen');
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.attributes).not.toHaveProperty(['error.type']);
      expect(span.attributes[OUTCOME]).toBe('closed');
      const points = await pointsOf(telemetry, 'subscriptions/listen', { [OUTCOME]: 'closed' });
      expect(points).toHaveLength(1);
      expect(points[0]).not.toHaveProperty(['error.type']);
    });
  });

  it('a successful call has neither error.type, status code nor outcome', async () => {
    const response = await modernPost(
      'm-fine',
      'tools/call',
      { name: 'echo', arguments: { text: 'hi' } },
      {
        'mcp-name': 'echo',
      },
    );
    expect(answerOf(response).result?.isError).toBeUndefined();
    const span = await spanOf(telemetry, 'm-fine');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    for (const key of ['error.type', 'rpc.response.status_code', OUTCOME]) {
      expect(span.attributes).not.toHaveProperty([key]);
    }
    expect(span.events).toEqual([]);
    expect(span.attributes['mcp.protocol.version']).toBe(MODERN_REVISION);
  });

  it("the 2024-11-05 HTTP+SSE pair (v1 client): a caller's fault is none, a server's fault is", async () => {
    const client = new Client({ name: 'v1-sse-outcomes', version: '1.0.0' });
    // The ids the SDK gives its requests, and the pair's session (the POST URL's `sessionId`),
    // which tells its spans from those of this suite's own legacy session.
    const ids: string[] = [];
    let session = '';
    const recording: typeof fetch = (input, init) => {
      if ((init?.method ?? 'GET').toUpperCase() === 'POST' && typeof init?.body === 'string') {
        ids.push(String((JSON.parse(init.body) as { id?: unknown }).id));
        session = new URL(input instanceof Request ? input.url : input).searchParams.get('sessionId') ?? '';
      }
      return fetch(input, init);
    };
    await client.connect(new SSEClientTransport(server.route('sse'), { fetch: recording }));
    try {
      await expect(client.request({ method: 'x/made-up', params: {} }, EmptyResultSchema)).rejects.toMatchObject({
        code: -32601,
      });
      await expectCallerFault(telemetry, ids.at(-1)!, -32601, session);
      // A made-up method is `_OTHER` here too (what the client sent stays on the span only).
      expect((await spanOf(telemetry, ids.at(-1)!, session)).attributes).toMatchObject({
        'mcp.method.name': '_OTHER',
        'nest_mcp.method.name_original': 'x/made-up',
      });
      await expect(client.readResource({ uri: BROKEN_URI })).rejects.toMatchObject({ code: -32603 });
      expectException(await expectServerFault(telemetry, ids.at(-1)!, -32603, session));
    } finally {
      await client.close();
    }
  });
});

describe('request outcomes over stdio', () => {
  const telemetry = new TestTelemetry();
  let app: TestingModule;
  let peer: StdioPeer;

  beforeAll(async () => {
    app = await createStdioFixture({ telemetry: telemetry.options });
  });

  beforeEach(() => {
    peer = new StdioPeer(app.get(McpStdioServer));
  });

  afterEach(async () => {
    await peer.end();
  });

  afterAll(async () => {
    await app?.close();
    await telemetry.shutdown();
  });

  it("an unknown tool: the caller's fault", async () => {
    peer.send(modernRequest('tools/call', { name: 'nope', arguments: {} }, 's-32602'));
    expect((await peer.answer('s-32602')).error?.code).toBe(-32602);
    await expectCallerFault(telemetry, 's-32602', -32602);
  });

  it('a call cancelled by notifications/cancelled: no error, outcome cancelled', async () => {
    const probe = app.get(StdioProbe);
    peer.send(modernRequest('tools/call', { name: 'block', arguments: { label: 's-cancel' } }, 's-cancel'));
    await probe.waitFor('started', 's-cancel');
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 's-cancel' } });
    const span = await spanOf(telemetry, 's-cancel');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).not.toHaveProperty(['error.type']);
    expect(span.attributes[OUTCOME]).toBe('cancelled');
    expect(peer.messages((message) => message.id === 's-cancel')).toEqual([]);
  });

  it('a listen stream the client closed: no error, outcome closed', async () => {
    peer.send(modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, 's-listen'));
    await peer.received.waitFor(
      1,
      (item) => !Array.isArray(item) && item.method === 'notifications/subscriptions/acknowledged',
    );
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 's-listen' } });
    const span = await spanOf(telemetry, 's-listen');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).not.toHaveProperty(['error.type']);
    expect(span.attributes[OUTCOME]).toBe('closed');
  });
});
