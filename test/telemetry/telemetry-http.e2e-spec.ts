/**
 * OpenTelemetry over real HTTP, with the real SDK (in-memory exporters) and the official clients,
 * on Express and Fastify: the SERVER span of every message on Streamable HTTP (legacy era with
 * the v1 client, modern era with the v2 client), the simple POST endpoint and the 2024-11-05 SSE
 * pair, with the attribute values the MCP semantic conventions give; the client's `traceparent`
 * in `params._meta` as the parent; the CLIENT span of an elicitation in both eras; errors and
 * `isError` results; batches; what `captureArguments` adds (and that credentials never appear);
 * and that nothing is recorded without a provider or with `telemetry: false`.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { HttpPlatform } from '../fixtures/http-app';
import {
  Collector,
  legacyRequest,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  recordedRequest,
  recordedResponse,
  type RecordedExchange,
  recordingFetch,
} from '../fixtures/raw-rpc';
import { startTelemetryApp, type TelemetryApp } from '../fixtures/telemetry-app';
import { registerOtelGlobals, resetOtelGlobals, TestTelemetry, traceparentOf } from '../fixtures/telemetry-sdk';
import { GREETING_URI, NAME_QUESTION } from '../fixtures/transports-fixture';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

/** The revision the v1 SDK client asks for, and the server grants, on Streamable HTTP. */
const V1_REVISION = '2025-11-25';

/** What every span of a message that came over HTTP from this test says about its transport. */
const HTTP_TRANSPORT = {
  'network.transport': 'tcp',
  'network.protocol.name': 'http',
  'network.protocol.version': '1.1',
  'client.address': '127.0.0.1',
  'client.port': expect.any(Number),
};

/** The one finished span named `name` whose `jsonrpc.request.id` is `id` (waits for it to end). */
async function spanOf(telemetry: TestTelemetry, name: string, id: string | number): Promise<ReadableSpan> {
  let found: ReadableSpan[] = [];
  const deadline = Date.now() + 5_000;
  for (;;) {
    found = telemetry.named(name).filter((span) => span.attributes['jsonrpc.request.id'] === String(id));
    if (found.length > 0 || Date.now() > deadline) {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect({ name, id, count: found.length }).toEqual({ name, id, count: 1 });
  return found[0];
}

/** The JSON-RPC id of the last request of `method` a recording fetch saw. */
function sentId(exchanges: Collector<RecordedExchange>, method: string): string | number {
  return recordedRequest(exchanges, method).request.id as string | number;
}

/** A v1 client over Streamable HTTP with a recording fetch. */
async function connectV1(
  url: URL,
  options: { headers?: Record<string, string>; elicitations?: Collector<Record<string, any>> } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; exchanges: Collector<RecordedExchange> }> {
  const recording = recordingFetch();
  const client = new Client(
    { name: 'v1-telemetry-e2e', version: '1.0.0' },
    { capabilities: options.elicitations === undefined ? {} : { elicitation: {} } },
  );
  const elicitations = options.elicitations;
  if (elicitations !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicitations.push(request.params as Record<string, any>);
      return { action: 'accept', content: { name: 'Ada' } };
    });
  }
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: recording.fetch,
    requestInit: options.headers === undefined ? undefined : { headers: options.headers },
  });
  await client.connect(transport);
  return { client, transport, exchanges: recording.exchanges };
}

/** A v2 client pinned to 2026-07-28 (the modern era), answering elicitations, with a recording fetch. */
async function connectV2(
  url: URL,
  elicitations: Collector<Record<string, any>>,
): Promise<{ client: ClientV2; exchanges: Collector<RecordedExchange> }> {
  const recording = recordingFetch();
  const client = new ClientV2(
    { name: 'v2-telemetry-e2e', version: '2.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    elicitations.push(request.params as Record<string, any>);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  await client.connect(new TransportV2(url, { fetch: recording.fetch }));
  return { client, exchanges: recording.exchanges };
}

beforeAll(() => {
  registerOtelGlobals();
});

afterAll(() => {
  resetOtelGlobals();
});

describe.each(PLATFORMS)('telemetry over HTTP (%s)', (platform) => {
  const telemetry = new TestTelemetry();
  let app: TelemetryApp;

  beforeAll(async () => {
    app = await startTelemetryApp(
      { telemetry: telemetry.options, simpleHttpPath: 'rpc', ssePath: 'sse', sseMessagesPath: 'messages' },
      platform,
    );
  });

  afterAll(async () => {
    await app?.close();
    await telemetry.shutdown();
  });

  beforeEach(() => {
    telemetry.reset();
  });

  describe('Streamable HTTP, legacy era (v1 client)', () => {
    let client: Client;
    let transport: StreamableHTTPClientTransport;
    let exchanges: Collector<RecordedExchange>;
    const elicitations = new Collector<Record<string, any>>();
    /** The spans of the handshake, kept before the first reset. */
    let handshake: ReadableSpan[];

    beforeAll(async () => {
      telemetry.reset();
      ({ client, transport, exchanges } = await connectV1(app.route('mcp'), { elicitations }));
      await telemetry.waitFor('notifications/initialized');
      handshake = telemetry.finished();
    });

    afterAll(async () => {
      await client?.close();
    });

    /** What every span of this session carries. */
    function sessionAttributes(method: string): Record<string, unknown> {
      return {
        'mcp.method.name': method,
        'mcp.protocol.version': V1_REVISION,
        'mcp.session.id': transport.sessionId,
        ...HTTP_TRANSPORT,
      };
    }

    it('initialize: a SERVER span with the request id, the negotiated revision and the session it opened', () => {
      expect(transport.protocolVersion).toBe(V1_REVISION);
      expect(transport.sessionId).toEqual(expect.any(String));
      const [span] = handshake.filter((item) => item.name === 'initialize');
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes).toEqual({
        ...sessionAttributes('initialize'),
        'jsonrpc.request.id': String(sentId(exchanges, 'initialize')),
      });
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      // No HTTP instrumentation and no traceparent: the span starts a trace.
      expect(span.parentSpanContext).toBeUndefined();
    });

    it('notifications/initialized: a SERVER span without a request id', () => {
      const spans = handshake.filter((item) => item.name === 'notifications/initialized');
      expect(spans).toHaveLength(1);
      expect(spans[0].kind).toBe(SpanKind.SERVER);
      expect(spans[0].attributes).toEqual(sessionAttributes('notifications/initialized'));
    });

    it('tools/list: a span named by the method alone', async () => {
      await client.listTools();
      const span = await spanOf(telemetry, 'tools/list', sentId(exchanges, 'tools/list'));
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes).toEqual({
        ...sessionAttributes('tools/list'),
        'jsonrpc.request.id': String(sentId(exchanges, 'tools/list')),
      });
    });

    it('tools/call echo: the tool name and execute_tool, no arguments or result recorded by default', async () => {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'traced' } });
      expect(result.content).toEqual([{ type: 'text', text: 'echo: traced' }]);
      const id = sentId(exchanges, 'tools/call');
      const span = await spanOf(telemetry, 'tools/call echo', id);
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes).toEqual({
        ...sessionAttributes('tools/call'),
        'jsonrpc.request.id': String(id),
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
      });
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.parentSpanContext).toBeUndefined();
    });

    it('resources/read: the URI as an attribute, not in the span name', async () => {
      await client.readResource({ uri: GREETING_URI });
      const id = sentId(exchanges, 'resources/read');
      const span = await spanOf(telemetry, 'resources/read', id);
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes).toEqual({
        ...sessionAttributes('resources/read'),
        'jsonrpc.request.id': String(id),
        'mcp.resource.uri': GREETING_URI,
      });
      expect(telemetry.finished().filter((item) => item.name.includes(GREETING_URI))).toEqual([]);
    });

    it('prompts/get greet: the prompt name, and no execute_tool', async () => {
      await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
      const id = sentId(exchanges, 'prompts/get');
      const span = await spanOf(telemetry, 'prompts/get greet', id);
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes).toEqual({
        ...sessionAttributes('prompts/get'),
        'jsonrpc.request.id': String(id),
        'gen_ai.prompt.name': 'greet',
      });
    });

    it("a traceparent in _meta makes the server span the client span's child; baggage reaches the handler", async () => {
      const clientSpan = telemetry.tracerProvider.getTracer('test-client').startSpan('client call');
      const traceparent = traceparentOf(clientSpan.spanContext());
      const result = await client.callTool({
        name: 'read_baggage',
        arguments: { key: 'tenant' },
        _meta: { traceparent, baggage: 'tenant=acme' },
      });
      clientSpan.end();
      expect(result.content).toEqual([{ type: 'text', text: 'baggage tenant=acme' }]);
      const sent = recordedRequest(exchanges, 'tools/call').request;
      expect(sent.params._meta).toEqual({ traceparent, baggage: 'tenant=acme' });
      const span = await spanOf(telemetry, 'tools/call read_baggage', sent.id);
      expect(span.spanContext().traceId).toBe(clientSpan.spanContext().traceId);
      expect(span.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
      expect(span.parentSpanContext?.traceId).toBe(clientSpan.spanContext().traceId);
      expect(span.parentSpanContext?.isRemote).toBe(true);
      // No HTTP instrumentation: no ambient HTTP span to link.
      expect(span.links).toEqual([]);
    });

    it('baggage in _meta without a traceparent still reaches the handler; the span stays a root', async () => {
      const result = await client.callTool({
        name: 'read_baggage',
        arguments: { key: 'tenant' },
        _meta: { baggage: 'tenant=globex' },
      });
      expect(result.content).toEqual([{ type: 'text', text: 'baggage tenant=globex' }]);
      const span = await spanOf(telemetry, 'tools/call read_baggage', sentId(exchanges, 'tools/call'));
      expect(span.parentSpanContext).toBeUndefined();
    });

    it('elicitation: a CLIENT span under the tool span, whose context the question carries', async () => {
      const result = await client.callTool({ name: 'ask_name', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'action=accept name=Ada' }]);
      const call = await spanOf(telemetry, 'tools/call ask_name', sentId(exchanges, 'tools/call'));
      const [question] = await telemetry.waitFor('elicitation/create');
      expect(question.kind).toBe(SpanKind.CLIENT);
      expect(question.spanContext().traceId).toBe(call.spanContext().traceId);
      expect(question.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
      expect(question.attributes).toEqual(sessionAttributes('elicitation/create'));
      const asked = elicitations.items.at(-1)!;
      expect(asked).toMatchObject(NAME_QUESTION);
      expect(asked._meta?.traceparent).toBe(traceparentOf(question.spanContext()));
    });

    it("an unknown tool: rpc.response.status_code -32602, but no error.type nor ERROR (the caller's fault)", async () => {
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow();
      const answer = await recordedResponse(exchanges, 'tools/call');
      expect(answer.error?.code).toBe(-32602);
      // A name the server does not have stays out of the span name (the client chose it alone).
      const span = await spanOf(telemetry, 'tools/call', sentId(exchanges, 'tools/call'));
      expect(telemetry.named('tools/call no_such_tool')).toEqual([]);
      expect(span.attributes).toMatchObject({
        'gen_ai.tool.name': 'no_such_tool',
        'rpc.response.status_code': '-32602',
      });
      expect(span.attributes).not.toHaveProperty(['error.type']);
      expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
    });

    it('an isError result (invalid arguments): error.type tool_error, status ERROR, no status code', async () => {
      const result = await client.callTool({ name: 'echo', arguments: {} });
      expect(result.isError).toBe(true);
      const span = await spanOf(telemetry, 'tools/call echo', sentId(exchanges, 'tools/call'));
      expect(span.attributes['error.type']).toBe('tool_error');
      expect(span.attributes).not.toHaveProperty('rpc.response.status_code');
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'The tool reported an error' });
    });
  });

  describe('Streamable HTTP, modern era (v2 client pinned to 2026-07-28)', () => {
    let client: ClientV2;
    let exchanges: Collector<RecordedExchange>;
    const elicitations = new Collector<Record<string, any>>();

    beforeAll(async () => {
      ({ client, exchanges } = await connectV2(app.route('mcp'), elicitations));
    });

    afterAll(async () => {
      await client?.close();
    });

    it('tools/call echo: the modern revision, no session id', async () => {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_REVISION);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'modern' } });
      expect(result.content).toEqual([{ type: 'text', text: 'echo: modern' }]);
      const id = sentId(exchanges, 'tools/call');
      const span = await spanOf(telemetry, 'tools/call echo', id);
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes).toEqual({
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': MODERN_REVISION,
        'jsonrpc.request.id': String(id),
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        ...HTTP_TRANSPORT,
      });
      expect(span.parentSpanContext).toBeUndefined();
    });

    it("a traceparent in _meta makes the server span the client span's child", async () => {
      const clientSpan = telemetry.tracerProvider.getTracer('test-client').startSpan('client call');
      const traceparent = traceparentOf(clientSpan.spanContext());
      await client.callTool({ name: 'echo', arguments: { text: 'child' }, _meta: { traceparent } });
      clientSpan.end();
      const sent = recordedRequest(exchanges, 'tools/call').request;
      expect(sent.params._meta.traceparent).toBe(traceparent);
      const span = await spanOf(telemetry, 'tools/call echo', sent.id);
      expect(span.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
      expect(span.parentSpanContext?.traceId).toBe(clientSpan.spanContext().traceId);
      expect(span.spanContext().traceId).toBe(clientSpan.spanContext().traceId);
    });

    it('elicitation (input_required): a CLIENT span under the first round, its context in the question', async () => {
      const since = exchanges.items.length;
      const result = await client.callTool({ name: 'ask_name', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'action=accept name=Ada' }]);
      const calls = exchanges.items.slice(since).filter((item) => item.request?.method === 'tools/call');
      expect(calls).toHaveLength(2);
      const firstAnswer = JSON.parse(await calls[0].responseText);
      expect(firstAnswer.result.resultType).toBe('input_required');
      const asked = firstAnswer.result.inputRequests['elicitation-1'];
      expect(asked).toMatchObject({ method: 'elicitation/create', params: NAME_QUESTION });

      const first = await spanOf(telemetry, 'tools/call ask_name', calls[0].request.id);
      const retry = await spanOf(telemetry, 'tools/call ask_name', calls[1].request.id);
      const [question] = await telemetry.waitFor('elicitation/create');
      expect(question.kind).toBe(SpanKind.CLIENT);
      expect(question.parentSpanContext?.spanId).toBe(first.spanContext().spanId);
      expect(question.spanContext().traceId).toBe(first.spanContext().traceId);
      expect(question.attributes).toEqual({
        'mcp.method.name': 'elicitation/create',
        'mcp.protocol.version': MODERN_REVISION,
        ...HTTP_TRANSPORT,
      });
      expect(asked.params._meta.traceparent).toBe(traceparentOf(question.spanContext()));
      // The retry is a request of its own (a new id, a span of its own).
      expect(retry.spanContext().spanId).not.toBe(first.spanContext().spanId);
    });
  });

  describe('a JSON-RPC batch (2025-03-26 session)', () => {
    it('gives one span per element', async () => {
      const session = await openLegacySession(app.route('mcp'), '2025-03-26');
      const response = await post(
        app.route('mcp'),
        [
          legacyRequest('tools/call', { name: 'echo', arguments: { text: 'b' } }, 'b1'),
          legacyRequest('tools/list', {}, 'b2'),
        ],
        session.headers,
      );
      expect(response.status).toBe(200);
      const common = {
        'mcp.protocol.version': '2025-03-26',
        'mcp.session.id': session.sessionId,
        ...HTTP_TRANSPORT,
      };
      const call = await spanOf(telemetry, 'tools/call echo', 'b1');
      const list = await spanOf(telemetry, 'tools/list', 'b2');
      expect(call.attributes).toEqual({
        ...common,
        'mcp.method.name': 'tools/call',
        'jsonrpc.request.id': 'b1',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
      });
      expect(list.attributes).toEqual({ ...common, 'mcp.method.name': 'tools/list', 'jsonrpc.request.id': 'b2' });
      expect(call.spanContext().spanId).not.toBe(list.spanContext().spanId);
    });
  });

  describe('the simple POST endpoint', () => {
    it('legacy era: one tools/call span per call, no session; the revision its version header names', async () => {
      const echo = { name: 'echo', arguments: { text: 's' } };
      const bare = await post(app.route('rpc'), legacyRequest('tools/call', echo, 's1'));
      expect(bare.json.result.content).toEqual([{ type: 'text', text: 'echo: s' }]);
      const named = await post(app.route('rpc'), legacyRequest('tools/call', echo, 's2'), {
        'mcp-protocol-version': V1_REVISION,
      });
      expect(named.json.result.content).toEqual([{ type: 'text', text: 'echo: s' }]);
      const call = {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        ...HTTP_TRANSPORT,
      };
      const first = await spanOf(telemetry, 'tools/call echo', 's1');
      expect(first.kind).toBe(SpanKind.SERVER);
      // Without a session or a version header, no revision is settled: none is claimed.
      expect(first.attributes).toEqual({ ...call, 'jsonrpc.request.id': 's1' });
      const second = await spanOf(telemetry, 'tools/call echo', 's2');
      expect(second.attributes).toEqual({ ...call, 'jsonrpc.request.id': 's2', 'mcp.protocol.version': V1_REVISION });
      expect(telemetry.named('tools/call echo')).toHaveLength(2);
    });

    it('modern era: one tools/call span with the modern revision', async () => {
      const response = await post(
        app.route('rpc'),
        modernRequest('tools/call', { name: 'echo', arguments: { text: 'm' } }, 'm1'),
        modernHeaders('tools/call', 'echo'),
      );
      expect(response.json.result.content).toEqual([{ type: 'text', text: 'echo: m' }]);
      const span = await spanOf(telemetry, 'tools/call echo', 'm1');
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes).toEqual({
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': MODERN_REVISION,
        'jsonrpc.request.id': 'm1',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        ...HTTP_TRANSPORT,
      });
      expect(telemetry.named('tools/call echo')).toHaveLength(1);
    });
  });

  describe('the 2024-11-05 HTTP+SSE pair (v1 SSEClientTransport)', () => {
    it('initialize and tools/call carry the SSE session id', async () => {
      const posts: Array<{ url: URL; headers: Headers; body: any }> = [];
      const recording: typeof fetch = (input, init) => {
        // The SDK POSTs each message as a JSON string to the endpoint URL the stream named.
        if ((init?.method ?? 'GET').toUpperCase() === 'POST' && typeof init?.body === 'string') {
          posts.push({
            url: new URL(input instanceof Request ? input.url : input),
            headers: new Headers(init.headers),
            body: JSON.parse(init.body),
          });
        }
        return fetch(input, init);
      };
      const client = new Client({ name: 'v1-sse-telemetry', version: '1.0.0' });
      await client.connect(new SSEClientTransport(app.route('sse'), { fetch: recording }));
      try {
        await client.callTool({ name: 'echo', arguments: { text: 'sse' } });
      } finally {
        await client.close();
      }
      const sessionId = posts[0].url.searchParams.get('sessionId');
      expect(sessionId).toEqual(expect.any(String));
      const init = posts.find((item) => item.body.method === 'initialize')!;
      const call = posts.find((item) => item.body.method === 'tools/call')!;
      const revision = call.headers.get('mcp-protocol-version');
      // The pair serves the revision the client asked for; the client sends it back on every later POST.
      expect(revision).toBe(V1_REVISION);
      const initSpan = await spanOf(telemetry, 'initialize', init.body.id);
      const callSpan = await spanOf(telemetry, 'tools/call echo', call.body.id);
      expect(initSpan.attributes).toEqual({
        'mcp.method.name': 'initialize',
        'mcp.protocol.version': revision,
        'mcp.session.id': sessionId,
        'jsonrpc.request.id': String(init.body.id),
        ...HTTP_TRANSPORT,
      });
      expect(callSpan.attributes).toEqual({
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': revision,
        'mcp.session.id': sessionId,
        'jsonrpc.request.id': String(call.body.id),
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        ...HTTP_TRANSPORT,
      });
    });
  });
});

describe.each(PLATFORMS)('captureArguments (%s)', (platform) => {
  const SECRET = 'Bearer s3cr3t-t0ken-never-recorded';
  const telemetry = new TestTelemetry();
  let app: TelemetryApp;
  let client: Client;
  let exchanges: Collector<RecordedExchange>;

  beforeAll(async () => {
    app = await startTelemetryApp({ telemetry: { ...telemetry.options, captureArguments: true } }, platform);
    ({ client, exchanges } = await connectV1(app.route('mcp'), { headers: { authorization: SECRET } }));
  });

  afterAll(async () => {
    await client?.close();
    await app?.close();
    await telemetry.shutdown();
  });

  it('records the arguments and the result of a tool call as JSON', async () => {
    await client.callTool({ name: 'echo', arguments: { text: 'captured' } });
    const sent = recordedRequest(exchanges, 'tools/call');
    expect(sent.requestHeaders.get('authorization')).toBe(SECRET);
    const span = await spanOf(telemetry, 'tools/call echo', sent.request.id);
    expect(span.attributes['gen_ai.tool.call.arguments']).toBe(JSON.stringify({ text: 'captured' }));
    expect(span.attributes['gen_ai.tool.call.result']).toBe(JSON.stringify([{ type: 'text', text: 'echo: captured' }]));
  });

  it('never records the Authorization header', () => {
    const values = telemetry.finished().flatMap((span) => Object.values(span.attributes).map(String));
    expect(values.length).toBeGreaterThan(0);
    expect(values.filter((value) => value.includes('s3cr3t'))).toEqual([]);
  });
});

describe('captureArguments off (the default)', () => {
  const SECRET = 'Bearer an0ther-s3cr3t';
  const telemetry = new TestTelemetry();
  let app: TelemetryApp;
  let client: Client;
  let exchanges: Collector<RecordedExchange>;

  beforeAll(async () => {
    app = await startTelemetryApp({ telemetry: telemetry.options }, 'express');
    ({ client, exchanges } = await connectV1(app.route('mcp'), { headers: { authorization: SECRET } }));
  });

  afterAll(async () => {
    await client?.close();
    await app?.close();
    await telemetry.shutdown();
  });

  it('records neither the arguments nor the result, nor the Authorization header', async () => {
    await client.callTool({ name: 'echo', arguments: { text: 'private words' } });
    const span = await spanOf(telemetry, 'tools/call echo', sentId(exchanges, 'tools/call'));
    expect(span.attributes).not.toHaveProperty('gen_ai.tool.call.arguments');
    expect(span.attributes).not.toHaveProperty('gen_ai.tool.call.result');
    const values = telemetry.finished().flatMap((item) => Object.values(item.attributes).map(String));
    expect(values.filter((value) => value.includes('private words') || value.includes('s3cr3t'))).toEqual([]);
  });
});

describe('nothing recorded without a provider', () => {
  /**
   * Opens a v1 session and makes a few calls, on a fresh app with `overrides`; `started` runs
   * once the app is up, before the calls.
   */
  async function exercise(
    overrides: Parameters<typeof startTelemetryApp>[0],
    started: () => void = () => undefined,
  ): Promise<void> {
    const app = await startTelemetryApp(overrides, 'express');
    try {
      started();
      const { client } = await connectV1(app.route('mcp'));
      await client.listTools();
      await client.callTool({ name: 'echo', arguments: { text: 'unseen' } });
      await client.callTool({ name: 'no_such_tool', arguments: {} }).catch(() => undefined);
      await client.close();
    } finally {
      await app.close();
    }
  }

  afterEach(() => {
    trace.disable();
  });

  it('no option and no global SDK: an SDK that is not registered records nothing', async () => {
    const unregistered = new TestTelemetry();
    await exercise({});
    expect(unregistered.finished()).toEqual([]);
    await unregistered.shutdown();
  });

  it('no option, and an SDK registered only after the app started: nothing recorded (decided at startup)', async () => {
    const late = new TestTelemetry();
    await exercise({}, () => expect(trace.setGlobalTracerProvider(late.tracerProvider)).toBe(true));
    expect(late.finished()).toEqual([]);
    await late.shutdown();
  });

  it('telemetry: false with a global provider registered: nothing recorded', async () => {
    const global = new TestTelemetry();
    expect(trace.setGlobalTracerProvider(global.tracerProvider)).toBe(true);
    await exercise({ telemetry: false });
    expect(global.finished()).toEqual([]);
    await global.shutdown();
  });

  it('no option with a global provider registered: the global provider records the spans', async () => {
    const global = new TestTelemetry();
    expect(trace.setGlobalTracerProvider(global.tracerProvider)).toBe(true);
    await exercise({});
    await global.waitFor('tools/call echo');
    expect(global.named('initialize')).toHaveLength(1);
    const [unknown] = global.named('tools/call');
    expect(unknown.attributes).toMatchObject({
      'gen_ai.tool.name': 'no_such_tool',
      'rpc.response.status_code': '-32602',
    });
    await global.shutdown();
  });
});
