/**
 * HTTP safety on every MCP endpoint (Streamable HTTP `/mcp`, simple `/rpc`, the 2024-11-05 SSE
 * pair `/sse` + `/messages`), over real sockets: CORS preflight and answer headers for admitted
 * origins, the Origin and Host checks (403), the allow-list options, `http.cors: false`, an
 * application that answers CORS itself, and the body size and depth limits.
 */
import type { INestApplication } from '@nestjs/common';
import type { HttpPlatform } from './fixtures/http-app';
import {
  exchange,
  legacyRequest,
  modernHeaders,
  modernRequest,
  openLegacySession,
  rawHttp,
  type RpcMessage,
  send,
} from './fixtures/raw-rpc';
import { closeAllSessions, openSsePair, type SessionsApp, startSessionsApp } from './fixtures/sessions-fixture';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

const EXTRAS = { simpleHttpPath: 'rpc', ssePath: 'sse', sseMessagesPath: 'messages' } as const;

/** A browser app on a loopback dev server: admitted by default when the server listens on loopback. */
const LOOPBACK_ORIGIN = 'http://localhost:5173';
const FOREIGN_ORIGIN = 'https://evil.example';

/** The request headers every preflight answer allows (besides the `Mcp-Param-*` ones asked for). */
const MCP_REQUEST_HEADERS = [
  'accept',
  'authorization',
  'content-type',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
];
const EXPOSED = ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate'];

/** Each endpoint and the methods it serves. */
const PATHS: Array<[string, string]> = [
  ['mcp', 'GET, POST, DELETE, OPTIONS'],
  ['rpc', 'POST, OPTIONS'],
  ['sse', 'GET, OPTIONS'],
  ['messages', 'POST, OPTIONS'],
];

const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
];

function list(value: string | null | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item.length > 0);
}

/** The CORS headers an answer carries, by name (absent ones left out). */
function corsOf(headers: Headers): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of CORS_HEADERS) {
    const value = headers.get(name);
    if (value !== null) {
      found[name] = value;
    }
  }
  return found;
}

function preflight(url: URL, origin: string | undefined, requestHeaders = 'content-type, mcp-session-id') {
  return exchange(url, {
    method: 'OPTIONS',
    headers: {
      ...(origin === undefined ? {} : { origin }),
      'access-control-request-method': 'POST',
      'access-control-request-headers': requestHeaders,
    },
  });
}

/** Whether an answer lets a browser page at `origin` read it, and read `Mcp-Session-Id`. */
function expectReadableBy(headers: Headers, origin: string): void {
  expect(headers.get('access-control-allow-origin')).toBe(origin);
  expect(list(headers.get('vary'))).toContain('origin');
  expect(list(headers.get('access-control-expose-headers'))).toEqual(expect.arrayContaining(EXPOSED));
}

const INITIALIZE = legacyRequest(
  'initialize',
  { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cors-e2e', version: '0.0.1' } },
  1,
);

describe.each(PLATFORMS)('CORS with the default options (%s)', (platform) => {
  let server: SessionsApp;
  let cleanup: AbortController;
  const at = (path: string): URL => new URL(`/${path}`, server.baseUrl);

  beforeAll(async () => {
    server = await startSessionsApp({ ...EXTRAS }, { platform });
  });

  beforeEach(() => {
    cleanup = new AbortController();
  });

  afterEach(async () => {
    cleanup.abort();
    await closeAllSessions(server.app);
  });

  afterAll(async () => {
    await server?.close();
  });

  it.each(PATHS)(
    'answers a preflight on /%s from a loopback origin with 204, Allow %p, the methods and the Mcp-* headers',
    async (path, allow) => {
      const response = await preflight(at(path), LOOPBACK_ORIGIN, 'Content-Type, Mcp-Session-Id, Mcp-Protocol-Version');
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(response.headers.get('allow')).toBe(allow);
      expect(corsOf(response.headers)).toEqual({
        'access-control-allow-origin': LOOPBACK_ORIGIN,
        'access-control-allow-methods': allow,
        'access-control-allow-headers': MCP_REQUEST_HEADERS.join(', '),
        'access-control-expose-headers': EXPOSED.join(', '),
        'access-control-max-age': '600',
      });
      expect(list(response.headers.get('vary'))).toContain('origin');
    },
  );

  it('allows the Mcp-Param-* headers a preflight asks for, once each, and no other unknown header', async () => {
    const response = await preflight(
      at('mcp'),
      LOOPBACK_ORIGIN,
      'content-type, Mcp-Param-Region, mcp-param-floor, MCP-PARAM-REGION, x-custom-header',
    );
    expect(response.status).toBe(204);
    const allowed = list(response.headers.get('access-control-allow-headers'));
    expect(allowed).toEqual([...MCP_REQUEST_HEADERS, 'mcp-param-region', 'mcp-param-floor']);
    expect(allowed).not.toContain('x-custom-header');
  });

  it.each(PATHS)('refuses a preflight on /%s from a foreign origin with 403 and no CORS headers', async (path) => {
    const response = await preflight(at(path), FOREIGN_ORIGIN);
    expect(response.status).toBe(403);
    expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    expect(corsOf(response.headers)).toEqual({});
  });

  it.each(PATHS)('checks the Origin before refusing a verb /%s does not serve (403, not 405)', async (path) => {
    const response = await exchange(at(path), { method: 'PUT', body: '{}', headers: { origin: FOREIGN_ORIGIN } });
    expect(response.status).toBe(403);
    expect(corsOf(response.headers)).toEqual({});
  });

  it.each(PATHS)(
    'answers a verb /%s does not serve with 405 and Allow %p, readable by an admitted origin',
    async (path, allow) => {
      const response = await exchange(at(path), { method: 'PATCH', body: '{}', headers: { origin: LOOPBACK_ORIGIN } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe(allow);
      expect(response.headers.get('access-control-allow-origin')).toBe(LOOPBACK_ORIGIN);
    },
  );

  it.each([
    ['mcp', 'GET, POST, DELETE, OPTIONS'],
    ['sse', 'GET, OPTIONS'],
  ])('answers HEAD on /%s with 405 rather than opening a stream or a session', async (path, allow) => {
    const before = await server.sessions.count();
    const response = await exchange(at(path), { method: 'HEAD' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(await server.sessions.count()).toBe(before);
  });

  it.each(PATHS)('answers OPTIONS on /%s without an Origin with 204 and Allow %p only', async (path, allow) => {
    const response = await preflight(at(path), undefined);
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe(allow);
    expect(corsOf(response.headers)).toEqual({});
  });

  it('lets a browser read the Mcp-Session-Id of an initialize answer (ACAO, Vary, Expose)', async () => {
    const response = await exchange(server.url, { body: INITIALIZE, headers: { origin: LOOPBACK_ORIGIN } });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).not.toBeNull();
    expectReadableBy(response.headers, LOOPBACK_ORIGIN);
    // Preflight-only headers stay on preflights.
    expect(response.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('puts the CORS headers on the GET stream, DELETE and error answers of /mcp', async () => {
    const session = await openLegacySession(server.url);
    const withOrigin = { ...session.headers, origin: LOOPBACK_ORIGIN };
    const stream = await send(server.url, {
      method: 'GET',
      headers: { ...withOrigin, accept: 'text/event-stream' },
      signal: cleanup.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    expectReadableBy(stream.headers, LOOPBACK_ORIGIN);

    const unknown = await exchange(server.url, {
      body: legacyRequest('ping', undefined, 2),
      headers: { origin: LOOPBACK_ORIGIN, 'mcp-session-id': 'mcp_unknown' },
    });
    expect(unknown.status).toBe(404);
    expectReadableBy(unknown.headers, LOOPBACK_ORIGIN);

    const deleted = await exchange(server.url, { method: 'DELETE', headers: withOrigin });
    expect(deleted.status).toBe(204);
    expectReadableBy(deleted.headers, LOOPBACK_ORIGIN);

    const notAllowed = await exchange(server.url, { method: 'PUT', headers: { origin: LOOPBACK_ORIGIN } });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
  });

  it('puts the CORS headers on /rpc answers, the /sse stream and /messages acknowledgements', async () => {
    const rpc = await exchange(at('rpc'), {
      body: modernRequest('tools/list'),
      headers: { ...modernHeaders('tools/list'), origin: LOOPBACK_ORIGIN, accept: 'application/json' },
    });
    expect(rpc.status).toBe(200);
    expect(rpc.json.result.tools.length).toBeGreaterThan(0);
    expectReadableBy(rpc.headers, LOOPBACK_ORIGIN);

    const pair = await openSsePair(at('sse'), server.baseUrl, { origin: LOOPBACK_ORIGIN }, cleanup.signal);
    expectReadableBy(pair.response.headers, LOOPBACK_ORIGIN);
    const posted = await exchange(pair.messagesUrl, {
      body: legacyRequest('ping', undefined, 3),
      headers: { origin: LOOPBACK_ORIGIN },
    });
    expect(posted.status).toBe(202);
    expectReadableBy(posted.headers, LOOPBACK_ORIGIN);
  });

  it('refuses a foreign Origin on actual requests of /rpc, /sse and /messages with 403 and no CORS headers', async () => {
    const pair = await openSsePair(at('sse'), server.baseUrl, {}, cleanup.signal);
    const answers = [
      await exchange(at('rpc'), {
        body: modernRequest('tools/list'),
        headers: { ...modernHeaders('tools/list'), origin: FOREIGN_ORIGIN },
      }),
      await exchange(at('sse'), { method: 'GET', headers: { accept: 'text/event-stream', origin: FOREIGN_ORIGIN } }),
      await exchange(pair.messagesUrl, {
        body: legacyRequest('ping', undefined, 4),
        headers: { origin: FOREIGN_ORIGIN },
      }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      expect(corsOf(answer.headers)).toEqual({});
    }
    expect(pair.stream.text).not.toContain('"id":4');
  });

  it.each([
    ['POST', 'mcp'],
    ['OPTIONS', 'mcp'],
    ['POST', 'rpc'],
    ['OPTIONS', 'rpc'],
    ['GET', 'sse'],
    ['OPTIONS', 'sse'],
    ['POST', 'messages?sessionId=mcp_unknown'],
    ['OPTIONS', 'messages'],
  ])('refuses %s /%s with a Host naming another server (DNS rebinding) with 403', async (method, path) => {
    const response = await rawHttp(at(path), {
      method,
      headers: {
        host: 'evil.example',
        origin: LOOPBACK_ORIGIN,
        accept: method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream',
        ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      },
      body: method === 'POST' ? JSON.stringify(legacyRequest('ping', undefined, 5)) : undefined,
    });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe.each(PLATFORMS)('Allow-lists: allowedOrigins and allowedHosts (%s)', (platform) => {
  let server: SessionsApp;
  const APP_ORIGIN = 'https://app.example';
  const HOST = 'mcp.example.com';
  const at = (path: string): URL => new URL(`/${path}`, server.baseUrl);

  beforeAll(async () => {
    server = await startSessionsApp(
      { ...EXTRAS, http: { allowedOrigins: [APP_ORIGIN], allowedHosts: [HOST] } },
      { platform },
    );
  });

  afterEach(async () => {
    await closeAllSessions(server.app);
  });

  afterAll(async () => {
    await server?.close();
  });

  function options(path: string, origin: string, host = HOST) {
    return rawHttp(at(path), {
      method: 'OPTIONS',
      headers: {
        host,
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'mcp-param-region',
      },
    });
  }

  it.each(PATHS)('gives the listed origin a full preflight answer on /%s', async (path, allow) => {
    const response = await options(path, APP_ORIGIN);
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(response.headers['access-control-allow-methods']).toBe(allow);
    expect(list(response.headers['access-control-allow-headers'])).toEqual([
      ...MCP_REQUEST_HEADERS,
      'mcp-param-region',
    ]);
  });

  it('lets the listed origin read an initialize answer through the listed Host', async () => {
    const response = await rawHttp(server.url, {
      headers: {
        host: `${HOST}:443`,
        origin: APP_ORIGIN,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify(INITIALIZE),
    });
    expect(response.status).toBe(200);
    expect(response.headers['mcp-session-id']).toBeDefined();
    expect(response.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(list(response.headers['access-control-expose-headers'] as string)).toEqual(expect.arrayContaining(EXPOSED));
  });

  it.each(['mcp', 'rpc', 'sse', 'messages'])(
    'refuses the loopback origin the list replaced on /%s with 403 and no CORS headers',
    async (path) => {
      const response = await options(path, LOOPBACK_ORIGIN);
      expect(response.status).toBe(403);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    },
  );

  it('refuses the listed origin through a Host that is not listed (the loopback one included)', async () => {
    const response = await options('mcp', APP_ORIGIN, new URL(server.baseUrl).host);
    expect(response.status).toBe(403);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe.each(PLATFORMS)('http.cors: false (%s)', (platform) => {
  let server: SessionsApp;
  const at = (path: string): URL => new URL(`/${path}`, server.baseUrl);

  beforeAll(async () => {
    server = await startSessionsApp({ ...EXTRAS, http: { cors: false } }, { platform });
  });

  afterEach(async () => {
    await closeAllSessions(server.app);
  });

  afterAll(async () => {
    await server?.close();
  });

  it.each(PATHS)('answers a preflight on /%s with 204 and Allow %p, without CORS headers', async (path, allow) => {
    const response = await preflight(at(path), LOOPBACK_ORIGIN);
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe(allow);
    expect(corsOf(response.headers)).toEqual({});
  });

  it('answers requests from an admitted origin without CORS headers', async () => {
    const initialize = await exchange(server.url, { body: INITIALIZE, headers: { origin: LOOPBACK_ORIGIN } });
    expect(initialize.status).toBe(200);
    expect(corsOf(initialize.headers)).toEqual({});
    const rpc = await exchange(at('rpc'), {
      body: modernRequest('tools/list'),
      headers: { ...modernHeaders('tools/list'), origin: LOOPBACK_ORIGIN },
    });
    expect(rpc.status).toBe(200);
    expect(corsOf(rpc.headers)).toEqual({});
  });

  it('still refuses a foreign origin with 403', async () => {
    const preflighted = await preflight(at('mcp'), FOREIGN_ORIGIN);
    expect(preflighted.status).toBe(403);
    const posted = await exchange(server.url, { body: INITIALIZE, headers: { origin: FOREIGN_ORIGIN } });
    expect(posted.status).toBe(403);
    expect(posted.headers.get('mcp-session-id')).toBeNull();
    await expect(server.sessions.count()).resolves.toBe(0);
  });
});

describe.each(PLATFORMS)('An application that answers CORS itself: app.enableCors() (%s)', (platform) => {
  let server: SessionsApp;
  const APP_CORS_ORIGIN = 'http://localhost:5173';
  /** Another loopback origin: admitted by our check, not the one the application's CORS names. */
  const OTHER_LOOPBACK = 'http://127.0.0.1:5173';

  beforeAll(async () => {
    server = await startSessionsApp(
      { ...EXTRAS },
      { platform, configure: (app: INestApplication) => app.enableCors({ origin: APP_CORS_ORIGIN }) },
    );
  });

  afterEach(async () => {
    await closeAllSessions(server.app);
  });

  afterAll(async () => {
    await server?.close();
  });

  it("keeps the application's Access-Control-Allow-Origin on answers (never overwritten nor doubled)", async () => {
    const response = await exchange(server.url, { body: INITIALIZE, headers: { origin: OTHER_LOOPBACK } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP_CORS_ORIGIN);
  });

  it("leaves the preflight to the application's CORS handler", async () => {
    const response = await preflight(server.url, OTHER_LOOPBACK);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP_CORS_ORIGIN);
  });

  it('still refuses a foreign origin with 403', async () => {
    const response = await exchange(server.url, { body: INITIALIZE, headers: { origin: FOREIGN_ORIGIN } });
    expect(response.status).toBe(403);
    expect(response.headers.get('mcp-session-id')).toBeNull();
  });
});

describe.each(PLATFORMS)('Body limits on every POST endpoint (maxBodyBytes 2048) (%s)', (platform) => {
  let server: SessionsApp;
  let cleanup: AbortController;
  let messagesUrl: URL;
  const at = (path: string): URL => new URL(`/${path}`, server.baseUrl);

  beforeAll(async () => {
    server = await startSessionsApp({ ...EXTRAS, http: { maxBodyBytes: 2048 } }, { platform });
  });

  beforeEach(async () => {
    cleanup = new AbortController();
    // /messages reads a body only for a live pair.
    messagesUrl = (await openSsePair(at('sse'), server.baseUrl, {}, cleanup.signal)).messagesUrl;
  });

  afterEach(async () => {
    cleanup.abort();
    await closeAllSessions(server.app);
  });

  afterAll(async () => {
    await server?.close();
  });

  const endpoint = (name: string): URL => (name === 'messages' ? messagesUrl : at(name));

  function ping(padding: number): RpcMessage {
    return legacyRequest('ping', { _meta: { padding: 'x'.repeat(padding) } }, 6);
  }

  function nested(depth: number): RpcMessage {
    let value: Record<string, unknown> = {};
    for (let level = 0; level < depth; level += 1) {
      value = { inner: value };
    }
    return legacyRequest('ping', { _meta: { deep: value } }, 7);
  }

  it.each(['mcp', 'rpc', 'messages'])(
    'answers a body over maxBodyBytes on /%s with 413 and a JSON-RPC -32600 naming the limit, readable by a browser',
    async (name) => {
      const response = await exchange(endpoint(name), { body: ping(4000), headers: { origin: LOOPBACK_ORIGIN } });
      expect(response.status).toBe(413);
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: "Request body exceeds 2048 bytes, this server's limit (McpModule option http.maxBodyBytes)",
        },
      });
      expectReadableBy(response.headers, LOOPBACK_ORIGIN);
    },
  );

  it.each(['mcp', 'rpc', 'messages'])(
    "answers a body the platform's own parser refuses as too large on /%s with 413 and -32600",
    async (name) => {
      // Over Express's default 100 kB and Fastify's default 1 MiB.
      const response = await exchange(endpoint(name), { body: ping(2 * 1024 * 1024) });
      expect(response.status).toBe(413);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    },
  );

  // The body-error bridge answers before our handler: its answers pass the same checks.
  it.each(['mcp', 'rpc', 'messages'])(
    "lets a browser read the 413 of a body the platform's parser refuses on /%s",
    async (name) => {
      const response = await exchange(endpoint(name), {
        body: ping(2 * 1024 * 1024),
        headers: { origin: LOOPBACK_ORIGIN },
      });
      expect(response.status).toBe(413);
      expectReadableBy(response.headers, LOOPBACK_ORIGIN);
    },
  );

  it.each(['rpc', 'messages'])(
    'answers a body nested deeper than 64 levels on /%s with 400 and -32600',
    async (name) => {
      const response = await exchange(endpoint(name), { body: nested(80) });
      expect(response.status).toBe(400);
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: "Request nesting exceeds 64 levels, this server's limit (McpModule option http.maxJsonDepth)",
        },
      });
    },
  );

  it('serves a body just under both limits on every endpoint', async () => {
    const rpc = await exchange(at('rpc'), { body: nested(40) });
    expect(rpc.json).toMatchObject({ id: 7, result: {} });
    const messages = await exchange(messagesUrl, { body: ping(1500) });
    expect(messages.status).toBe(202);
  });
});
