/**
 * Questions to the client (`ctx.elicit()`, `ctx.sample()`, `ctx.listRoots()`) in the modern era
 * (2026-07-28), byte by byte with plain `fetch`: the exact `input_required` result, retries with
 * `inputResponses` and the echoed `requestState`, and every way a `requestState` or an answer is
 * refused (the handler never runs: the fixture counts its runs). The legacy era's wire is in
 * protocol-client-requests-legacy-wire.e2e-spec.ts.
 */
import type { HttpPlatform } from './fixtures/http-app';
import { type InputApp, NAME_QUESTION, PRINCIPAL_HEADER, startInputApp } from './fixtures/client-requests-fixture';
import { META, modernHeaders, modernRequest, post, type RawResponse, toolText } from './fixtures/raw-rpc';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const ALL_CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} };
const ADA = { action: 'accept', content: { name: 'Ada' } };
const SERVER_INFO = { name: 'client-requests-fixture', version: '0.0.1' };
const SECRET = 'a-shared-request-state-secret-of-32+-bytes';

interface CallOptions {
  /** Served as this principal (the test middleware reads the header); anonymous otherwise. */
  principal?: string;
  /** The client capabilities of the request's `_meta`. */
  capabilities?: Record<string, unknown>;
  id?: number;
}

/** One modern request with the envelope, the standard headers and (optionally) a principal. */
function modernCall(
  url: URL,
  method: 'tools/call' | 'prompts/get' | 'resources/read',
  params: Record<string, unknown>,
  options: CallOptions = {},
): Promise<RawResponse> {
  const name = String(method === 'resources/read' ? params.uri : params.name);
  const headers: Record<string, string> = modernHeaders(method, name);
  if (options.principal !== undefined) {
    headers[PRINCIPAL_HEADER] = options.principal;
  }
  const body = modernRequest(method, params, options.id ?? 1, {
    [META.clientCapabilities]: options.capabilities ?? ALL_CAPABILITIES,
  });
  return post(url, body, headers);
}

/** A modern `tools/call`; `extra` adds `requestState` / `inputResponses`. */
function callTool(
  app: InputApp,
  name: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  options: CallOptions = {},
): Promise<RawResponse> {
  return modernCall(app.url, 'tools/call', { name, arguments: args, ...extra }, options);
}

/** The `requestState` of an `input_required` answer (failing the test when there is none). */
function stateOf(response: RawResponse): string {
  expect(response.json?.result?.resultType).toBe('input_required');
  return response.json.result.requestState as string;
}

/** Expects the refusal of a requestState: -32602 with HTTP 400. */
function expectInvalidState(response: RawResponse, id = 1): void {
  expect(response.status).toBe(400);
  expect(response.json).toEqual({ jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid requestState' } });
}

describe.each(PLATFORMS)('modern era on the wire (%s)', (platform) => {
  let app: InputApp;

  beforeAll(async () => {
    app = await startInputApp({}, platform);
  });

  afterAll(async () => {
    await app?.close();
  });

  describe('input_required rounds', () => {
    it('answers a first call with input_required: the question under its key and a sealed requestState', async () => {
      const label = 'shape';
      const first = await callTool(app, 'ask_name', { label });
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toContain('application/json');
      expect(first.json).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {
          resultType: 'input_required',
          inputRequests: { 'elicitation-1': { method: 'elicitation/create', params: NAME_QUESTION } },
          requestState: expect.stringMatching(/^v1\.[\w-]+\.[\w-]+$/),
          _meta: { [META.serverInfo]: SERVER_INFO },
        },
      });
      expect(app.probe.runs(label)).toBe(1);
    });

    it('completes the retry: the handler runs again from the start and gets the answer', async () => {
      const label = 'retry';
      const state = stateOf(await callTool(app, 'ask_name', { label }));
      const retry = await callTool(
        app,
        'ask_name',
        { label },
        { requestState: state, inputResponses: { 'elicitation-1': ADA } },
        { id: 2 },
      );
      expect(retry.status).toBe(200);
      expect(retry.json).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: {
          content: [{ type: 'text', text: 'action=accept name=Ada' }],
          resultType: 'complete',
          _meta: { [META.serverInfo]: SERVER_INFO },
        },
      });
      expect(app.probe.runs(label)).toBe(2);
      const declined = await callTool(
        app,
        'ask_name',
        { label },
        { requestState: state, inputResponses: { 'elicitation-1': { action: 'decline' } } },
      );
      expect(toolText(declined)).toBe('action=decline name=-');
    });

    it('asks the questions asked together (Promise.all) in one round, keyed by method and rank', async () => {
      const label = 'together';
      const first = await callTool(app, 'ask_together', { label });
      expect(Object.keys(first.json.result.inputRequests)).toEqual(['elicitation-1', 'sampling-1', 'roots-1']);
      expect(first.json.result.inputRequests['sampling-1']).toEqual({
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: 'Greet' } }], maxTokens: 20 },
      });
      expect(first.json.result.inputRequests['roots-1']).toEqual({ method: 'roots/list', params: {} });
      const retry = await callTool(
        app,
        'ask_together',
        { label },
        {
          requestState: stateOf(first),
          inputResponses: {
            'elicitation-1': ADA,
            'sampling-1': { role: 'assistant', content: { type: 'text', text: 'Hello' }, model: 'm' },
            'roots-1': { roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] },
          },
        },
      );
      expect(toolText(retry)).toBe('Hello Ada (2 roots)');
      expect(app.probe.runs(label)).toBe(2);
    });

    it('asks again for the answers a retry left out, and keeps those it gave', async () => {
      const label = 'pair';
      const first = await callTool(app, 'ask_pair', { label });
      expect(Object.keys(first.json.result.inputRequests)).toEqual(['first', 'second']);
      const partial = await callTool(
        app,
        'ask_pair',
        { label },
        { requestState: stateOf(first), inputResponses: { first: { action: 'accept', content: { value: '1' } } } },
      );
      expect(partial.json.result).toMatchObject({ resultType: 'input_required' });
      expect(partial.json.result.inputRequests).toEqual({
        second: {
          method: 'elicitation/create',
          params: {
            message: 'Second?',
            requestedSchema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
          },
        },
      });
      // A retry with no answer at all asks the same again.
      const none = await callTool(app, 'ask_pair', { label }, { requestState: stateOf(partial) });
      expect(Object.keys(none.json.result.inputRequests)).toEqual(['second']);
      // The first answer travels inside requestState: the last retry gives only the second.
      const done = await callTool(
        app,
        'ask_pair',
        { label },
        { requestState: stateOf(none), inputResponses: { second: { action: 'accept', content: { value: '2' } } } },
      );
      expect(toolText(done)).toBe('first=1 second=2');
      expect(app.probe.runs(label)).toBe(4);
    });

    it('runs sequential questions over rounds; ctx.state travels with the requestState', async () => {
      const label = 'state';
      const first = await callTool(app, 'keep_state', { label });
      expect(Object.keys(first.json.result.inputRequests)).toEqual(['elicitation-1']);
      const second = await callTool(
        app,
        'keep_state',
        { label },
        {
          requestState: stateOf(first),
          inputResponses: { 'elicitation-1': { action: 'accept', content: { value: 'a' } } },
        },
      );
      expect(Object.keys(second.json.result.inputRequests)).toEqual(['elicitation-2']);
      const third = await callTool(
        app,
        'keep_state',
        { label },
        {
          requestState: stateOf(second),
          inputResponses: { 'elicitation-2': { action: 'accept', content: { value: 'b' } } },
        },
      );
      expect(JSON.parse(toolText(third))).toEqual({
        state: { trail: [1, 2, 3], startedIn: 'run-1', first: 'a' },
        second: 'b',
      });
    });

    it("aborts the handler's signal when its round ends with input_required, not when it completes", async () => {
      const label = 'watched';
      const first = await callTool(app, 'ask_watched', { label });
      await expect(app.probe.outcome(`${label}#1`)).resolves.toEqual({
        label: `${label}#1`,
        type: 'aborted',
        message: 'Input required: the request ends this round',
      });
      const done = await callTool(
        app,
        'ask_watched',
        { label },
        { requestState: stateOf(first), inputResponses: { 'elicitation-1': { action: 'cancel' } } },
      );
      expect(toolText(done)).toBe('watched action=cancel');
      expect(app.probe.outcomes.filter((outcome) => outcome.label === `${label}#2`)).toEqual([]);
    });

    it('binds the state to the request, not to its _meta nor to the order of its arguments', async () => {
      const first = await callTool(app, 'ask_model', { prompt: 'bound', withTools: false });
      const retry = await post(
        app.url,
        modernRequest(
          'tools/call',
          {
            name: 'ask_model',
            arguments: { withTools: false, prompt: 'bound' },
            requestState: stateOf(first),
            inputResponses: { 'sampling-1': { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm2' } },
          },
          2,
          {
            [META.clientCapabilities]: { sampling: {} },
            [META.clientInfo]: { name: 'another-client', version: '9.9.9' },
            [META.logLevel]: 'debug',
          },
        ),
        modernHeaders('tools/call', 'ask_model'),
      );
      expect(retry.status).toBe(200);
      expect(toolText(retry)).toBe('model=m2 role=assistant text=ok');
    });

    it('fails a round at once rather than hand out a requestState it would refuse (a large ctx.state)', async () => {
      const first = await callTool(app, 'stash', { label: 'large-state', size: 60_000 });
      expect(first.json.result).toBeUndefined();
      expect(first.json.error).toMatchObject({ code: -32603, message: 'Internal error' });
    });

    it('carries a ctx.state of tens of kilobytes across a round', async () => {
      const label = 'mid-state';
      const first = await callTool(app, 'stash', { label, size: 30_000 });
      const retry = await callTool(
        app,
        'stash',
        { label, size: 30_000 },
        { requestState: stateOf(first), inputResponses: { 'elicitation-1': { action: 'accept' } } },
      );
      expect(toolText(retry)).toBe('stashed=30000 action=accept');
    });

    it('ends a round that already streamed notifications with input_required as the last SSE message', async () => {
      const meta = { [META.clientCapabilities]: ALL_CAPABILITIES, [META.logLevel]: 'info' };
      const first = await post(
        app.url,
        modernRequest('tools/call', { name: 'ask_chatty', arguments: {}, _meta: { progressToken: 'p1' } }, 1, meta),
        modernHeaders('tools/call', 'ask_chatty'),
      );
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toContain('text/event-stream');
      expect(first.events.map((event) => event.method ?? `response:${String(event.id)}`)).toEqual([
        'notifications/message',
        'notifications/progress',
        'response:1',
      ]);
      const result = first.events[2].result!;
      expect(result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { 'elicitation-1': { method: 'elicitation/create', params: { message: 'Chatty?' } } },
      });
      const retry = await post(
        app.url,
        modernRequest(
          'tools/call',
          {
            name: 'ask_chatty',
            arguments: {},
            _meta: { progressToken: 'p2' },
            requestState: result.requestState,
            inputResponses: { 'elicitation-1': { action: 'accept', content: { value: 'x' } } },
          },
          2,
          meta,
        ),
        modernHeaders('tools/call', 'ask_chatty'),
      );
      const last = retry.events.at(-1)!;
      expect(last.id).toBe(2);
      expect(last.result).toMatchObject({
        resultType: 'complete',
        content: [{ type: 'text', text: 'chatty action=accept' }],
      });
      expect(
        retry.events.filter((event) => event.method === 'notifications/progress').map((event) => event.params),
      ).toEqual([
        { progressToken: 'p2', progress: 1, total: 2, message: 'asking' },
        { progressToken: 'p2', progress: 2, total: 2, message: 'answered' },
      ]);
    });

    it('answers prompts/get and resources/read with input_required too', async () => {
      const prompt = await modernCall(app.url, 'prompts/get', { name: 'ask_style', arguments: { topic: 'wire' } });
      expect(prompt.json.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { 'elicitation-1': { method: 'elicitation/create' } },
      });
      const resource = await modernCall(app.url, 'resources/read', { uri: 'ask://roots/wire' });
      expect(resource.json.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { 'roots-1': { method: 'roots/list', params: {} } },
      });
      // An input_required result is no answer to cache.
      expect(resource.json.result).not.toHaveProperty('ttlMs');
      expect(resource.json.result).not.toHaveProperty('cacheScope');
      const read = await modernCall(app.url, 'resources/read', {
        uri: 'ask://roots/wire',
        requestState: stateOf(resource),
        inputResponses: { 'roots-1': { roots: [{ uri: 'file:///r' }] } },
      });
      expect(read.json.result.contents).toEqual([
        {
          uri: 'ask://roots/wire',
          mimeType: 'application/json',
          text: JSON.stringify({ label: 'wire', roots: ['file:///r'] }),
        },
      ]);
    });
  });

  describe('refused requestState: -32602, HTTP 400, the handler never runs', () => {
    const tamperings: Array<[string, (state: string) => unknown]> = [
      ['a changed payload character', (state) => swapCharAt(state, state.indexOf('.') + 5)],
      ['a changed signature character', (state) => swapCharAt(state, state.length - 3)],
      [
        'a forged payload under the original signature',
        (state) => {
          const [version, payload, signature] = state.split('.');
          const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
          body.a = { 'elicitation-1': ADA };
          return `${version}.${Buffer.from(JSON.stringify(body)).toString('base64url')}.${signature}`;
        },
      ],
      ['a state without its signature', (state) => state.slice(0, state.lastIndexOf('.'))],
      ['a state with an extra segment', (state) => `${state}.extra`],
      ['another version prefix', (state) => `v2${state.slice(2)}`],
      ['an empty string', () => ''],
      ['a number', () => 12345],
      ['an object', () => ({ state: 'v1' })],
    ];

    it.each(tamperings)('refuses %s', async (_what, tamper) => {
      const label = `tamper-${_what}`;
      const state = stateOf(await callTool(app, 'ask_name', { label }));
      expect(app.probe.runs(label)).toBe(1);
      const retry = await callTool(
        app,
        'ask_name',
        { label },
        { requestState: tamper(state), inputResponses: { 'elicitation-1': ADA } },
      );
      expectInvalidState(retry);
      expect(app.probe.runs(label)).toBe(1);
    });

    it('refuses the state of a call with other arguments, of another tool and of another method', async () => {
      const state = stateOf(await callTool(app, 'ask_name', { label: 'owner' }));
      const answers = { 'elicitation-1': ADA };
      expectInvalidState(
        await callTool(app, 'ask_name', { label: 'thief' }, { requestState: state, inputResponses: answers }),
      );
      expect(app.probe.runs('thief')).toBe(0);
      expectInvalidState(
        await callTool(app, 'ask_pair', { label: 'owner' }, { requestState: state, inputResponses: answers }),
      );
      expect(app.probe.runs('owner')).toBe(1);
      const prompt = await modernCall(app.url, 'prompts/get', {
        name: 'ask_style',
        arguments: { topic: 'stolen' },
        requestState: state,
        inputResponses: answers,
      });
      expectInvalidState(prompt);
      expect(app.probe.runs('prompt:stolen')).toBe(0);
      // The state still opens for its own request.
      const own = await callTool(app, 'ask_name', { label: 'owner' }, { requestState: state, inputResponses: answers });
      expect(toolText(own)).toBe('action=accept name=Ada');
    });

    it('refuses a state minted for another principal', async () => {
      const label = 'principal';
      const answers = { inputResponses: { 'elicitation-1': ADA } };
      const alice = stateOf(await callTool(app, 'ask_name', { label }, {}, { principal: 'alice' }));
      expectInvalidState(
        await callTool(app, 'ask_name', { label }, { requestState: alice, ...answers }, { principal: 'bob' }),
      );
      expectInvalidState(await callTool(app, 'ask_name', { label }, { requestState: alice, ...answers }));
      const anonymous = stateOf(await callTool(app, 'ask_name', { label }));
      expectInvalidState(
        await callTool(app, 'ask_name', { label }, { requestState: anonymous, ...answers }, { principal: 'alice' }),
      );
      expect(app.probe.runs(label)).toBe(2);
      const own = await callTool(
        app,
        'ask_name',
        { label },
        { requestState: alice, ...answers },
        { principal: 'alice' },
      );
      expect(toolText(own)).toBe('action=accept name=Ada');
      expect(app.probe.runs(label)).toBe(3);
    });
  });

  describe('refused inputResponses: -32602, HTTP 400', () => {
    it.each([
      ['an array', []],
      ['a string', 'Ada'],
      ['null', null],
    ])('refuses inputResponses that is %s before the handler runs', async (_what, inputResponses) => {
      const label = `responses-${_what}`;
      const response = await callTool(app, 'ask_name', { label }, { inputResponses });
      expect(response.status).toBe(400);
      expect(response.json.error).toEqual({
        code: -32602,
        message: 'Invalid params: inputResponses must be an object',
      });
      expect(app.probe.runs(label)).toBe(0);
    });

    it.each([
      ['a string', 'Ada'],
      ['an array', [ADA]],
      ['null', null],
    ])('refuses an answer that is %s before the handler runs', async (_what, answer) => {
      const label = `entry-${_what}`;
      const response = await callTool(app, 'ask_name', { label }, { inputResponses: { 'elicitation-1': answer } });
      expect(response.status).toBe(400);
      expect(response.json.error).toEqual({
        code: -32602,
        message: 'Invalid params: inputResponses.elicitation-1 must be an object',
      });
      expect(app.probe.runs(label)).toBe(0);
    });

    it.each([
      [
        'an elicitation answer without action',
        'ask_name',
        { label: 'shape-1' },
        'elicitation-1',
        { content: { name: 'Ada' } },
        'action must be "accept", "decline" or "cancel"',
      ],
      [
        'an elicitation answer with a string content',
        'ask_name',
        { label: 'shape-2' },
        'elicitation-1',
        { action: 'accept', content: 'Ada' },
        'content must be an object',
      ],
      [
        'a sampling answer without role',
        'ask_model',
        { prompt: 'x' },
        'sampling-1',
        { content: { type: 'text', text: 'y' }, model: 'm' },
        'role must be "user" or "assistant"',
      ],
      [
        'a roots answer without an array',
        'ask_roots',
        {},
        'roots-1',
        { roots: 'file:///' },
        'roots must be an array of objects with a uri',
      ],
      [
        'a roots answer with a root without uri',
        'ask_roots',
        {},
        'roots-1',
        { roots: [{ name: 'x' }] },
        'roots must be an array of objects with a uri',
      ],
    ])('refuses %s', async (_what, tool, args, key, answer, reason) => {
      const response = await callTool(app, tool, args, { inputResponses: { [key]: answer } });
      expect(response.status).toBe(400);
      expect(response.json.error).toEqual({
        code: -32602,
        message: `Invalid params: inputResponses.${key}: ${reason}`,
      });
    });
  });

  describe('client capabilities', () => {
    it.each([
      ['ask_name', {}, {}, { elicitation: {} }],
      ['ask_model', { prompt: 'x' }, {}, { sampling: {} }],
      ['ask_roots', {}, {}, { roots: {} }],
      ['ask_model', { prompt: 'x', withTools: true }, {}, { sampling: { tools: {} } }],
      ['ask_model', { prompt: 'x', withTools: true }, { sampling: {} }, { sampling: { tools: {} } }],
      ['ask_url', { url: 'https://example.com' }, {}, { elicitation: { url: {} } }],
      ['ask_url', { url: 'https://example.com' }, { elicitation: {} }, { elicitation: { url: {} } }],
      ['ask_url', { url: 'https://example.com' }, { elicitation: { form: {} } }, { elicitation: { url: {} } }],
      ['ask_name', {}, { elicitation: { url: {} } }, { elicitation: { form: {} } }],
    ])(
      'refuses %s %j from a client declaring %j with -32021 requiring %j',
      async (tool, args, capabilities, required) => {
        const response = await callTool(app, tool, args, {}, { capabilities });
        expect(response.status).toBe(400);
        expect(response.json).toEqual({
          jsonrpc: '2.0',
          id: 1,
          error: {
            code: -32021,
            message: expect.stringContaining('did not declare the capability'),
            data: { requiredCapabilities: required },
          },
        });
      },
    );

    it('asks in URL mode and with sampling tools when the client declares them', async () => {
      const url = await callTool(
        app,
        'ask_url',
        { url: 'https://example.com/go' },
        {},
        {
          capabilities: { elicitation: { url: {} } },
        },
      );
      expect(url.json.result.inputRequests['elicitation-1']).toMatchObject({
        method: 'elicitation/create',
        params: { mode: 'url', message: 'Please sign in', url: 'https://example.com/go' },
      });
      const form = await callTool(app, 'ask_name', {}, {}, { capabilities: { elicitation: { form: {} } } });
      expect(form.json.result.resultType).toBe('input_required');
      const tools = await callTool(
        app,
        'ask_model',
        { prompt: 'x', withTools: true },
        {},
        {
          capabilities: { sampling: { tools: {} } },
        },
      );
      expect(tools.json.result.inputRequests['sampling-1'].params).toMatchObject({
        tools: [{ name: 'lookup', inputSchema: { type: 'object', properties: {} } }],
        toolChoice: { mode: 'auto' },
      });
    });

    it('answers McpUrlElicitationRequiredError with -32042 and data.elicitations', async () => {
      const response = await callTool(app, 'need_sign_in', {});
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32042,
          message: 'Two flows to complete first',
          data: {
            elicitations: [
              {
                mode: 'url',
                elicitationId: 'sign-in-1',
                url: 'https://example.com/sign-in',
                message: 'Sign in to Example',
              },
              {
                mode: 'url',
                elicitationId: expect.stringMatching(/^[\w-]{16,}$/),
                url: 'https://example.com/terms',
                message: 'Accept the terms',
              },
            ],
          },
        },
      });
    });
  });
});

describe('modern era on the wire: requestState secrets and lifetime', () => {
  let first: InputApp;
  let sameSecret: InputApp;
  let otherSecret: InputApp;
  let randomSecret: InputApp;
  let shortLived: InputApp;

  beforeAll(async () => {
    first = await startInputApp({ requestState: { secret: SECRET } });
    sameSecret = await startInputApp({ requestState: { secret: SECRET } }, 'fastify');
    otherSecret = await startInputApp({ requestState: { secret: `${SECRET}-but-another-one` } });
    randomSecret = await startInputApp();
    shortLived = await startInputApp({ requestState: { ttlMs: 1000 } });
  });

  afterAll(async () => {
    await Promise.all([first, sameSecret, otherSecret, randomSecret, shortLived].map((app) => app?.close()));
  });

  it('accepts a state sealed by another instance with the same secret, refuses one with another secret', async () => {
    const label = 'shared';
    const state = stateOf(await callTool(first, 'ask_name', { label }));
    const answers = { requestState: state, inputResponses: { 'elicitation-1': ADA } };
    expectInvalidState(await callTool(otherSecret, 'ask_name', { label }, answers));
    expectInvalidState(await callTool(randomSecret, 'ask_name', { label }, answers));
    expect(otherSecret.probe.runs(label)).toBe(0);
    expect(randomSecret.probe.runs(label)).toBe(0);
    const shared = await callTool(sameSecret, 'ask_name', { label }, answers);
    expect(toolText(shared)).toBe('action=accept name=Ada');
    expect(sameSecret.probe.runs(label)).toBe(1);
  });

  it('refuses an expired state (requestState.ttlMs: 1000)', async () => {
    const label = 'expired';
    const state = stateOf(await callTool(shortLived, 'ask_name', { label }));
    const answers = { requestState: state, inputResponses: { 'elicitation-1': ADA } };
    // Fresh, the state opens.
    expect(toolText(await callTool(shortLived, 'ask_name', { label }, answers))).toBe('action=accept name=Ada');
    expect(shortLived.probe.runs(label)).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expectInvalidState(await callTool(shortLived, 'ask_name', { label }, answers));
    expect(shortLived.probe.runs(label)).toBe(2);
  });
});

/** Replaces the character at `index` with another one of the base64url alphabet. */
function swapCharAt(text: string, index: number): string {
  const replacement = text[index] === 'A' ? 'B' : 'A';
  return `${text.slice(0, index)}${replacement}${text.slice(index + 1)}`;
}
