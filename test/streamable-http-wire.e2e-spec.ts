/**
 * The Streamable HTTP endpoint byte by byte, with plain `fetch`: status codes, JSON-RPC error
 * codes and result envelopes of both eras, as the specification and our error map define them.
 */
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { FIXTURE_SERVER, ProtocolFixtureModule } from './fixtures/protocol-fixture.module';
import {
  exchange,
  legacyRequest,
  META,
  MODERN_REVISION,
  modernHeaders,
  modernMeta,
  modernRequest,
  openLegacySession,
  post,
  rawHttp,
  type RawResponse,
} from './fixtures/raw-rpc';

const SERVER_INFO = {
  name: FIXTURE_SERVER.name,
  version: FIXTURE_SERVER.version,
  title: FIXTURE_SERVER.title,
  description: FIXTURE_SERVER.description,
};

/**
 * A `tools/call` whose JSON nests exactly `depth` arrays/objects deep (the envelope and
 * `params` count as the first two levels).
 */
function callNestedTo(depth: number, id: number): Record<string, unknown> {
  let chain: Record<string, unknown> = { leaf: true };
  for (let level = 3; level < depth; level += 1) {
    chain = { nested: chain };
  }
  return legacyRequest('tools/call', { name: 'echo', arguments: chain }, id) as unknown as Record<string, unknown>;
}

/** Asserts a JSON body carrying one JSON-RPC error, with the HTTP status that goes with it. */
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

/** A modern POST: the envelope in the body and the matching headers. */
function postModern(
  server: HttpApp,
  method: string,
  params: Record<string, unknown> = {},
  name?: string,
  id: string | number = 1,
): Promise<RawResponse> {
  return post(server.url, modernRequest(method, params, id), modernHeaders(method, name));
}

/** The cacheable methods of 2026-07-28, with params and the value of `Mcp-Name`. */
const CACHEABLE: Array<{ method: string; params: Record<string, unknown>; name?: string }> = [
  { method: 'server/discover', params: {} },
  { method: 'tools/list', params: {} },
  { method: 'prompts/list', params: {} },
  { method: 'resources/list', params: {} },
  { method: 'resources/templates/list', params: {} },
  { method: 'resources/read', params: { uri: 'fixture://greeting' }, name: 'fixture://greeting' },
];

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

describe.each(PLATFORMS)('Streamable HTTP wire (%s)', (platform) => {
  let server: HttpApp;
  let legacy: Record<string, string>;

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot(), { platform });
    legacy = (await openLegacySession(server.url)).headers;
  });

  afterAll(async () => {
    await server?.close();
  });

  describe('framing', () => {
    it('answers malformed JSON with 400 and -32700 (id null)', async () => {
      const response = await exchange(server.url, { body: '{"jsonrpc":"2.0","id":1,"method":' });
      expectRpcError(response, 400, -32700, null);
    });

    it('answers an Accept without text/event-stream with 406', async () => {
      const response = await exchange(server.url, {
        body: legacyRequest('tools/list', {}),
        headers: { ...legacy, accept: 'application/json' },
      });
      expect(response.status).toBe(406);
      expect(response.json).toMatchObject({ error: { code: -32600 } });
    });

    it('answers an Accept without application/json with 406', async () => {
      const response = await exchange(server.url, {
        body: legacyRequest('tools/list', {}),
        headers: { ...legacy, accept: 'text/event-stream' },
      });
      expect(response.status).toBe(406);
    });

    it.each(['text/plain', 'application/xml', 'application/x-www-form-urlencoded'])(
      'answers Content-Type %s with 415',
      async (contentType) => {
        const response = await exchange(server.url, {
          body: JSON.stringify(legacyRequest('tools/list', {})),
          headers: { ...legacy, 'content-type': contentType },
        });
        expect(response.status).toBe(415);
      },
    );

    it('answers a non-JSON Content-Type with a JSON-RPC error body', async () => {
      const response = await exchange(server.url, {
        body: JSON.stringify(legacyRequest('tools/list', {})),
        headers: { ...legacy, 'content-type': 'text/plain' },
      });
      expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it('answers a body nested deeper than 64 levels with 400 and -32600', async () => {
      const response = await post(server.url, callNestedTo(65, 50), legacy);
      expectRpcError(response, 400, -32600, null);
    });

    it('accepts a body nested exactly 64 levels deep', async () => {
      const response = await post(server.url, callNestedTo(64, 51), legacy);
      expect(response.status).toBe(200);
      // The arguments reach validation: echo requires `text`, so the call is a tool error, not a refusal.
      expect(response.json).toMatchObject({ id: 51, result: { isError: true } });
    });

    it('accepts application/json with parameters as Content-Type', async () => {
      const response = await post(server.url, legacyRequest('ping', undefined, 52), {
        ...legacy,
        'content-type': 'application/json; charset=utf-8',
      });
      expect(response.json).toEqual({ jsonrpc: '2.0', id: 52, result: {} });
    });
  });

  describe('batches', () => {
    const batch = [
      legacyRequest('ping', undefined, 'b1'),
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      legacyRequest('tools/call', { name: 'echo', arguments: { text: 'batched' } }, 'b2'),
    ];

    it('refuses a batch on a 2025-11-25 session (batching was removed in 2025-06-18) with 400 and -32600', async () => {
      const response = await post(server.url, batch, legacy);
      expectRpcError(response, 400, -32600, null);
    });

    it('answers a batch on a 2025-03-26 session with one response per request (the revision requires batches)', async () => {
      const session = await openLegacySession(server.url, '2025-03-26');
      const response = await post(server.url, batch, session.headers);
      expect(response.status).toBe(200);
      // Either a JSON array or an SSE stream may carry the responses, in any order.
      const responses = response.json ?? response.events;
      expect(responses).toHaveLength(2);
      expect(responses).toEqual(
        expect.arrayContaining([
          { jsonrpc: '2.0', id: 'b1', result: {} },
          { jsonrpc: '2.0', id: 'b2', result: { content: [{ type: 'text', text: 'echo: batched' }] } },
        ]),
      );
    });
  });

  describe('DNS-rebinding protection', () => {
    const body = JSON.stringify(modernRequest('tools/list'));
    const headers = (host: string, origin?: string): Record<string, string> => ({
      ...modernHeaders('tools/list'),
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      host,
      ...(origin === undefined ? {} : { origin }),
    });

    it('refuses a foreign Host and Origin with 403', async () => {
      const response = await rawHttp(server.url, {
        body,
        headers: headers('evil.example.com', 'http://evil.example.com'),
      });
      expect(response.status).toBe(403);
      expect(JSON.parse(response.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it('refuses a foreign Origin on the loopback Host with 403', async () => {
      const response = await rawHttp(server.url, {
        body,
        headers: headers(server.url.host, 'http://evil.example.com'),
      });
      expect(response.status).toBe(403);
    });

    it('admits the loopback Host, with or without a loopback Origin', async () => {
      const plain = await rawHttp(server.url, { body, headers: headers(server.url.host) });
      expect(plain.status).toBe(200);
      const withOrigin = await rawHttp(server.url, {
        body,
        headers: headers(`localhost:${server.url.port}`, `http://localhost:${server.url.port}`),
      });
      expect(withOrigin.status).toBe(200);
      expect(JSON.parse(withOrigin.text)).toMatchObject({ result: { resultType: 'complete' } });
    });
  });

  describe('legacy sessions', () => {
    it('answers a legacy request without Mcp-Session-Id with 400', async () => {
      const response = await post(server.url, legacyRequest('tools/list', {}, 3));
      expectRpcError(response, 400, -32600, 3);
    });

    it('answers an unknown session id with 404', async () => {
      const response = await post(server.url, legacyRequest('tools/list', {}, 4), {
        'mcp-session-id': 'mcp_00000000000000000000000000000000',
        'mcp-protocol-version': '2025-11-25',
      });
      expectRpcError(response, 404, -32600, 4);
    });

    it('answers the session id of another server with 404', async () => {
      const other = await startHttpApp(ProtocolFixtureModule.forRoot(), { platform });
      try {
        const foreign = await openLegacySession(other.url);
        const response = await post(server.url, legacyRequest('tools/list', {}, 5), foreign.headers);
        expectRpcError(response, 404, -32600, 5);
      } finally {
        await other.close();
      }
    });

    it('answers an unknown MCP-Protocol-Version on a legacy request with 400', async () => {
      const response = await post(server.url, legacyRequest('tools/list', {}, 6), {
        ...legacy,
        'mcp-protocol-version': '1999-01-01',
      });
      expectRpcError(response, 400, -32600, 6);
    });

    it('answers a legacy MCP-Protocol-Version the server does not offer with 400', async () => {
      const limited = await startHttpApp(ProtocolFixtureModule.forRoot({ revisions: ['2025-11-25', '2026-07-28'] }), {
        platform,
      });
      try {
        const session = await openLegacySession(limited.url);
        const response = await post(limited.url, legacyRequest('tools/list', {}, 7), {
          ...session.headers,
          'mcp-protocol-version': '2025-03-26',
        });
        expectRpcError(response, 400, -32600, 7);
      } finally {
        await limited.close();
      }
    });

    it('echoes the session id on legacy responses', async () => {
      const response = await post(server.url, legacyRequest('ping', undefined, 8), legacy);
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toBe(legacy['mcp-session-id']);
      expect(response.json).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
    });

    it('accepts a legacy notification with 202 and no body', async () => {
      const response = await post(server.url, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, legacy);
      expect(response.status).toBe(202);
      expect(response.text).toBe('');
    });
  });

  describe('modern envelope and headers', () => {
    it('answers MCP-Protocol-Version header ≠ _meta version with 400 and -32020', async () => {
      const body = modernRequest('tools/list', {}, 10, { [META.protocolVersion]: 'v999.0.0' });
      const response = await post(server.url, body, modernHeaders('tools/list'));
      expectRpcError(response, 400, -32020, 10);
    });

    it('answers a modern request without the MCP-Protocol-Version header with 400 and -32020', async () => {
      const response = await post(server.url, modernRequest('tools/list', {}, 11), { 'mcp-method': 'tools/list' });
      expectRpcError(response, 400, -32020, 11);
    });

    it('answers Mcp-Method ≠ method with 400 and -32020', async () => {
      const response = await post(server.url, modernRequest('tools/list', {}, 12), modernHeaders('prompts/list'));
      expectRpcError(response, 400, -32020, 12);
    });

    it('answers a missing Mcp-Method with 400 and -32020', async () => {
      const response = await post(server.url, modernRequest('tools/list', {}, 13), {
        'mcp-protocol-version': MODERN_REVISION,
      });
      expectRpcError(response, 400, -32020, 13);
    });

    it('answers Mcp-Name ≠ params.name with 400 and -32020', async () => {
      const body = modernRequest('tools/call', { name: 'echo', arguments: { text: 'x' } }, 14);
      const response = await post(server.url, body, modernHeaders('tools/call', 'add'));
      expectRpcError(response, 400, -32020, 14);
    });

    it('answers Mcp-Name ≠ params.uri on resources/read with 400 and -32020', async () => {
      const body = modernRequest('resources/read', { uri: 'fixture://greeting' }, 15);
      const response = await post(server.url, body, modernHeaders('resources/read', 'fixture://counter'));
      expectRpcError(response, 400, -32020, 15);
    });

    it('accepts a base64-sentinel Mcp-Name that decodes to params.name', async () => {
      const body = modernRequest('tools/call', { name: 'echo', arguments: { text: 'x' } }, 16);
      const encoded = `=?base64?${Buffer.from('echo').toString('base64')}?=`;
      const response = await post(server.url, body, modernHeaders('tools/call', encoded));
      expect(response.status).toBe(200);
      expect(response.json.result.content).toEqual([{ type: 'text', text: 'echo: x' }]);
    });

    it('answers Mcp-Name ≠ params.name on prompts/get with 400 and -32020', async () => {
      const body = modernRequest('prompts/get', { name: 'greet', arguments: { name: 'x' } }, 24);
      const response = await post(server.url, body, modernHeaders('prompts/get', 'other'));
      expectRpcError(response, 400, -32020, 24);
    });

    it('accepts Mcp-Param-* headers that agree with the arguments (integers compared as numbers)', async () => {
      const body = modernRequest('tools/call', { name: 'locate', arguments: { region: 'eu-west', floor: 3 } }, 25);
      const response = await post(server.url, body, {
        ...modernHeaders('tools/call', 'locate'),
        'mcp-param-region': 'eu-west',
        'mcp-param-floor': '3',
      });
      expect(response.status).toBe(200);
      expect(response.json.result.content).toEqual([{ type: 'text', text: 'region=eu-west floor=3' }]);
    });

    it('decodes a base64-sentinel Mcp-Param-* value before comparing', async () => {
      const body = modernRequest('tools/call', { name: 'locate', arguments: { region: 'Zürich' } }, 26);
      const response = await post(server.url, body, {
        ...modernHeaders('tools/call', 'locate'),
        'mcp-param-region': `=?base64?${Buffer.from('Zürich', 'utf8').toString('base64')}?=`,
      });
      expect(response.status).toBe(200);
      expect(response.json.result.content).toEqual([{ type: 'text', text: 'region=Zürich floor=none' }]);
    });

    it.each([
      ['a missing header for a present argument', { 'mcp-param-region': 'eu-west' }, { region: 'eu-west', floor: 3 }],
      ['a string that differs', { 'mcp-param-region': 'us-east' }, { region: 'eu-west' }],
      [
        'an integer that differs',
        { 'mcp-param-region': 'eu-west', 'mcp-param-floor': '4' },
        { region: 'eu-west', floor: 3 },
      ],
      [
        'a header for an absent argument',
        { 'mcp-param-region': 'eu-west', 'mcp-param-floor': '3' },
        { region: 'eu-west' },
      ],
      ['a malformed sentinel', { 'mcp-param-region': '=?base64?***?=' }, { region: 'eu-west' }],
    ])('answers %s in Mcp-Param-* with 400 and -32020', async (_case, params, args) => {
      const body = modernRequest('tools/call', { name: 'locate', arguments: args }, 27);
      const response = await post(server.url, body, { ...modernHeaders('tools/call', 'locate'), ...params });
      expectRpcError(response, 400, -32020, 27);
    });

    it('does not check Mcp-Param-* headers on legacy requests', async () => {
      const body = legacyRequest('tools/call', { name: 'locate', arguments: { region: 'eu-west' } }, 28);
      const response = await post(server.url, body, { ...legacy, 'mcp-param-region': 'somewhere-else' });
      expect(response.status).toBe(200);
      expect(response.json.result.content).toEqual([{ type: 'text', text: 'region=eu-west floor=none' }]);
    });

    it('answers _meta without clientCapabilities with 400 and -32602', async () => {
      const body = {
        jsonrpc: '2.0',
        id: 17,
        method: 'tools/list',
        params: { _meta: { [META.protocolVersion]: MODERN_REVISION } },
      };
      const response = await post(server.url, body, modernHeaders('tools/list'));
      expectRpcError(response, 400, -32602, 17);
      expect(response.json.error.message).toContain(META.clientCapabilities);
    });

    it('answers a modern-header request without _meta with 400 and -32602', async () => {
      const response = await post(
        server.url,
        { jsonrpc: '2.0', id: 18, method: 'tools/list', params: {} },
        modernHeaders('tools/list'),
      );
      expectRpcError(response, 400, -32602, 18);
    });

    it('answers _meta without protocolVersion (modern header) with 400 and -32602', async () => {
      const body = {
        jsonrpc: '2.0',
        id: 19,
        method: 'tools/list',
        params: { _meta: { [META.clientCapabilities]: {} } },
      };
      const response = await post(server.url, body, modernHeaders('tools/list'));
      expectRpcError(response, 400, -32602, 19);
      expect(response.json.error.message).toContain(META.protocolVersion);
    });

    it('accepts a request without clientInfo', async () => {
      const body = {
        jsonrpc: '2.0',
        id: 20,
        method: 'tools/list',
        params: { _meta: { [META.protocolVersion]: MODERN_REVISION, [META.clientCapabilities]: {} } },
      };
      const response = await post(server.url, body, modernHeaders('tools/list'));
      expect(response.status).toBe(200);
      expect(response.json.result.tools.length).toBeGreaterThan(0);
    });

    it('answers an unsupported modern version with 400 and -32022 naming supported and requested', async () => {
      const body = modernRequest('tools/list', {}, 21, { [META.protocolVersion]: '2099-01-01' });
      const response = await post(server.url, body, {
        ...modernHeaders('tools/list'),
        'mcp-protocol-version': '2099-01-01',
      });
      expectRpcError(response, 400, -32022, 21);
      expect(response.json.error.data).toEqual({ supported: [MODERN_REVISION], requested: '2099-01-01' });
    });

    it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe'])(
      'answers %s with a modern envelope with 404 and -32601',
      async (method) => {
        const params =
          method === 'initialize'
            ? { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }
            : method === 'logging/setLevel'
              ? { level: 'info' }
              : method === 'resources/subscribe'
                ? { uri: 'fixture://counter' }
                : {};
        const response = await postModern(server, method, params, undefined, 22);
        expectRpcError(response, 404, -32601, 22);
      },
    );

    it('accepts a modern notification with 202 and no body', async () => {
      const response = await post(
        server.url,
        { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: modernMeta() } },
        { 'mcp-protocol-version': MODERN_REVISION },
      );
      expect(response.status).toBe(202);
      expect(response.text).toBe('');
    });

    it('neither mints nor echoes a session on modern requests', async () => {
      const response = await post(server.url, modernRequest('tools/list', {}, 23), {
        ...modernHeaders('tools/list'),
        'mcp-session-id': legacy['mcp-session-id'],
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toBeNull();
    });

    it.each(['GET', 'DELETE'])('answers %s with a modern MCP-Protocol-Version with 405', async (method) => {
      const response = await exchange(server.url, {
        method,
        headers: { 'mcp-protocol-version': MODERN_REVISION, accept: 'text/event-stream' },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toContain('POST');
    });
  });

  describe('tool errors', () => {
    it('answers an unknown tool with -32602 and HTTP 400 in the modern era', async () => {
      const response = await postModern(server, 'tools/call', { name: 'missing', arguments: {} }, 'missing', 30);
      expectRpcError(response, 400, -32602, 30);
    });

    it('answers an unknown tool with -32602 and HTTP 200 in the legacy era', async () => {
      const response = await post(
        server.url,
        legacyRequest('tools/call', { name: 'missing', arguments: {} }, 31),
        legacy,
      );
      expectRpcError(response, 200, -32602, 31);
    });

    it('answers invalid arguments with an isError result in the modern era', async () => {
      const response = await postModern(server, 'tools/call', { name: 'add', arguments: { a: 'one' } }, 'add', 32);
      expect(response.status).toBe(200);
      expect(response.json.result).toMatchObject({ isError: true, resultType: 'complete' });
      expect(response.json.result.content[0].text).toContain('Invalid arguments for tool add');
    });

    it('answers invalid arguments with an isError result in the legacy era', async () => {
      const response = await post(server.url, legacyRequest('tools/call', { name: 'add', arguments: {} }, 33), legacy);
      expect(response.status).toBe(200);
      expect(response.json.result.isError).toBe(true);
      expect(response.json.result).not.toHaveProperty('resultType');
    });
  });

  describe('resource and prompt errors', () => {
    it('answers a read nothing serves with -32602 and data.uri (HTTP 400) in the modern era', async () => {
      const response = await postModern(
        server,
        'resources/read',
        { uri: 'fixture://nothing' },
        'fixture://nothing',
        34,
      );
      expectRpcError(response, 400, -32602, 34);
      expect(response.json.error.data).toEqual({ uri: 'fixture://nothing' });
    });

    it('answers a read nothing serves with -32002 and data.uri in the legacy era', async () => {
      const response = await post(
        server.url,
        legacyRequest('resources/read', { uri: 'fixture://nothing' }, 35),
        legacy,
      );
      expectRpcError(response, 200, -32002, 35);
      expect(response.json.error.data).toEqual({ uri: 'fixture://nothing' });
    });

    it('answers an unknown prompt with -32602 (HTTP 400 modern)', async () => {
      const response = await postModern(server, 'prompts/get', { name: 'nope' }, 'nope', 36);
      expectRpcError(response, 400, -32602, 36);
    });

    it('answers a prompt without its required argument with -32602', async () => {
      const response = await postModern(server, 'prompts/get', { name: 'greet', arguments: {} }, 'greet', 37);
      expectRpcError(response, 400, -32602, 37);
      expect(response.json.error.message).toContain('name');
    });

    it('completes nothing for an unknown reference', async () => {
      const response = await postModern(
        server,
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } },
        undefined,
        38,
      );
      expect(response.json.result.completion).toEqual({ values: [], hasMore: false });
    });
  });

  describe('result envelopes', () => {
    it('stamps modern results with resultType "complete" and _meta serverInfo', async () => {
      const response = await postModern(server, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }, 'echo', 40);
      expect(response.status).toBe(200);
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: 40,
        result: {
          content: [{ type: 'text', text: 'echo: hi' }],
          resultType: 'complete',
          _meta: { [META.serverInfo]: SERVER_INFO },
        },
      });
    });

    it('leaves resultType and serverInfo off legacy results', async () => {
      const response = await post(
        server.url,
        legacyRequest('tools/call', { name: 'echo', arguments: { text: 'hi' } }, 41),
        legacy,
      );
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: 41,
        result: { content: [{ type: 'text', text: 'echo: hi' }] },
      });
    });

    it.each(CACHEABLE)('puts ttlMs and cacheScope on modern $method', async ({ method, params, name }) => {
      const response = await postModern(server, method, params, name, 42);
      expect(response.status).toBe(200);
      expect(response.json.result).toMatchObject({
        resultType: 'complete',
        ttlMs: 60000,
        cacheScope: method === 'server/discover' ? 'public' : 'private',
        _meta: { [META.serverInfo]: SERVER_INFO },
      });
    });

    it.each(CACHEABLE)('leaves ttlMs and cacheScope off legacy $method', async ({ method, params }) => {
      const response = await post(server.url, legacyRequest(method, params, 43), legacy);
      expect(response.status).toBe(200);
      expect(response.json.result).toBeDefined();
      expect(response.json.result).not.toHaveProperty('ttlMs');
      expect(response.json.result).not.toHaveProperty('cacheScope');
      expect(response.json.result).not.toHaveProperty('resultType');
    });

    it('answers a modern request that is not cacheable without cache hints', async () => {
      const response = await postModern(
        server,
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'style', value: '' } },
        undefined,
        44,
      );
      expect(response.json.result).toMatchObject({
        resultType: 'complete',
        completion: { values: ['formal', 'casual'], total: 2, hasMore: false },
      });
      expect(response.json.result).not.toHaveProperty('ttlMs');
    });
  });
});

describe('Streamable HTTP wire: cache hints follow the module options', () => {
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(
      ProtocolFixtureModule.forRoot({
        cacheHints: { ttlMs: 5000, scope: 'public', discoverTtlMs: 1000, discoverScope: 'private' },
      }),
    );
  });

  afterAll(async () => {
    await server?.close();
  });

  it('uses the configured ttlMs and scope for lists and reads', async () => {
    const response = await postModern(server, 'tools/list');
    expect(response.json.result).toMatchObject({ ttlMs: 5000, cacheScope: 'public' });
  });

  it('uses the configured discover ttlMs and scope for server/discover', async () => {
    const response = await postModern(server, 'server/discover');
    expect(response.json.result).toMatchObject({ ttlMs: 1000, cacheScope: 'private' });
  });
});
