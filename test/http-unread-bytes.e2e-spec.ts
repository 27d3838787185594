/**
 * A client that does not read its streams cannot make the server buffer without bound
 * (`http.maxUnreadBytes`), over real sockets on Express and Fastify. Node keeps whatever a
 * response is written beyond what the socket takes: a client that never reads made the server
 * hold every log line of its calls and every notification of its streams until the connection
 * closed. Past the bound a stream is let go, as when its client goes away: a legacy session's
 * stream is disconnected (its events wait in the replay buffer for a resume), a modern request
 * is cancelled, a listen stream ends, an SSE pair's session ends. A client that reads the same
 * traffic is never cut.
 *
 * What the server holds is read on its side of each connection: the bytes written and not yet
 * taken by the kernel (`writableLength`), which the kernel stops taking once its buffers are full.
 */
import { McpNotifier } from 'nest-mcp';
import { McpEngine } from '../lib/protocol/engine';
import { SessionChannels } from '../lib/sessions/session-channels';
import {
  type HttpApp,
  type HttpPlatform,
  serverConnections,
  type ServerConnections,
  startHttpApp,
} from './fixtures/http-app';
import { ResumeFixtureModule, ResumeGate } from './fixtures/resume-fixture.module';
import {
  ACCEPT_BOTH,
  legacyRequest,
  META,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  type RpcMessage,
  send,
  SseEventReader,
  SseReader,
  StalledRequest,
  toolText,
  waitUntil,
} from './fixtures/raw-rpc';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const KIB = 1024;
const MIB = 1024 * KIB;
/** The bound under test, well under what the kernel's buffers of one connection take (about 4 MiB here). */
const BOUND = 1 * MIB;
/** The size of the large messages. */
const PAD = 256 * KIB;
/** 64 messages of 256 KiB: 16 MiB, far more than the kernel and the bound take together. */
const EVENTS = 64;
/** What the server may hold for a stream: the bound, and the one message that crossed it. */
const PEAK = BOUND + PAD + 4 * KIB;
/** The priming event of a legacy stream, as the raw client reads it: its id. */
const PRIMED = /\nid: ([^\r\n]+)\n/;

/** The large message number `index`: its number, then `PAD` characters. */
function padded(index: number): string {
  return `${index} ${'x'.repeat(PAD)}`;
}

/** The number a large message starts with (a string of 256 KiB is no use in a failure's output). */
function numberOf(text: unknown): string {
  return String(text).split(' ')[0];
}

/** The number of the large log message a JSON-RPC notification carries. */
function logged(message: RpcMessage): string {
  expect(message.method).toBe('notifications/message');
  return numberOf(String(message.params?.data).replace(/^message /, ''));
}

describe.each(PLATFORMS)('streams whose clients do not read (%s)', (platform) => {
  let server: HttpApp;
  let connections: ServerConnections;
  let gate: ResumeGate;
  /** Aborted after each test: drops whatever a test left open. */
  let cleanup: AbortController;
  const stalled: StalledRequest[] = [];

  /** A request from a client that reads nothing of the answer (unless told to). */
  function stall(url: URL, options: ConstructorParameters<typeof StalledRequest>[1]): StalledRequest {
    const request = new StalledRequest(url, options);
    stalled.push(request);
    return request;
  }

  /** A POST of `body` from a client that reads nothing of the answer. */
  function stallPost(body: RpcMessage, headers: Record<string, string>): StalledRequest {
    return stall(server.url, {
      headers: { ...headers, accept: ACCEPT_BOTH, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /** Resolves with how the `paced_logs` call of `label` ended. */
  function outcome(label: string): Promise<'cancelled' | 'done'> {
    return Promise.race([
      gate.reached(`${label}:cancelled`).then(() => 'cancelled' as const),
      gate.reached(`${label}:done`).then(() => 'done' as const),
    ]);
  }

  /** Opens every gate of the `paced_logs` call of `label`: it logs as fast as the event loop turns. */
  function openAll(label: string): void {
    for (let index = 0; index < EVENTS; index += 1) {
      gate.open(`${label}:${index}`);
    }
  }

  beforeAll(async () => {
    server = await startHttpApp(
      ResumeFixtureModule.forRoot({
        http: { maxBodyBytes: 64 * KIB, maxUnreadBytes: BOUND, retryMs: 0 },
        ssePath: 'sse',
        sseMessagesPath: 'messages',
      }),
      { platform },
    );
    connections = serverConnections(server.app);
    gate = server.app.get(ResumeGate);
  });

  beforeEach(() => {
    cleanup = new AbortController();
  });

  afterEach(() => {
    gate.afterSend = () => undefined;
    cleanup.abort();
    stalled.splice(0).forEach((request) => request.destroy());
  });

  afterAll(async () => {
    await server?.close();
  });

  it("lets a legacy session's GET stream go past the bound; the session lives on and resumes from the buffer", async () => {
    const notifier = server.app.get(McpNotifier);
    const channels = server.app.get(SessionChannels);
    const slow = await openLegacySession(server.url, '2025-11-25');
    const reading = await openLegacySession(server.url, '2025-11-25');
    const getStream = { method: 'GET', headers: { accept: 'text/event-stream' } };
    const stalledGet = stall(server.url, { ...getStream, headers: { ...slow.headers, ...getStream.headers } });
    const primed = (await stalledGet.readUntil(PRIMED))[1];
    const reader = new SseEventReader(
      await send(server.url, {
        ...getStream,
        headers: { ...reading.headers, ...getStream.headers },
        signal: cleanup.signal,
      }),
    );
    expect((await reader.nextEvent()).id).toBeDefined();

    // The same announcements to both sessions, the reading client reading each.
    let peak = 0;
    for (let index = 0; index < EVENTS; index += 1) {
      await notifier.elicitationComplete(slow.sessionId, padded(index));
      await notifier.elicitationComplete(reading.sessionId, padded(index));
      peak = Math.max(peak, connections.heldFor(stalledGet.port));
      const event = await reader.nextEvent();
      expect(numberOf(event.message?.params?.elicitationId)).toBe(String(index));
    }

    expect(peak).toBeLessThanOrEqual(PEAK);
    await waitUntil(() => !connections.has(stalledGet.port), 'the unread GET stream to be let go');
    await waitUntil(() => !channels.has(slow.sessionId), 'the session to have no stream');
    expect(channels.has(reading.sessionId)).toBe(true);

    // The session lives on.
    const call = await post(
      server.url,
      legacyRequest('tools/call', { name: 'burst', arguments: { count: 0 } }, 2),
      slow.headers,
    );
    expect(toolText(call)).toBe('sent 0');

    // A resume is told what the buffer dropped, gets what it kept up to the stream's end, then
    // carries the session's stream on (what was sent meanwhile had no stream to go to, as when a
    // client goes away).
    const resumed = new SseEventReader(
      await send(server.url, {
        method: 'GET',
        headers: { ...slow.headers, accept: 'text/event-stream', 'last-event-id': primed },
        signal: cleanup.signal,
      }),
    );
    await notifier.elicitationComplete(slow.sessionId, 'after');
    expect((await resumed.nextEvent()).message?.method).toBe('notifications/replay_truncated');
    const kept: number[] = [];
    for (;;) {
      const id = (await resumed.nextEvent()).message?.params?.elicitationId;
      if (id === 'after') {
        break;
      }
      kept.push(Number(numberOf(id)));
    }
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(kept.map((_, index) => kept[0] + index));
  }, 30_000);

  it("lets a legacy call's stream go past the bound; the call goes on and its answer waits for a resume", async () => {
    const label = `${platform}-legacy`;
    const session = await openLegacySession(server.url, '2025-11-25');
    const call = legacyRequest('tools/call', { name: 'paced_logs', arguments: { label, count: EVENTS, pad: PAD } }, 3);
    gate.open(`${label}:0`);
    const request = stallPost(call, session.headers);
    const primed = (await request.readUntil(PRIMED))[1];
    let peak = 0;
    gate.afterSend = () => {
      peak = Math.max(peak, connections.heldFor(request.port));
    };
    openAll(label);

    // A legacy call is not cancelled by its connection closing: its events wait in the buffer.
    await expect(outcome(label)).resolves.toBe('done');
    expect(peak).toBeLessThanOrEqual(PEAK);
    await waitUntil(() => !connections.has(request.port), 'the unread stream to be let go');

    const resumed = await send(server.url, {
      method: 'GET',
      headers: { ...session.headers, accept: 'text/event-stream', 'last-event-id': primed },
      signal: cleanup.signal,
    });
    const events = await new SseEventReader(resumed).rest(10_000);
    expect(events[0].message?.method).toBe('notifications/replay_truncated');
    expect(logged(events.at(-2)!.message!)).toBe(String(EVENTS - 1));
    expect(events.at(-1)!.message).toMatchObject({ id: 3, result: { content: [{ text: `sent ${EVENTS}` }] } });
  }, 30_000);

  it('cancels a modern request whose SSE answer is not read past the bound, and frees what it held', async () => {
    const label = `${platform}-modern`;
    const request = stallPost(
      modernRequest('tools/call', { name: 'paced_logs', arguments: { label, count: EVENTS, pad: PAD } }, 1, {
        [META.logLevel]: 'debug',
      }),
      modernHeaders('tools/call', 'paced_logs'),
    );
    let peak = 0;
    gate.afterSend = () => {
      peak = Math.max(peak, connections.heldFor(request.port));
    };
    openAll(label);

    await expect(outcome(label)).resolves.toBe('cancelled');
    expect(peak).toBeLessThanOrEqual(PEAK);
    await waitUntil(() => !connections.has(request.port), 'the unread answer to be let go');
    expect(connections.heldBytes()).toBe(0);
  }, 30_000);

  it('never cuts a modern or legacy client that reads the same traffic', async () => {
    const modern = `${platform}-modern-reading`;
    // Its stream opens with its first message: the first gate opens before the call.
    gate.open(`${modern}:0`);
    const answer = await send(server.url, {
      body: modernRequest(
        'tools/call',
        { name: 'paced_logs', arguments: { label: modern, count: EVENTS, pad: PAD } },
        1,
        {
          [META.logLevel]: 'debug',
        },
      ),
      headers: modernHeaders('tools/call', 'paced_logs'),
      signal: cleanup.signal,
    });
    const reader = new SseReader(answer);
    for (let index = 0; index < EVENTS; index += 1) {
      expect(logged(await reader.next())).toBe(String(index));
      gate.open(`${modern}:${index + 1}`);
    }
    expect(toolText(await reader.next())).toBe(`sent ${EVENTS}`);

    const legacy = `${platform}-legacy-reading`;
    const session = await openLegacySession(server.url, '2025-11-25');
    gate.open(`${legacy}:0`);
    const stream = await send(server.url, {
      body: legacyRequest(
        'tools/call',
        { name: 'paced_logs', arguments: { label: legacy, count: EVENTS, pad: PAD } },
        4,
      ),
      headers: session.headers,
      signal: cleanup.signal,
    });
    const legacyReader = new SseReader(stream);
    for (let index = 0; index < EVENTS; index += 1) {
      expect(logged(await legacyReader.next())).toBe(String(index));
      gate.open(`${legacy}:${index + 1}`);
    }
    expect(toolText(await legacyReader.next())).toBe(`sent ${EVENTS}`);
  }, 30_000);

  it('ends a listen stream that is not read past the bound; a listener that reads hears everything', async () => {
    const notifier = server.app.get(McpNotifier);
    const engine = server.app.get(McpEngine);
    const listen = (id: string): RpcMessage =>
      modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, id);
    const request = stallPost(listen('stalled'), modernHeaders('subscriptions/listen'));
    const reader = new SseReader(
      await send(server.url, {
        body: listen('reading'),
        headers: modernHeaders('subscriptions/listen'),
        signal: cleanup.signal,
      }),
    );
    expect((await reader.next()).method).toBe('notifications/subscriptions/acknowledged');
    await waitUntil(() => engine.subscriptions.size === 2, 'both listen streams to be open');

    // In batches the reading listener reads before the next: about 150 bytes each, 16 MiB at most.
    const batch = 1000;
    const most = Math.ceil((16 * MIB) / 150 / batch) * batch;
    let sent = 0;
    let peak = 0;
    while (engine.subscriptions.size === 2 && sent < most) {
      await Promise.all(Array.from({ length: batch }, () => notifier.toolsChanged()));
      sent += batch;
      peak = Math.max(peak, connections.heldFor(request.port));
      for (let index = 0; index < batch; index += 1) {
        expect((await reader.next()).method).toBe('notifications/tools/list_changed');
      }
    }

    expect(engine.subscriptions.size).toBe(1);
    expect(peak).toBeLessThanOrEqual(BOUND + 4 * KIB);
    await waitUntil(() => !connections.has(request.port), 'the unread listen stream to be let go');
    await notifier.toolsChanged();
    expect((await reader.next()).method).toBe('notifications/tools/list_changed');
  }, 60_000);

  it("ends an SSE pair whose stream is not read past the bound, and the pair's session with it", async () => {
    const label = `${platform}-pair`;
    const request = stall(new URL('/sse', server.baseUrl), { method: 'GET', headers: { accept: 'text/event-stream' } });
    const endpoint = (await request.readUntil(/event: endpoint\ndata: ([^\r\n]+)\n/))[1];
    const messages = new URL(endpoint, server.baseUrl);
    const handshake = legacyRequest('initialize', {
      protocolVersion: '2024-11-05',
      capabilities: {},
      clientInfo: { name: 'raw-e2e', version: '0.0.1' },
    });
    expect((await post(messages, handshake)).status).toBe(202);
    expect((await post(messages, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    let peak = 0;
    gate.afterSend = () => {
      peak = Math.max(peak, connections.heldFor(request.port));
    };
    openAll(label);
    const call = legacyRequest('tools/call', { name: 'paced_logs', arguments: { label, count: EVENTS, pad: PAD } }, 2);
    expect((await post(messages, call)).status).toBe(202);

    // The session is the stream's: it ends with it, and so does its running call.
    await expect(outcome(label)).resolves.toBe('cancelled');
    expect(peak).toBeLessThanOrEqual(PEAK);
    await waitUntil(() => !connections.has(request.port), 'the unread pair to be let go');
    expect((await post(messages, legacyRequest('ping', undefined, 3))).status).toBe(404);
  }, 30_000);
});
