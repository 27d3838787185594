/**
 * The legacy era through the official v1 client (`@modelcontextprotocol/sdk`): the initialize
 * handshake, Mcp-Session-Id sessions and every client operation, against servers that offer
 * different sets of revisions.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitationCompleteNotificationSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { McpNotifier, McpRegistry, type McpRevision } from 'nest-mcp';
import { type HttpApp, startHttpApp } from './fixtures/http-app';
import {
  FIXTURE_SERVER,
  FIXTURE_TOOL_NAMES,
  ProtocolFixtureModule,
  ProtocolProbe,
} from './fixtures/protocol-fixture.module';
import { Collector, legacyRequest, post, recordingFetch } from './fixtures/raw-rpc';

type LogParams = { level: string; logger?: string; data: unknown };

interface RevisionCase {
  label: string;
  revisions: McpRevision[] | undefined;
  negotiated: string;
  serverInfo: Record<string, string>;
  /** Whether the revision has `title` and `outputSchema`/`structuredContent` (2025-06-18+). */
  hasTitlesAndStructuredOutput: boolean;
  /** Whether the revision has tool annotations, progress messages and the completions capability (2025-03-26+). */
  has2025Basics: boolean;
}

const CASES: RevisionCase[] = [
  {
    label: 'a server offering every revision',
    revisions: undefined,
    negotiated: '2025-11-25',
    serverInfo: {
      name: FIXTURE_SERVER.name,
      version: FIXTURE_SERVER.version,
      title: FIXTURE_SERVER.title,
      description: FIXTURE_SERVER.description,
    },
    hasTitlesAndStructuredOutput: true,
    has2025Basics: true,
  },
  {
    label: 'a server offering 2025-06-18 and older',
    revisions: ['2025-06-18', '2025-03-26', '2024-11-05'],
    negotiated: '2025-06-18',
    serverInfo: { name: FIXTURE_SERVER.name, version: FIXTURE_SERVER.version, title: FIXTURE_SERVER.title },
    hasTitlesAndStructuredOutput: true,
    has2025Basics: true,
  },
  {
    label: 'a server offering 2025-03-26 and older',
    revisions: ['2025-03-26', '2024-11-05'],
    negotiated: '2025-03-26',
    serverInfo: { name: FIXTURE_SERVER.name, version: FIXTURE_SERVER.version },
    hasTitlesAndStructuredOutput: false,
    has2025Basics: true,
  },
  {
    label: 'a server offering only 2024-11-05',
    revisions: ['2024-11-05'],
    negotiated: '2024-11-05',
    serverInfo: { name: FIXTURE_SERVER.name, version: FIXTURE_SERVER.version },
    hasTitlesAndStructuredOutput: false,
    has2025Basics: false,
  },
];

describe.each(CASES)('v1 SDK client against $label', (revisionCase) => {
  let server: HttpApp;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  const logs = new Collector<LogParams>();

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot({ revisions: revisionCase.revisions }));
    client = new Client({ name: 'v1-e2e', version: '1.0.0' });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });
    transport = new StreamableHTTPClientTransport(server.url);
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it(`negotiates ${revisionCase.negotiated} and opens a session`, () => {
    expect(transport.protocolVersion).toBe(revisionCase.negotiated);
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
    expect(client.getServerVersion()).toEqual(revisionCase.serverInfo);
    expect(client.getInstructions()).toBe(FIXTURE_SERVER.instructions);
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      ...(revisionCase.has2025Basics ? { completions: {} } : {}),
      // Tasks (the core methods) exist in 2025-11-25 only.
      ...(revisionCase.negotiated === '2025-11-25'
        ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }
        : {}),
    });
  });

  it('answers ping with an empty result', async () => {
    await expect(client.ping()).resolves.toEqual({});
  });

  it('lists the tools, with the fields the revision defines', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...FIXTURE_TOOL_NAMES]);
    const echo = tools.find((tool) => tool.name === 'echo')!;
    const add = tools.find((tool) => tool.name === 'add')!;
    expect(echo.inputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    });
    if (revisionCase.has2025Basics) {
      expect(echo.annotations).toEqual({ readOnlyHint: true });
    } else {
      expect(echo).not.toHaveProperty('annotations');
    }
    if (revisionCase.hasTitlesAndStructuredOutput) {
      expect(echo.title).toBe('Echo');
      expect(add.outputSchema).toEqual({
        type: 'object',
        properties: { sum: { type: 'number' } },
        required: ['sum'],
      });
    } else {
      expect(echo).not.toHaveProperty('title');
      expect(add).not.toHaveProperty('outputSchema');
    }
  });

  it('calls a tool that answers with text', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: hello' }]);
    expect(result.isError).toBeFalsy();
  });

  it(
    revisionCase.hasTitlesAndStructuredOutput
      ? 'calls a tool with an output schema and gets structuredContent'
      : 'calls a tool with an output schema and gets only the JSON text (no structuredContent before 2025-06-18)',
    async () => {
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
      expect(result.content).toEqual([{ type: 'text', text: '{"sum":42}' }]);
      if (revisionCase.hasTitlesAndStructuredOutput) {
        expect(result.structuredContent).toEqual({ sum: 42 });
      } else {
        expect(result).not.toHaveProperty('structuredContent');
      }
    },
  );

  it('answers invalid tool arguments with an isError result', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: 42 } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0].text).toContain('Invalid arguments for tool echo');
  });

  it('answers an unknown tool with a -32602 error', async () => {
    const call = client.callTool({ name: 'no_such_tool', arguments: {} });
    await expect(call).rejects.toBeInstanceOf(McpError);
    await expect(call).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it('lists resources and resource templates', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(['fixture://counter', 'fixture://greeting']);
    const greeting = resources.find((resource) => resource.uri === 'fixture://greeting')!;
    expect(greeting).toMatchObject({ name: 'greeting', description: 'A fixed greeting', mimeType: 'text/plain' });
    if (revisionCase.hasTitlesAndStructuredOutput) {
      expect(greeting.title).toBe('Greeting');
    } else {
      expect(greeting).not.toHaveProperty('title');
    }
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      {
        uriTemplate: 'fixture://items/{id}',
        name: 'item',
        description: 'One item, as JSON',
        mimeType: 'application/json',
      },
    ]);
  });

  it('reads a fixed resource', async () => {
    const result = await client.readResource({ uri: 'fixture://greeting' });
    expect(result.contents).toEqual([
      { uri: 'fixture://greeting', mimeType: 'text/plain', text: 'Hello from the fixture' },
    ]);
  });

  it('reads a resource through a template', async () => {
    const result = await client.readResource({ uri: 'fixture://items/beta' });
    expect(result.contents).toEqual([
      { uri: 'fixture://items/beta', mimeType: 'application/json', text: '{"id":"beta","length":4}' },
    ]);
  });

  it('answers a read of a missing resource with -32002', async () => {
    await expect(client.readResource({ uri: 'fixture://items/omega' })).rejects.toMatchObject({
      code: -32002,
    });
  });

  it('lists prompts and gets one', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({
      name: 'greet',
      description: 'Asks the model to greet someone',
      arguments: [
        { name: 'name', description: 'Who to greet', required: true },
        { name: 'style', description: 'formal or casual', required: false },
      ],
    });
    const result = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada', style: 'formal' } });
    expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Greet Ada in a formal way.' } }]);
    expect(result.description).toBe('Asks the model to greet someone');
  });

  it('completes a prompt argument and a template variable', async () => {
    const style = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'style', value: 'f' },
    });
    expect(style.completion).toMatchObject({ values: ['formal'], hasMore: false });
    const id = await client.complete({
      ref: { type: 'ref/resource', uri: 'fixture://items/{id}' },
      argument: { name: 'id', value: 'al' },
    });
    expect(id.completion).toMatchObject({ values: ['alpha', 'alpine'], total: 2, hasMore: false });
  });

  it('sends log messages at or above the level set with logging/setLevel', async () => {
    await client.setLoggingLevel('warning');
    const before = logs.items.length;
    await expect(client.callTool({ name: 'chatty', arguments: {} })).resolves.toMatchObject({
      content: [{ type: 'text', text: 'logged' }],
    });
    // The warning is the last message the call sends: once it is here, nothing else will come.
    await logs.waitFor(before + 1);
    expect(logs.items.slice(before)).toEqual([{ level: 'warning', logger: 'fixture', data: 'careful' }]);

    await client.setLoggingLevel('debug');
    const mark = logs.items.length;
    await client.callTool({ name: 'chatty', arguments: {} });
    await logs.waitFor(mark + 3);
    expect(logs.items.slice(mark)).toEqual([
      { level: 'debug', logger: 'fixture', data: 'debug detail' },
      { level: 'info', logger: 'fixture', data: { step: 'info' } },
      { level: 'warning', logger: 'fixture', data: 'careful' },
    ]);
  });

  it('reports progress to the onprogress callback, increasing', async () => {
    const progress = new Collector<{ progress: number; total?: number; message?: string }>();
    const result = await client.callTool({ name: 'count_up', arguments: { steps: 4 } }, undefined, {
      onprogress: progress.push,
    });
    expect(result.content).toEqual([{ type: 'text', text: 'counted to 4' }]);
    const seen = await progress.waitFor(4);
    expect(seen).toEqual(
      [1, 2, 3, 4].map((step) =>
        revisionCase.has2025Basics
          ? { progress: step, total: 4, message: `step ${step}` }
          : { progress: step, total: 4 },
      ),
    );
  });

  it('cancels a running call when the request is aborted (notifications/cancelled), aborting the tool', async () => {
    const label = `v1-cancel-${revisionCase.negotiated}`;
    const probe = server.app.get(ProtocolProbe);
    const transportErrors = new Collector<Error>();
    const previousOnError = transport.onerror;
    transport.onerror = (error) => {
      transportErrors.push(error);
      previousOnError?.(error);
    };
    const abort = new AbortController();
    const call = client.callTool({ name: 'block_until_aborted', arguments: { label } }, undefined, {
      signal: abort.signal,
    });
    call.catch(() => undefined);
    await probe.waitFor('started', label);
    abort.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await expect(probe.waitFor('aborted', label)).resolves.toMatchObject({ reason: 'changed my mind' });
    // The session is still usable afterwards.
    await expect(client.ping()).resolves.toEqual({});
    // The ended POST must still be a well-formed answer (SSE or JSON): the client reports no
    // transport error for it.
    transport.onerror = previousOnError;
    expect(transportErrors.items.map((error) => error.message)).toEqual([]);
  });

  it('ends the session with DELETE; the old session id then gets 404', async () => {
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
    const after = await post(server.url, legacyRequest('tools/list', {}, 99), {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': revisionCase.negotiated,
    });
    expect(after.status).toBe(404);
    expect(after.json).toMatchObject({ jsonrpc: '2.0', id: 99, error: { code: expect.any(Number) } });
  });
});

describe('v1 SDK client receives server notifications on its GET stream', () => {
  let server: HttpApp;
  let client: Client;
  const toolLists = new Collector<Tool[]>();
  const updates = new Collector<string>();
  const completed = new Collector<string>();
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot());
    const recording = recordingFetch();
    client = new Client(
      { name: 'v1-e2e', version: '1.0.0' },
      { listChanged: { tools: { debounceMs: 0, onChanged: (_error, tools) => toolLists.push(tools ?? []) } } },
    );
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
      completed.push(notification.params.elicitationId);
    });
    transport = new StreamableHTTPClientTransport(server.url, { fetch: recording.fetch });
    await client.connect(transport);
    // The client opens its standalone stream after the handshake; notifications sent before it
    // is attached would have nowhere to go.
    await recording.exchanges.waitFor(1, (item) => item.method === 'GET' && item.status === 200);
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('refreshes its tool list after a tool is added at runtime', async () => {
    server.app.get(McpRegistry).addTool({
      name: 'added_later',
      description: 'Registered after the client connected',
      handler: () => 'late',
    });
    const [tools] = await toolLists.waitFor(1);
    expect(tools.map((tool) => tool.name)).toContain('added_later');
    await expect(client.callTool({ name: 'added_later', arguments: {} })).resolves.toMatchObject({
      content: [{ type: 'text', text: 'late' }],
    });
  });

  it('gets notifications/resources/updated for a resource it subscribed to', async () => {
    await client.subscribeResource({ uri: 'fixture://counter' });
    await server.app.get(McpNotifier).resourceUpdated('fixture://counter');
    await expect(updates.waitFor(1)).resolves.toEqual(['fixture://counter']);
  });

  it('gets notifications/elicitation/complete for its own session only', async () => {
    const notifier = server.app.get(McpNotifier);
    await notifier.elicitationComplete('not-this-session', 'elicitation-for-someone-else');
    await notifier.elicitationComplete(transport.sessionId!, 'elicitation-42');
    await expect(completed.waitFor(1)).resolves.toEqual(['elicitation-42']);
  });
});
