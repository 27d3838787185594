/**
 * `telemetry.traceNotifications`, with the real SDK (in-memory exporters), on Express and
 * Fastify: each notification the server sends gets a PRODUCER span named by its method, a child
 * of the active span (a call's progress under the call's span; an event under what published
 * it), whose context the notification carries in `params._meta`; a list change or resource
 * update on a modern listen stream keeps the stream's own `_meta` beside it. Off (the
 * default): no such span, and nothing added to the notifications.
 */
import { context, SpanKind, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { McpNotifier } from 'nest-mcp';
import type { HttpPlatform } from '../fixtures/http-app';
import {
  exchange,
  legacyRequest,
  modernHeaders,
  modernRequest,
  openLegacySession,
  type RpcMessage,
  send,
  SseReader,
} from '../fixtures/raw-rpc';
import { startTelemetryApp, type TelemetryApp } from '../fixtures/telemetry-app';
import { registerOtelGlobals, resetOtelGlobals, TestTelemetry, traceparentOf } from '../fixtures/telemetry-sdk';
import { GREETING_URI } from '../fixtures/transports-fixture';

const PROGRESS = 'notifications/progress';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** A modern `tools/call count_up` of two steps that asks for progress: its SSE events. */
async function countUp(app: TelemetryApp, id: string): Promise<RpcMessage[]> {
  const body = modernRequest(
    'tools/call',
    { name: 'count_up', arguments: { steps: 2 }, _meta: { progressToken: id } },
    id,
  );
  const response = await exchange(app.url, { body, headers: modernHeaders('tools/call', 'count_up') });
  expect(response.status).toBe(200);
  return response.events;
}

/** The progress notifications among `events`. */
function progressOf(events: RpcMessage[]): RpcMessage[] {
  return events.filter((event) => event.method === PROGRESS);
}

/** The finished `tools/call count_up` span of request `id`. */
async function callSpan(telemetry: TestTelemetry, id: string): Promise<ReadableSpan> {
  const spans = await telemetry.waitFor('tools/call count_up');
  const span = spans.find((candidate) => candidate.attributes['jsonrpc.request.id'] === id);
  expect(span).toBeDefined();
  return span!;
}

beforeAll(() => {
  registerOtelGlobals();
});

afterAll(() => {
  resetOtelGlobals();
});

describe.each<HttpPlatform>(['express', 'fastify'])('traceNotifications (%s)', (platform) => {
  const telemetry = new TestTelemetry();
  let app: TelemetryApp;

  beforeAll(async () => {
    app = await startTelemetryApp({ telemetry: { ...telemetry.options, traceNotifications: true } }, platform);
  });

  afterAll(async () => {
    await app?.close();
    await telemetry.shutdown();
  });

  beforeEach(() => {
    telemetry.reset();
  });

  it("a tool's progress: a PRODUCER span each, children of the call's span, whose context the notification carries", async () => {
    const progress = progressOf(await countUp(app, 'p1'));
    expect(progress).toHaveLength(2);
    const call = await callSpan(telemetry, 'p1');
    const spans = await telemetry.waitFor(PROGRESS, 2);
    expect(spans).toHaveLength(2);
    for (const [index, span] of spans.entries()) {
      expect(span.kind).toBe(SpanKind.PRODUCER);
      expect(span.attributes).toEqual({ 'mcp.method.name': PROGRESS });
      expect(span.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(call.spanContext().traceId);
      expect(progress[index].params).toEqual({
        progressToken: 'p1',
        progress: index + 1,
        total: 2,
        message: `step ${index + 1}`,
        _meta: { traceparent: traceparentOf(span.spanContext()) },
      });
    }
  });

  it('legacy era: the span names the session the progress goes to', async () => {
    const session = await openLegacySession(app.url);
    const body = legacyRequest(
      'tools/call',
      { name: 'count_up', arguments: { steps: 1 }, _meta: { progressToken: 'l1' } },
      'l1',
    );
    const response = await exchange(app.url, { body, headers: session.headers });
    const [progress] = progressOf(response.events);
    const [span] = await telemetry.waitFor(PROGRESS);
    expect(span.attributes).toEqual({ 'mcp.method.name': PROGRESS, 'mcp.session.id': session.sessionId });
    expect(progress.params?._meta).toEqual({ traceparent: traceparentOf(span.spanContext()) });
  });

  it('a resource update and a list change on a listen stream: one span per event, under what published it', async () => {
    const stop = new AbortController();
    const response = await send(app.url, {
      body: modernRequest(
        'subscriptions/listen',
        { notifications: { toolsListChanged: true, resourceSubscriptions: [GREETING_URI] } },
        'listen-1',
      ),
      headers: modernHeaders('subscriptions/listen'),
      signal: stop.signal,
    });
    const reader = new SseReader(response);
    try {
      expect((await reader.next()).method).toBe('notifications/subscriptions/acknowledged');
      const notifier = app.app.get(McpNotifier);
      const publisher = telemetry.tracerProvider.getTracer('test-app').startSpan('publish');
      await context.with(trace.setSpan(context.active(), publisher), async () => {
        await notifier.resourceUpdated(GREETING_URI);
        await notifier.toolsChanged();
      });
      publisher.end();
      const updated = await reader.next();
      const changed = await reader.next();

      const [updateSpan] = await telemetry.waitFor('notifications/resources/updated');
      expect(updateSpan.kind).toBe(SpanKind.PRODUCER);
      expect(updateSpan.attributes).toEqual({
        'mcp.method.name': 'notifications/resources/updated',
        'mcp.resource.uri': GREETING_URI,
      });
      expect(updateSpan.parentSpanContext?.spanId).toBe(publisher.spanContext().spanId);
      expect(updated).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: {
          uri: GREETING_URI,
          _meta: { [SUBSCRIPTION_ID]: 'listen-1', traceparent: traceparentOf(updateSpan.spanContext()) },
        },
      });

      const [changeSpan] = await telemetry.waitFor('notifications/tools/list_changed');
      expect(changeSpan.attributes).toEqual({ 'mcp.method.name': 'notifications/tools/list_changed' });
      expect(changed.params?._meta).toEqual({
        [SUBSCRIPTION_ID]: 'listen-1',
        traceparent: traceparentOf(changeSpan.spanContext()),
      });
    } finally {
      stop.abort();
    }
  });
});

describe('traceNotifications off (the default)', () => {
  const telemetry = new TestTelemetry();
  let app: TelemetryApp;

  beforeAll(async () => {
    app = await startTelemetryApp({ telemetry: telemetry.options }, 'express');
  });

  afterAll(async () => {
    await app?.close();
    await telemetry.shutdown();
  });

  it('no notification span, and the progress notifications carry no _meta', async () => {
    const progress = progressOf(await countUp(app, 'off'));
    expect(progress).toHaveLength(2);
    await callSpan(telemetry, 'off');
    expect(progress.map((message) => message.params?._meta)).toEqual([undefined, undefined]);
    expect(
      telemetry.finished().filter((span) => span.name.startsWith('notifications/') && span.kind === SpanKind.PRODUCER),
    ).toEqual([]);
  });
});
