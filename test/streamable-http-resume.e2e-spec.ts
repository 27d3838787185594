/**
 * Resumable legacy streams on the Streamable HTTP endpoint (SEP-1699), with plain `fetch` and
 * the v1 SDK client: event ids on every legacy session stream, priming events and `retry` from
 * 2025-11-25, `ctx.closeStream()`, GET with `Last-Event-ID` (replay, live continuation,
 * `notifications/replay_truncated`), the buffer's size and its end with the session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpNotifier, McpSessionService } from 'nest-mcp';
import { MCP_REPLAY_STORE } from '../lib/shared/mcp.constants';
import type { McpReplayStore } from '../lib/interfaces/replay-store.interface';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { ResumeFixtureModule, ResumeGate } from './fixtures/resume-fixture.module';
import {
  exchange,
  legacyRequest,
  META,
  modernHeaders,
  modernRequest,
  openLegacySession,
  recordingFetch,
  type RpcMessage,
  send,
  SseEventReader,
} from './fixtures/raw-rpc';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const RETRY_MS = 40;
const BUFFER_SIZE = 8;
const EVENT_ID = /^([0-9a-f]{16}):(\d+)$/;

function streamOf(id: string | undefined): string {
  const match = EVENT_ID.exec(id ?? '');
  if (match === null) {
    throw new Error(`Not an event id of ours: ${String(id)}`);
  }
  return match[1];
}

function logged(text: string): Partial<RpcMessage> {
  return { method: 'notifications/message', params: { level: 'info', data: text } };
}

const TOOLS_CHANGED = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };

describe.each(PLATFORMS)('Resumable legacy streams (%s)', (platform) => {
  let server: HttpApp;
  let gate: ResumeGate;
  let notifier: McpNotifier;
  let sessions: McpSessionService;
  let store: McpReplayStore;
  let cleanup: AbortController;
  let label = 0;

  beforeAll(async () => {
    server = await startHttpApp(
      ResumeFixtureModule.forRoot({ http: { retryMs: RETRY_MS, replayBufferSize: BUFFER_SIZE } }),
      { platform },
    );
    gate = server.app.get(ResumeGate);
    notifier = server.app.get(McpNotifier);
    sessions = server.app.get(McpSessionService);
    store = server.app.get<McpReplayStore>(MCP_REPLAY_STORE);
  });

  beforeEach(() => {
    cleanup = new AbortController();
    label += 1;
  });

  afterEach(() => cleanup.abort());

  afterAll(async () => {
    await server?.close();
  });

  function nextLabel(): string {
    return `${platform}-${label}`;
  }

  function call(headers: Record<string, string>, name: string, args: Record<string, unknown>, id: string | number = 1) {
    return send(server.url, {
      body: legacyRequest('tools/call', { name, arguments: args }, id),
      headers,
      signal: cleanup.signal,
    });
  }

  function get(headers: Record<string, string>, lastEventId?: string): Promise<Response> {
    return send(server.url, {
      method: 'GET',
      headers: {
        ...headers,
        accept: 'text/event-stream',
        ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
      },
      signal: cleanup.signal,
    });
  }

  /** Resolves once the session's buffer holds the response of stream `streamId`. */
  async function answered(sessionId: string, streamId: string): Promise<void> {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      const { events } = await store.after(sessionId, streamId, -1);
      if (events.some((event) => event.message !== undefined && !('method' in event.message))) {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error('The call was not answered in time');
  }

  describe('event ids, priming and retry', () => {
    it('numbers every event of a 2025-11-25 POST stream `<stream>:<seq>`, after a priming event with retry', async () => {
      const session = await openLegacySession(server.url, '2025-11-25');
      const response = await call(session.headers, 'burst', { count: 2 });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const events = await new SseEventReader(response).rest();
      const stream = streamOf(events[0].id);
      expect(events).toEqual([
        { id: `${stream}:0`, retry: RETRY_MS, data: '' },
        { id: `${stream}:1`, data: expect.any(String), message: expect.objectContaining(logged('message 0')) },
        { id: `${stream}:2`, data: expect.any(String), message: expect.objectContaining(logged('message 1')) },
        {
          id: `${stream}:3`,
          data: expect.any(String),
          message: expect.objectContaining({ id: 1, result: { content: [{ type: 'text', text: 'sent 2' }] } }),
        },
      ]);
    });

    it('numbers the events of a 2025-03-26 POST stream too, without priming event or retry field', async () => {
      const session = await openLegacySession(server.url, '2025-03-26');
      expect(session.protocolVersion).toBe('2025-03-26');
      const response = await call(session.headers, 'burst', { count: 2 });
      const events = await new SseEventReader(response).rest();
      const stream = streamOf(events[0].id);
      expect(events.map((event) => [event.id, event.retry, event.message?.method ?? event.message?.id])).toEqual([
        [`${stream}:0`, undefined, 'notifications/message'],
        [`${stream}:1`, undefined, 'notifications/message'],
        [`${stream}:2`, undefined, 1],
      ]);
    });

    it('opens the GET stream with a priming event on 2025-11-25 and numbers its events', async () => {
      const session = await openLegacySession(server.url, '2025-11-25');
      const stream = new SseEventReader(await get(session.headers));
      const priming = await stream.next();
      expect(priming).toEqual({ id: expect.stringMatching(EVENT_ID), retry: RETRY_MS, data: '' });
      const id = streamOf(priming.id);
      await notifier.toolsChanged();
      await expect(stream.next()).resolves.toEqual({
        id: `${id}:1`,
        data: JSON.stringify(TOOLS_CHANGED),
        message: TOOLS_CHANGED,
      });
    });

    it('numbers the GET stream of 2025-03-26 from its first message, without priming', async () => {
      const session = await openLegacySession(server.url, '2025-03-26');
      const stream = new SseEventReader(await get(session.headers));
      await notifier.toolsChanged();
      const first = await stream.next();
      expect(first).toEqual({
        id: expect.stringMatching(/:0$/),
        data: JSON.stringify(TOOLS_CHANGED),
        message: TOOLS_CHANGED,
      });
    });

    it('keeps modern-era streams without ids, priming or retry', async () => {
      const response = await exchange(server.url, {
        body: modernRequest('tools/call', { name: 'burst', arguments: { count: 2 } }, 1, { [META.logLevel]: 'info' }),
        headers: modernHeaders('tools/call', 'burst'),
      });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      expect(response.events).toHaveLength(3);
      expect(response.text).not.toMatch(/^(id|retry):/m);
    });
  });

  describe('ctx.closeStream() and GET with Last-Event-ID', () => {
    it('ends the POST stream mid-call; a GET with Last-Event-ID replays the later events and the result, then ends', async () => {
      const tag = nextLabel();
      const session = await openLegacySession(server.url, '2025-11-25');
      const response = await call(session.headers, 'close_then_answer', { label: tag, before: 1, after: 2 }, 'c-1');
      const early = await new SseEventReader(response).rest();
      const stream = streamOf(early[0].id);
      expect(early).toEqual([
        { id: `${stream}:0`, retry: RETRY_MS, data: '' },
        { id: `${stream}:1`, data: expect.any(String), message: expect.objectContaining(logged('before 0')) },
      ]);

      gate.open(tag);
      await answered(session.sessionId, stream);
      const resumed = await get(session.headers, `${stream}:1`);
      expect(resumed.status).toBe(200);
      expect(resumed.headers.get('mcp-session-id')).toBe(session.sessionId);
      const later = await new SseEventReader(resumed).rest();
      expect(later).toEqual([
        { retry: RETRY_MS },
        { id: `${stream}:2`, data: expect.any(String), message: expect.objectContaining(logged('after 0')) },
        { id: `${stream}:3`, data: expect.any(String), message: expect.objectContaining(logged('after 1')) },
        {
          id: `${stream}:4`,
          data: expect.any(String),
          message: {
            jsonrpc: '2.0',
            id: 'c-1',
            result: expect.objectContaining({ content: [{ type: 'text', text: `answer ${tag}` }] }),
          },
        },
      ]);
    });

    it('turns a pending JSON answer into a primed stream before closing it', async () => {
      const tag = nextLabel();
      const session = await openLegacySession(server.url, '2025-11-25');
      const response = await call(session.headers, 'close_then_answer', { label: tag });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const early = await new SseEventReader(response).rest();
      expect(early).toEqual([{ id: expect.stringMatching(/:0$/), retry: RETRY_MS, data: '' }]);
      gate.open(tag);
      const later = await new SseEventReader(await get(session.headers, early[0].id)).rest();
      expect(later.map((event) => event.message?.result?.content)).toEqual([
        undefined,
        [{ type: 'text', text: `answer ${tag}` }],
      ]);
    });

    it('carries a resumed running call live until its result, beside the session GET stream', async () => {
      const tag = nextLabel();
      const session = await openLegacySession(server.url, '2025-11-25');
      const standalone = new SseEventReader(await get(session.headers));
      const standalonePriming = await standalone.next();

      const response = await call(session.headers, 'close_then_answer', { label: tag, after: 1 }, 7);
      const early = await new SseEventReader(response).rest();
      const stream = streamOf(early[0].id);
      await gate.reached(tag);

      // A second GET is fine when it resumes a request's stream: it is not the session's stream.
      const resumed = await get(session.headers, `${stream}:0`);
      expect(resumed.status).toBe(200);
      const live = new SseEventReader(resumed);
      await expect(live.next()).resolves.toEqual({ retry: RETRY_MS });
      gate.open(tag);
      await expect(live.rest()).resolves.toEqual([
        { id: `${stream}:1`, data: expect.any(String), message: expect.objectContaining(logged('after 0')) },
        {
          id: `${stream}:2`,
          data: expect.any(String),
          message: expect.objectContaining({ id: 7, result: { content: [{ type: 'text', text: `answer ${tag}` }] } }),
        },
      ]);

      // The call's messages never went to the session's own stream.
      await notifier.toolsChanged();
      await expect(standalone.next()).resolves.toEqual({
        id: `${streamOf(standalonePriming.id)}:1`,
        data: JSON.stringify(TOOLS_CHANGED),
        message: TOOLS_CHANGED,
      });
    });

    it("resumes the session's GET stream: what followed the id, then the same stream goes on", async () => {
      const session = await openLegacySession(server.url, '2025-11-25');
      const first = new SseEventReader(await get(session.headers));
      const priming = await first.next();
      const stream = streamOf(priming.id);
      await notifier.toolsChanged();
      await notifier.promptsChanged();
      await expect(first.next()).resolves.toMatchObject({ id: `${stream}:1` });
      await expect(first.next()).resolves.toMatchObject({ id: `${stream}:2` });
      await first.cancel();

      // The client saw :1 only, as far as it knows: :2 comes again.
      const resumed = new SseEventReader(await get(session.headers, `${stream}:1`));
      await expect(resumed.next()).resolves.toEqual({ retry: RETRY_MS });
      await expect(resumed.next()).resolves.toEqual({
        id: `${stream}:2`,
        data: expect.any(String),
        message: { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' },
      });
      await notifier.toolsChanged();
      await expect(resumed.next()).resolves.toEqual({
        id: `${stream}:3`,
        data: JSON.stringify(TOOLS_CHANGED),
        message: TOOLS_CHANGED,
      });
      // It is the session's stream now.
      const another = await exchange(server.url, {
        method: 'GET',
        headers: { ...session.headers, accept: 'text/event-stream' },
      });
      expect(another.status).toBe(409);
    });

    it('sends notifications/replay_truncated for an unknown id, then serves as the session stream', async () => {
      const session = await openLegacySession(server.url, '2025-11-25');
      const stream = new SseEventReader(await get(session.headers, 'not-an-id-of-ours'));
      const priming = await stream.next();
      expect(priming).toEqual({ id: expect.stringMatching(/:0$/), retry: RETRY_MS, data: '' });
      await expect(stream.next()).resolves.toEqual({
        data: expect.any(String),
        message: {
          jsonrpc: '2.0',
          method: 'notifications/replay_truncated',
          params: { lastEventId: 'not-an-id-of-ours' },
        },
      });
      await notifier.toolsChanged();
      await expect(stream.next()).resolves.toMatchObject({
        id: `${streamOf(priming.id)}:1`,
        message: TOOLS_CHANGED,
      });
    });

    it("treats another session's event id as unknown: nothing of that session is replayed", async () => {
      const owner = await openLegacySession(server.url, '2025-11-25');
      const events = await new SseEventReader(await call(owner.headers, 'burst', { count: 1 })).rest();
      const stranger = await openLegacySession(server.url, '2025-11-25');
      const stream = new SseEventReader(await get(stranger.headers, events[0].id));
      await stream.next(); // its own priming event
      await expect(stream.next()).resolves.toMatchObject({
        message: { method: 'notifications/replay_truncated', params: { lastEventId: events[0].id } },
      });
      await notifier.toolsChanged();
      await expect(stream.next()).resolves.toMatchObject({ message: TOOLS_CHANGED });
    });

    it(`keeps the last ${BUFFER_SIZE} events: an id that rolled out gets replay_truncated, then what is left`, async () => {
      const session = await openLegacySession(server.url, '2025-11-25');
      // priming :0, messages :1..:10, response :11 — the buffer keeps :4..:11.
      const events = await new SseEventReader(await call(session.headers, 'burst', { count: 10 }, 3)).rest();
      expect(events).toHaveLength(12);
      const stream = streamOf(events[0].id);

      const truncated = await new SseEventReader(await get(session.headers, `${stream}:2`)).rest();
      expect(truncated[0]).toEqual({ retry: RETRY_MS });
      expect(truncated[1].message).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/replay_truncated',
        params: { lastEventId: `${stream}:2` },
      });
      expect(truncated.slice(2).map((event) => event.id)).toEqual(
        [4, 5, 6, 7, 8, 9, 10, 11].map((seq) => `${stream}:${seq}`),
      );
      expect(truncated.at(-1)?.message).toMatchObject({ id: 3, result: { content: [{ text: 'sent 10' }] } });

      const inWindow = await new SseEventReader(await get(session.headers, `${stream}:9`)).rest();
      expect(inWindow.map((event) => event.id ?? event.retry)).toEqual([RETRY_MS, `${stream}:10`, `${stream}:11`]);
    });

    it('drops the replay buffer when the session is deleted or expires', async () => {
      const deleted = await openLegacySession(server.url, '2025-11-25');
      const events = await new SseEventReader(await call(deleted.headers, 'burst', { count: 2 })).rest();
      const stream = streamOf(events[0].id);
      await expect(store.after(deleted.sessionId, stream, -1)).resolves.toMatchObject({
        events: expect.arrayContaining([expect.objectContaining({ seq: 3 })]),
      });
      const gone = await exchange(server.url, { method: 'DELETE', headers: deleted.headers });
      expect(gone.status).toBe(204);
      await expect(store.after(deleted.sessionId, stream, -1)).resolves.toEqual({ events: [], found: false });
      const afterDelete = await exchange(server.url, {
        method: 'GET',
        headers: { ...deleted.headers, accept: 'text/event-stream', 'last-event-id': `${stream}:0` },
      });
      expect(afterDelete.status).toBe(404);

      const expiring = await openLegacySession(server.url, '2025-11-25');
      const more = await new SseEventReader(await call(expiring.headers, 'burst', { count: 1 })).rest();
      await sessions.close(expiring.sessionId, 'expired');
      await expect(store.after(expiring.sessionId, streamOf(more[0].id), -1)).resolves.toEqual({
        events: [],
        found: false,
      });
    });

    it('ends a resumed stream, and the buffer, when the session is deleted mid-call', async () => {
      const tag = nextLabel();
      const session = await openLegacySession(server.url, '2025-11-25');
      const early = await new SseEventReader(await call(session.headers, 'close_then_answer', { label: tag })).rest();
      const resumed = new SseEventReader(await get(session.headers, early[0].id));
      await resumed.next(); // retry
      const gone = await exchange(server.url, { method: 'DELETE', headers: session.headers });
      expect(gone.status).toBe(204);
      await expect(resumed.rest()).resolves.toEqual([]);
    });
  });

  describe('where closeStream() does nothing', () => {
    /** Lets the `close_then_answer` call `tag` go on once it waits, and expects its answer as plain JSON. */
    async function expectJsonAnswer(tag: string, pending: Promise<Response>): Promise<void> {
      await gate.reached(tag);
      gate.open(tag);
      const response = await pending;
      expect(response.headers.get('content-type')).toContain('application/json');
      await expect(response.json()).resolves.toMatchObject({
        result: { content: [{ type: 'text', text: `answer ${tag}` }] },
      });
    }

    it('leaves a 2025-03-26 answer as JSON', async () => {
      const tag = nextLabel();
      const session = await openLegacySession(server.url, '2025-03-26');
      await expectJsonAnswer(tag, call(session.headers, 'close_then_answer', { label: tag }));
    });

    it('leaves a modern answer as JSON', async () => {
      const tag = nextLabel();
      const pending = send(server.url, {
        body: modernRequest('tools/call', { name: 'close_then_answer', arguments: { label: tag } }),
        headers: modernHeaders('tools/call', 'close_then_answer'),
      });
      await expectJsonAnswer(tag, pending);
    });
  });

  describe('the v1 SDK client', () => {
    it('completes a call whose stream the server closed, by reconnecting with Last-Event-ID', async () => {
      const recording = recordingFetch();
      const client = new Client({ name: 'resume-e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(server.url, { fetch: recording.fetch }));
      try {
        const result = await client.callTool({ name: 'close_and_sleep', arguments: { ms: 100 } });
        expect(result.content).toEqual([{ type: 'text', text: 'slept 100 ms' }]);
        const resumes = recording.exchanges.items.filter(
          (item) => item.method === 'GET' && item.requestHeaders.get('last-event-id') !== null,
        );
        expect(resumes).toHaveLength(1);
        expect(resumes[0].status).toBe(200);
        expect(resumes[0].requestHeaders.get('last-event-id')).toMatch(/^[0-9a-f]{16}:0$/);
      } finally {
        await client.close();
      }
    });
  });
});
