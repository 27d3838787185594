/**
 * `ctx.elicit()`, `ctx.sample()`, `ctx.listRoots()` and `ctx.state` in the modern era (2026-07-28)
 * through the official v2 client (`@modelcontextprotocol/client`), which fulfils `input_required`
 * results with the handlers it registered and retries with `inputResponses` and the echoed
 * `requestState` (multi round-trip requests). A recording fetch shows every round on the wire.
 */
import {
  Client,
  type ClientCapabilities,
  ProtocolError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type { HttpPlatform } from './fixtures/http-app';
import {
  acceptElicitation,
  echoSample,
  type InputApp,
  NAME_QUESTION,
  resultText,
  type SeenRequest,
  startInputApp,
} from './fixtures/client-requests-fixture';
import { Collector, MODERN_REVISION, type RecordedExchange, recordingFetch } from './fixtures/raw-rpc';

/** A v2 client pinned to 2026-07-28 whose handlers answer every question the fixture asks. */
async function connectAnswering(
  server: InputApp,
  capabilities: ClientCapabilities,
): Promise<{ client: Client; seen: Collector<SeenRequest>; exchanges: Collector<RecordedExchange> }> {
  const seen = new Collector<SeenRequest>();
  const recording = recordingFetch();
  const client = new Client(
    { name: 'v2-asks-e2e', version: '2.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler('elicitation/create', (request) => {
      const params = request.params as Record<string, any>;
      seen.push({ method: request.method, params });
      return acceptElicitation(params);
    });
  }
  if (capabilities.sampling !== undefined) {
    client.setRequestHandler('sampling/createMessage', (request) => {
      seen.push({ method: request.method, params: request.params as Record<string, any> });
      return echoSample(request.params);
    });
  }
  if (capabilities.roots !== undefined) {
    client.setRequestHandler('roots/list', (request) => {
      seen.push({ method: request.method, params: (request.params ?? {}) as Record<string, any> });
      return { roots: [{ uri: 'file:///work', name: 'work' }] };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(server.url, { fetch: recording.fetch }));
  return { client, seen, exchanges: recording.exchanges };
}

/** The POSTs of one JSON-RPC method, with their parsed JSON answers, from `since` on. */
async function rounds(
  exchanges: Collector<RecordedExchange>,
  method: string,
  since: number,
): Promise<Array<{ request: any; status: number; response: any }>> {
  const posts = exchanges.items.slice(since).filter((item) => item.request?.method === method);
  return Promise.all(
    posts.map(async (item) => ({
      request: item.request,
      status: item.status,
      response: JSON.parse(await item.responseText),
    })),
  );
}

const ALL: ClientCapabilities = { elicitation: { form: {} }, sampling: {}, roots: {} };
const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

describe.each(PLATFORMS)('v2 client pinned to 2026-07-28 (%s): input_required rounds', (platform) => {
  let server: InputApp;
  let client: Client;
  let seen: Collector<SeenRequest>;
  let exchanges: Collector<RecordedExchange>;

  beforeAll(async () => {
    server = await startInputApp({}, platform);
    ({ client, seen, exchanges } = await connectAnswering(server, ALL));
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('connects in the modern era', () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_REVISION);
  });

  it('fulfils an elicitation: the retry carries the answer and the echoed requestState', async () => {
    const since = exchanges.items.length;
    const result = await client.callTool({ name: 'ask_name', arguments: { label: `v2-name-${platform}` } });
    expect(resultText(result)).toBe('action=accept name=Ada');
    expect(server.probe.runs(`v2-name-${platform}`)).toBe(2);
    const [first, retry] = await rounds(exchanges, 'tools/call', since);
    expect(first.status).toBe(200);
    expect(first.response.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'elicitation-1': { method: 'elicitation/create', params: NAME_QUESTION } },
    });
    expect(retry.request.id).not.toBe(first.request.id);
    expect(retry.request.params).toMatchObject({
      name: 'ask_name',
      arguments: { label: `v2-name-${platform}` },
      requestState: first.response.result.requestState,
      inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(retry.response.result).toMatchObject({ resultType: 'complete' });
    expect(seen.items.at(-1)).toEqual({ method: 'elicitation/create', params: NAME_QUESTION });
  });

  it('fulfils a sampling request and a roots request', async () => {
    const sampled = await client.callTool({ name: 'ask_model', arguments: { prompt: 'hello' } });
    expect(resultText(sampled)).toBe('model=test-model role=assistant text=echo: hello');
    const roots = await client.callTool({ name: 'ask_roots', arguments: {} });
    expect(resultText(roots)).toBe('roots=work@file:///work');
  });

  it('fulfils questions asked together (Promise.all) in one round', async () => {
    const since = exchanges.items.length;
    const label = `v2-together-${platform}`;
    const result = await client.callTool({ name: 'ask_together', arguments: { label } });
    expect(resultText(result)).toBe('echo: Greet Ada (1 roots)');
    const calls = await rounds(exchanges, 'tools/call', since);
    expect(calls).toHaveLength(2);
    expect(Object.keys(calls[0].response.result.inputRequests)).toEqual(['elicitation-1', 'sampling-1', 'roots-1']);
    expect(Object.keys(calls[1].request.params.inputResponses).sort()).toEqual([
      'elicitation-1',
      'roots-1',
      'sampling-1',
    ]);
    expect(server.probe.runs(label)).toBe(2);
  });

  it('runs sequential questions over several rounds, earlier answers kept in requestState', async () => {
    const since = exchanges.items.length;
    const label = `v2-seq-${platform}`;
    const result = await client.callTool({ name: 'ask_sequence', arguments: { label } });
    expect(resultText(result)).toBe('Ada likes teal');
    const calls = await rounds(exchanges, 'tools/call', since);
    expect(calls.map((call) => call.response.result.resultType)).toEqual([
      'input_required',
      'input_required',
      'complete',
    ]);
    expect(Object.keys(calls[0].response.result.inputRequests)).toEqual(['elicitation-1']);
    expect(calls[1].response.result.inputRequests).toEqual({
      'elicitation-2': {
        method: 'elicitation/create',
        params: {
          message: 'Step 2: Ada, your color?',
          requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
        },
      },
    });
    // The third round sends only the new answer: the first one travels inside requestState.
    expect(Object.keys(calls[2].request.params.inputResponses)).toEqual(['elicitation-2']);
    expect(calls[2].request.params.requestState).toBe(calls[1].response.result.requestState);
    expect(server.probe.runs(label)).toBe(3);
  });

  it('keeps ctx.state across rounds', async () => {
    const label = `v2-state-${platform}`;
    const result = await client.callTool({ name: 'keep_state', arguments: { label } });
    expect(JSON.parse(resultText(result))).toEqual({
      state: { trail: [1, 2, 3], startedIn: 'run-1', first: 'v' },
      second: 'v',
    });
  });

  it('fulfils an elicitation asked by prompts/get', async () => {
    const since = exchanges.items.length;
    const prompt = await client.getPrompt({ name: 'ask_style', arguments: { topic: 'rain' } });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Write about rain in a haiku style.' } },
    ]);
    const calls = await rounds(exchanges, 'prompts/get', since);
    expect(calls.map((call) => call.response.result.resultType)).toEqual(['input_required', 'complete']);
    expect(server.probe.runs('prompt:rain')).toBe(2);
  });

  it('fulfils a roots request asked by resources/read', async () => {
    const since = exchanges.items.length;
    const uri = `ask://roots/v2-${platform}`;
    const resource = await client.readResource({ uri }, { cacheMode: 'bypass' });
    expect(resource.contents).toEqual([
      { uri, mimeType: 'application/json', text: JSON.stringify({ label: `v2-${platform}`, roots: ['file:///work'] }) },
    ]);
    const calls = await rounds(exchanges, 'resources/read', since);
    expect(calls).toHaveLength(2);
    expect(calls[0].response.result.inputRequests).toEqual({ 'roots-1': { method: 'roots/list', params: {} } });
    expect(server.probe.runs(`resource:v2-${platform}`)).toBe(2);
  });

  it('answers a tool that needs URL flows first with -32042 and data.elicitations', async () => {
    const call = client.callTool({ name: 'need_sign_in', arguments: {} });
    await expect(call).rejects.toBeInstanceOf(ProtocolError);
    await expect(call).rejects.toMatchObject({
      code: -32042,
      data: {
        elicitations: [
          expect.objectContaining({ mode: 'url', elicitationId: 'sign-in-1', url: 'https://example.com/sign-in' }),
          expect.objectContaining({ mode: 'url', url: 'https://example.com/terms' }),
        ],
      },
    });
  });
});

describe('v2 client pinned to 2026-07-28: capabilities', () => {
  let server: InputApp;

  beforeAll(async () => {
    server = await startInputApp();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('refuses questions the client did not declare with -32021, data.requiredCapabilities and HTTP 400', async () => {
    const { client, exchanges } = await connectAnswering(server, {});
    try {
      const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
        ['ask_name', { label: 'v2-undeclared' }, { elicitation: {} }],
        ['ask_model', { prompt: 'x' }, { sampling: {} }],
        ['ask_roots', {}, { roots: {} }],
      ];
      for (const [name, args, requiredCapabilities] of cases) {
        const call = client.callTool({ name, arguments: args });
        await expect(call).rejects.toBeInstanceOf(ProtocolError);
        await expect(call).rejects.toMatchObject({ code: -32021, data: { requiredCapabilities } });
        expect(exchanges.items.at(-1)?.status).toBe(400);
      }
      // The refusal comes from the first round: the handler ran once and was not retried.
      expect(server.probe.runs('v2-undeclared')).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('needs sampling.tools for sampling with tools, and elicitation.url for URL mode', async () => {
    const { client } = await connectAnswering(server, { sampling: {}, elicitation: { form: {} } });
    try {
      await expect(
        client.callTool({ name: 'ask_model', arguments: { prompt: 'x', withTools: true } }),
      ).rejects.toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: { tools: {} } } } });
      await expect(
        client.callTool({ name: 'ask_url', arguments: { url: 'https://example.com/flow' } }),
      ).rejects.toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: { url: {} } } } });
    } finally {
      await client.close();
    }
  });

  it('elicits in URL mode and samples with tools for a client that declares them', async () => {
    const { client, seen } = await connectAnswering(server, {
      sampling: { tools: {} },
      elicitation: { form: {}, url: {} },
    });
    try {
      const url = await client.callTool({ name: 'ask_url', arguments: { url: 'https://example.com/flow' } });
      expect(resultText(url)).toBe('action=accept');
      // The 2026-07-28 URL-mode params are mode, message and url (the v2 client drops anything else).
      expect(seen.items[0]).toEqual({
        method: 'elicitation/create',
        params: { mode: 'url', message: 'Please sign in', url: 'https://example.com/flow' },
      });
      const sampled = await client.callTool({ name: 'ask_model', arguments: { prompt: 'tool time', withTools: true } });
      expect(resultText(sampled)).toBe('model=test-model role=assistant text=echo: tool time');
      expect(seen.items[1].params).toMatchObject({
        tools: [{ name: 'lookup' }],
        toolChoice: { mode: 'auto' },
      });
    } finally {
      await client.close();
    }
  });
});
