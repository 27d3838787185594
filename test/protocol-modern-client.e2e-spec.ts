/**
 * The modern era (2026-07-28) through the official v2 client (`@modelcontextprotocol/client`):
 * `server/discover` instead of a handshake, the per-request `_meta` envelope and the Mcp-*
 * headers. A recording fetch shows what the client strips from results (resultType) and which
 * headers it sent.
 */
import {
  Client,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  SERVER_INFO_META_KEY,
  StreamableHTTPClientTransport,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { type HttpApp, startHttpApp } from './fixtures/http-app';
import { FIXTURE_SERVER, FIXTURE_TOOL_NAMES, ProtocolFixtureModule } from './fixtures/protocol-fixture.module';
import {
  Collector,
  META,
  MODERN_REVISION,
  type RecordedExchange,
  recordedRequest,
  recordedResponse,
  recordingFetch,
} from './fixtures/raw-rpc';

const SERVER_INFO = {
  name: FIXTURE_SERVER.name,
  version: FIXTURE_SERVER.version,
  title: FIXTURE_SERVER.title,
  description: FIXTURE_SERVER.description,
};

type LogParams = { level: string; logger?: string; data: unknown };

const MODES: Array<{ label: string; mode: VersionNegotiationMode }> = [
  { label: "pinned to '2026-07-28'", mode: { pin: MODERN_REVISION } },
  { label: "in 'auto' mode", mode: 'auto' },
];

describe.each(MODES)('v2 client $label against a server offering every revision', ({ mode }) => {
  let server: HttpApp;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  let exchanges: Collector<RecordedExchange>;
  const logs = new Collector<LogParams>();

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot());
    const recording = recordingFetch();
    exchanges = recording.exchanges;
    client = new Client({ name: 'v2-e2e', version: '2.0.0' }, { versionNegotiation: { mode } });
    client.setNotificationHandler('notifications/message', (notification) => {
      logs.push(notification.params);
    });
    transport = new StreamableHTTPClientTransport(server.url, { fetch: recording.fetch });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  /** The headers the client sent with its last request of `method`. */
  const sentHeaders = (method: string): Record<string, string> =>
    Object.fromEntries(recordedRequest(exchanges, method).requestHeaders);

  it('connects in the modern era at 2026-07-28, through server/discover and without a session', () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_REVISION);
    expect(client.getServerVersion()).toEqual(SERVER_INFO);
    expect(client.getInstructions()).toBe(FIXTURE_SERVER.instructions);
    expect(transport.sessionId).toBeUndefined();
    expect(exchanges.items.map((item) => item.request?.method)).not.toContain('initialize');
    expect(exchanges.items.every((item) => item.responseHeaders.get('mcp-session-id') === null)).toBe(true);
  });

  it('reads the server/discover result: versions, capabilities and cache hints', async () => {
    const discover = client.getDiscoverResult()!;
    expect(discover.supportedVersions).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    expect(discover.capabilities).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    });
    const raw = await recordedResponse(exchanges, 'server/discover');
    expect(raw.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 60000,
      cacheScope: 'public',
      _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO },
    });
    expect(sentHeaders('server/discover')).toMatchObject({
      'mcp-protocol-version': MODERN_REVISION,
      'mcp-method': 'server/discover',
    });
  });

  it('lists tools; the wire result carries resultType, cache hints and serverInfo', async () => {
    const { tools } = await client.listTools(undefined, { cacheMode: 'bypass' });
    expect(tools.map((tool) => tool.name)).toEqual([...FIXTURE_TOOL_NAMES]);
    const echo = tools.find((tool) => tool.name === 'echo')!;
    expect(echo).toMatchObject({ title: 'Echo', annotations: { readOnlyHint: true } });
    expect(tools.find((tool) => tool.name === 'add')!.outputSchema).toEqual({
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
    });
    const raw = await recordedResponse(exchanges, 'tools/list');
    expect(raw.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 60000,
      cacheScope: 'private',
      _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO },
    });
    expect(sentHeaders('tools/list')).toMatchObject({
      'mcp-protocol-version': MODERN_REVISION,
      'mcp-method': 'tools/list',
    });
  });

  it('calls a tool that answers with text; the result is complete and not cacheable', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: 'modern' } });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: modern' }]);
    const exchange = recordedRequest(exchanges, 'tools/call');
    expect(exchange.status).toBe(200);
    expect(exchange.request.params._meta).toMatchObject({
      [META.protocolVersion]: MODERN_REVISION,
      [META.clientCapabilities]: {},
    });
    expect(sentHeaders('tools/call')).toMatchObject({ 'mcp-method': 'tools/call', 'mcp-name': 'echo' });
    const raw = await recordedResponse(exchanges, 'tools/call');
    expect(raw.result).toMatchObject({ resultType: 'complete', _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO } });
    expect(raw.result).not.toHaveProperty('ttlMs');
    expect(raw.result).not.toHaveProperty('cacheScope');
  });

  it('mirrors x-mcp-header arguments into Mcp-Param-* headers the server accepts (non-ASCII as base64)', async () => {
    await client.listTools(undefined, { cacheMode: 'refresh' });
    const result = await client.callTool({ name: 'locate', arguments: { region: 'Zürich', floor: 7, note: 'n' } });
    expect(result.content).toEqual([{ type: 'text', text: 'region=Zürich floor=7' }]);
    const headers = sentHeaders('tools/call');
    expect(headers['mcp-param-floor']).toBe('7');
    expect(headers['mcp-param-region']).toBe(`=?base64?${Buffer.from('Zürich', 'utf8').toString('base64')}?=`);
    expect(recordedRequest(exchanges, 'tools/call').status).toBe(200);
  });

  it('calls a tool with an output schema and gets structuredContent', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    expect(result.structuredContent).toEqual({ sum: 42 });
    expect(result.content).toEqual([{ type: 'text', text: '{"sum":42}' }]);
  });

  it('answers invalid tool arguments with an isError result', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: ['not', 'a', 'string'] } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('Invalid arguments for tool echo');
  });

  it('answers an unknown tool with -32602 and HTTP 400', async () => {
    const call = client.callTool({ name: 'no_such_tool', arguments: {} });
    await expect(call).rejects.toBeInstanceOf(ProtocolError);
    await expect(call).rejects.toMatchObject({ code: -32602 });
    expect(recordedRequest(exchanges, 'tools/call').status).toBe(400);
  });

  it('lists resources and templates, with cache hints on the wire', async () => {
    const { resources } = await client.listResources(undefined, { cacheMode: 'bypass' });
    expect(resources.map((resource) => resource.uri)).toEqual(['fixture://counter', 'fixture://greeting']);
    expect((await recordedResponse(exchanges, 'resources/list')).result).toMatchObject({
      resultType: 'complete',
      ttlMs: 60000,
      cacheScope: 'private',
    });
    const { resourceTemplates } = await client.listResourceTemplates(undefined, { cacheMode: 'bypass' });
    expect(resourceTemplates).toEqual([
      {
        uriTemplate: 'fixture://items/{id}',
        name: 'item',
        description: 'One item, as JSON',
        mimeType: 'application/json',
      },
    ]);
    expect((await recordedResponse(exchanges, 'resources/templates/list')).result).toMatchObject({
      resultType: 'complete',
      ttlMs: 60000,
      cacheScope: 'private',
    });
  });

  it('reads a fixed resource and a templated one, with cache hints and Mcp-Name', async () => {
    const fixed = await client.readResource({ uri: 'fixture://greeting' }, { cacheMode: 'bypass' });
    expect(fixed.contents).toEqual([
      { uri: 'fixture://greeting', mimeType: 'text/plain', text: 'Hello from the fixture' },
    ]);
    expect((await recordedResponse(exchanges, 'resources/read')).result).toMatchObject({
      resultType: 'complete',
      ttlMs: 60000,
      cacheScope: 'private',
    });
    const templated = await client.readResource({ uri: 'fixture://items/gamma' }, { cacheMode: 'bypass' });
    expect(templated.contents).toEqual([
      { uri: 'fixture://items/gamma', mimeType: 'application/json', text: '{"id":"gamma","length":5}' },
    ]);
    expect(sentHeaders('resources/read')).toMatchObject({
      'mcp-method': 'resources/read',
      'mcp-name': 'fixture://items/gamma',
    });
  });

  it('reads a resource whose URI is not header-safe (Mcp-Name sent as base64)', async () => {
    const result = await client.readResource({ uri: 'fixture://items/über' }, { cacheMode: 'bypass' });
    expect(result.contents).toEqual([
      { uri: 'fixture://items/über', mimeType: 'application/json', text: '{"id":"über","length":4}' },
    ]);
    expect(sentHeaders('resources/read')['mcp-name']).toBe(
      `=?base64?${Buffer.from('fixture://items/über', 'utf8').toString('base64')}?=`,
    );
  });

  it('answers a read of a missing resource with -32602 carrying the uri', async () => {
    await expect(client.readResource({ uri: 'fixture://items/omega' }, { cacheMode: 'bypass' })).rejects.toMatchObject({
      code: -32602,
      data: { uri: 'fixture://items/omega' },
    });
    expect(recordedRequest(exchanges, 'resources/read').status).toBe(400);
  });

  it('lists prompts and gets one', async () => {
    const { prompts } = await client.listPrompts(undefined, { cacheMode: 'bypass' });
    expect(prompts).toEqual([
      expect.objectContaining({
        name: 'greet',
        title: 'Greet someone',
        arguments: [
          { name: 'name', description: 'Who to greet', required: true },
          { name: 'style', description: 'formal or casual', required: false },
        ],
      }),
    ]);
    expect((await recordedResponse(exchanges, 'prompts/list')).result).toMatchObject({
      resultType: 'complete',
      ttlMs: 60000,
      cacheScope: 'private',
    });
    const result = await client.getPrompt({ name: 'greet', arguments: { name: 'Grace' } });
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Greet Grace in a casual way.' } },
    ]);
    expect(sentHeaders('prompts/get')).toMatchObject({ 'mcp-method': 'prompts/get', 'mcp-name': 'greet' });
    expect((await recordedResponse(exchanges, 'prompts/get')).result).toMatchObject({ resultType: 'complete' });
  });

  it('completes a prompt argument and a template variable', async () => {
    const style = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'style', value: 'c' },
    });
    expect(style.completion).toMatchObject({ values: ['casual'], hasMore: false });
    const id = await client.complete({
      ref: { type: 'ref/resource', uri: 'fixture://items/{id}' },
      argument: { name: 'id', value: 'g' },
    });
    expect(id.completion).toMatchObject({ values: ['gamma'], total: 1, hasMore: false });
    expect((await recordedResponse(exchanges, 'completion/complete')).result).toMatchObject({
      resultType: 'complete',
    });
  });

  it('sends log messages only at or above the level the request asked for in _meta', async () => {
    const before = logs.items.length;
    const result = await client.callTool({
      name: 'chatty',
      arguments: {},
      _meta: { [LOG_LEVEL_META_KEY]: 'info' },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'logged' }]);
    // The warning is the last message the call sends: once it is here, nothing else will come.
    await logs.waitFor(before + 2);
    expect(logs.items.slice(before)).toEqual([
      { level: 'info', logger: 'fixture', data: { step: 'info' } },
      { level: 'warning', logger: 'fixture', data: 'careful' },
    ]);
    expect(recordedRequest(exchanges, 'tools/call').responseHeaders.get('content-type')).toContain('text/event-stream');
  });

  it('sends no log messages to a request without a log level (plain JSON answer)', async () => {
    const before = logs.items.length;
    await client.callTool({ name: 'chatty', arguments: {} });
    const exchange = recordedRequest(exchanges, 'tools/call');
    expect(exchange.responseHeaders.get('content-type')).toContain('application/json');
    expect(JSON.parse(await exchange.responseText)).toMatchObject({ result: { content: [{ text: 'logged' }] } });
    expect(logs.items.length).toBe(before);
  });

  it('reports progress to the onprogress callback, increasing, on the request stream', async () => {
    const progress = new Collector<{ progress: number; total?: number; message?: string }>();
    const result = await client.callTool({ name: 'count_up', arguments: { steps: 3 } }, { onprogress: progress.push });
    expect(result.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
    const seen = await progress.waitFor(3);
    expect(seen).toEqual([1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}` })));
    expect(recordedRequest(exchanges, 'tools/call').responseHeaders.get('content-type')).toContain('text/event-stream');
  });
});

describe('v2 client against a server offering only legacy revisions', () => {
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot({ revisions: ['2025-11-25', '2025-06-18'] }));
  });

  afterAll(async () => {
    await server?.close();
  });

  it("in 'auto' mode falls back to the initialize handshake after -32022", async () => {
    const recording = recordingFetch();
    const client = new Client({ name: 'v2-e2e', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    const transport = new StreamableHTTPClientTransport(server.url, { fetch: recording.fetch });
    try {
      await client.connect(transport);
      expect(client.getProtocolEra()).toBe('legacy');
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      expect(transport.sessionId).toBeDefined();
      const probe = recordedRequest(recording.exchanges, 'server/discover');
      expect(probe.status).toBe(400);
      expect(JSON.parse(await probe.responseText)).toMatchObject({
        error: { code: -32022, data: { requested: MODERN_REVISION } },
      });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('echo');
    } finally {
      await client.close();
    }
  });

  it('pinned to 2026-07-28 refuses to connect', async () => {
    const client = new Client(
      { name: 'v2-e2e', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    const transport = new StreamableHTTPClientTransport(server.url);
    try {
      await expect(client.connect(transport)).rejects.toThrow(/2026-07-28/);
      expect(client.getProtocolEra()).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
