/**
 * The life of legacy sessions over real HTTP: idle sessions swept (1,000 of them, and nothing
 * left behind in any table or in the heap), a held GET stream keeping its session, the cap on
 * live sessions (Streamable HTTP and the 2024-11-05 SSE pair), what DELETE and expiry end
 * (questions to the client, running calls, resource subscriptions), ownership by principal on
 * every verb, a client that disconnects mid-call in each era, and keep-alive comments.
 */
import { McpNotifier } from 'nest-mcp';
import { MCP_REPLAY_STORE, MCP_SESSION_STORE } from '../lib/shared/mcp.constants';
import type { McpReplayStore } from '../lib/interfaces/replay-store.interface';
import type { McpSessionStore } from '../lib/interfaces/session-store.interface';
import { McpEngine } from '../lib/protocol/engine';
import type { HttpPlatform } from './fixtures/http-app';
import { settledHeap } from './support/settled-memory';
import { TestClock } from './support/test-clock';
import {
  exchange,
  legacyRequest,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  send,
  SseEventReader,
  SseReader,
  waitUntil,
} from './fixtures/raw-rpc';
import {
  closeAllSessions,
  EMPTY_TABLES,
  type HeldStream,
  holdStream,
  openSsePair,
  PRINCIPAL_HEADER,
  RawStreamText,
  resolvedOptions,
  type SessionsApp,
  sessionEnd,
  startSessionsApp,
  stateTables,
  WATCHED_URI,
} from './fixtures/sessions-fixture';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

const CLIENT_INFO = { name: 'sessions-e2e', version: '0.0.1' };

/** An id no session has (the right shape, never minted). */
const UNKNOWN_SESSION = `mcp_${'0'.repeat(32)}`;

function initialize(id: number | string = 1, capabilities: Record<string, unknown> = {}) {
  return legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: CLIENT_INFO }, id);
}

function getStream(server: SessionsApp, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
  return send(server.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' }, signal });
}

/** Runs `task` for 0..count-1 with at most `width` at once. */
async function pool(count: number, width: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
}

const MB = 1024 * 1024;

/**
 * The idle timeout of the suites that sweep sessions. They read "now" from a `TestClock`, and a
 * session goes idle when the test moves it past this (see `goIdle`): no test waits for it, and
 * none ends a session by accident on a slow machine. The sweeper runs on its real timer.
 */
const IDLE_MS = 60_000;
const SWEEP_MS = 100;

/** Moves `clock` past the idle timeout: every session not touched since is swept on the next sweep. */
function goIdle(clock: TestClock): void {
  clock.advance(IDLE_MS + 1);
}

describe.each(PLATFORMS)('1,000 idle sessions are swept and leave nothing behind (%s)', (platform) => {
  /** Per session: 8 log messages of 2.5 kB each kept in its replay buffer, about 20 kB. */
  const FILL = { count: 8, size: 2500 };
  const SESSIONS = 1000;
  let server: SessionsApp;
  const clock = new TestClock();

  beforeAll(async () => {
    // One client (one address) holds every session and its GET stream: neither the per-caller cap
    // on sessions nor the bound on held streams may get in the way.
    server = await startSessionsApp(
      {
        sessions: { idleTimeoutMs: IDLE_MS, sweepIntervalMs: SWEEP_MS, maxPerPrincipal: SESSIONS },
        http: { maxStreamsPerPrincipal: SESSIONS },
      },
      { platform, clock },
    );
  });

  afterAll(async () => {
    await server?.close();
  });

  /**
   * Opens a session the way a client uses one: handshake, its GET stream, a subscription, a
   * streamed call. The held streams keep them all alive at once, sweep after sweep, until the
   * test lets them go idle.
   */
  async function useSession(index: number): Promise<{ id: string; stream: HeldStream }> {
    const init = await post(server.url, initialize(1));
    expect(init.status).toBe(200);
    const id = init.headers.get('mcp-session-id')!;
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
    // The stream first: from then on the session cannot idle out, however slow the rest.
    const stream = await holdStream(server.url, headers);
    expect(stream.status).toBe(200);
    const initialized = await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    expect(initialized.status).toBe(202);
    const session = { sessionId: id, headers };
    const subscribed = await post(
      server.url,
      legacyRequest('resources/subscribe', { uri: WATCHED_URI }, 2),
      session.headers,
    );
    expect(subscribed.json).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    const filled = await exchange(server.url, {
      body: legacyRequest('tools/call', { name: 'fill', arguments: FILL }, 3),
      headers: session.headers,
    });
    // The answer was streamed (the log messages rode along), so the session has a replay buffer.
    expect(filled.headers.get('content-type')).toContain('text/event-stream');
    expect(filled.events.at(-1)).toMatchObject({ id: 3, result: { content: [{ text: `filled ${FILL.count}` }] } });
    if (index === 0) {
      expect(filled.events.filter((event) => event.method === 'notifications/message')).toHaveLength(FILL.count);
    }
    return { id: session.sessionId, stream };
  }

  /** Opens `count` sessions, their streams held until the returned function is called. */
  async function openHeld(count: number): Promise<{ ids: Set<string>; release: () => void }> {
    const ids = new Set<string>();
    const streams: HeldStream[] = [];
    await pool(count, 8, async (index) => {
      const { id, stream } = await useSession(index);
      ids.add(id);
      streams.push(stream);
    });
    await waitUntil(() => stateTables(server.app).channels === count, `${count} GET streams to be attached`);
    return { ids, release: () => streams.forEach((stream) => stream.close()) };
  }

  /** Lets go of the streams of `held`, then of its sessions: idle past the timeout. */
  async function letGo(held: { release: () => void }): Promise<void> {
    held.release();
    await waitUntil(() => stateTables(server.app).channels === 0, 'every GET stream to be detached', 30_000);
    goIdle(clock);
  }

  it('sweeps every one of them, empties every table, and the heap returns near where it started', async () => {
    const expired = new Set<string>();
    const otherEnds: string[] = [];
    const stop = server.sessions.onEnd((id, reason) => (reason === 'expired' ? expired.add(id) : otherEnds.push(id)));
    try {
      // Warm-up: code paths compiled and caches filled before the baseline is taken.
      await letGo(await openHeld(40));
      await waitUntil(async () => (await server.sessions.count()) === 0, 'the warm-up sessions to expire', 10_000);
      await waitUntil(() => stateTables(server.app).replayBuffers === 0, 'the warm-up buffers to be dropped');
      expect(stateTables(server.app)).toEqual(EMPTY_TABLES);
      const baseline = await settledHeap();
      expired.clear();

      const held = await openHeld(SESSIONS);
      const { ids } = held;
      // All of them live at once, each with its stream, replay buffer and subscription.
      expect(stateTables(server.app)).toMatchObject({
        sessions: SESSIONS,
        channels: SESSIONS,
        liveStreams: SESSIONS,
        replayBuffers: SESSIONS,
        subscribingSessions: SESSIONS,
      });
      expect(ids.size).toBe(SESSIONS);
      expect(expired.size).toBe(0);
      const peak = await settledHeap();

      // Left idle: the clients drop their streams and send nothing more.
      await letGo(held);
      await waitUntil(async () => (await server.sessions.count()) === 0, 'every session to expire', 30_000);
      await waitUntil(() => stateTables(server.app).replayBuffers === 0, 'every replay buffer to be dropped');
      // Each of them ended by expiry, once; nothing else ended any.
      expect(expired.size).toBe(SESSIONS);
      expect([...ids].every((id) => expired.has(id))).toBe(true);
      expect(otherEnds).toEqual([]);
      // Nothing left in any table: calls, questions to clients, streams, replay buffers, subscriptions.
      expect(stateTables(server.app)).toEqual(EMPTY_TABLES);
      await expect(server.sessions.subscribers(WATCHED_URI)).resolves.toEqual([]);

      const after = await settledHeap();
      const growth = Math.max(0, peak - baseline);
      // Generous on purpose: within half of what the sessions held at the peak, or 8 MB, whichever
      // is more. 1,000 leaked replay buffers alone would hold about 20 MB.
      const allowance = Math.max(growth * 0.5, 8 * MB);
      const report = `baseline ${(baseline / MB).toFixed(1)} MB, peak ${(peak / MB).toFixed(1)} MB, after ${(after / MB).toFixed(1)} MB`;
      if (process.env.MCP_E2E_HEAP) console.log(report, 'growth', (growth / MB).toFixed(1));
      expect({ report, withinAllowance: after - baseline <= allowance }).toEqual({ report, withinAllowance: true });
    } finally {
      stop();
    }
  }, 120_000);
});

describe.each(PLATFORMS)('Idle sweep and held streams (%s)', (platform) => {
  let server: SessionsApp;
  const clock = new TestClock();

  beforeAll(async () => {
    server = await startSessionsApp(
      { sessions: { idleTimeoutMs: IDLE_MS, sweepIntervalMs: SWEEP_MS } },
      { platform, clock },
    );
  });

  afterAll(async () => {
    await server?.close();
  });

  it('keeps a session while its GET stream is open, and sweeps it once the stream closes', async () => {
    const held = await openLegacySession(server.url);
    const idle = await openLegacySession(server.url);
    const connection = new AbortController();
    const stream = await getStream(server, held.headers, connection.signal);
    expect(stream.status).toBe(200);
    const events = new SseEventReader(stream);
    await events.next(); // the priming event: the stream is attached

    // Both were idle in the sweep that ended `idle`; the held one stays, and the sweep touched it.
    const anonymous = { id: 'anonymous', scopes: [] };
    const idleEnd = sessionEnd(server.sessions, idle.sessionId);
    goIdle(clock);
    await expect(idleEnd).resolves.toBe('expired');
    // Idle again, past the timeout: a later sweep spares it again (it touches it at its own "now").
    goIdle(clock);
    const idleAgainAt = clock.now();
    await waitUntil(
      async () => ((await server.sessions.find(held.sessionId, anonymous))?.lastActivity ?? 0) >= idleAgainAt,
      'a sweep after the session was idle again',
    );
    expect(stateTables(server.app)).toMatchObject({ sessions: 1, channels: 1, liveStreams: 1 });

    // Its stream closed, the next sweep past the timeout ends it.
    const ended = sessionEnd(server.sessions, held.sessionId);
    connection.abort();
    await waitUntil(() => stateTables(server.app).channels === 0, 'the GET stream to be detached');
    goIdle(clock);
    await expect(ended).resolves.toBe('expired');
    const gone = await post(server.url, legacyRequest('ping', undefined, 9), held.headers);
    expect(gone.status).toBe(404);
    expect(stateTables(server.app)).toEqual(EMPTY_TABLES);
  });
});

describe.each(PLATFORMS)('Session cap (maxSessions 3) (%s)', (platform) => {
  let server: SessionsApp;
  let opened: Array<Record<string, string>> = [];

  beforeAll(async () => {
    server = await startSessionsApp({ sessions: { maxSessions: 3 } }, { platform });
  });

  afterEach(async () => {
    for (const headers of opened) {
      await exchange(server.url, { method: 'DELETE', headers });
    }
    opened = [];
    await waitUntil(async () => (await server.sessions.count()) === 0, 'every session to end');
  });

  afterAll(async () => {
    await server?.close();
  });

  async function fill(count: number): Promise<void> {
    for (let index = 0; index < count; index += 1) {
      opened.push((await openLegacySession(server.url)).headers);
    }
  }

  it('refuses the 4th initialize with 503, Retry-After and a JSON-RPC error naming the cap; DELETE frees a slot', async () => {
    await fill(3);
    const refused = await post(server.url, initialize(4));
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: {
        code: -32603,
        message: 'Too many sessions: the server holds at most 3 (McpModule option sessions.maxSessions)',
      },
    });
    await expect(server.sessions.count()).resolves.toBe(3);

    const deleted = await exchange(server.url, { method: 'DELETE', headers: opened.shift()! });
    expect(deleted.status).toBe(204);
    const admitted = await post(server.url, initialize(5));
    expect(admitted.status).toBe(200);
    opened.push({ 'mcp-session-id': admitted.headers.get('mcp-session-id')! });
    await expect(server.sessions.count()).resolves.toBe(3);
  });

  it('admits exactly as many concurrent initializes as there are free slots', async () => {
    await fill(1);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, index) => post(server.url, initialize(index))));
    const admitted = answers.filter((answer) => answer.status === 200);
    for (const answer of admitted) {
      opened.push({ 'mcp-session-id': answer.headers.get('mcp-session-id')! });
    }
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 503, 503, 503, 503]);
    await expect(server.sessions.count()).resolves.toBe(3);
  });

  it('does not count a refused or failed handshake against the cap', async () => {
    await fill(2);
    // No clientInfo: -32602, and no session is kept.
    const failed = await post(
      server.url,
      legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities: {} }, 7),
    );
    expect(failed.json).toMatchObject({ id: 7, error: { code: -32602 } });
    await expect(server.sessions.count()).resolves.toBe(2);
    await fill(1);
    await expect(post(server.url, initialize(8))).resolves.toMatchObject({ status: 503 });
  });
});

describe.each(PLATFORMS)('Session cap on the 2024-11-05 SSE pair (maxSessions 3) (%s)', (platform) => {
  let server: SessionsApp;
  let sseUrl: URL;

  beforeAll(async () => {
    server = await startSessionsApp(
      { sessions: { maxSessions: 3 }, ssePath: 'sse', sseMessagesPath: 'messages' },
      { platform },
    );
    sseUrl = new URL('/sse', server.baseUrl);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('refuses GET on the events path with 503 once full; admits it again after a DELETE; its end frees the slot', async () => {
    const sessions = [];
    for (let index = 0; index < 3; index += 1) {
      sessions.push(await openLegacySession(server.url));
    }
    const refused = await exchange(sseUrl, { method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.json).toMatchObject({
      jsonrpc: '2.0',
      error: {
        code: -32603,
        message: 'Too many sessions: the server holds at most 3 (McpModule option sessions.maxSessions)',
      },
    });
    await expect(server.sessions.count()).resolves.toBe(3);

    expect((await exchange(server.url, { method: 'DELETE', headers: sessions[0].headers })).status).toBe(204);
    const connection = new AbortController();
    const pair = await openSsePair(sseUrl, server.baseUrl, {}, connection.signal);
    expect(pair.response.headers.get('content-type')).toContain('text/event-stream');
    expect(pair.messagesUrl.pathname).toBe('/messages');
    await expect(server.sessions.count()).resolves.toBe(3);
    await expect(post(server.url, initialize(9))).resolves.toMatchObject({ status: 503 });

    connection.abort();
    await waitUntil(async () => (await server.sessions.count()) === 2, 'the SSE pair session to end with its stream');
    await expect(post(server.url, initialize(10))).resolves.toMatchObject({ status: 200 });
  });
});

describe('Expired sessions free their slots (maxSessions 2)', () => {
  let server: SessionsApp;
  const clock = new TestClock();

  beforeAll(async () => {
    server = await startSessionsApp(
      { sessions: { maxSessions: 2, idleTimeoutMs: IDLE_MS, sweepIntervalMs: SWEEP_MS } },
      { clock },
    );
  });

  afterAll(async () => {
    await server?.close();
  });

  it('admits new sessions once the idle ones are swept', async () => {
    const first = await openLegacySession(server.url);
    await openLegacySession(server.url);
    expect((await post(server.url, initialize(3))).status).toBe(503);
    const firstEnd = sessionEnd(server.sessions, first.sessionId);
    goIdle(clock);
    await expect(firstEnd).resolves.toBe('expired');
    await waitUntil(async () => (await server.sessions.count()) === 0, 'both sessions to expire');
    await expect(openLegacySession(server.url)).resolves.toMatchObject({ protocolVersion: '2025-11-25' });
  });
});

type Ending = 'DELETE' | 'expiry';
const ENDINGS: Array<[HttpPlatform, Ending]> = PLATFORMS.flatMap((platform) =>
  (['DELETE', 'expiry'] as const).map((ending): [HttpPlatform, Ending] => [platform, ending]),
);

describe.each(ENDINGS)('What the end of a session ends (%s, %s)', (platform, ending) => {
  let server: SessionsApp;
  let cleanup: AbortController;
  let counter = 0;
  const clock = new TestClock();

  beforeAll(async () => {
    // Expiry when the test moves the clock past the idle timeout; DELETE on a server whose
    // sessions never idle out during a test.
    server = await startSessionsApp(
      ending === 'expiry' ? { sessions: { idleTimeoutMs: IDLE_MS, sweepIntervalMs: SWEEP_MS } } : {},
      { platform, clock },
    );
  });

  beforeEach(() => {
    cleanup = new AbortController();
    counter += 1;
  });

  afterEach(async () => {
    cleanup.abort();
    await closeAllSessions(server.app);
  });

  afterAll(async () => {
    await server?.close();
  });

  const label = (what: string): string => `${what}-${platform}-${ending}-${counter}`;

  /** Ends the session the way this suite is about; resolves with how the service saw it end. */
  async function end(session: { sessionId: string; headers: Record<string, string> }): Promise<void> {
    const ended = sessionEnd(server.sessions, session.sessionId);
    if (ending === 'DELETE') {
      const deleted = await exchange(server.url, { method: 'DELETE', headers: session.headers });
      expect(deleted.status).toBe(204);
      await expect(ended).resolves.toBe('deleted');
    } else {
      goIdle(clock);
      await expect(ended).resolves.toBe('expired');
    }
  }

  it('fails a question the server asked the client (ctx.elicit) that was never answered', async () => {
    const tag = label('ask');
    const session = await openLegacySession(server.url, '2025-11-25', { capabilities: { elicitation: {} } });
    const response = await send(server.url, {
      body: legacyRequest('tools/call', { name: 'ask', arguments: { label: tag } }, 'call-ask'),
      headers: session.headers,
      signal: cleanup.signal,
    });
    const stream = new SseReader(response);
    const question = await stream.next();
    expect(question).toMatchObject({ method: 'elicitation/create', id: expect.anything() });
    expect((server.app.get(McpEngine).clientRequests as any)['byScope'].get(session.sessionId)?.size).toBe(1);

    await end(session);
    // The tool's ctx.elicit() rejected, and its call produced no response.
    await expect(server.probe.waitFor('rejected', tag)).resolves.toMatchObject({ reason: 'Session ended' });
    const rest = await stream.rest();
    expect(rest.filter((message) => message.id === 'call-ask')).toEqual([]);
    // A late answer finds nothing to resolve, and is refused like any message of an unknown session.
    const late = await post(
      server.url,
      { jsonrpc: '2.0', id: question.id, result: { action: 'decline' } },
      session.headers,
    );
    expect(late.status).toBe(202);
    expect(server.probe.saw('answered', tag)).toBe(false);
    expect(stateTables(server.app)).toEqual(EMPTY_TABLES);
  });

  it('aborts a running call (ctx.signal) and leaves nothing in flight', async () => {
    const tag = label('hold');
    const session = await openLegacySession(server.url);
    const response = await send(server.url, {
      body: legacyRequest(
        'tools/call',
        { name: 'hold', arguments: { label: tag, progress: true }, _meta: { progressToken: 'p' } },
        'call-hold',
      ),
      headers: session.headers,
      signal: cleanup.signal,
    });
    const stream = new SseReader(response);
    await expect(stream.next()).resolves.toMatchObject({ method: 'notifications/progress' });
    await server.probe.waitFor('started', tag);
    expect(stateTables(server.app)).toMatchObject({ inflightScopes: 1, inflightCalls: 1 });

    await end(session);
    await expect(server.probe.waitFor('aborted', tag)).resolves.toMatchObject({ reason: 'Session ended' });
    await expect(stream.rest()).resolves.toEqual([]);
    expect(server.probe.trail(tag)).toEqual(['started', 'aborted']);
    await waitUntil(() => !stateTables(server.app).deadlineWatched, 'the call deadline to be forgotten');
    expect(stateTables(server.app)).toEqual(EMPTY_TABLES);
  });

  it('drops its resource subscriptions', async () => {
    const session = await openLegacySession(server.url);
    const other = ending === 'DELETE' ? await openLegacySession(server.url) : undefined;
    for (const headers of [session.headers, other?.headers].filter((item) => item !== undefined)) {
      const subscribed = await post(server.url, legacyRequest('resources/subscribe', { uri: WATCHED_URI }, 4), headers);
      expect(subscribed.json).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    }
    await expect(server.sessions.subscribers(WATCHED_URI)).resolves.toContain(session.sessionId);

    await end(session);
    const left = await server.sessions.subscribers(WATCHED_URI);
    expect(left).not.toContain(session.sessionId);
    // Another session's subscription to the same URI is untouched.
    expect(left).toEqual(other === undefined ? [] : [other.sessionId]);
    // An update published now reaches nobody of the ended session, and fails nothing.
    await expect(server.app.get(McpNotifier).resourceUpdated(WATCHED_URI)).resolves.toBeUndefined();
    if (other !== undefined) {
      expect((await exchange(server.url, { method: 'DELETE', headers: other.headers })).status).toBe(204);
    }
    expect(stateTables(server.app)).toEqual(EMPTY_TABLES);
  });
});

describe.each(PLATFORMS)('Ownership by principal (%s)', (platform) => {
  let server: SessionsApp;
  let sseUrl: URL;

  beforeAll(async () => {
    server = await startSessionsApp({ ssePath: 'sse', sseMessagesPath: 'messages' }, { platform });
    sseUrl = new URL('/sse', server.baseUrl);
  });

  afterAll(async () => {
    await server?.close();
  });

  const ALICE = { [PRINCIPAL_HEADER]: 'alice' };
  const MALLORY = { [PRINCIPAL_HEADER]: 'mallory' };

  /** What a caller gets: status, body and the session header, nothing that tells the cases apart. */
  async function outcome(
    verb: 'POST' | 'GET' | 'DELETE',
    sessionId: string,
    principal: Record<string, string>,
  ): Promise<{ status: number; text: string; sessionHeader: string | null }> {
    const headers = { ...principal, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const response =
      verb === 'POST'
        ? await exchange(server.url, {
            body: legacyRequest('tools/call', { name: 'echo', arguments: { text: 'x' } }, 11),
            headers,
          })
        : await exchange(server.url, {
            method: verb,
            headers: verb === 'GET' ? { ...headers, accept: 'text/event-stream' } : headers,
          });
    return { status: response.status, text: response.text, sessionHeader: response.headers.get('mcp-session-id') };
  }

  it.each(['POST', 'GET', 'DELETE'] as const)(
    "answers %s on another principal's session exactly like an unknown session (404), and the session lives on",
    async (verb) => {
      const alice = await openLegacySession(server.url, '2025-11-25', { headers: ALICE });
      const unknown = await outcome(verb, UNKNOWN_SESSION, MALLORY);
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      expect(unknown.sessionHeader).toBeNull();
      await expect(outcome(verb, alice.sessionId, MALLORY)).resolves.toEqual(unknown);
      // Anonymous callers are a principal too: not the owner.
      await expect(outcome(verb, alice.sessionId, {})).resolves.toEqual(unknown);

      const stillThere = await post(
        server.url,
        legacyRequest('tools/call', { name: 'echo', arguments: { text: 'mine' } }, 12),
        alice.headers,
      );
      expect(stillThere.json.result.content).toEqual([{ type: 'text', text: 'echo: mine' }]);
      expect((await exchange(server.url, { method: 'DELETE', headers: alice.headers })).status).toBe(204);
    },
  );

  it("refuses a resume (GET with Last-Event-ID) of another principal's stream like an unknown session", async () => {
    const alice = await openLegacySession(server.url, '2025-11-25', { headers: ALICE });
    const answer = await exchange(server.url, {
      body: legacyRequest('tools/call', { name: 'fill', arguments: { count: 1, size: 10 } }, 13),
      headers: alice.headers,
    });
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    const firstId = /^id: (.+)$/m.exec(answer.text)?.[1];
    expect(firstId).toBeDefined();
    const resume = (sessionId: string) =>
      exchange(server.url, {
        method: 'GET',
        headers: { ...MALLORY, 'mcp-session-id': sessionId, accept: 'text/event-stream', 'last-event-id': firstId! },
      });
    const foreign = await resume(alice.sessionId);
    const unknown = await resume(UNKNOWN_SESSION);
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(unknown.text);
    expect(foreign.text).not.toContain('notifications/message');
    await exchange(server.url, { method: 'DELETE', headers: alice.headers });
  });

  it("answers a POST to another principal's SSE pair like one to an unknown session (404)", async () => {
    const connection = new AbortController();
    try {
      const pair = await openSsePair(sseUrl, server.baseUrl, ALICE, connection.signal);
      const messages = pair.messagesUrl;
      const ping = legacyRequest('ping', undefined, 14);
      const foreign = await exchange(messages, { body: ping, headers: MALLORY });
      const unknownUrl = new URL(messages);
      unknownUrl.searchParams.set('sessionId', UNKNOWN_SESSION);
      const unknown = await exchange(unknownUrl, { body: ping, headers: MALLORY });
      expect(foreign.status).toBe(404);
      expect(foreign.text).toBe(unknown.text);
      // Nothing reached the owner's stream; the owner is still served.
      const own = await exchange(messages, { body: ping, headers: ALICE });
      expect(own.status).toBe(202);
      await expect(pair.stream.until(/"id":14/)).resolves.toContain('{"jsonrpc":"2.0","id":14,"result":{}}');
      expect(pair.stream.text).not.toContain('mallory');
    } finally {
      connection.abort();
    }
  });
});

describe.each(PLATFORMS)('A client that disconnects mid-call on Streamable HTTP (%s)', (platform) => {
  let server: SessionsApp;
  let replay: McpReplayStore;
  let counter = 0;

  beforeAll(async () => {
    server = await startSessionsApp({}, { platform });
    replay = server.app.get<McpReplayStore>(MCP_REPLAY_STORE);
  });

  beforeEach(() => {
    counter += 1;
  });

  afterEach(async () => {
    await closeAllSessions(server.app);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('modern era: the call is aborted (ctx.signal) and nothing is left in flight', async () => {
    const tag = `modern-${platform}-${counter}`;
    const call = new AbortController();
    const response = await send(server.url, {
      body: modernRequest('tools/call', {
        name: 'hold',
        arguments: { label: tag, progress: true },
        _meta: { progressToken: 'p' },
      }),
      headers: modernHeaders('tools/call', 'hold'),
      signal: call.signal,
    });
    await expect(new SseReader(response).next()).resolves.toMatchObject({ method: 'notifications/progress' });
    await server.probe.waitFor('started', tag);
    expect(stateTables(server.app).deadlineWatched).toBe(true);

    call.abort();
    await expect(server.probe.waitFor('aborted', tag)).resolves.toMatchObject({ reason: 'Client disconnected' });
    await waitUntil(() => !stateTables(server.app).deadlineWatched, 'the call to be forgotten');
    expect(stateTables(server.app)).toEqual(EMPTY_TABLES);
  });

  it('legacy era: the call is not cancelled (2025-11-25), it completes, its answer waits in the replay buffer, nothing stays in flight', async () => {
    const tag = `legacy-${platform}-${counter}`;
    const session = await openLegacySession(server.url, '2025-11-25');
    const call = new AbortController();
    const response = await send(server.url, {
      body: legacyRequest(
        'tools/call',
        { name: 'hold', arguments: { label: tag, progress: true, limitMs: 400 }, _meta: { progressToken: 'p' } },
        21,
      ),
      headers: session.headers,
      signal: call.signal,
    });
    const events = new SseEventReader(response);
    const priming = await events.next();
    const streamId = priming.id!.split(':')[0];
    await server.probe.waitFor('started', tag);
    expect(stateTables(server.app)).toMatchObject({ inflightCalls: 1, liveStreams: 1 });

    call.abort();
    await expect(server.probe.waitFor('finished', tag)).resolves.toBeDefined();
    expect(server.probe.saw('aborted', tag)).toBe(false);
    await waitUntil(() => stateTables(server.app).inflightCalls === 0, 'the call to leave the in-flight table');
    const buffered = await replay.after(session.sessionId, streamId, -1);
    expect(buffered.events.map((event) => event.message)).toContainEqual({
      jsonrpc: '2.0',
      id: 21,
      result: { content: [{ type: 'text', text: `held ${tag}` }] },
    });
    // The answered stream is over: only its buffer (for a resume) is left, and it goes with the session.
    expect(stateTables(server.app)).toEqual({ ...EMPTY_TABLES, sessions: 1, quotaKeys: 1, replayBuffers: 1 });
    expect((await exchange(server.url, { method: 'DELETE', headers: session.headers })).status).toBe(204);
    await waitUntil(() => stateTables(server.app).replayBuffers === 0, 'the replay buffer to be dropped');
    expect(stateTables(server.app)).toEqual(EMPTY_TABLES);
  });
});

describe.each(PLATFORMS)('Keep-alive comments on held streams (keepAliveMs 1000) (%s)', (platform) => {
  let server: SessionsApp;
  let store: McpSessionStore;

  beforeAll(async () => {
    server = await startSessionsApp(
      { http: { keepAliveMs: 1000 }, ssePath: 'sse', sseMessagesPath: 'messages' },
      { platform },
    );
    store = server.app.get<McpSessionStore>(MCP_SESSION_STORE);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('writes `: keep-alive` comments on the legacy GET stream, and they count as session activity', async () => {
    const session = await openLegacySession(server.url);
    const before = (await store.get(session.sessionId))!.lastActivity;
    const connection = new AbortController();
    try {
      const raw = new RawStreamText(await getStream(server, session.headers, connection.signal));
      const text = await raw.until(/^: keep-alive$/m, 5000);
      expect(text).toMatch(/^: keep-alive\r?\n\r?\n/m);
      await waitUntil(
        async () => (await store.get(session.sessionId))!.lastActivity > before,
        'the keep-alive to touch the session',
      );
    } finally {
      connection.abort();
    }
  });

  it('writes `: keep-alive` comments on the 2024-11-05 SSE pair stream', async () => {
    const connection = new AbortController();
    try {
      const response = await send(new URL('/sse', server.baseUrl), {
        method: 'GET',
        headers: { accept: 'text/event-stream' },
        signal: connection.signal,
      });
      expect(response.status).toBe(200);
      const text = await new RawStreamText(response).until(/^: keep-alive$/m, 5000);
      expect(text).toMatch(/^event: endpoint$/m);
    } finally {
      connection.abort();
    }
  });

  // A proxy's idle timeout (nginx: 60 s) must not cut the stream of a long call that reports nothing for a while.
  it.each(['legacy', 'modern'] as const)(
    "writes keep-alive comments on a running call's own SSE answer (%s era)",
    async (era) => {
      const label = `keep-alive-${era}-${platform}`;
      const call = { name: 'hold', arguments: { label, progress: true, limitMs: 2500 }, _meta: { progressToken: 1 } };
      const response =
        era === 'legacy'
          ? await send(server.url, {
              body: legacyRequest('tools/call', call, 31),
              headers: (await openLegacySession(server.url)).headers,
            })
          : await send(server.url, {
              body: modernRequest('tools/call', call, 31),
              headers: modernHeaders('tools/call', 'hold'),
            });
      const raw = new RawStreamText(response);
      const text = await raw.until(/^: keep-alive$|"id":31/m, 5000);
      expect(text).toMatch(/^: keep-alive$/m);
      await raw.until(/"id":31/, 5000);
    },
  );
});

describe('Defaults of the session and stream options', () => {
  let server: SessionsApp;

  beforeAll(async () => {
    server = await startSessionsApp();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('keeps held streams alive every 15 s and idle sessions for 30 minutes, up to 10,000 of them', () => {
    const options = resolvedOptions(server.app);
    expect(options.http.keepAliveMs).toBe(15_000);
    expect(options.sessions).toEqual({
      idleTimeoutMs: 30 * 60_000,
      maxSessions: 10_000,
      maxPerPrincipal: 100,
      maxSubscriptions: 1_000,
      sweepIntervalMs: 60_000,
    });
  });
});
