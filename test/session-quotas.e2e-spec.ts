/**
 * What one caller can make the server hold in legacy sessions, over real HTTP with the in-memory
 * store: sessions per caller (`sessions.maxPerPrincipal`: its session idle the longest is ended
 * to make room, unless it is in use, then 429), anonymous callers counted by their address, and
 * subscriptions per session (`sessions.maxSubscriptions`). The same bounds on Redis, across
 * instances, are in `cluster/cluster-quotas.e2e-spec.ts`.
 */
import { MCP_REPLAY_STORE } from '../lib/shared/mcp.constants';
import { McpEngine } from '../lib/protocol/engine';
import type { HttpPlatform } from './fixtures/http-app';
import {
  exchange,
  legacyRequest,
  openLegacySession,
  post,
  rawHttp,
  waitUntil,
  type RawResponse,
} from './fixtures/raw-rpc';
import {
  closeAllSessions,
  type HeldStream,
  holdStream,
  PRINCIPAL_HEADER,
  type SessionsApp,
  sessionEnd,
  startSessionsApp,
  stateTables,
  WATCHED_URI,
} from './fixtures/sessions-fixture';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

const INITIALIZE = legacyRequest(
  'initialize',
  { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'quotas-e2e', version: '0.0.1' } },
  1,
);

/** The refusal of a caller at its cap, as every transport words it. */
const QUOTA_MESSAGE = 'Too many sessions for this caller: at most 2 (McpModule option sessions.maxPerPrincipal)';

const as = (principal: string): Record<string, string> => ({ [PRINCIPAL_HEADER]: principal });

/** Answers `ping` in a session: 200 while it lives, 404 once it ended. */
async function ping(server: SessionsApp, headers: Record<string, string>): Promise<number> {
  return (await post(server.url, legacyRequest('ping', {}, 7), headers)).status;
}

/**
 * Moves the clock the sessions read (`Date.now`) forward, without waiting and without touching
 * the timers the HTTP servers run on.
 */
function steppedClock(): { advance(ms: number): void; restore(): void } {
  const real = Date.now.bind(Date);
  let offset = 0;
  const spy = jest.spyOn(Date, 'now').mockImplementation(() => real() + offset);
  return {
    advance: (ms) => {
      offset += ms;
    },
    restore: () => spy.mockRestore(),
  };
}

function expectQuotaRefusal(refused: RawResponse): void {
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(refused.headers.get('mcp-session-id')).toBeNull();
  expect(refused.json).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: QUOTA_MESSAGE } });
}

describe.each(PLATFORMS)('Sessions per caller (sessions.maxPerPrincipal 2) (%s)', (platform) => {
  let server: SessionsApp;
  let held: HeldStream[] = [];
  let clock: ReturnType<typeof steppedClock> | undefined;

  beforeAll(async () => {
    server = await startSessionsApp(
      { sessions: { maxPerPrincipal: 2 }, ssePath: 'sse', sseMessagesPath: 'messages' },
      { platform },
    );
  });

  afterEach(async () => {
    clock?.restore();
    clock = undefined;
    held.forEach((stream) => stream.close());
    held = [];
    await closeAllSessions(server.app);
    await waitUntil(() => stateTables(server.app).channels === 0, 'every stream to be detached');
  });

  afterAll(async () => {
    await server?.close();
  });

  /** Opens a session of `headers`' caller whose GET stream is held open (a session in use). */
  async function openInUse(headers: Record<string, string>, localAddress?: string) {
    const session = await openLegacySession(server.url, '2025-11-25', { headers });
    const stream = await holdStream(server.url, session.headers, localAddress);
    expect(stream.status).toBe(200);
    held.push(stream);
    return session;
  }

  it('refuses a caller whose sessions are all in use with 429, on both transports; another caller is served', async () => {
    await openInUse(as('alice'));
    await openInUse(as('alice'));
    await waitUntil(() => stateTables(server.app).channels === 2, 'the two GET streams to be attached');

    expectQuotaRefusal(await post(server.url, INITIALIZE, as('alice')));
    const pair = await exchange(new URL('/sse', server.baseUrl), {
      method: 'GET',
      headers: { ...as('alice'), accept: 'text/event-stream' },
    });
    expect(pair.status).toBe(429);
    expect(Number(pair.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(pair.json).toMatchObject({ error: { code: -32603, message: QUOTA_MESSAGE } });

    const bob = await openLegacySession(server.url, '2025-11-25', { headers: as('bob') });
    const call = await post(
      server.url,
      legacyRequest('tools/call', { name: 'echo', arguments: { text: 'still served' } }, 2),
      bob.headers,
    );
    expect(call.json).toMatchObject({ result: { content: [{ text: 'echo: still served' }] } });
    await expect(server.sessions.count()).resolves.toBe(3);
  });

  it("ends the caller's session idle the longest to open a new one, as ending a session does", async () => {
    clock = steppedClock();
    const first = await openLegacySession(server.url, '2025-11-25', { headers: as('alice') });
    clock.advance(60_000);
    const second = await openLegacySession(server.url, '2025-11-25', { headers: as('alice') });
    // The second one's replay buffer: what its end must clear.
    const filled = await exchange(server.url, {
      body: legacyRequest('tools/call', { name: 'fill', arguments: { count: 2, size: 10 } }, 3),
      headers: second.headers,
    });
    expect(filled.headers.get('content-type')).toContain('text/event-stream');
    const replay = server.app.get<{ sessionCount: number }>(MCP_REPLAY_STORE);
    expect(replay.sessionCount).toBe(1);
    clock.advance(60_000);
    // The first is used again: the second is now the one idle the longest.
    expect(await ping(server, first.headers)).toBe(200);
    clock.advance(60_000);

    const evicted = sessionEnd(server.sessions, second.sessionId);
    const third = await post(server.url, INITIALIZE, as('alice'));
    expect(third.status).toBe(200);
    await expect(evicted).resolves.toBe('evicted');
    expect(await ping(server, second.headers)).toBe(404);
    expect(await ping(server, first.headers)).toBe(200);
    expect(replay.sessionCount).toBe(0);
    await expect(server.sessions.count()).resolves.toBe(2);
  });

  it('does not end a session whose calls run or whose stream is open; ends it once its call is over', async () => {
    clock = steppedClock();
    const streamed = await openInUse(as('alice'));
    const calling = await openLegacySession(server.url, '2025-11-25', { headers: as('alice') });
    const running = exchange(server.url, {
      body: legacyRequest('tools/call', { name: 'hold', arguments: { label: 'quota-busy' } }, 4),
      headers: calling.headers,
    });
    await server.probe.waitFor('started', 'quota-busy');
    clock.advance(3_600_000);

    expectQuotaRefusal(await post(server.url, INITIALIZE, as('alice')));

    await post(
      server.url,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } },
      calling.headers,
    );
    await running.catch(() => undefined);
    const engine = server.app.get(McpEngine);
    await waitUntil(() => engine.runningIn(calling.sessionId) === 0, 'the cancelled call to end');
    const opened = await post(server.url, INITIALIZE, as('alice'));
    expect(opened.status).toBe(200);
    expect(await ping(server, calling.headers)).toBe(404);
    expect(await ping(server, streamed.headers)).toBe(200);
  });

  it('counts anonymous callers by address: one address at its cap leaves another served', async () => {
    await openInUse({}, '127.0.0.1');
    await openInUse({}, '127.0.0.1');
    await waitUntil(() => stateTables(server.app).channels === 2, 'the two GET streams to be attached');
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const body = JSON.stringify(INITIALIZE);

    const here = await rawHttp(server.url, { headers, body, localAddress: '127.0.0.1' });
    expect(here.status).toBe(429);
    const elsewhere = await rawHttp(server.url, { headers, body, localAddress: '127.0.0.2' });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers['mcp-session-id']).toMatch(/^mcp_[0-9a-f]{32}$/);
  });
});

describe.each(PLATFORMS)('Subscriptions per session (sessions.maxSubscriptions 3) (%s)', (platform) => {
  let server: SessionsApp;

  beforeAll(async () => {
    server = await startSessionsApp({ sessions: { maxSubscriptions: 3 } }, { platform });
  });

  afterAll(async () => {
    await server?.close();
  });

  const subscribe = (headers: Record<string, string>, uri: string, id: number) =>
    post(server.url, legacyRequest('resources/subscribe', { uri }, id), headers);

  it('refuses a subscription beyond the cap with -32603 naming the option; one held already counts once', async () => {
    const session = await openLegacySession(server.url);
    for (const [index, uri] of [WATCHED_URI, 'sessions://b', 'sessions://c'].entries()) {
      expect((await subscribe(session.headers, uri, index + 1)).json).toEqual({
        jsonrpc: '2.0',
        id: index + 1,
        result: {},
      });
    }
    expect((await subscribe(session.headers, WATCHED_URI, 10)).json).toEqual({ jsonrpc: '2.0', id: 10, result: {} });

    const refused = await subscribe(session.headers, 'sessions://d', 11);
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      id: 11,
      error: {
        code: -32603,
        message: 'Too many subscriptions in this session: at most 3 (McpModule option sessions.maxSubscriptions)',
      },
    });
    await expect(server.sessions.subscribers('sessions://d')).resolves.toEqual([]);

    // Another session has its own; an unsubscription frees a place.
    const other = await openLegacySession(server.url);
    expect((await subscribe(other.headers, 'sessions://d', 1)).json).toMatchObject({ result: {} });
    await post(server.url, legacyRequest('resources/unsubscribe', { uri: 'sessions://b' }, 12), session.headers);
    expect((await subscribe(session.headers, 'sessions://d', 13)).json).toMatchObject({ result: {} });
  });
});
