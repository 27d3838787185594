/**
 * A modern multi round-trip request is one trace, with the real SDK (in-memory exporters), on
 * Express and Fastify. The round that asks a question seals its span's context into its
 * `requestState`; the retry's SERVER span continues it when the client propagates no context
 * (the official v2 client sends none), and links to it when the client does (the client's
 * trace wins). A state without the trace (sealed before it existed) and a tampered one are
 * served, or refused, exactly as before.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { RequestStateSealer } from '../../lib/protocol/messages/request-state';
import type { HttpPlatform } from '../fixtures/http-app';
import {
  META,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  post,
  type RawResponse,
  recordingFetch,
} from '../fixtures/raw-rpc';
import { startTelemetryApp, type TelemetryApp } from '../fixtures/telemetry-app';
import { registerOtelGlobals, resetOtelGlobals, TestTelemetry, traceparentOf } from '../fixtures/telemetry-sdk';

const SECRET = 'round-trace-e2e-secret-of-32-bytes!';
const ADA = { action: 'accept' as const, content: { name: 'Ada' } };
const ASK_NAME = 'tools/call ask_name';

/** The finished `tools/call ask_name` span of request `id` (waits for it to end). */
async function roundSpan(telemetry: TestTelemetry, id: string | number): Promise<ReadableSpan> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const found = telemetry.named(ASK_NAME).filter((span) => span.attributes['jsonrpc.request.id'] === String(id));
    if (found.length === 1) {
      return found[0];
    }
    if (Date.now() > deadline) {
      throw new Error(`No single finished "${ASK_NAME}" span for request ${id} (${found.length})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A raw modern `tools/call ask_name` (a client that can be asked), with `params` extra. */
function askName(app: TelemetryApp, id: string, params: Record<string, unknown> = {}): Promise<RawResponse> {
  return post(
    app.url,
    modernRequest('tools/call', { name: 'ask_name', arguments: {}, ...params }, id, {
      [META.clientCapabilities]: { elicitation: { form: {} } },
    }),
    modernHeaders('tools/call', 'ask_name'),
  );
}

/** A span of a trace of the test's own (what a client propagating context sends). */
function clientTraceparent(telemetry: TestTelemetry, name: string): { traceparent: string; traceId: string } {
  const span = telemetry.tracerProvider.getTracer('test-client').startSpan(name);
  span.end();
  return { traceparent: traceparentOf(span.spanContext()), traceId: span.spanContext().traceId };
}

beforeAll(() => {
  registerOtelGlobals();
});

afterAll(() => {
  resetOtelGlobals();
});

describe.each<HttpPlatform>(['express', 'fastify'])('one trace per multi round-trip request (%s)', (platform) => {
  const telemetry = new TestTelemetry();
  let app: TelemetryApp;

  beforeAll(async () => {
    app = await startTelemetryApp({ telemetry: telemetry.options, requestState: { secret: SECRET } }, platform);
  });

  afterAll(async () => {
    await app?.close();
    await telemetry.shutdown();
  });

  beforeEach(() => {
    telemetry.reset();
  });

  it('v2 client, no traceparent: both rounds and the elicitation/create CLIENT span share one trace', async () => {
    const recording = recordingFetch();
    const client = new ClientV2(
      { name: 'v2-round-trace-e2e', version: '2.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    client.setRequestHandler('elicitation/create', () => ADA);
    await client.connect(new TransportV2(app.url, { fetch: recording.fetch }));
    try {
      const result = await client.callTool({ name: 'ask_name', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'action=accept name=Ada' }]);
    } finally {
      await client.close();
    }
    const calls = recording.exchanges.items.filter((item) => item.request?.method === 'tools/call');
    expect(calls).toHaveLength(2);
    // The client propagates nothing: what joins the rounds is the server's own.
    expect(calls.map((call) => call.request.params._meta?.traceparent)).toEqual([undefined, undefined]);
    expect(typeof calls[1].request.params.requestState).toBe('string');

    const first = await roundSpan(telemetry, calls[0].request.id);
    const retry = await roundSpan(telemetry, calls[1].request.id);
    const [question] = await telemetry.waitFor('elicitation/create');
    const traceId = first.spanContext().traceId;
    expect(first.kind).toBe(SpanKind.SERVER);
    expect(first.parentSpanContext).toBeUndefined();
    expect(question.kind).toBe(SpanKind.CLIENT);
    expect(question.spanContext().traceId).toBe(traceId);
    expect(retry.kind).toBe(SpanKind.SERVER);
    expect(retry.spanContext().traceId).toBe(traceId);
    // The retry continues the round that asked: a child of its span.
    expect(retry.parentSpanContext).toMatchObject({ traceId, spanId: first.spanContext().spanId, isRemote: true });
    expect(retry.links).toEqual([]);
    // Every span of the request, of either round, is in that trace.
    const spans = telemetry.finished().filter((span) => span.name === ASK_NAME || span.name === 'elicitation/create');
    expect(spans).toHaveLength(3);
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([traceId]));
  });

  it("a client's traceparent in _meta wins: the retry is its child and links to the round that asked", async () => {
    const one = clientTraceparent(telemetry, 'client round 1');
    const first = await askName(app, 'r1', { _meta: { traceparent: one.traceparent } });
    expect(first.json.result.resultType).toBe('input_required');
    const two = clientTraceparent(telemetry, 'client round 2');
    const retry = await askName(app, 'r2', {
      _meta: { traceparent: two.traceparent },
      inputResponses: { 'elicitation-1': ADA },
      requestState: first.json.result.requestState,
    });
    expect(retry.json.result.content).toEqual([{ type: 'text', text: 'action=accept name=Ada' }]);

    const firstSpan = await roundSpan(telemetry, 'r1');
    const retrySpan = await roundSpan(telemetry, 'r2');
    expect(firstSpan.spanContext().traceId).toBe(one.traceId);
    expect(retrySpan.spanContext().traceId).toBe(two.traceId);
    expect(retrySpan.parentSpanContext?.traceId).toBe(two.traceId);
    expect(retrySpan.links.map((link) => link.context)).toEqual([
      expect.objectContaining({ traceId: one.traceId, spanId: firstSpan.spanContext().spanId }),
    ]);
  });

  it('a state sealed without a trace (before it was sealed) is served as before: the retry is a root', async () => {
    // What a server without the trace sealed: the same key, the same binding, no trace.
    const sealed = new RequestStateSealer(SECRET, 60_000).seal(
      { principalId: 'anonymous', method: 'tools/call', params: { name: 'ask_name', arguments: {} } },
      { answers: {}, state: {} },
    );
    const retry = await askName(app, 'old', { inputResponses: { 'elicitation-1': ADA }, requestState: sealed });
    expect(retry.json.result.content).toEqual([{ type: 'text', text: 'action=accept name=Ada' }]);
    const span = await roundSpan(telemetry, 'old');
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.links).toEqual([]);
  });

  it('a state whose trace was rewritten is refused as any tampered state (-32602)', async () => {
    const first = await askName(app, 't1');
    const [version, payload, signature] = (first.json.result.requestState as string).split('.');
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const forged = clientTraceparent(telemetry, 'forged');
    const rewritten = Buffer.from(JSON.stringify({ ...body, t: forged.traceparent })).toString('base64url');
    const retry = await askName(app, 't2', {
      inputResponses: { 'elicitation-1': ADA },
      requestState: `${version}.${rewritten}.${signature}`,
    });
    expect(retry.json.error).toEqual({ code: -32602, message: 'Invalid requestState' });
    // Read unchecked, the forged trace only chose the span's parent, as a client's traceparent may.
    const span = await roundSpan(telemetry, 't2');
    expect(span.attributes['rpc.response.status_code']).toBe('-32602');
    expect(span.parentSpanContext?.traceId).toBe(forged.traceId);
  });
});
