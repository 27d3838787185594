/**
 * The metrics over Streamable HTTP, read from the real SDK's metric reader: the operation
 * duration histogram (one point per low-cardinality attribute set, counting the calls, in
 * seconds, with `rpc.response.status_code` on an error answer), the legacy session duration
 * recorded when the session is deleted, and the live counts, up-down counters read as
 * non-monotonic sums (live sessions, open standalone and listen streams, questions waiting for
 * the client's answer). Each test has its own server and SDK, so that
 * the cumulative counts are its own. A Fastify smoke checks the same attribute set there, where
 * the Node request is the platform request's `raw`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type ElicitResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { DataPointType, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { ROUTINGS, startTransportsApp, type TransportsApp } from '../fixtures/transports-fixture';
import { modernHeaders, modernRequest, send, SseReader, waitUntil } from '../fixtures/raw-rpc';
import { TestTelemetry } from '../fixtures/telemetry-sdk';
import { connectStreamingClient } from '../fixtures/streaming-client';

const LEGACY = '2025-11-25';
/** What every exchange of these tests runs on: Node's fetch speaks HTTP/1.1 over TCP. */
const HTTP = { 'network.transport': 'tcp', 'network.protocol.name': 'http', 'network.protocol.version': '1.1' };
/** The exact attributes of the point of the `echo` calls: no ids, session or address. */
const ECHO_CALL = {
  'mcp.method.name': 'tools/call',
  'mcp.protocol.version': LEGACY,
  'gen_ai.tool.name': 'echo',
  'gen_ai.operation.name': 'execute_tool',
  ...HTTP,
};

/**
 * The value of a live count for the point whose attributes include `attributes` (0 when there is
 * none). Each is an up-down counter: a sum that is not monotonic, which adds up across instances.
 */
async function count(telemetry: TestTelemetry, name: string, attributes: Record<string, string> = {}): Promise<number> {
  const metric = (await telemetry.metrics()).get(name);
  expect(metric).toMatchObject({ dataPointType: DataPointType.SUM, isMonotonic: false });
  const point = metric!.dataPoints.find((candidate) =>
    Object.entries(attributes).every(([key, value]) => candidate.attributes[key] === value),
  );
  return (point?.value as number | undefined) ?? 0;
}

/** The histogram points of `name` whose `mcp.method.name` is `method`. */
async function histogramPoints(
  telemetry: TestTelemetry,
  name: string,
  method?: string,
): Promise<Array<DataPoint<Histogram>>> {
  const points = (await telemetry.points(name)) as Array<DataPoint<Histogram>>;
  return method === undefined ? points : points.filter((point) => point.attributes['mcp.method.name'] === method);
}

describe('telemetry metrics over Streamable HTTP (express)', () => {
  let telemetry: TestTelemetry;
  let server: TransportsApp;
  const clients: Array<{ client: Client; transport: StreamableHTTPClientTransport }> = [];

  /** A v1 client with a legacy session, once its GET stream is open. */
  async function connect(
    elicit?: (params: Record<string, unknown>) => Promise<ElicitResult>,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const connected = await connectStreamingClient(server.url, 'telemetry-metrics', elicit);
    clients.push(connected);
    return connected;
  }

  beforeEach(async () => {
    telemetry = new TestTelemetry();
    server = await startTransportsApp({ telemetry: telemetry.options }, 'express', ROUTINGS[0]);
  });

  afterEach(async () => {
    for (const { client } of clients.splice(0)) {
      await client.close();
    }
    await server?.close();
    await telemetry.shutdown();
  });

  it('operation duration: one point per method and tool, counting its calls, with the low-cardinality attributes only', async () => {
    const { client } = await connect();
    for (const text of ['a', 'b', 'c']) {
      await client.callTool({ name: 'echo', arguments: { text } });
    }
    await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    await client.readResource({ uri: 'transports://greeting' });

    const metric = (await telemetry.metrics()).get('mcp.server.operation.duration');
    expect(metric?.descriptor.unit).toBe('s');
    const calls = await histogramPoints(telemetry, 'mcp.server.operation.duration', 'tools/call');
    expect(calls).toHaveLength(1);
    // Exactly these: no jsonrpc.request.id, mcp.session.id, client.address or client.port.
    expect(calls[0].attributes).toEqual(ECHO_CALL);
    expect(calls[0].value.count).toBe(3);
    expect(calls[0].value.sum).toBeGreaterThan(0);

    const [prompt] = await histogramPoints(telemetry, 'mcp.server.operation.duration', 'prompts/get');
    expect(prompt.attributes).toEqual({
      'mcp.method.name': 'prompts/get',
      'mcp.protocol.version': LEGACY,
      'gen_ai.prompt.name': 'greet',
      ...HTTP,
    });
    expect(prompt.value.count).toBe(1);
    // The URI is a span attribute only: one point for every resource read.
    const [read] = await histogramPoints(telemetry, 'mcp.server.operation.duration', 'resources/read');
    expect(read.attributes).toEqual({ 'mcp.method.name': 'resources/read', 'mcp.protocol.version': LEGACY, ...HTTP });
    // initialize is recorded with the negotiated version.
    const [initialize] = await histogramPoints(telemetry, 'mcp.server.operation.duration', 'initialize');
    expect(initialize.attributes).toEqual({ 'mcp.method.name': 'initialize', 'mcp.protocol.version': LEGACY, ...HTTP });
    expect(initialize.value.count).toBe(1);
  });

  it("operation duration: an error answer gets its own point with rpc.response.status_code (a caller's fault: no error.type)", async () => {
    const { client } = await connect();
    await client.callTool({ name: 'echo', arguments: { text: 'fine' } });
    const failure: unknown = await client
      .request({ method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }, CallToolResultSchema)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(McpError);
    const code = String((failure as McpError).code);

    const calls = await histogramPoints(telemetry, 'mcp.server.operation.duration', 'tools/call');
    expect(calls).toHaveLength(2);
    // The unknown name is the client's alone: out of the metric, or each guess would be a series.
    const failed = calls.find((point) => point.attributes['rpc.response.status_code'] !== undefined);
    expect(failed?.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': LEGACY,
      'gen_ai.operation.name': 'execute_tool',
      'rpc.response.status_code': code,
      ...HTTP,
    });
    expect(failed?.value.count).toBe(1);
    const fine = calls.find((point) => point.attributes['gen_ai.tool.name'] === 'echo');
    expect(fine?.attributes).not.toHaveProperty(['error.type']);
  });

  it('session duration and live sessions: counted while the session lives, recorded when it is deleted', async () => {
    const { transport } = await connect();
    expect(await count(telemetry, 'nest_mcp.server.sessions.active')).toBe(1);
    expect(await histogramPoints(telemetry, 'mcp.server.session.duration')).toEqual([]);

    await transport.terminateSession();
    expect(await count(telemetry, 'nest_mcp.server.sessions.active')).toBe(0);
    const sessions = await histogramPoints(telemetry, 'mcp.server.session.duration');
    expect(sessions).toHaveLength(1);
    expect(sessions[0].attributes).toEqual({ 'mcp.protocol.version': LEGACY, ...HTTP });
    expect(sessions[0].value.count).toBe(1);
    expect(sessions[0].value.sum).toBeGreaterThan(0);
    const metric = (await telemetry.metrics()).get('mcp.server.session.duration');
    expect(metric?.descriptor.unit).toBe('s');
  });

  it('open streams: the standalone GET stream of a legacy session while it is open', async () => {
    const standalone = { 'nest_mcp.stream.kind': 'standalone' };
    expect(await count(telemetry, 'nest_mcp.server.streams.open', standalone)).toBe(0);
    const { transport } = await connect();
    expect(await count(telemetry, 'nest_mcp.server.streams.open', standalone)).toBe(1);
    expect(await count(telemetry, 'nest_mcp.server.streams.open', { 'nest_mcp.stream.kind': 'listen' })).toBe(0);
    await transport.terminateSession();
    await waitUntil(
      async () => (await count(telemetry, 'nest_mcp.server.streams.open', standalone)) === 0,
      'the standalone stream to close with its session',
    );
  });

  it('open streams: a modern subscriptions/listen while it is open', async () => {
    const listen = { 'nest_mcp.stream.kind': 'listen' };
    const stop = new AbortController();
    const response = await send(server.url, {
      body: modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'listen-1'),
      headers: modernHeaders('subscriptions/listen'),
      signal: stop.signal,
    });
    expect(response.status).toBe(200);
    const reader = new SseReader(response);
    expect((await reader.next()).method).toBe('notifications/subscriptions/acknowledged');
    expect(await count(telemetry, 'nest_mcp.server.streams.open', listen)).toBe(1);
    expect(await count(telemetry, 'nest_mcp.server.streams.open', { 'nest_mcp.stream.kind': 'standalone' })).toBe(0);
    stop.abort();
    await waitUntil(
      async () => (await count(telemetry, 'nest_mcp.server.streams.open', listen)) === 0,
      'the listen stream to close',
    );
  });

  it('pending client requests: a legacy elicitation waiting for its answer, none once answered', async () => {
    let answer: (result: ElicitResult) => void = () => undefined;
    let asked: () => void = () => undefined;
    const question = new Promise<void>((resolve) => (asked = resolve));
    const { client } = await connect(
      () =>
        new Promise<ElicitResult>((resolve) => {
          answer = resolve;
          asked();
        }),
    );
    expect(await count(telemetry, 'nest_mcp.server.client_requests.pending')).toBe(0);
    const call = client.callTool({ name: 'try_elicit', arguments: { label: 'pending' } });
    await question;
    expect(await count(telemetry, 'nest_mcp.server.client_requests.pending')).toBe(1);
    answer({ action: 'accept', content: { name: 'Ada' } });
    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'answered action=accept' }]);
    expect(await count(telemetry, 'nest_mcp.server.client_requests.pending')).toBe(0);
  });
});

describe('telemetry metrics over Streamable HTTP (fastify)', () => {
  const telemetry = new TestTelemetry();
  let server: TransportsApp;

  beforeAll(async () => {
    server = await startTransportsApp({ telemetry: telemetry.options }, 'fastify', ROUTINGS[0]);
  });

  afterAll(async () => {
    await server?.close();
    await telemetry.shutdown();
  });

  it("reads the HTTP version from Fastify's wrapped request: the same attribute set, one point per tool", async () => {
    const client = new Client({ name: 'telemetry-metrics', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(server.url);
    await client.connect(transport);
    try {
      await client.callTool({ name: 'echo', arguments: { text: 'a' } });
      await client.callTool({ name: 'echo', arguments: { text: 'b' } });
      const calls = await histogramPoints(telemetry, 'mcp.server.operation.duration', 'tools/call');
      expect(calls).toHaveLength(1);
      expect(calls[0].attributes).toEqual(ECHO_CALL);
      expect(calls[0].value.count).toBe(2);
      await transport.terminateSession();
      const [session] = await histogramPoints(telemetry, 'mcp.server.session.duration');
      expect(session.attributes).toEqual({ 'mcp.protocol.version': LEGACY, ...HTTP });
    } finally {
      await client.close();
    }
  });
});
