/**
 * The legacy handshake and session lifecycle, and the module options that shape the wire
 * (session cap, call deadline, body size, allowed hosts, page size, cache TTLs), with plain
 * `fetch` on the Streamable HTTP endpoint.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpSessionService } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { FIXTURE_TOOL_NAMES, ProtocolFixtureModule, ProtocolProbe } from './fixtures/protocol-fixture.module';
import {
  exchange,
  legacyRequest,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  rawHttp,
  send,
  withTimeout,
} from './fixtures/raw-rpc';
import { TestClock } from './support/test-clock';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

const CLIENT_INFO = { name: 'raw-e2e', version: '0.0.1' };

function initialize(protocolVersion: unknown, id: number | string = 1) {
  return legacyRequest('initialize', { protocolVersion, capabilities: {}, clientInfo: CLIENT_INFO }, id);
}

describe.each(PLATFORMS)('Legacy handshake (%s)', (platform) => {
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot(), { platform });
  });

  afterAll(async () => {
    await server?.close();
  });

  it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])(
    'accepts initialize at %s and mints a session',
    async (version) => {
      const response = await post(server.url, initialize(version));
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toMatch(/^[\x21-\x7e]+$/);
      expect(response.json.result.protocolVersion).toBe(version);
    },
  );

  it.each(['2099-01-01', MODERN_REVISION])('counter-offers 2025-11-25 to an initialize at %s', async (version) => {
    const response = await post(server.url, initialize(version));
    expect(response.status).toBe(200);
    expect(response.json.result.protocolVersion).toBe('2025-11-25');
    expect(response.headers.get('mcp-session-id')).not.toBeNull();
  });

  it('answers initialize without clientInfo with -32602 and leaves no session behind', async () => {
    const response = await post(
      server.url,
      legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities: {} }, 2),
    );
    expect(response.json).toMatchObject({ id: 2, error: { code: -32602 } });
    expect(response.headers.get('mcp-session-id')).toBeNull();
  });

  it('refuses a second initialize on the same session with -32600', async () => {
    const session = await openLegacySession(server.url);
    const again = await post(server.url, initialize('2025-11-25', 3), session.headers);
    expect(again.json).toMatchObject({ id: 3, error: { code: -32600 } });
    // The session still works.
    const ping = await post(server.url, legacyRequest('ping', undefined, 4), session.headers);
    expect(ping.json).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
  });

  it('answers server/discover without a session in the legacy era', async () => {
    const response = await post(server.url, legacyRequest('server/discover', {}, 5));
    expect(response.status).toBe(200);
    expect(response.json.result.supportedVersions).toEqual([
      '2026-07-28',
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
    ]);
    expect(response.headers.get('mcp-session-id')).toBeNull();
  });

  it('answers an unknown legacy method with -32601 (HTTP 200) and an unknown modern one with 404', async () => {
    const session = await openLegacySession(server.url);
    const legacy = await post(server.url, legacyRequest('no/such/method', {}, 6), session.headers);
    expect(legacy.status).toBe(200);
    expect(legacy.json).toMatchObject({ id: 6, error: { code: -32601 } });
    const modern = await post(server.url, modernRequest('no/such/method', {}, 7), modernHeaders('no/such/method'));
    expect(modern.status).toBe(404);
    expect(modern.json).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it('answers a message that is not JSON-RPC with 400 and -32600', async () => {
    const response = await post(server.url, { id: 8, method: 'tools/list' });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  });

  it('accepts a JSON-RPC response POSTed by the client with 202', async () => {
    const session = await openLegacySession(server.url);
    const response = await post(server.url, { jsonrpc: '2.0', id: 'srv-1', result: {} }, session.headers);
    expect(response.status).toBe(202);
  });

  it('answers DELETE without a session with 400 and with an unknown session with 404', async () => {
    const missing = await exchange(server.url, { method: 'DELETE' });
    expect(missing.status).toBe(400);
    const unknown = await exchange(server.url, { method: 'DELETE', headers: { 'mcp-session-id': 'mcp_unknown' } });
    expect(unknown.status).toBe(404);
  });

  it('answers OPTIONS with 204 and other verbs with 405, both with Allow', async () => {
    const options = await exchange(server.url, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toEqual(expect.stringContaining('POST'));
    const put = await exchange(server.url, {
      method: 'PUT',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toEqual(expect.stringContaining('POST'));
  });
});

describe('Session cap (sessions.maxSessions = 1)', () => {
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot({ sessions: { maxSessions: 1 } }));
  });

  afterAll(async () => {
    await server?.close();
  });

  it('refuses an initialize beyond the cap with 503 and Retry-After, and admits one again after DELETE', async () => {
    const first = await openLegacySession(server.url);
    const refused = await post(server.url, initialize('2025-11-25', 2));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    expect(refused.json).toMatchObject({ id: 2, error: { code: expect.any(Number) } });

    const deleted = await exchange(server.url, { method: 'DELETE', headers: first.headers });
    expect(deleted.status).toBe(204);
    await expect(openLegacySession(server.url)).resolves.toMatchObject({ protocolVersion: '2025-11-25' });
  });
});

describe('Call deadline (callTimeoutMs = 300)', () => {
  let server: HttpApp;
  let probe: ProtocolProbe;

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot({ callTimeoutMs: 300 }));
    probe = server.app.get(ProtocolProbe);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('answers a legacy call past the deadline with -32000 and aborts the tool', async () => {
    const session = await openLegacySession(server.url);
    const response = await post(
      server.url,
      legacyRequest('tools/call', { name: 'block_until_aborted', arguments: { label: 'deadline-legacy' } }, 10),
      session.headers,
    );
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ id: 10, error: { code: -32000 } });
    await expect(probe.waitFor('aborted', 'deadline-legacy')).resolves.toMatchObject({
      reason: expect.stringContaining('timed out'),
    });
  });

  it('answers a modern call past the deadline with -32603 (HTTP 200) and aborts the tool', async () => {
    const response = await post(
      server.url,
      modernRequest('tools/call', { name: 'block_until_aborted', arguments: { label: 'deadline-modern' } }, 11),
      modernHeaders('tools/call', 'block_until_aborted'),
    );
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ id: 11, error: { code: -32603 } });
    await expect(probe.waitFor('aborted', 'deadline-modern')).resolves.toBeDefined();
  });
});

describe('HTTP options (maxBodyBytes = 2048, allowedHosts)', () => {
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(
      ProtocolFixtureModule.forRoot({ http: { maxBodyBytes: 2048, allowedHosts: ['mcp.example.com'] } }),
    );
  });

  afterAll(async () => {
    await server?.close();
  });

  const headers = (host: string): Record<string, string> => ({
    ...modernHeaders('tools/call', 'echo'),
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    host,
  });

  it('answers a body over maxBodyBytes with 413', async () => {
    const body = JSON.stringify(modernRequest('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(4000) } }));
    const response = await rawHttp(server.url, { body, headers: headers('mcp.example.com') });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  });

  it('admits an allowed Host and refuses the loopback one it replaced', async () => {
    const body = JSON.stringify(modernRequest('tools/call', { name: 'echo', arguments: { text: 'ok' } }));
    const allowed = await rawHttp(server.url, { body, headers: headers('mcp.example.com:443') });
    expect(allowed.status).toBe(200);
    expect(JSON.parse(allowed.text).result.content).toEqual([{ type: 'text', text: 'echo: ok' }]);
    const refused = await rawHttp(server.url, { body, headers: headers(server.url.host) });
    expect(refused.status).toBe(403);
  });
});

describe('Pagination (pageSize = 2) and per-resource cache TTL', () => {
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot({ pageSize: 2 }));
  });

  afterAll(async () => {
    await server?.close();
  });

  it('pages tools/list with nextCursor; every page carries the same cache scope', async () => {
    const names: string[] = [];
    const scopes = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const response = await post(
        server.url,
        modernRequest('tools/list', cursor === undefined ? {} : { cursor }, pages + 1),
        modernHeaders('tools/list'),
      );
      expect(response.status).toBe(200);
      names.push(...response.json.result.tools.map((tool: { name: string }) => tool.name));
      scopes.add(response.json.result.cacheScope);
      cursor = response.json.result.nextCursor;
      pages += 1;
    } while (cursor !== undefined && pages < 10);
    expect(pages).toBe(3);
    expect(names).toEqual([...FIXTURE_TOOL_NAMES]);
    expect([...scopes]).toEqual(['private']);
  });

  it('answers a cursor it did not issue with -32602 (HTTP 400 in the modern era)', async () => {
    const response = await post(
      server.url,
      modernRequest('tools/list', { cursor: 'bm90LW91cnM' }, 9),
      modernHeaders('tools/list'),
    );
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ id: 9, error: { code: -32602 } });
  });

  it('lets the v2 client walk every page', async () => {
    const client = new Client({ name: 'v2-e2e', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    try {
      await client.connect(new StreamableHTTPClientTransport(server.url));
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([...FIXTURE_TOOL_NAMES]);
    } finally {
      await client.close();
    }
  });

  it("puts a resource's own cacheTtlMs on a modern resources/read", async () => {
    const response = await post(
      server.url,
      modernRequest('resources/read', { uri: 'fixture://counter' }),
      modernHeaders('resources/read', 'fixture://counter'),
    );
    expect(response.json.result).toMatchObject({ ttlMs: 1500, cacheScope: 'private', resultType: 'complete' });
  });
});

describe('Legacy notification without a session', () => {
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot());
  });

  afterAll(async () => {
    await server?.close();
  });

  it('is refused with 400 like any legacy message', async () => {
    const response = await send(server.url, { body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    expect(response.status).toBe(400);
  });
});

describe('Idle sessions (idleTimeoutMs = 60000 on a test clock, sweepIntervalMs = 100)', () => {
  let server: HttpApp;
  /** Moved past the idle timeout by the test: no test waits for a session to go idle. */
  const clock = new TestClock();

  beforeAll(async () => {
    server = await startHttpApp(
      ProtocolFixtureModule.forRoot({ sessions: { idleTimeoutMs: 60_000, sweepIntervalMs: 100 } }),
      { clock },
    );
  });

  afterAll(async () => {
    await server?.close();
  });

  it('ends an idle session (404 afterwards) but keeps a session whose GET stream is open', async () => {
    const streaming = await openLegacySession(server.url);
    const idle = await openLegacySession(server.url);
    const stream = new AbortController();
    try {
      const response = await send(server.url, {
        method: 'GET',
        headers: { ...streaming.headers, accept: 'text/event-stream' },
        signal: stream.signal,
      });
      expect(response.status).toBe(200);
      const ended = new Promise<string>((resolve) => {
        const stop = server.app.get(McpSessionService).onEnd((sessionId, reason) => {
          if (sessionId === idle.sessionId) {
            stop();
            resolve(reason);
          }
        });
      });
      // Both sessions were idle in the sweep that ended this one: the streaming one was kept.
      clock.advance(60_001);
      await expect(withTimeout(ended, 5000, 'the idle session to end')).resolves.toBe('expired');
      const gone = await post(server.url, legacyRequest('ping', undefined, 1), idle.headers);
      expect(gone.status).toBe(404);
      const kept = await post(server.url, legacyRequest('ping', undefined, 2), streaming.headers);
      expect(kept.json).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    } finally {
      stream.abort();
    }
  });
});

describe('A custom endpoint path under a global prefix', () => {
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot({ path: 'rpc/mcp' }), {
      path: 'rpc/mcp',
      globalPrefix: 'v1',
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('serves both eras at /v1/rpc/mcp', async () => {
    expect(server.url.pathname).toBe('/v1/rpc/mcp');
    const modern = await post(server.url, modernRequest('tools/list'), modernHeaders('tools/list'));
    expect(modern.json.result.resultType).toBe('complete');
    await expect(openLegacySession(server.url)).resolves.toMatchObject({ protocolVersion: '2025-11-25' });
  });

  it('answers malformed JSON there with -32700', async () => {
    const response = await exchange(server.url, { body: '{not json' });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('does not serve the default path', async () => {
    const response = await post(new URL('/mcp', server.url), modernRequest('tools/list'), modernHeaders('tools/list'));
    expect(response.status).toBe(404);
    expect(response.json?.result).toBeUndefined();
  });
});

describe("A modern-only server (revisions ['2026-07-28'])", () => {
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot({ revisions: ['2026-07-28'] }));
  });

  afterAll(async () => {
    await server?.close();
  });

  it('refuses initialize with -32602 listing the supported versions, and mints no session', async () => {
    const response = await post(server.url, initialize('2025-11-25', 1));
    expect(response.json).toMatchObject({
      id: 1,
      error: { code: -32602, data: { supported: ['2026-07-28'], requested: '2025-11-25' } },
    });
    expect(response.headers.get('mcp-session-id')).toBeNull();
  });

  it('advertises only 2026-07-28 in server/discover and serves modern requests', async () => {
    const response = await post(server.url, modernRequest('server/discover'), modernHeaders('server/discover'));
    expect(response.json.result.supportedVersions).toEqual(['2026-07-28']);
  });

  it("lets the v2 client in 'auto' mode settle on the modern era", async () => {
    const client = new Client({ name: 'v2-e2e', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    try {
      await client.connect(new StreamableHTTPClientTransport(server.url));
      expect(client.getProtocolEra()).toBe('modern');
      await expect(client.callTool({ name: 'echo', arguments: { text: 'only modern' } })).resolves.toMatchObject({
        content: [{ type: 'text', text: 'echo: only modern' }],
      });
    } finally {
      await client.close();
    }
  });
});
