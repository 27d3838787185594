/**
 * Malformed messages get the documented answer on every transport: a body that is JSON but not
 * a JSON-RPC object (`{}`, `{"a":1}`) is -32600 with `id: null` (never dropped as if it were a
 * notification), and a notification named `initialize` opens no session.
 */
import type { TestingModule } from '@nestjs/testing';
import { McpSessionService } from 'nest-mcp';
import { McpStdioServer } from 'nest-mcp/stdio';
import type { HttpPlatform } from './fixtures/http-app';
import { exchange, legacyRequest } from './fixtures/raw-rpc';
import { closeAllSessions, openSsePair, type SessionsApp, startSessionsApp } from './fixtures/sessions-fixture';
import { createStdioFixture, StdioPeer } from './fixtures/stdio-fixture.module';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const NOT_JSON_RPC: Array<[string, unknown]> = [
  ['{}', {}],
  ['{"a":1}', { a: 1 }],
];
const INVALID = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' },
};

describe.each(PLATFORMS)('malformed messages over HTTP (%s)', (platform) => {
  let server: SessionsApp;
  const abort = new AbortController();
  const at = (path: string): URL => new URL(`/${path}`, server.baseUrl);

  beforeAll(async () => {
    server = await startSessionsApp(
      { simpleHttpPath: 'rpc', ssePath: 'sse', sseMessagesPath: 'messages' },
      { platform },
    );
  });

  afterAll(async () => {
    abort.abort();
    await closeAllSessions(server.app);
    await server?.close();
  });

  it.each(NOT_JSON_RPC)(
    'answers %s with 400 and -32600 (id null) on /mcp, /rpc and /messages',
    async (_label, body) => {
      const { messagesUrl } = await openSsePair(at('sse'), server.baseUrl, {}, abort.signal);
      for (const url of [at('mcp'), at('rpc'), messagesUrl]) {
        const response = await exchange(url, { body, headers: { 'mcp-protocol-version': '2025-03-26' } });
        expect({ path: url.pathname, status: response.status, body: response.json }).toEqual({
          path: url.pathname,
          status: 400,
          body: INVALID,
        });
      }
    },
  );

  it('opens no session for a notification named initialize', async () => {
    const before = await server.sessions.count();
    const notification = {
      jsonrpc: '2.0',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } },
    };
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await exchange(at('mcp'), { body: notification });
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect({ status: response.status, body: response.json }).toEqual({
        status: 400,
        body: {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Bad Request: Mcp-Session-Id header required' },
        },
      });
    }
    expect(await server.sessions.count()).toBe(before);
    // The request form still opens one.
    const request = await exchange(at('mcp'), { body: { ...notification, id: 1 } });
    expect(request.status).toBe(200);
    expect(request.headers.get('mcp-session-id')).toMatch(/^mcp_/);
    expect(await server.sessions.count()).toBe(before + 1);
  });
});

describe('malformed messages over stdio', () => {
  let app: TestingModule;
  let peer: StdioPeer;

  beforeAll(async () => {
    app = await createStdioFixture();
    peer = new StdioPeer(app.get(McpStdioServer));
  });

  afterAll(async () => {
    await peer?.end();
    await app?.close();
  });

  it.each(NOT_JSON_RPC)('answers %s with -32600 (id null) instead of dropping it', async (label) => {
    peer.send(label);
    expect(await peer.answer(null)).toEqual(INVALID);
    // The connection keeps serving.
    peer.send(legacyRequest('ping', undefined, `after-${label}`));
    expect(await peer.answer(`after-${label}`)).toMatchObject({ result: {} });
  });

  it('opens no session for a notification named initialize', async () => {
    const sessions = app.get(McpSessionService);
    const before = await sessions.count();
    peer.send({ jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } });
    peer.send(legacyRequest('ping', undefined, 'probe'));
    await peer.answer('probe');
    expect(await sessions.count()).toBe(before);
  });
});
