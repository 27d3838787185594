/**
 * Resumable streams across instances (2025-11-25, SEP-1699): a request's stream runs on the
 * instance that serves the call; a client that resumes it with `Last-Event-ID` on another
 * instance gets the buffered events, then the live ones, then the answer, from there.
 */
import { MCP_REPLAY_STORE } from '../../lib/shared/mcp.constants';
import { ResumableStreams } from '../../lib/transports/http/resumable-streams.service';
import type { McpReplayStore } from '../../lib/interfaces/replay-store.interface';
import { startHttpApp, type HttpApp } from '../fixtures/http-app';
import { ResumeFixtureModule, ResumeGate } from '../fixtures/resume-fixture.module';
import { legacyRequest, openLegacySession, send, SseEventReader, type RpcMessage } from '../fixtures/raw-rpc';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { CLUSTER_SECRET } from '../fixtures/cluster-fixture';

const RETRY_MS = 40;
/** With several instances a request's stream id is the instance id (16 hex) and 8 more. */
const REQUEST_EVENT_ID = /^([0-9a-f]{24}):(\d+)$/;

function streamOf(id: string | undefined): string {
  const match = REQUEST_EVENT_ID.exec(id ?? '');
  if (match === null) {
    throw new Error(`Not a request stream event id: ${String(id)}`);
  }
  return match[1];
}

function logged(text: string): Partial<RpcMessage> {
  return { method: 'notifications/message', params: { level: 'info', data: text } };
}

describe('Resumable streams across instances', () => {
  let redis: RedisServerHandle;
  let a: HttpApp;
  let b: HttpApp;
  let gateA: ResumeGate;
  let cleanup: AbortController;
  let label = 0;

  beforeAll(async () => {
    redis = await startRedisServer();
    const options = {
      http: { retryMs: RETRY_MS },
      redis: { url: redis.url, keyPrefix: 'resume:' },
      requestState: { secret: CLUSTER_SECRET },
    };
    a = await startHttpApp(ResumeFixtureModule.forRoot(options));
    b = await startHttpApp(ResumeFixtureModule.forRoot(options));
    gateA = a.app.get(ResumeGate);
  });

  beforeEach(() => {
    cleanup = new AbortController();
    label += 1;
  });

  afterEach(() => cleanup.abort());

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  /** Waits until A sends the events of `count` of its streams to clients on other instances. */
  async function following(count: number): Promise<void> {
    // Internal state, read because nothing on the wire tells when A has started to follow.
    const follows: unknown = Reflect.get(a.app.get(ResumableStreams), 'follows');
    const sinks = Reflect.get(follows as object, 'remoteSinks') as Map<string, unknown>;
    const deadline = Date.now() + 5000;
    while (sinks.size !== count) {
      if (Date.now() > deadline) {
        throw new Error(`A follows ${sinks.size} streams for other instances, not ${count}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  function callOnA(headers: Record<string, string>, args: Record<string, unknown>, id: string | number) {
    return send(a.url, {
      body: legacyRequest('tools/call', { name: 'close_then_answer', arguments: args }, id),
      headers,
      signal: cleanup.signal,
    });
  }

  function resumeOn(app: HttpApp, headers: Record<string, string>, lastEventId: string, signal = cleanup.signal) {
    return send(app.url, {
      method: 'GET',
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId },
      signal,
    });
  }

  it('carries a call running on A live to a client that resumed on B, until its answer', async () => {
    const tag = `live-${label}`;
    const session = await openLegacySession(a.url, '2025-11-25');
    const early = await new SseEventReader(
      await callOnA(session.headers, { label: tag, before: 1, after: 2 }, 'c-1'),
    ).rest();
    const stream = streamOf(early[0].id);
    expect(early[1]).toEqual({
      id: `${stream}:1`,
      data: expect.any(String),
      message: expect.objectContaining(logged('before 0')),
    });
    await gateA.reached(tag);

    const resumed = await resumeOn(b, session.headers, `${stream}:1`);
    expect(resumed.status).toBe(200);
    const live = new SseEventReader(resumed);
    await expect(live.next()).resolves.toEqual({ retry: RETRY_MS });
    // The call goes on once A follows for B: what comes next is live, not read from the buffer.
    await following(1);
    gateA.open(tag);
    await expect(live.rest()).resolves.toEqual([
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

  it('replays from the shared buffer on B what a call on A sent after the position, when it already answered', async () => {
    const tag = `done-${label}`;
    const session = await openLegacySession(a.url, '2025-11-25');
    const early = await new SseEventReader(await callOnA(session.headers, { label: tag, after: 1 }, 9)).rest();
    const stream = streamOf(early[0].id);
    gateA.open(tag);
    const store = a.app.get<McpReplayStore>(MCP_REPLAY_STORE);
    const deadline = Date.now() + 5000;
    while (
      !(await store.after(session.sessionId, stream, 0)).events.some(
        (event) => event.message && 'result' in event.message,
      )
    ) {
      if (Date.now() > deadline) {
        throw new Error('no answer in the buffer');
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const replayed = await new SseEventReader(await resumeOn(b, session.headers, `${stream}:0`)).rest();
    expect(replayed.map((event) => event.message?.method ?? event.message?.id)).toEqual([
      undefined,
      'notifications/message',
      9,
    ]);
  });

  it('lets a follower on B leave without ending the call on A: a later resume still gets the answer', async () => {
    const tag = `leave-${label}`;
    const session = await openLegacySession(a.url, '2025-11-25');
    const early = await new SseEventReader(await callOnA(session.headers, { label: tag, after: 1 }, 'c-3')).rest();
    const stream = streamOf(early[0].id);
    await gateA.reached(tag);
    const leaving = new AbortController();
    const first = new SseEventReader(await resumeOn(b, session.headers, `${stream}:0`, leaving.signal));
    await expect(first.next()).resolves.toEqual({ retry: RETRY_MS });
    await following(1);
    leaving.abort();
    // B tells A that its client left: A stops sending, and the call goes on.
    await following(0);
    gateA.open(tag);
    const again = await new SseEventReader(await resumeOn(b, session.headers, `${stream}:0`)).rest();
    expect(again.at(-1)?.message).toEqual({
      jsonrpc: '2.0',
      id: 'c-3',
      result: expect.objectContaining({ content: [{ type: 'text', text: `answer ${tag}` }] }),
    });
    expect(again.filter((event) => event.message?.method === 'notifications/message')).toHaveLength(1);
  });
});
