/**
 * What a `Last-Event-ID` resume costs the server. A resume replays what the buffer holds after
 * the client's position; written all at once, a client that does not read made the server hold
 * the whole replay in its socket buffers, once per resume (issue 34: 200 small GETs held 717 MiB).
 * Written at the pace the client reads, a resume holds one event and a socket buffer in user
 * space, whatever the replay's size and however many resumes ask for it.
 */
import {
  type HttpApp,
  type HttpPlatform,
  serverConnections,
  type ServerConnections,
  startHttpApp,
} from './fixtures/http-app';
import { ResumeFixtureModule, ResumeGate } from './fixtures/resume-fixture.module';
import { legacyRequest, openLegacySession, send, SseEventReader, StalledRequest, waitUntil } from './fixtures/raw-rpc';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const KIB = 1024;
const MIB = 1024 * KIB;
/** 48 events of 256 KiB: a 12 MiB replay, three times what a socket's kernel buffers take. */
const EVENTS = 48;
const PAD = 256 * KIB;
const RESUMES = 8;
/** What one resume may hold in user space: an event, and a socket buffer and then some. */
const PER_RESUME = PAD + 64 * KIB;

/** A GET with `Last-Event-ID` from a client that reads nothing of the answer. */
function stalledResume(url: URL, headers: Record<string, string>, lastEventId: string): StalledRequest {
  return new StalledRequest(url, {
    method: 'GET',
    headers: { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId },
  });
}

describe.each(PLATFORMS)('resumes of a large replay (%s)', (platform) => {
  let server: HttpApp;
  /** The server's side of every connection, to read what it holds in user space. */
  let connections: ServerConnections;
  const stalled: StalledRequest[] = [];

  beforeAll(async () => {
    server = await startHttpApp(
      ResumeFixtureModule.forRoot({
        // The first read of the stream is a burst of 12 MiB written at once, which a client
        // cannot read as it comes: the bound on unread bytes must take it.
        http: { replayBufferBytes: 16 * MIB, replayTotalBytes: 64 * MIB, retryMs: 0, maxUnreadBytes: 16 * MIB },
      }),
      { platform },
    );
    connections = serverConnections(server.app);
  });

  afterEach(() => {
    stalled.splice(0).forEach((socket) => socket.destroy());
  });

  afterAll(async () => {
    await server?.close();
  });

  /** The bytes the server holds in user space for its connections, written but not yet in the kernel. */
  function heldBytes(): number {
    return connections.heldBytes();
  }

  /** Resumes of `lastEventId` whose clients read nothing; resolves once each is stuck on its client. */
  async function stall(headers: Record<string, string>, lastEventId: string, count: number): Promise<void> {
    for (let index = 0; index < count; index += 1) {
      stalled.push(stalledResume(server.url, headers, lastEventId));
    }
    await waitUntil(
      () => stalled.filter((request) => connections.heldFor(request.port) > 0).length >= count,
      `${count} resumes stuck on their clients`,
      10_000,
    );
  }

  it(`holds at most an event and a socket buffer per resume of an answered stream (${RESUMES} resumes of 12 MiB)`, async () => {
    const session = await openLegacySession(server.url, '2025-11-25');
    const answer = await send(server.url, {
      body: legacyRequest('tools/call', { name: 'burst', arguments: { count: EVENTS, pad: PAD } }),
      headers: session.headers,
    });
    const events = await new SseEventReader(answer).rest(10_000);
    expect(events).toHaveLength(EVENTS + 2);
    const primed = events[0].id!;

    await stall(session.headers, primed, RESUMES);
    expect(heldBytes()).toBeLessThan(RESUMES * PER_RESUME);

    // A client that reads gets the whole replay, in order, then the end.
    const resumed = await send(server.url, {
      method: 'GET',
      headers: { ...session.headers, accept: 'text/event-stream', 'last-event-id': primed },
    });
    const replayed = await new SseEventReader(resumed).rest(10_000);
    expect(replayed.map((event) => event.id)).toEqual(events.slice(1).map((event) => event.id));

    // Clients that leave let their resumes go.
    stalled.splice(0).forEach((socket) => socket.destroy());
    await waitUntil(() => heldBytes() === 0, 'the resumes of the clients that left to end', 10_000);
  }, 30_000);

  it('holds at most an event and a socket buffer for the resume of a running stream, then carries it on', async () => {
    const session = await openLegacySession(server.url, '2025-11-25');
    const label = `${platform}-running`;
    const gate = server.app.get(ResumeGate);
    const call = await send(server.url, {
      body: legacyRequest('tools/call', { name: 'close_then_answer', arguments: { label, before: EVENTS, pad: PAD } }),
      headers: session.headers,
    });
    const events = await new SseEventReader(call).rest(10_000);
    expect(events).toHaveLength(EVENTS + 1);
    await gate.reached(label);

    await stall(session.headers, events[0].id!, 1);
    expect(heldBytes()).toBeLessThan(PER_RESUME);

    // Another resume takes the stream over: it gets the replay, then the rest of the call.
    const resumed = await send(server.url, {
      method: 'GET',
      headers: { ...session.headers, accept: 'text/event-stream', 'last-event-id': events[0].id! },
    });
    const reader = new SseEventReader(resumed);
    for (const event of events.slice(1)) {
      await expect(reader.nextEvent(10_000)).resolves.toMatchObject({ id: event.id });
    }
    gate.open(label);
    const rest = await reader.rest(10_000);
    expect(rest.map((event) => event.message?.result?.content)).toEqual([[{ type: 'text', text: `answer ${label}` }]]);
  }, 30_000);
});
