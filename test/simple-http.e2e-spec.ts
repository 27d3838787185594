/**
 * The simple POST-only endpoint (`simpleHttpPath`), byte by byte with plain `fetch`, on Express
 * and Fastify, with and without a global prefix + URI versioning: JSON in, JSON out, no sessions
 * and no streams, for both eras; batches, body limits, content negotiation, verbs and CORS, the
 * call deadline, cancellation by a client that goes away, and a multi round-trip round. Last,
 * the official v2 client talking to it as to a Streamable HTTP endpoint without streams.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  GREETING_URI,
  MATRIX,
  NAME_QUESTION,
  PRINCIPAL_HEADER,
  startTransportsApp,
  TRANSPORTS_SERVER,
  TRANSPORTS_TOOL_NAMES,
  type TransportsApp,
} from './fixtures/transports-fixture';
import {
  exchange,
  legacyRequest,
  META,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  post,
  rawHttp,
  type RawResponse,
  send,
  type SendOptions,
  toolText,
  waitUntil,
} from './fixtures/raw-rpc';

/** The Accept header of a client that only wants JSON (what this endpoint answers). */
const JSON_ONLY = { accept: 'application/json' };

/** Asserts a JSON body carrying one JSON-RPC error, with its HTTP status. */
function expectRpcError(response: RawResponse, status: number, code: number, id: unknown = expect.anything()): void {
  expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({
    status,
    type: expect.stringContaining('application/json'),
  });
  expect(response.json).toEqual({
    jsonrpc: '2.0',
    id,
    error: expect.objectContaining({ code, message: expect.any(String) }),
  });
}

/** Asserts an answer without a body. */
function expectEmpty(response: RawResponse, status: number): void {
  expect({ status: response.status, text: response.text }).toEqual({ status, text: '' });
}

/** A modern POST: the envelope in the body and the matching headers. */
function postModern(
  url: URL,
  method: string,
  params: Record<string, unknown> = {},
  options: {
    name?: string;
    id?: number | string;
    meta?: Record<string, unknown>;
    headers?: Record<string, string>;
  } = {},
): Promise<RawResponse> {
  return post(url, modernRequest(method, params, options.id ?? 1, options.meta), {
    ...modernHeaders(method, options.name),
    ...options.headers,
  });
}

/** A `tools/call` of `wait_for_abort` in `era`: its body, and the headers that era needs. */
function waitForAbortCall(era: 'legacy' | 'modern', args: { label: string; limitMs?: number }, id = 1): SendOptions {
  const call = { name: 'wait_for_abort', arguments: args };
  return era === 'legacy'
    ? { body: legacyRequest('tools/call', call, id) }
    : { body: modernRequest('tools/call', call, id), headers: modernHeaders('tools/call', 'wait_for_abort') };
}

/** A `tools/call` whose JSON nests `depth` arrays/objects deep (envelope and params are the first two levels). */
function callNestedTo(depth: number, id: number): Record<string, unknown> {
  let chain: Record<string, unknown> = { leaf: true };
  for (let level = 3; level < depth; level += 1) {
    chain = { nested: chain };
  }
  return legacyRequest('tools/call', { name: 'echo', arguments: chain }, id) as unknown as Record<string, unknown>;
}

const MAX_BODY_BYTES = 8192;
const MAX_JSON_DEPTH = 12;

describe.each(MATRIX)('simple HTTP endpoint ($title)', ({ platform, routing }) => {
  let app: TransportsApp;
  let rpc: URL;

  beforeAll(async () => {
    app = await startTransportsApp(
      { simpleHttpPath: 'rpc', http: { maxBodyBytes: MAX_BODY_BYTES, maxJsonDepth: MAX_JSON_DEPTH } },
      platform,
      routing,
    );
    rpc = app.route('rpc');
  });

  afterAll(async () => {
    await app?.close();
  });

  describe('routing', () => {
    it(`is served at ${routing.base}/rpc, beside the Streamable HTTP endpoint`, async () => {
      expect(rpc.pathname).toBe(`${routing.base}/rpc`);
      const simple = await post(rpc, legacyRequest('ping', undefined, 1));
      expect(simple.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      // The Streamable HTTP endpoint is still there, with its own rules (a legacy request needs a session).
      const streamable = await post(app.route('mcp'), legacyRequest('ping', undefined, 2));
      expect(streamable.status).toBe(400);
    });

    it('is not served under another prefix', async () => {
      const elsewhere = routing.versioned ? ['/rpc', '/api/rpc', '/v1/rpc'] : ['/api/v1/rpc', '/api/rpc'];
      for (const path of elsewhere) {
        const response = await post(new URL(path, app.baseUrl), legacyRequest('ping', undefined, 1));
        expect({ path, status: response.status }).toEqual({ path, status: 404 });
      }
    });
  });

  describe('legacy era: no session', () => {
    it('lists tools without a handshake, and opens no session', async () => {
      const response = await post(rpc, legacyRequest('tools/list', {}, 'l1'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(response.json.id).toBe('l1');
      expect(response.json.result.tools.map((tool: { name: string }) => tool.name)).toEqual([...TRANSPORTS_TOOL_NAMES]);
      // Legacy results carry none of the modern envelope.
      expect(response.json.result).not.toHaveProperty('resultType');
    });

    it('calls a tool', async () => {
      const response = await post(rpc, legacyRequest('tools/call', { name: 'echo', arguments: { text: 'hi' } }, 2));
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: { content: [{ type: 'text', text: 'echo: hi' }] },
      });
    });

    it('answers a call that reports progress with plain JSON: progress has no stream here and is dropped', async () => {
      const response = await post(
        rpc,
        legacyRequest('tools/call', { name: 'count_up', arguments: { steps: 3 }, _meta: { progressToken: 'p1' } }, 3),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: 3,
        result: { content: [{ type: 'text', text: 'counted to 3' }] },
      });
    });

    it('reads a resource and gets a prompt', async () => {
      const read = await post(rpc, legacyRequest('resources/read', { uri: GREETING_URI }, 4));
      expect(read.json.result.contents).toEqual([
        { uri: GREETING_URI, mimeType: 'text/plain', text: 'Hello over every transport' },
      ]);
      const prompt = await post(rpc, legacyRequest('prompts/get', { name: 'greet', arguments: { name: 'Ada' } }, 5));
      expect(prompt.json.result.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Greet Ada warmly.' } },
      ]);
    });

    it('accepts a legacy MCP-Protocol-Version header', async () => {
      for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
        const response = await post(rpc, legacyRequest('ping', undefined, 6), { 'mcp-protocol-version': version });
        expect({ version, body: response.json }).toEqual({ version, body: { jsonrpc: '2.0', id: 6, result: {} } });
      }
    });

    it('answers an unknown MCP-Protocol-Version on a legacy request with 400', async () => {
      const response = await post(rpc, legacyRequest('tools/list', {}, 7), { 'mcp-protocol-version': '1999-01-01' });
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600 } });
      expect(response.json.error.message).toContain('1999-01-01');
    });

    it('answers a notification with 204 and no body', async () => {
      const response = await post(rpc, { jsonrpc: '2.0', method: 'notifications/initialized' });
      expectEmpty(response, 204);
    });

    it('answers a JSON-RPC response with 202 and no body (nothing waits for it)', async () => {
      expectEmpty(await post(rpc, { jsonrpc: '2.0', id: 'r1', result: {} }), 202);
      expectEmpty(await post(rpc, { jsonrpc: '2.0', id: 'r2', error: { code: -1, message: 'no' } }), 202);
    });

    it('answers an invalid request with 400 and -32600, keeping its id', async () => {
      expectRpcError(await post(rpc, { jsonrpc: '2.0', id: 8 }), 400, -32600, 8);
      expectRpcError(await post(rpc, { jsonrpc: '1.0', id: 9, method: 'ping' }), 400, -32600);
    });

    it('answers an unknown method with -32601', async () => {
      expectRpcError(await post(rpc, legacyRequest('no/such', {}, 10)), 200, -32601, 10);
    });

    it('fails ctx.elicit(): there is no session to carry a question to the client', async () => {
      const label = `legacy-elicit-${platform}-${routing.base}`;
      const response = await post(rpc, legacyRequest('tools/call', { name: 'try_elicit', arguments: { label } }, 11));
      expect(response.status).toBe(200);
      expect(toolText(response)).toMatch(/^rejected code=/);
      const rejected = await app.probe.waitFor('rejected', label);
      expect(rejected.reason).toContain('elicitation');
      expect(app.probe.trail(label)).toEqual(['rejected']);
    });

    it('answers resources/subscribe with -32602: there is no session to subscribe', async () => {
      const response = await post(rpc, legacyRequest('resources/subscribe', { uri: GREETING_URI }, 12));
      expectRpcError(response, 200, -32602, 12);
    });

    it('answers subscriptions/listen with -32601', async () => {
      expectRpcError(await post(rpc, legacyRequest('subscriptions/listen', {}, 13)), 200, -32601, 13);
    });
  });

  describe('modern era (2026-07-28)', () => {
    it('answers server/discover', async () => {
      const response = await postModern(rpc, 'server/discover');
      expect(response.status).toBe(200);
      expect(response.json.result).toMatchObject({
        resultType: 'complete',
        supportedVersions: expect.arrayContaining([MODERN_REVISION, '2024-11-05']),
        capabilities: expect.objectContaining({ tools: expect.any(Object) }),
        _meta: { [META.serverInfo]: TRANSPORTS_SERVER },
      });
    });

    it('lists tools with the modern envelope (resultType, cache hints, serverInfo)', async () => {
      const response = await postModern(rpc, 'tools/list');
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(response.json.result).toMatchObject({
        resultType: 'complete',
        ttlMs: expect.any(Number),
        cacheScope: 'private',
        _meta: { [META.serverInfo]: TRANSPORTS_SERVER },
      });
      expect(response.json.result.tools.map((tool: { name: string }) => tool.name)).toEqual([...TRANSPORTS_TOOL_NAMES]);
    });

    it('calls a tool; progress is dropped and the answer is JSON', async () => {
      const echo = await postModern(rpc, 'tools/call', { name: 'echo', arguments: { text: 'now' } }, { name: 'echo' });
      expect(echo.json).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {
          content: [{ type: 'text', text: 'echo: now' }],
          resultType: 'complete',
          _meta: { [META.serverInfo]: TRANSPORTS_SERVER },
        },
      });
      const counted = await postModern(
        rpc,
        'tools/call',
        { name: 'count_up', arguments: { steps: 2 }, _meta: { progressToken: 'p' } },
        { name: 'count_up', id: 2 },
      );
      expect(counted.headers.get('content-type')).toContain('application/json');
      expect(toolText(counted)).toBe('counted to 2');
    });

    it('refuses a request without Mcp-Method (400, -32020)', async () => {
      const response = await post(rpc, modernRequest('tools/list', {}, 3), { 'mcp-protocol-version': MODERN_REVISION });
      expectRpcError(response, 400, -32020, 3);
    });

    it('refuses an Mcp-Name that disagrees with the body (400, -32020)', async () => {
      const response = await postModern(
        rpc,
        'tools/call',
        { name: 'echo', arguments: { text: 'x' } },
        { name: 'count_up', id: 4 },
      );
      expectRpcError(response, 400, -32020, 4);
    });

    it('answers a modern notification with 204', async () => {
      const response = await post(
        rpc,
        { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: modernRequest('x').params!._meta } },
        modernHeaders('notifications/initialized'),
      );
      expectEmpty(response, 204);
    });

    it('answers subscriptions/listen with 404 and -32601: no stream to hold it open', async () => {
      expectRpcError(await postModern(rpc, 'subscriptions/listen', {}, { id: 5 }), 404, -32601, 5);
    });

    it('runs a multi round-trip request: input_required, then the retry with inputResponses and requestState', async () => {
      const meta = { [META.clientCapabilities]: { elicitation: {} } };
      const first = await postModern(
        rpc,
        'tools/call',
        { name: 'ask_name', arguments: {} },
        { name: 'ask_name', meta },
      );
      expect(first.status).toBe(200);
      expect(first.json.result).toEqual({
        resultType: 'input_required',
        inputRequests: { 'elicitation-1': { method: 'elicitation/create', params: NAME_QUESTION } },
        requestState: expect.any(String),
        _meta: { [META.serverInfo]: TRANSPORTS_SERVER },
      });
      const retry = await postModern(
        rpc,
        'tools/call',
        {
          name: 'ask_name',
          arguments: {},
          requestState: first.json.result.requestState,
          inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } },
        },
        { name: 'ask_name', meta, id: 2 },
      );
      expect(retry.status).toBe(200);
      expect(retry.json).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: {
          content: [{ type: 'text', text: 'action=accept name=Ada' }],
          resultType: 'complete',
          _meta: { [META.serverInfo]: TRANSPORTS_SERVER },
        },
      });
    });

    it("binds the requestState to the caller: another principal's retry is refused", async () => {
      const meta = { [META.clientCapabilities]: { elicitation: {} } };
      const alice = { [PRINCIPAL_HEADER]: 'alice' };
      const first = await postModern(
        rpc,
        'tools/call',
        { name: 'ask_name', arguments: {} },
        { name: 'ask_name', meta, headers: alice },
      );
      const retry = await postModern(
        rpc,
        'tools/call',
        {
          name: 'ask_name',
          arguments: {},
          requestState: first.json.result.requestState,
          inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Eve' } } },
        },
        { name: 'ask_name', meta, headers: { [PRINCIPAL_HEADER]: 'mallory' } },
      );
      expectRpcError(retry, 400, -32602, 1);
    });
  });

  describe('batches', () => {
    const runnable = [
      legacyRequest('ping', undefined, 'b1'),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      legacyRequest('tools/call', { name: 'echo', arguments: { text: 'batched' } }, 'b2'),
    ];
    const answers = [
      { jsonrpc: '2.0', id: 'b1', result: {} },
      { jsonrpc: '2.0', id: 'b2', result: { content: [{ type: 'text', text: 'echo: batched' }] } },
    ];

    it.each([
      ['without MCP-Protocol-Version (2025-03-26 assumed)', {}],
      ['at 2024-11-05', { 'mcp-protocol-version': '2024-11-05' }],
      ['at 2025-03-26', { 'mcp-protocol-version': '2025-03-26' }],
    ])('answers a batch %s with one response per request', async (_title, headers: Record<string, string>) => {
      const response = await post(rpc, runnable, headers);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(response.json).toHaveLength(2);
      expect(response.json).toEqual(expect.arrayContaining(answers));
    });

    it.each(['2025-06-18', '2025-11-25', MODERN_REVISION])(
      'refuses a batch at %s with 400 and -32600',
      async (version) => {
        const response = await post(rpc, runnable, { 'mcp-protocol-version': version });
        expectRpcError(response, 400, -32600, null);
        expect(response.json.error.message).toBe('Batch requests are not supported');
      },
    );

    it('refuses a batch with an unknown MCP-Protocol-Version with 400', async () => {
      const response = await post(rpc, runnable, { 'mcp-protocol-version': '1999-01-01' });
      expectRpcError(response, 400, -32600, null);
    });

    it('refuses an empty batch with 400 and -32600', async () => {
      expectRpcError(await post(rpc, []), 400, -32600, null);
    });

    it('refuses a batch mixing requests and responses with 400 and -32600', async () => {
      const response = await post(rpc, [
        legacyRequest('ping', undefined, 'm1'),
        { jsonrpc: '2.0', id: 'x', result: {} },
      ]);
      expectRpcError(response, 400, -32600, null);
    });

    it('answers a batch of responses only with 202', async () => {
      const response = await post(rpc, [
        { jsonrpc: '2.0', id: 'a', result: {} },
        { jsonrpc: '2.0', id: 'b', result: {} },
      ]);
      expectEmpty(response, 202);
    });

    it('answers a batch of notifications only with 204', async () => {
      const response = await post(rpc, [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      ]);
      expectEmpty(response, 204);
    });

    it('answers an invalid element with its own error, beside the others', async () => {
      const response = await post(rpc, [legacyRequest('ping', undefined, 'ok'), { jsonrpc: '2.0', id: 'bad' }]);
      expect(response.status).toBe(200);
      expect(response.json).toEqual(
        expect.arrayContaining([
          { jsonrpc: '2.0', id: 'ok', result: {} },
          { jsonrpc: '2.0', id: 'bad', error: expect.objectContaining({ code: -32600 }) },
        ]),
      );
    });
  });

  describe('framing and content negotiation', () => {
    it('answers malformed JSON with 400 and -32700', async () => {
      const response = await exchange(rpc, { body: '{"jsonrpc":"2.0","id":1,"method":' });
      expectRpcError(response, 400, -32700, null);
    });

    it('answers an empty body with 400 and -32700', async () => {
      const response = await exchange(rpc, { body: '' });
      expectRpcError(response, 400, -32700, null);
    });

    it(`answers a body over http.maxBodyBytes (${MAX_BODY_BYTES}) with 413`, async () => {
      const body = legacyRequest('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(MAX_BODY_BYTES * 2) } });
      const response = await post(rpc, body);
      expect(response.status).toBe(413);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it(`answers a body nested deeper than http.maxJsonDepth (${MAX_JSON_DEPTH}) with 400 and -32600`, async () => {
      expectRpcError(await post(rpc, callNestedTo(MAX_JSON_DEPTH + 1, 20)), 400, -32600, null);
      // At the limit the request is served (echo wants `text`, so the call is a tool error, not a refusal).
      const atLimit = await post(rpc, callNestedTo(MAX_JSON_DEPTH, 21));
      expect(atLimit.status).toBe(200);
      expect(atLimit.json).toMatchObject({ id: 21, result: { isError: true } });
    });

    it('accepts Accept: application/json alone (no SSE is ever sent), and a missing Accept', async () => {
      const jsonOnly = await post(rpc, legacyRequest('ping', undefined, 22), JSON_ONLY);
      expect(jsonOnly.json).toEqual({ jsonrpc: '2.0', id: 22, result: {} });
      const wildcard = await post(rpc, legacyRequest('ping', undefined, 23), { accept: '*/*' });
      expect(wildcard.status).toBe(200);
      const none = await rawHttp(rpc, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(legacyRequest('ping', undefined, 24)),
      });
      expect({ status: none.status, body: JSON.parse(none.text) }).toEqual({
        status: 200,
        body: { jsonrpc: '2.0', id: 24, result: {} },
      });
    });

    it('answers an Accept without application/json with 406', async () => {
      const response = await post(rpc, legacyRequest('ping', undefined, 25), { accept: 'text/event-stream' });
      expect(response.status).toBe(406);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded'])('answers Content-Type %s with 415', async (type) => {
      const response = await exchange(rpc, {
        body: JSON.stringify(legacyRequest('ping', undefined, 26)),
        headers: { 'content-type': type },
      });
      expect(response.status).toBe(415);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });
  });

  describe('verbs, Origin and CORS', () => {
    it.each(['GET', 'PUT', 'PATCH', 'DELETE'])('answers %s with 405 and Allow: POST, OPTIONS', async (method) => {
      const response = await exchange(rpc, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    });

    it('answers OPTIONS with 204 and Allow', async () => {
      const response = await exchange(rpc, { method: 'OPTIONS' });
      expectEmpty(response, 204);
      expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    });

    it('answers a CORS preflight from an allowed origin with the methods and Mcp-* headers allowed', async () => {
      const origin = `http://localhost:${rpc.port}`;
      const response = await rawHttp(rpc, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, mcp-protocol-version, mcp-method, mcp-name',
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(origin);
      expect(response.headers['access-control-allow-methods']).toBe('POST, OPTIONS');
      const allowed = String(response.headers['access-control-allow-headers']).split(/,\s*/);
      expect(allowed).toEqual(
        expect.arrayContaining(['content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name']),
      );
    });

    it('puts the CORS answer headers on a POST from an allowed origin', async () => {
      const origin = `http://localhost:${rpc.port}`;
      const response = await rawHttp(rpc, {
        headers: { origin, 'content-type': 'application/json', ...JSON_ONLY },
        body: JSON.stringify(legacyRequest('ping', undefined, 30)),
      });
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(origin);
    });

    it('refuses a foreign Origin with 403, on POST and on OPTIONS', async () => {
      const origin = 'http://evil.example.com';
      const posted = await rawHttp(rpc, {
        headers: { origin, 'content-type': 'application/json', ...JSON_ONLY },
        body: JSON.stringify(legacyRequest('ping', undefined, 31)),
      });
      expect(posted.status).toBe(403);
      expect(JSON.parse(posted.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      const preflight = await rawHttp(rpc, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(403);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('refuses a foreign Host with 403', async () => {
      const response = await rawHttp(rpc, {
        headers: { host: 'evil.example.com', 'content-type': 'application/json', ...JSON_ONLY },
        body: JSON.stringify(legacyRequest('ping', undefined, 32)),
      });
      expect(response.status).toBe(403);
    });
  });

  describe('a client that goes away', () => {
    it.each(['legacy', 'modern'] as const)(
      'cancels its %s call: the handler signal aborts and nothing is left running',
      async (era) => {
        const label = `gone-${era}-${platform}-${routing.base}`;
        const controller = new AbortController();
        const pending = send(rpc, { ...waitForAbortCall(era, { label }), signal: controller.signal });
        pending.catch(() => undefined);
        await app.probe.waitFor('started', label);
        controller.abort();
        await expect(pending).rejects.toThrow();
        const aborted = await app.probe.waitFor('aborted', label);
        expect(aborted.reason).toBe('Client disconnected');
        await waitUntil(() => app.probe.running === 0, 'no handler is left running');
        expect(app.probe.trail(label)).toEqual(['started', 'aborted']);
        // The endpoint still serves.
        const after = await post(rpc, legacyRequest('ping', undefined, 'after'));
        expect(after.json).toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
      },
    );
  });

  describe('the official v2 client (pinned to 2026-07-28)', () => {
    let client: Client;

    beforeAll(async () => {
      client = new Client(
        { name: 'v2-simple-e2e', version: '2.0.0' },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
      );
      client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { name: 'Grace' } }));
      await client.connect(new StreamableHTTPClientTransport(rpc));
    });

    afterAll(async () => {
      await client?.close();
    });

    it('connects in the modern era through server/discover', () => {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_REVISION);
      expect(client.getServerVersion()).toMatchObject(TRANSPORTS_SERVER);
    });

    it('lists and calls tools, reads a resource and gets a prompt', async () => {
      const { tools } = await client.listTools(undefined, { cacheMode: 'bypass' });
      expect(tools.map((tool) => tool.name)).toEqual([...TRANSPORTS_TOOL_NAMES]);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'v2' } });
      expect(result.content).toEqual([{ type: 'text', text: 'echo: v2' }]);
      const read = await client.readResource({ uri: GREETING_URI });
      expect(read.contents).toEqual([
        { uri: GREETING_URI, mimeType: 'text/plain', text: 'Hello over every transport' },
      ]);
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Lin' } });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Greet Lin warmly.' } }]);
    });

    it('fulfils an input_required round with its elicitation handler', async () => {
      const result = await client.callTool({ name: 'ask_name', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'action=accept name=Grace' }]);
    });

    it('sees the 400 answer to an unknown tool as a protocol error (-32602)', async () => {
      const failure = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ProtocolError);
      expect(failure).toMatchObject({ code: -32602, message: 'Unknown tool: no_such_tool' });
    });
  });
});

describe.each(MATRIX)('simple HTTP call deadline ($title)', ({ platform, routing }) => {
  describe('http.simpleCallTimeoutMs: 200', () => {
    let app: TransportsApp;

    beforeAll(async () => {
      app = await startTransportsApp({ simpleHttpPath: 'rpc', http: { simpleCallTimeoutMs: 200 } }, platform, routing);
    });

    afterAll(async () => {
      await app?.close();
    });

    it('ends a legacy call that outlives it with -32000 and aborts the handler', async () => {
      const label = `deadline-legacy-${platform}-${routing.base}`;
      const response = await exchange(app.route('rpc'), waitForAbortCall('legacy', { label }, 1));
      expect(response.status).toBe(200);
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32000, message: 'Request timed out after 200 ms' },
      });
      expect((await app.probe.waitFor('aborted', label)).reason).toBe('Request timed out after 200 ms');
      await waitUntil(() => app.probe.running === 0, 'no handler is left running');
    });

    it('ends a modern call that outlives it with -32603', async () => {
      const label = `deadline-modern-${platform}-${routing.base}`;
      const response = await exchange(app.route('rpc'), waitForAbortCall('modern', { label }, 2));
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32603, message: 'Request timed out after 200 ms' },
      });
      await app.probe.waitFor('aborted', label);
    });

    it('bounds only the simple endpoint: the same call on Streamable HTTP runs to its end', async () => {
      const label = `deadline-streamable-${platform}-${routing.base}`;
      const response = await exchange(app.route('mcp'), waitForAbortCall('modern', { label, limitMs: 600 }, 3));
      const answer = response.json ?? response.events.find((message) => message.id === 3);
      expect(toolText(answer)).toBe('finished without being aborted');
      expect(app.probe.trail(label)).toEqual(['started', 'finished']);
    });
  });

  describe('callTimeoutMs: 200 without http.simpleCallTimeoutMs', () => {
    let app: TransportsApp;

    beforeAll(async () => {
      app = await startTransportsApp({ simpleHttpPath: 'rpc', callTimeoutMs: 200 }, platform, routing);
    });

    afterAll(async () => {
      await app?.close();
    });

    it('bounds simple calls by callTimeoutMs', async () => {
      const label = `deadline-default-${platform}-${routing.base}`;
      const response = await exchange(app.route('rpc'), waitForAbortCall('legacy', { label }, 1));
      expect(response.json).toMatchObject({
        id: 1,
        error: { code: -32000, message: 'Request timed out after 200 ms' },
      });
      await app.probe.waitFor('aborted', label);
    });
  });
});
