/**
 * `ctx.elicit()`, `ctx.sample()` and `ctx.listRoots()` in the legacy era, through the official v1
 * client (`@modelcontextprotocol/sdk`): each question is a real JSON-RPC request on the call's
 * SSE stream, answered by the client's request handlers (a JSON-RPC response POSTed on the
 * session). Covers answers, error answers, timeouts, cancellation, the session's end, URL-mode
 * elicitation and the refusals for undeclared capabilities.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ElicitRequestSchema,
  type ElicitResult,
  ListRootsRequestSchema,
  McpError,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpRevision } from 'nest-mcp';
import {
  acceptElicitation,
  echoSample,
  type InputApp,
  NAME_QUESTION,
  resultText,
  type SeenRequest,
  startInputApp,
} from './fixtures/client-requests-fixture';
import { Collector, parseSse, type RecordedExchange, recordingFetch, type RpcMessage } from './fixtures/raw-rpc';

/**
 * A v1 client that declares `capabilities` and answers every question the fixture asks: an
 * elicitation whose message names a label starting with `refuse` is answered with a JSON-RPC
 * error, one whose label starts with `hang` is never answered (until `release()`).
 */
class AnsweringClient {
  readonly seen = new Collector<SeenRequest>();
  readonly exchanges: Collector<RecordedExchange>;
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  private readonly hanging: Array<(result: ElicitResult) => void> = [];

  constructor(url: URL, capabilities: ClientCapabilities) {
    const recording = recordingFetch();
    this.exchanges = recording.exchanges;
    this.client = new Client({ name: 'v1-asks-e2e', version: '1.0.0' }, { capabilities });
    this.transport = new StreamableHTTPClientTransport(url, { fetch: recording.fetch });
    if (capabilities.elicitation !== undefined) {
      this.client.setRequestHandler(ElicitRequestSchema, (request) => {
        const params = request.params as Record<string, any>;
        this.seen.push({ method: request.method, params });
        const message = String(params.message);
        if (message.startsWith('Guarded question refuse')) {
          throw new McpError(-32001, 'The user refused');
        }
        if (message.startsWith('Guarded question hang')) {
          return new Promise<ElicitResult>((resolve) => this.hanging.push(resolve));
        }
        return acceptElicitation(params);
      });
    }
    if (capabilities.sampling !== undefined) {
      this.client.setRequestHandler(CreateMessageRequestSchema, (request): CreateMessageResult => {
        this.seen.push({ method: request.method, params: request.params as Record<string, any> });
        return echoSample(request.params);
      });
    }
    if (capabilities.roots !== undefined) {
      this.client.setRequestHandler(ListRootsRequestSchema, (request) => {
        this.seen.push({ method: request.method, params: (request.params ?? {}) as Record<string, any> });
        return {
          roots: [
            { uri: 'file:///work', name: 'work' },
            { uri: 'file:///home', name: 'home' },
          ],
        };
      });
    }
  }

  connect(): Promise<void> {
    return this.client.connect(this.transport);
  }

  /** Answers every question left hanging (so that nothing outlives the test). */
  release(): void {
    this.hanging.splice(0).forEach((resolve) => resolve({ action: 'cancel' }));
  }

  async close(): Promise<void> {
    this.release();
    await this.client.close();
  }

  /** The server-to-client requests the last `tools/call` exchange carried on its SSE stream. */
  async wireRequests(): Promise<RpcMessage[]> {
    const exchange = [...this.exchanges.items].reverse().find((item) => item.request?.method === 'tools/call');
    const text = (await exchange?.responseText) ?? '';
    return parseSse(text).filter((message) => message.method !== undefined && message.id !== undefined);
  }
}

const ALL_CAPABILITIES: ClientCapabilities = { elicitation: {}, sampling: {}, roots: { listChanged: true } };

const CASES: Array<{ revision: McpRevision; revisions: McpRevision[] | undefined }> = [
  { revision: '2025-11-25', revisions: undefined },
  { revision: '2025-06-18', revisions: ['2025-06-18', '2025-03-26', '2024-11-05'] },
];

describe.each(CASES)('v1 client at $revision asked for input by the server', ({ revision, revisions }) => {
  let server: InputApp;
  let asker: AnsweringClient;

  beforeAll(async () => {
    server = await startInputApp({ revisions });
    asker = new AnsweringClient(server.url, ALL_CAPABILITIES);
    await asker.connect();
  });

  afterAll(async () => {
    await asker?.close();
    await server?.close();
  });

  it(`negotiates ${revision}`, () => {
    expect(asker.transport.protocolVersion).toBe(revision);
  });

  it('elicits: the tool gets the answer of the client handler, the question travels on the call stream', async () => {
    const result = await asker.client.callTool({ name: 'ask_name', arguments: { label: `name-${revision}` } });
    expect(resultText(result)).toBe('action=accept name=Ada');
    const seen = asker.seen.items.filter((item) => item.method === 'elicitation/create').at(-1)!;
    expect(seen.params).toMatchObject({
      message: NAME_QUESTION.message,
      requestedSchema: NAME_QUESTION.requestedSchema,
    });
    // The legacy era runs the handler once: the question waits for its answer.
    expect(server.probe.runs(`name-${revision}`)).toBe(1);
    const [wire] = await asker.wireRequests();
    expect(wire).toMatchObject({ jsonrpc: '2.0', method: 'elicitation/create' });
    expect(typeof wire.id === 'number' || typeof wire.id === 'string').toBe(true);
    // `mode` exists from 2025-11-25 on; older revisions get the question without it.
    if (revision === '2025-11-25') {
      expect(wire.params).toMatchObject({ mode: 'form' });
    } else {
      expect(wire.params).not.toHaveProperty('mode');
    }
  });

  it('samples: the tool gets the model answer of the client handler', async () => {
    const result = await asker.client.callTool({ name: 'ask_model', arguments: { prompt: 'hello' } });
    expect(resultText(result)).toBe('model=test-model role=assistant text=echo: hello');
    const seen = asker.seen.items.filter((item) => item.method === 'sampling/createMessage').at(-1)!;
    expect(seen.params).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
      maxTokens: 50,
    });
  });

  it("lists the client's roots", async () => {
    const result = await asker.client.callTool({ name: 'ask_roots', arguments: {} });
    expect(resultText(result)).toBe('roots=work@file:///work,home@file:///home');
  });

  it('asks three questions at once (Promise.all): three requests, answered independently', async () => {
    const before = asker.seen.items.length;
    const result = await asker.client.callTool({ name: 'ask_together', arguments: { label: `together-${revision}` } });
    expect(resultText(result)).toBe('echo: Greet Ada (2 roots)');
    expect(
      asker.seen.items
        .slice(before)
        .map((item) => item.method)
        .sort(),
    ).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
    const wire = await asker.wireRequests();
    expect(new Set(wire.map((message) => message.id)).size).toBe(3);
    expect(server.probe.runs(`together-${revision}`)).toBe(1);
  });

  it('asks sequential questions in one run of the handler', async () => {
    const result = await asker.client.callTool({ name: 'ask_sequence', arguments: { label: `seq-${revision}` } });
    expect(resultText(result)).toBe('Ada likes teal');
    expect(server.probe.runs(`seq-${revision}`)).toBe(1);
    const wire = await asker.wireRequests();
    expect(wire.map((message) => message.params?.message)).toEqual(['Step 1: your name?', 'Step 2: Ada, your color?']);
  });

  it('gives the handler a ctx.state of its own call', async () => {
    const result = await asker.client.callTool({ name: 'keep_state', arguments: { label: `state-${revision}` } });
    expect(JSON.parse(resultText(result))).toEqual({
      state: { trail: [1], startedIn: 'run-1', first: 'v' },
      second: 'v',
    });
  });

  it('asks from a prompt and from a resource template', async () => {
    const prompt = await asker.client.getPrompt({ name: 'ask_style', arguments: { topic: 'rain' } });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Write about rain in a haiku style.' } },
    ]);
    const resource = await asker.client.readResource({ uri: 'ask://roots/legacy' });
    expect(resource.contents).toEqual([
      {
        uri: 'ask://roots/legacy',
        mimeType: 'application/json',
        text: JSON.stringify({ label: 'legacy', roots: ['file:///work', 'file:///home'] }),
      },
    ]);
  });

  it('rejects ctx.elicit() with the JSON-RPC error the client answered', async () => {
    const label = `refuse-${revision}`;
    const result = await asker.client.callTool({ name: 'ask_guarded', arguments: { label } });
    expect(resultText(result)).toBe('rejected code=-32001 message=MCP error -32001: The user refused');
    await expect(server.probe.outcome(label)).resolves.toEqual({
      label,
      type: 'rejected',
      code: -32001,
      message: 'MCP error -32001: The user refused',
    });
  });

  it('rejects ctx.elicit() after the per-question timeoutMs when the client never answers', async () => {
    const label = `hang-timeout-${revision}`;
    const result = await asker.client.callTool({ name: 'ask_guarded', arguments: { label, timeoutMs: 200 } });
    expect(resultText(result)).toBe(
      'rejected code=-32603 message=The client did not answer elicitation/create within 200 ms',
    );
  });

  it('rejects ctx.elicit() when the client cancels the call', async () => {
    const label = `hang-cancel-${revision}`;
    const abort = new AbortController();
    const call = asker.client.callTool({ name: 'ask_guarded', arguments: { label } }, undefined, {
      signal: abort.signal,
    });
    call.catch(() => undefined);
    await asker.seen.waitFor(1, (item) => item.params.message === `Guarded question ${label}`);
    abort.abort('changed my mind');
    await expect(call).rejects.toThrow();
    // The client's cancellation reason is the reason the question fails with.
    await expect(server.probe.outcome(label)).resolves.toEqual({
      label,
      type: 'rejected',
      code: -32603,
      message: 'changed my mind',
    });
  });

  it('answers a tool that needs URL flows first with -32042 and data.elicitations', async () => {
    const call = asker.client.callTool({ name: 'need_sign_in', arguments: {} });
    await expect(call).rejects.toBeInstanceOf(UrlElicitationRequiredError);
    const error = (await call.catch((caught: unknown) => caught)) as UrlElicitationRequiredError;
    expect(error.code).toBe(-32042);
    expect(error.data).toEqual({
      elicitations: [
        { mode: 'url', elicitationId: 'sign-in-1', url: 'https://example.com/sign-in', message: 'Sign in to Example' },
        {
          mode: 'url',
          elicitationId: expect.stringMatching(/^[\w-]{16,}$/),
          url: 'https://example.com/terms',
          message: 'Accept the terms',
        },
      ],
    });
  });
});

describe('v1 client at 2025-11-25: session end, URL mode, capability refusals', () => {
  let server: InputApp;

  beforeAll(async () => {
    server = await startInputApp();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('rejects ctx.elicit() when the session ends (DELETE) while the tool waits for the answer', async () => {
    const asker = new AnsweringClient(server.url, ALL_CAPABILITIES);
    await asker.connect();
    try {
      const label = 'hang-delete';
      const call = asker.client.callTool({ name: 'ask_guarded', arguments: { label } });
      call.catch(() => undefined);
      await asker.seen.waitFor(1, (item) => item.params.message === `Guarded question ${label}`);
      expect(server.probe.outcomes.find((outcome) => outcome.label === label)).toBeUndefined();
      await asker.transport.terminateSession();
      await expect(server.probe.outcome(label)).resolves.toEqual({
        label,
        type: 'rejected',
        code: -32603,
        message: 'Session ended',
      });
    } finally {
      await asker.close();
    }
  });

  it('elicits in URL mode from a client that declares elicitation.url', async () => {
    const asker = new AnsweringClient(server.url, { elicitation: { form: {}, url: {} } });
    await asker.connect();
    try {
      const result = await asker.client.callTool({ name: 'ask_url', arguments: { url: 'https://example.com/flow' } });
      expect(resultText(result)).toBe('action=accept');
      expect(asker.seen.items).toEqual([
        {
          method: 'elicitation/create',
          params: {
            mode: 'url',
            message: 'Please sign in',
            url: 'https://example.com/flow',
            elicitationId: expect.stringMatching(/^[\w-]{16,}$/),
          },
        },
      ]);
      // Form mode still works for a client that declares both modes.
      const form = await asker.client.callTool({ name: 'ask_name', arguments: {} });
      expect(resultText(form)).toBe('action=accept name=Ada');
    } finally {
      await asker.close();
    }
  });

  // A legacy refusal travels as a JSON-RPC error in a 200: the v1 transport reads any other
  // status as a transport failure and would lose the code and data.
  it('refuses questions the client did not declare with -32021 and data.requiredCapabilities', async () => {
    const asker = new AnsweringClient(server.url, {});
    await asker.connect();
    try {
      const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
        ['ask_name', {}, { elicitation: {} }],
        ['ask_model', { prompt: 'x' }, { sampling: {} }],
        ['ask_roots', {}, { roots: {} }],
        ['ask_url', { url: 'https://example.com' }, { elicitation: { url: {} } }],
      ];
      for (const [name, args, requiredCapabilities] of cases) {
        const call = asker.client.callTool({ name, arguments: args });
        await expect(call).rejects.toBeInstanceOf(McpError);
        await expect(call).rejects.toMatchObject({ code: -32021, data: { requiredCapabilities } });
      }
      expect(asker.seen.items).toEqual([]);
    } finally {
      await asker.close();
    }
  });

  it('refuses URL mode to a form-only client, and tools in sampling without sampling.tools', async () => {
    const asker = new AnsweringClient(server.url, { elicitation: {}, sampling: {} });
    await asker.connect();
    try {
      const url = asker.client.callTool({ name: 'ask_url', arguments: { url: 'https://example.com' } });
      await expect(url).rejects.toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { elicitation: { url: {} } } },
      });
      const tools = asker.client.callTool({ name: 'ask_model', arguments: { prompt: 'x', withTools: true } });
      await expect(tools).rejects.toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { sampling: { tools: {} } } },
      });
      expect(asker.seen.items).toEqual([]);
    } finally {
      await asker.close();
    }
  });

  it('samples with tools for a client that declares sampling.tools', async () => {
    const asker = new AnsweringClient(server.url, { sampling: { tools: {} } });
    await asker.connect();
    try {
      const result = await asker.client.callTool({
        name: 'ask_model',
        arguments: { prompt: 'use a tool', withTools: true },
      });
      expect(resultText(result)).toBe('model=test-model role=assistant text=echo: use a tool');
      expect(asker.seen.items[0].params).toMatchObject({
        tools: [{ name: 'lookup', inputSchema: { type: 'object', properties: {} } }],
        toolChoice: { mode: 'auto' },
      });
    } finally {
      await asker.close();
    }
  });
});

describe('v1 client against a server with clientRequestTimeoutMs: 300', () => {
  let server: InputApp;
  let asker: AnsweringClient;

  beforeAll(async () => {
    server = await startInputApp({ clientRequestTimeoutMs: 300 });
    asker = new AnsweringClient(server.url, ALL_CAPABILITIES);
    await asker.connect();
  });

  afterAll(async () => {
    await asker?.close();
    await server?.close();
  });

  it('rejects ctx.elicit() once the module timeout passes without an answer', async () => {
    const label = 'hang-module-timeout';
    const result = await asker.client.callTool({ name: 'ask_guarded', arguments: { label } });
    expect(resultText(result)).toBe(
      'rejected code=-32603 message=The client did not answer elicitation/create within 300 ms',
    );
    expect(asker.seen.items.filter((item) => item.params.message === `Guarded question ${label}`)).toHaveLength(1);
  });

  it('still resolves questions the client answers in time', async () => {
    const result = await asker.client.callTool({ name: 'ask_guarded', arguments: { label: 'prompt-answer' } });
    expect(resultText(result)).toBe('answered action=accept name=Ada');
  });
});

describe('v1 client against a server with maxPendingQuestions: 2', () => {
  const REFUSAL =
    'Too many questions waiting for the client in this session: at most 2 (McpModule option maxPendingQuestions)';
  let server: InputApp;

  beforeAll(async () => {
    server = await startInputApp({ maxPendingQuestions: 2 });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('fails a question past the bound of its session at once; another session still asks, an answer makes room', async () => {
    const asker = new AnsweringClient(server.url, ALL_CAPABILITIES);
    const other = new AnsweringClient(server.url, ALL_CAPABILITIES);
    await Promise.all([asker.connect(), other.connect()]);
    const hung = (item: SeenRequest) => String(item.params.message).startsWith('Guarded question hang');
    try {
      const parked = ['hang-1', 'hang-2'].map((label) =>
        asker.client.callTool({ name: 'ask_guarded', arguments: { label } }),
      );
      for (const call of parked) {
        call.catch(() => undefined);
      }
      await asker.seen.waitFor(2, hung);

      // Its call is answered, not parked: the client never hears the question.
      const refused = await asker.client.callTool({ name: 'ask_guarded', arguments: { label: 'hang-3' } });
      expect(resultText(refused)).toBe(`rejected code=-32603 message=${REFUSAL}`);
      // A tool that lets the error through ends with it.
      await expect(asker.client.callTool({ name: 'ask_name', arguments: {} })).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining(REFUSAL),
      });
      expect(asker.seen.items.filter(hung)).toHaveLength(2);
      expect(asker.seen.items).toHaveLength(2);

      const elsewhere = await other.client.callTool({ name: 'ask_guarded', arguments: { label: 'other' } });
      expect(resultText(elsewhere)).toBe('answered action=accept name=Ada');

      asker.release();
      expect((await Promise.all(parked)).map(resultText)).toEqual([
        'answered action=cancel name=-',
        'answered action=cancel name=-',
      ]);
      const after = await asker.client.callTool({ name: 'ask_guarded', arguments: { label: 'after' } });
      expect(resultText(after)).toBe('answered action=accept name=Ada');
    } finally {
      await Promise.all([asker.close(), other.close()]);
    }
  });
});

describe('v1 client at 2025-03-26 (before elicitation)', () => {
  let server: InputApp;
  let asker: AnsweringClient;

  beforeAll(async () => {
    server = await startInputApp({ revisions: ['2025-03-26', '2024-11-05'] });
    asker = new AnsweringClient(server.url, { sampling: {}, roots: {} });
    await asker.connect();
  });

  afterAll(async () => {
    await asker?.close();
    await server?.close();
  });

  it('negotiates 2025-03-26, samples and lists roots', async () => {
    expect(asker.transport.protocolVersion).toBe('2025-03-26');
    const result = await asker.client.callTool({ name: 'sample_and_roots', arguments: {} });
    expect(resultText(result)).toBe('text=echo: Hi roots=file:///work,file:///home');
  });
});
