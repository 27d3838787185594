/**
 * Telemetry over stdio, in process (`McpStdioServer.listen()` on two PassThrough streams): the
 * SERVER spans of a legacy session's `initialize` and `tools/call`, and of a modern call, say
 * `network.transport=pipe` and nothing of HTTP (no protocol name, no peer address); a request
 * whose `_meta` carries a `traceparent` gets a span that is the child of that span.
 */
import type { TestingModule } from '@nestjs/testing';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { McpStdioServer } from 'nest-mcp/stdio';
import { createStdioFixture, StdioPeer } from '../fixtures/stdio-fixture.module';
import { legacyRequest, modernRequest } from '../fixtures/raw-rpc';
import { registerOtelGlobals, resetOtelGlobals, TestTelemetry, traceparentOf } from '../fixtures/telemetry-sdk';

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
/** A span of the caller, as a client would have it: its ids are what the server span must point to. */
const CALLER = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };

const HTTP_ONLY = ['network.protocol.name', 'network.protocol.version', 'client.address', 'client.port'];

function expectPipeOnly(span: ReadableSpan): void {
  expect(span.attributes['network.transport']).toBe('pipe');
  for (const key of HTTP_ONLY) {
    expect(span.attributes).not.toHaveProperty([key]);
  }
}

describe('telemetry over stdio', () => {
  const telemetry = new TestTelemetry();
  let app: TestingModule;
  let peer: StdioPeer;

  beforeAll(async () => {
    registerOtelGlobals();
    app = await createStdioFixture({ telemetry: telemetry.options });
  });

  beforeEach(() => {
    telemetry.reset();
    peer = new StdioPeer(app.get(McpStdioServer));
  });

  afterEach(async () => {
    await peer.end();
  });

  afterAll(async () => {
    await app?.close();
    await telemetry.shutdown();
    resetOtelGlobals();
  });

  it('a legacy session: initialize and tools/call spans over the pipe, with the session and the version', async () => {
    peer.send(
      legacyRequest('initialize', {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: 'stdio-telemetry', version: '1.0.0' },
      }),
    );
    const init = await peer.answer(1);
    expect(init.result?.protocolVersion).toBe(LEGACY);
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    peer.send(legacyRequest('tools/call', { name: 'echo', arguments: { text: 'hi' } }, 2));
    expect((await peer.answer(2)).result?.content?.[0]?.text).toBe('echo: hi');

    const [initialize] = await telemetry.waitFor('initialize');
    const [call] = await telemetry.waitFor('tools/call echo');
    expect(initialize.kind).toBe(SpanKind.SERVER);
    expect(initialize.attributes).toMatchObject({
      'mcp.method.name': 'initialize',
      'jsonrpc.request.id': '1',
      'mcp.protocol.version': LEGACY,
    });
    expectPipeOnly(initialize);
    expect(call.kind).toBe(SpanKind.SERVER);
    expect(call.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '2',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': LEGACY,
    });
    // The stdio connection's legacy session is the same for every message of the connection.
    expect(call.attributes['mcp.session.id']).toEqual(expect.any(String));
    expect(initialize.attributes['mcp.session.id']).toBe(call.attributes['mcp.session.id']);
    expectPipeOnly(call);
    // With no caller context and no ambient span, each is the root of its own trace.
    expect(call.parentSpanContext).toBeUndefined();
    expect(initialize.spanContext().traceId).not.toBe(call.spanContext().traceId);
    const [initialized] = await telemetry.waitFor('notifications/initialized');
    expectPipeOnly(initialized);
  });

  it('a modern call with a traceparent in _meta: its span is the child of the given span', async () => {
    peer.send(
      modernRequest('tools/call', { name: 'echo', arguments: { text: 'traced' } }, 'traced-1', {
        traceparent: traceparentOf(CALLER),
      }),
    );
    expect((await peer.answer('traced-1')).result?.content?.[0]?.text).toBe('echo: traced');
    const [call] = await telemetry.waitFor('tools/call echo');
    expect(call.spanContext().traceId).toBe(CALLER.traceId);
    expect(call.parentSpanContext?.spanId).toBe(CALLER.spanId);
    expect(call.parentSpanContext?.isRemote).toBe(true);
    // No HTTP span around a pipe: nothing to link.
    expect(call.links).toEqual([]);
    expect(call.attributes).toMatchObject({
      'mcp.protocol.version': MODERN,
      'jsonrpc.request.id': 'traced-1',
      'gen_ai.tool.name': 'echo',
    });
    expect(call.attributes).not.toHaveProperty(['mcp.session.id']);
    expectPipeOnly(call);
  });

  it("an error answer over the pipe: rpc.response.status_code; a caller's fault, so no error.type nor ERROR", async () => {
    peer.send(modernRequest('tools/call', { name: 'no_such_tool', arguments: {} }, 'missing'));
    const answer = await peer.answer('missing');
    expect(answer.error?.code).toBe(-32602);
    const [call] = await telemetry.waitFor('tools/call');
    expect(call.attributes).toMatchObject({
      'gen_ai.tool.name': 'no_such_tool',
      'rpc.response.status_code': '-32602',
    });
    expect(call.attributes).not.toHaveProperty(['error.type']);
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    expectPipeOnly(call);
  });
});
