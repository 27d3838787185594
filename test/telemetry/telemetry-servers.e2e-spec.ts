/**
 * Who recorded a span or a metric point. With several MCP servers in one application (the
 * public and admin servers of test/fixtures/servers-fixture.ts, sharing one SDK), every span and
 * every metric point of a server carries `nest_mcp.server.name` = its name; with one server,
 * none does. Spans and metrics come from the instrumentation scope `nest-mcp`, with the
 * package's version. Real SDK (in-memory), the v1 client in legacy sessions, raw modern requests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { DataPoint } from '@opentelemetry/sdk-metrics';
import { type HttpApp, startHttpApp } from '../fixtures/http-app';
import { META, modernHeaders, modernRequest, post, waitUntil } from '../fixtures/raw-rpc';
import { ADMIN_TOKEN, twoServersModule } from '../fixtures/servers-fixture';
import { registerOtelGlobals, resetOtelGlobals, TestTelemetry } from '../fixtures/telemetry-sdk';
import { ROUTINGS, startTransportsApp, type TransportsApp } from '../fixtures/transports-fixture';

const SERVER_NAME = 'nest_mcp.server.name';
const TASKS = 'io.modelcontextprotocol/tasks';
/** Well past the default inline window (100 ms): the call is a task by then. */
const PAST_WINDOW_MS = 600;
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** Every metric point collected now, with its instrument's name. */
async function allPoints(telemetry: TestTelemetry): Promise<Array<{ name: string; point: DataPoint<unknown> }>> {
  return [...(await telemetry.metrics())].flatMap(([name, metric]) =>
    (metric.dataPoints as Array<DataPoint<unknown>>).map((point) => ({ name, point })),
  );
}

describe('telemetry with two servers in one application', () => {
  const telemetry = new TestTelemetry();
  let http: HttpApp;
  const clients: Array<{ client: Client; transport: StreamableHTTPClientTransport }> = [];

  const url = (server: string): URL => new URL(`${http.baseUrl}/${server}`);
  const auth = (server: string): Record<string, string> =>
    server === 'admin' ? { authorization: `Bearer ${ADMIN_TOKEN}` } : {};

  /** A v1 client in a legacy session with `server`. */
  async function connect(server: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const client = new Client({ name: 'telemetry-servers', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url(server), { requestInit: { headers: auth(server) } });
    await client.connect(transport);
    clients.push({ client, transport });
    return { client, transport };
  }

  /** A modern request to admin that declares the tasks extension. */
  function adminRpc(method: string, params: Record<string, unknown>, id: string) {
    const name = typeof params.name === 'string' ? params.name : (params.taskId as string | undefined);
    return post(
      url('admin'),
      modernRequest(method, params, id, { [META.clientCapabilities]: { extensions: { [TASKS]: {} } } }),
      { ...modernHeaders(method, name), ...auth('admin') },
    );
  }

  beforeAll(async () => {
    registerOtelGlobals();
    http = await startHttpApp(twoServersModule({ common: { telemetry: telemetry.options } }), { path: 'public' });
  });

  afterAll(async () => {
    for (const { client } of clients) {
      await client.close();
    }
    await http?.close();
    await telemetry.shutdown();
    resetOtelGlobals();
  });

  it("every span and metric point of a server carries its name: calls, sessions, a task's span and duration", async () => {
    const pub = await connect('public');
    const admin = await connect('admin');
    await pub.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    await admin.client.callTool({ name: 'admin_users', arguments: {} });

    const created = await adminRpc(
      'tools/call',
      { name: 'admin_reindex', arguments: { ms: PAST_WINDOW_MS } },
      'reindex',
    );
    const taskId = created.json.result.taskId as string;
    expect(taskId).toEqual(expect.any(String));
    await waitUntil(
      async () => (await adminRpc('tasks/get', { taskId }, 'get')).json.result.status === 'completed',
      'the reindex task to complete',
    );
    await telemetry.waitFor('execute_tool admin_reindex');

    // Both sessions live: the live sessions count one per server.
    const sessions = await telemetry.points('nest_mcp.server.sessions.active');
    expect(sessions.map((point) => [point.attributes[SERVER_NAME], point.value]).sort()).toEqual([
      ['admin', 1],
      ['public', 1],
    ]);
    await pub.transport.terminateSession();
    await admin.transport.terminateSession();

    const spans = telemetry.finished();
    const serverOf = (name: string): unknown[] =>
      spans.filter((span) => span.name === name).map((span) => span.attributes[SERVER_NAME]);
    expect(serverOf('tools/call echo')).toEqual(['public']);
    expect(serverOf('tools/call admin_users')).toEqual(['admin']);
    expect(serverOf('tools/call admin_reindex')).toEqual(['admin']);
    expect(serverOf('execute_tool admin_reindex')).toEqual(['admin']);
    expect(serverOf('initialize').sort()).toEqual(['admin', 'public']);
    expect(spans.filter((span) => !['public', 'admin'].includes(span.attributes[SERVER_NAME] as string))).toEqual([]);

    const points = await allPoints(telemetry);
    const unnamed = points.filter(
      ({ point }) => !['public', 'admin'].includes(point.attributes[SERVER_NAME] as string),
    );
    expect(unnamed).toEqual([]);
    const operationOf = (tool: string): unknown[] =>
      points
        .filter(
          ({ name, point }) =>
            name === 'mcp.server.operation.duration' && point.attributes['gen_ai.tool.name'] === tool,
        )
        .map(({ point }) => point.attributes[SERVER_NAME]);
    expect(operationOf('echo')).toEqual(['public']);
    expect(operationOf('admin_users')).toEqual(['admin']);
    const namesOf = (instrument: string): unknown[] =>
      [
        ...new Set(points.filter(({ name }) => name === instrument).map(({ point }) => point.attributes[SERVER_NAME])),
      ].sort();
    expect(namesOf('mcp.server.session.duration')).toEqual(['admin', 'public']);
    expect(namesOf('nest_mcp.server.task.duration')).toEqual(['admin']);
    for (const instrument of [
      'nest_mcp.server.sessions.active',
      'nest_mcp.server.tasks.active',
      'nest_mcp.server.streams.open',
      'nest_mcp.server.client_requests.pending',
    ]) {
      expect({ instrument, servers: namesOf(instrument) }).toEqual({ instrument, servers: ['admin', 'public'] });
    }
  });
});

describe('telemetry with one server', () => {
  const telemetry = new TestTelemetry();
  let server: TransportsApp;

  beforeAll(async () => {
    server = await startTransportsApp({ telemetry: telemetry.options }, 'express', ROUTINGS[0]);
  });

  afterAll(async () => {
    await server?.close();
    await telemetry.shutdown();
  });

  it('no span or metric point names the server; both come from the scope nest-mcp with the package version', async () => {
    const client = new Client({ name: 'telemetry-servers', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(server.url);
    await client.connect(transport);
    try {
      await client.callTool({ name: 'echo', arguments: { text: 'a' } });
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    const [call] = await telemetry.waitFor('tools/call echo');
    expect(call.instrumentationScope).toMatchObject({ name: 'nest-mcp', version: PACKAGE_VERSION });

    const spans = telemetry.finished();
    expect(spans.length).toBeGreaterThan(1);
    expect(spans.filter((span) => SERVER_NAME in span.attributes)).toEqual([]);
    expect(spans.filter((span) => span.instrumentationScope.version !== PACKAGE_VERSION)).toEqual([]);

    const points = await allPoints(telemetry);
    expect(points.some(({ name }) => name === 'mcp.server.operation.duration')).toBe(true);
    expect(points.filter(({ point }) => SERVER_NAME in point.attributes)).toEqual([]);
    const scopes = await telemetry.meterScopes();
    expect(scopes).toEqual([expect.objectContaining({ name: 'nest-mcp', version: PACKAGE_VERSION })]);
  });
});
