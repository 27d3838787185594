/**
 * The module in an application traced by `@opentelemetry/sdk-node` with the HTTP
 * auto-instrumentation, and no `telemetry` option: it takes the SDK's global providers, and its
 * MCP span relates to the instrumentation's HTTP span as the conventions say. Without a
 * `traceparent` in `params._meta` the MCP span is the HTTP span's child; with one it is the
 * child of the client's span and LINKS the HTTP span (which stays in the trace of the HTTP
 * request's own `traceparent` header, or starts its own).
 *
 * The server runs in a child process (test/fixtures/otel-node-app.ts), as in production: the
 * instrumentation hooks `require('http')`, which Jest's module registry goes around. It writes
 * its finished spans on stdout, which this test reads.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ExportedSpan } from '../fixtures/otel-node-app';
import type { HttpPlatform } from '../fixtures/http-app';
import { modernHeaders, modernRequest, post, toolText, waitUntil } from '../fixtures/raw-rpc';
import { startServerProcess, type ServerProcess } from '../support/server-process';

const ENTRY = 'test/fixtures/otel-node-app.ts';
/** The header the fixture's HTTP spans record, one value per POST of this test. */
const CALL_HEADER = 'x-e2e-call';
const SPAN_KIND_SERVER = 1;
const HTTP_SCOPE = '@opentelemetry/instrumentation-http';

jest.setTimeout(60_000);

/** A made-up remote span: a trace id, a span id, and its `traceparent`. */
function remoteSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

describe.each<HttpPlatform>(['express', 'fastify'])('sdk-node with the HTTP instrumentation (%s)', (platform) => {
  let server: ServerProcess | undefined;
  let nextId = 1;

  beforeAll(async () => {
    server = await startServerProcess(ENTRY, {
      MCP_PLATFORM: platform,
      // What the SDK would otherwise take from the environment the tests run in.
      OTEL_PROPAGATORS: 'tracecontext,baggage',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    });
  });

  afterAll(() => server?.kill());

  /** The spans the server wrote so far. */
  function spans(): ExportedSpan[] {
    return server!
      .output()
      .split('\n')
      .filter((line) => line.startsWith('SPAN '))
      .map((line) => JSON.parse(line.slice('SPAN '.length)) as ExportedSpan);
  }

  /** Waits for the one span `match` finds (spans end once the answer is written). */
  async function spanWhere(what: string, match: (span: ExportedSpan) => boolean): Promise<ExportedSpan> {
    try {
      await waitUntil(() => spans().some(match), what);
    } catch (error) {
      throw new Error(`${String(error)}\n--- server output ---\n${server!.output()}`, { cause: error });
    }
    const found = spans().filter(match);
    expect(found).toHaveLength(1);
    return found[0];
  }

  /** The instrumentation's span of the POST that carried `call` in its header. */
  function httpSpanOf(call: string): Promise<ExportedSpan> {
    return spanWhere(`the HTTP span of ${call}`, (span) => {
      const header = span.attributes[`http.request.header.${CALL_HEADER}`];
      return span.scope === HTTP_SCOPE && Array.isArray(header) && header[0] === call;
    });
  }

  /** The module's span of the JSON-RPC request `id`. */
  function mcpSpanOf(id: number): Promise<ExportedSpan> {
    return spanWhere(`the MCP span of request ${id}`, (span) => {
      return span.scope === 'nest-mcp' && span.attributes['jsonrpc.request.id'] === String(id);
    });
  }

  /** A modern tools/call of echo in its own POST; `_meta` and HTTP headers as given. */
  async function callEcho(
    call: string,
    options: { meta?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ): Promise<{ http: ExportedSpan; mcp: ExportedSpan }> {
    const id = nextId++;
    const answer = await post(
      server!.url,
      modernRequest('tools/call', { name: 'echo', arguments: { text: call }, _meta: options.meta ?? {} }, id),
      { ...modernHeaders('tools/call', 'echo'), [CALL_HEADER]: call, ...options.headers },
    );
    expect(answer.status).toBe(200);
    expect(toolText(answer)).toBe(`echo: ${call}`);
    return { http: await httpSpanOf(call), mcp: await mcpSpanOf(id) };
  }

  it('records the HTTP span of a POST as the instrumentation does: kind SERVER, http.* attributes', async () => {
    const { http } = await callEcho('http-attributes');
    expect(http).toMatchObject({
      name: 'POST',
      kind: SPAN_KIND_SERVER,
      attributes: { 'http.request.method': 'POST', 'url.path': '/mcp', 'http.response.status_code': 200 },
    });
  });

  it('without a traceparent in _meta, makes the MCP span a child of the HTTP span, with no link', async () => {
    const { http, mcp } = await callEcho('no-meta');
    expect(mcp).toMatchObject({
      name: 'tools/call echo',
      kind: SPAN_KIND_SERVER,
      traceId: http.traceId,
      parentSpanId: http.spanId,
      links: [],
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'client.address': '127.0.0.1',
      },
    });
    // The HTTP span is a root: no traceparent header came with the POST.
    expect(http.parentSpanId).toBeUndefined();
  });

  it("with a traceparent in _meta, parents the MCP span on the client's span and links the HTTP span", async () => {
    const client = remoteSpan();
    const { http, mcp } = await callEcho('meta-only', { meta: { traceparent: client.traceparent } });
    expect(mcp).toMatchObject({
      name: 'tools/call echo',
      traceId: client.traceId,
      parentSpanId: client.spanId,
      links: [{ traceId: http.traceId, spanId: http.spanId }],
    });
    // Without a traceparent header the HTTP span starts a trace of its own.
    expect(http.traceId).not.toBe(client.traceId);
    expect(http.parentSpanId).toBeUndefined();
  });

  it("keeps the HTTP span in the trace of the POST's traceparent header, and the MCP span in the _meta one", async () => {
    const client = remoteSpan();
    const proxy = remoteSpan();
    const { http, mcp } = await callEcho('meta-and-header', {
      meta: { traceparent: client.traceparent },
      headers: { traceparent: proxy.traceparent },
    });
    expect(http).toMatchObject({ traceId: proxy.traceId, parentSpanId: proxy.spanId });
    expect(mcp).toMatchObject({
      traceId: client.traceId,
      parentSpanId: client.spanId,
      links: [{ traceId: proxy.traceId, spanId: http.spanId }],
    });
  });

  it('relates the spans the same way for an SDK v1 client in a legacy session', async () => {
    const client = remoteSpan();
    const sdk = new Client({ name: 'otel-e2e-v1', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(server!.url, {
      requestInit: { headers: { [CALL_HEADER]: 'v1' } },
    });
    await sdk.connect(transport);
    try {
      const result = await sdk.callTool({
        name: 'echo',
        arguments: { text: 'v1' },
        _meta: { traceparent: client.traceparent },
      });
      expect(result.content).toEqual([{ type: 'text', text: 'echo: v1' }]);
      const mcp = await spanWhere('the v1 MCP span', (span) => span.traceId === client.traceId);
      expect(mcp).toMatchObject({
        name: 'tools/call echo',
        parentSpanId: client.spanId,
        attributes: { 'mcp.method.name': 'tools/call', 'mcp.session.id': transport.sessionId },
      });
      expect(mcp.links).toHaveLength(1);
      // The linked span is the instrumentation's span of one of the client's POSTs.
      const linked = await spanWhere('the linked HTTP span', (span) => span.spanId === mcp.links[0].spanId);
      expect(linked).toMatchObject({
        scope: HTTP_SCOPE,
        kind: SPAN_KIND_SERVER,
        traceId: mcp.links[0].traceId,
        attributes: { 'http.request.method': 'POST', [`http.request.header.${CALL_HEADER}`]: ['v1'] },
      });
    } finally {
      await sdk.close();
    }
  });
});
