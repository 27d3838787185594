/**
 * Legacy sessions served by two instances sharing one Redis: a session opened on one instance
 * and used on the other (official v1 clients and raw HTTP), questions to the client answered
 * through a round-robin proxy, standalone streams (Streamable GET and the 2024-11-05 SSE pair)
 * carrying what the other instance produced, stream claims, cancellation across instances, the
 * keys left in Redis, and idle expiry. Instances are addressed directly (`apps[0]`, `apps[1]`)
 * wherever a test must know which one serves which request.
 */
import Redis from 'ioredis';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { McpSessionService } from 'nest-mcp';
import { MCP_CLUSTER_LINK } from '../../lib/shared/mcp.constants';
import type { ClusterLink } from '../../lib/cluster/cluster-link.interface';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { NOTE_URI, startCluster, type Cluster } from '../fixtures/cluster-fixture';
import { PRINCIPAL_HEADER, type TasksApp } from '../fixtures/tasks-fixture';
import {
  Collector,
  legacyRequest,
  openLegacySession,
  post,
  type RawResponse,
  recordingFetch,
  type RpcMessage,
  send,
  type SseEvent,
  SseEventReader,
  SseReader,
  waitUntil,
} from '../fixtures/raw-rpc';
import { legacyPost, openLegacyStream, pollFor, rpcResultOf, uniqueKeyPrefix } from './cluster-helpers';

const REVISION = '2025-11-25';
const SESSION_NOT_FOUND = { code: -32600, message: 'Session not found' };
/** Ids of the server's requests to clients when Redis is on: `<16 hex instance id>.<n>`. */
const CLUSTER_REQUEST_ID = /^([0-9a-f]{16})\.\d+$/;

/** The cluster link's id of an instance: the prefix of the ids of its requests to clients. */
function instanceIdOf(app: TasksApp): string {
  return app.app.get<ClusterLink>(MCP_CLUSTER_LINK).instanceId;
}

/** The text of a tool result's first content block. */
function textOf(result: Record<string, any> | undefined): string {
  return String(result?.content?.[0]?.text);
}

/** A JSON-RPC error answer of an exchange, with its HTTP status. */
function statusAndError(response: RawResponse): { status: number; error: unknown } {
  return { status: response.status, error: response.json?.error };
}

/** A principal's headers (the fixtures' stand-in for authentication). */
function as(principal: string): Record<string, string> {
  return { [PRINCIPAL_HEADER]: principal };
}

/** The next event that carries a message (the priming event of a 2025-11-25 stream has none). */
async function nextWithMessage(reader: SseEventReader): Promise<SseEvent> {
  for (;;) {
    const event = await reader.nextEvent();
    if (event.message !== undefined) {
      return event;
    }
  }
}

/** The next keep-alive comment of a stream read with `comments: true`. */
async function nextComment(reader: SseEventReader): Promise<string> {
  for (;;) {
    const event = await reader.next();
    if (event.comment !== undefined) {
      return event.comment;
    }
  }
}

/** One 2024-11-05 SSE pair opened by hand: its event stream, where it says to POST, its session. */
interface RawPair {
  readonly reader: SseEventReader;
  /** The `endpoint` event's data: a path with `?sessionId=`. */
  readonly endpoint: string;
  readonly sessionId: string;
  /** The messages URL of the pair's session on `app` (any instance). */
  messagesOn(app: TasksApp): URL;
}

describe('cluster: sessions, streams and pending requests', () => {
  let redisServer: RedisServerHandle;
  let redis: Redis;
  let cluster: Cluster;
  let keyPrefix: string;
  /** Aborted after each test: drops every raw stream a test left open. */
  let streams: AbortController;
  const closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    redisServer = await startRedisServer();
    redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
  });

  afterAll(async () => {
    await redis?.quit();
    await redisServer?.stop();
  });

  beforeEach(() => {
    streams = new AbortController();
  });

  afterEach(async () => {
    streams.abort();
    while (closers.length > 0) {
      await closers.pop()!().catch(() => undefined);
    }
    await cluster?.close();
  });

  /** A fresh two-instance cluster under a key prefix of its own. */
  async function start(label: string, overrides?: Parameters<typeof startCluster>[0]['overrides']): Promise<Cluster> {
    keyPrefix = uniqueKeyPrefix(`sessions-${label}`);
    cluster = await startCluster({ redisUrl: redisServer.url, keyPrefix, overrides });
    return cluster;
  }

  /** A v1 client, closed after the test. */
  function v1Client(name: string, capabilities: Record<string, unknown> = {}): Client {
    const client = new Client({ name, version: '1.0.0' }, { capabilities });
    closers.push(() => client.close());
    return client;
  }

  /** Opens a raw GET stream (not checked): the Response, dropped after the test. */
  function getStream(app: TasksApp, headers: Record<string, string>, extra: Record<string, string> = {}) {
    return send(app.url, {
      method: 'GET',
      headers: { ...headers, ...extra, accept: 'text/event-stream' },
      signal: streams.signal,
    });
  }

  /** Opens a 2024-11-05 pair on `app` and reads its `endpoint` event. */
  async function openPair(app: TasksApp, headers: Record<string, string> = {}): Promise<RawPair> {
    const response = await fetch(new URL('/sse', app.baseUrl), {
      headers: { ...headers, accept: 'text/event-stream' },
      signal: streams.signal,
    });
    expect(response.status).toBe(200);
    const reader = new SseEventReader(response);
    const first = await reader.nextEvent();
    expect(first.event).toBe('endpoint');
    const endpoint = String(first.data);
    const sessionId = new URL(endpoint, app.baseUrl).searchParams.get('sessionId');
    expect(sessionId).toMatch(/^mcp_[0-9a-f]{32}$/);
    return { reader, endpoint, sessionId: sessionId!, messagesOn: (other) => new URL(endpoint, other.baseUrl) };
  }

  /** Every key under the test's prefix, with its PTTL (-1: no expiry). */
  async function keysWithTtl(): Promise<Array<{ key: string; pttl: number }>> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 500);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    const pipeline = redis.pipeline();
    keys.forEach((key) => pipeline.pttl(key));
    const ttls = (await pipeline.exec()) ?? [];
    return keys.map((key, index) => ({ key: key.slice(keyPrefix.length), pttl: Number(ttls[index]?.[1]) }));
  }

  /** Whether the session's record is still in Redis (read without touching the session). */
  async function sessionExists(sessionId: string): Promise<boolean> {
    return (await redis.exists(`${keyPrefix}session:${sessionId}`)) === 1;
  }

  describe('a legacy session opened on A, used on B', () => {
    it('serves tools/list and tools/call on B, and logging/setLevel on B changes what A sends', async () => {
      const [a, b] = (await start('use-on-b')).apps;
      const logsOnA = new Collector<LoggingMessageNotification['params']>();
      const clientA = v1Client('on-a');
      clientA.setNotificationHandler(LoggingMessageNotificationSchema, (message) => logsOnA.push(message.params));
      const transportA = new StreamableHTTPClientTransport(a.url);
      await clientA.connect(transportA);
      const sessionId = transportA.sessionId;
      expect(sessionId).toMatch(/^mcp_[0-9a-f]{32}$/);

      // A second transport on B, reusing the session (the client skips the handshake).
      const transportB = new StreamableHTTPClientTransport(b.url, { sessionId });
      const clientB = v1Client('on-b');
      await clientB.connect(transportB);
      transportB.setProtocolVersion(REVISION);

      const listed = await clientB.listTools();
      expect(listed.tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['plain', 'sleepy', 'ask_at_once', 'progress_task', 'touch_note']),
      );
      const called = await clientB.callTool({ name: 'sleepy', arguments: { ms: 1, label: 'on-b' } });
      expect(called.content).toEqual([{ type: 'text', text: 'slept on-b' }]);
      expect([a.probe.runs('on-b'), b.probe.runs('on-b')]).toEqual([0, 1]);

      // The default level (info) lets the tool's info logs through to A's client.
      const progressBefore = new Collector<Progress>();
      const before = await clientA.callTool(
        { name: 'progress_task', arguments: { steps: 2, ms: 1, label: 'logs-before' } },
        undefined,
        { onprogress: progressBefore.push },
      );
      expect(before.content).toEqual([{ type: 'text', text: '2 steps done' }]);
      expect(logsOnA.items.map((log) => [log.level, log.data])).toEqual([
        ['info', 'step 1'],
        ['info', 'step 2'],
      ]);

      await expect(clientB.setLoggingLevel('warning')).resolves.toEqual({});

      // Same call on A: its progress still arrives, its info logs no longer do.
      const progressAfter = new Collector<Progress>();
      const after = await clientA.callTool(
        { name: 'progress_task', arguments: { steps: 2, ms: 1, label: 'logs-after' } },
        undefined,
        { onprogress: progressAfter.push },
      );
      expect(after.content).toEqual([{ type: 'text', text: '2 steps done' }]);
      expect(progressAfter.items.map((item) => item.progress)).toEqual([1, 2]);
      expect(logsOnA.items).toHaveLength(2);
    });

    it('answers 404 on B for an unknown session and for a session of another principal', async () => {
      const [a, b] = (await start('404-on-b')).apps;
      const alice = await openLegacySession(a.url, REVISION, { headers: as('alice') });

      // Alice's own session works on B.
      const listed = await legacyPost(b.url, alice.headers, 'tools/list');
      expect(rpcResultOf(listed).tools.length).toBeGreaterThan(3);

      const bob = { ...alice.headers, ...as('bob') };
      const anonymous: Record<string, string> = { ...alice.headers };
      delete anonymous[PRINCIPAL_HEADER];
      const unknown = { ...alice.headers, 'mcp-session-id': `mcp_${'0'.repeat(32)}` };
      for (const headers of [bob, anonymous, unknown]) {
        expect(statusAndError(await legacyPost(b.url, headers, 'tools/list'))).toEqual({
          status: 404,
          error: SESSION_NOT_FOUND,
        });
        expect(statusAndError(await legacyPost(b.url, headers, 'tools/call', { name: 'plain' }))).toEqual({
          status: 404,
          error: SESSION_NOT_FOUND,
        });
        const get = await getStream(b, headers);
        expect(get.status).toBe(404);
        await get.body?.cancel();
        const deleted = await send(b.url, { method: 'DELETE', headers });
        expect(deleted.status).toBe(404);
        await deleted.body?.cancel();
      }
      expect(b.probe.runs('plain')).toBe(0);

      // Bob's DELETE did nothing: the session still serves Alice on both instances.
      expect(rpcResultOf(await legacyPost(a.url, alice.headers, 'ping'))).toEqual({});
      expect(rpcResultOf(await legacyPost(b.url, alice.headers, 'ping'))).toEqual({});
    });

    it('DELETE on B ends the session everywhere: A’s GET stream and running call end, A answers 404', async () => {
      const [a, b] = (await start('delete-on-b')).apps;
      const session = await openLegacySession(a.url, REVISION, {
        headers: as('alice'),
        capabilities: { elicitation: {} },
      });
      const stream = await openLegacyStream(a.url, session.headers, streams.signal);

      const sleeping = post(
        a.url,
        legacyRequest('tools/call', { name: 'sleepy', arguments: { ms: 30_000, label: 'deleted-sleep' } }, 'sleep'),
        session.headers,
      );
      const asking = await send(a.url, {
        body: legacyRequest('tools/call', { name: 'ask_at_once' }, 'ask'),
        headers: session.headers,
        signal: streams.signal,
      });
      const askStream = new SseReader(asking);
      const question = await askStream.next();
      expect(question).toMatchObject({ method: 'elicitation/create', params: { message: 'What is your name?' } });
      expect(String(question.id)).toMatch(CLUSTER_REQUEST_ID);
      await waitUntil(() => a.probe.runs('deleted-sleep') === 1, 'the sleep to start on A');

      const deleted = await send(b.url, { method: 'DELETE', headers: session.headers });
      expect(deleted.status).toBe(204);

      // Everything A held for the session ends: the GET stream, the call, the pending question.
      await expect(stream.rest()).resolves.toEqual([]);
      await a.probe.whenAborted('deleted-sleep');
      const slept = await sleeping;
      expect(slept.events.filter((message) => message.id === 'sleep' && message.result !== undefined)).toEqual([]);
      const askRest = await askStream.rest();
      expect(askRest.filter((message) => message.id === 'ask' && message.result !== undefined)).toEqual([]);
      expect(a.probe.runs('ask_at_once')).toBe(1);

      expect(statusAndError(await legacyPost(a.url, session.headers, 'tools/list'))).toEqual({
        status: 404,
        error: SESSION_NOT_FOUND,
      });
      const get = await getStream(a, session.headers);
      expect(get.status).toBe(404);
      await get.body?.cancel();
      // The client's late answer to the question goes nowhere, and says nothing about the session.
      const late = await post(
        a.url,
        { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Late' } } },
        session.headers,
      );
      expect(late.status).toBe(202);
      expect(late.headers.get('mcp-session-id')).toBeNull();
      const again = await send(b.url, { method: 'DELETE', headers: session.headers });
      expect(again.status).toBe(404);
      await again.body?.cancel();
    });
  });

  it('the v1 client through the proxy: questions asked on one instance get answers POSTed to either', async () => {
    const { apps, proxy } = await start('proxy-elicit');
    const instanceIds = apps.map(instanceIdOf);
    expect(new Set(instanceIds).size).toBe(2);
    /** Which instance each POST of a client answer reached (by the proxy's counters). */
    const answeredOn: number[] = [];
    const recording = recordingFetch();
    const countingFetch: typeof fetch = async (input, init) => {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as RpcMessage) : undefined;
      const isAnswer = body !== undefined && body.method === undefined && ('result' in body || 'error' in body);
      const before = [...proxy.hits];
      const response = await recording.fetch(input, init);
      if (isAnswer) {
        answeredOn.push(proxy.hits.findIndex((hits, index) => hits > before[index]));
      }
      return response;
    };

    const client = v1Client('through-proxy', { elicitation: {} });
    const questions: Array<{ id: string; message: string }> = [];
    let answerName = '';
    /** Rounds where the client makes one more request before answering, so the answer lands on the other slot. */
    let detour = false;
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      questions.push({ id: String(extra.requestId), message: String(request.params.message) });
      if (detour) {
        await client.listTools();
      }
      return { action: 'accept', content: { name: answerName } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', proxy.url), { fetch: countingFetch }));
    await recording.exchanges.waitFor(1, (item) => item.method === 'GET' && item.status === 200);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['ask_at_once', 'ask_name', 'sleepy']));
    for (let index = 0; index < 4; index += 1) {
      const result = await client.callTool({ name: 'sleepy', arguments: { ms: 1, label: `call-${index}` } });
      expect(result.content).toEqual([{ type: 'text', text: `slept call-${index}` }]);
      expect(apps.map((app) => app.probe.runs(`call-${index}`)).reduce((sum, runs) => sum + runs)).toBe(1);
    }

    const rounds: Array<{ ranOn: number; askedBy: number; answeredOn: number }> = [];
    for (let round = 0; round < 4; round += 1) {
      answerName = `Ada-${round}`;
      detour = round % 2 === 1;
      const label = `ask-${round}`;
      const before = apps.map((app) => app.probe.runs('ask_at_once') + app.probe.runs(label));
      const result =
        round < 2
          ? await client.callTool({ name: 'ask_at_once', arguments: {} })
          : await client.callTool({ name: 'ask_name', arguments: { ms: 5, label } });
      expect(textOf(result)).toBe(round < 2 ? `Hello, Ada-${round}!` : `Hello, Ada-${round}! (task none)`);
      const ranOn = apps.findIndex(
        (app, index) => app.probe.runs('ask_at_once') + app.probe.runs(label) > before[index],
      );
      const question = questions[round];
      expect(question?.message).toBe('What is your name?');
      const owner = CLUSTER_REQUEST_ID.exec(question.id)?.[1];
      rounds.push({ ranOn, askedBy: instanceIds.indexOf(owner ?? ''), answeredOn: answeredOn[round] });
    }

    expect(questions).toHaveLength(4);
    expect(answeredOn).toHaveLength(4);
    for (const { ranOn, askedBy, answeredOn: answered } of rounds) {
      // The question is asked by the instance running the call, whichever got the answer.
      expect(ranOn).toBeGreaterThanOrEqual(0);
      expect(askedBy).toBe(ranOn);
      expect(answered).toBeGreaterThanOrEqual(0);
    }
    // Both orders happened: the answer on the asking instance, and on the other one.
    expect(new Set(rounds.map((round) => round.answeredOn === round.ranOn))).toEqual(new Set([true, false]));
    expect(proxy.hits.every((hits) => hits > 0)).toBe(true);
  });

  describe('a stream on A carries what B produces', () => {
    it('2024-11-05 pair held by A: messages POSTed to B are answered on A’s stream, and B’s questions too', async () => {
      const [a, b] = (await start('pair')).apps;
      const pair = await openPair(a, as('carol'));
      const onB = pair.messagesOn(b);
      const onA = pair.messagesOn(a);

      const postTo = (url: URL, body: unknown, principal = 'carol') => post(url, body, as(principal));
      const init = await postTo(
        onB,
        legacyRequest(
          'initialize',
          { protocolVersion: REVISION, capabilities: { elicitation: {} }, clientInfo: { name: 'raw', version: '1' } },
          'init',
        ),
      );
      expect(init.status).toBe(202);
      await expect(pair.reader.nextMessage()).resolves.toMatchObject({
        id: 'init',
        result: { protocolVersion: REVISION },
      });
      expect((await postTo(onB, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);

      expect(
        (await postTo(onB, legacyRequest('tools/call', { name: 'sleepy', arguments: { ms: 1, label: 'pair-b' } }, 2)))
          .status,
      ).toBe(202);
      const answer = await pair.reader.nextMessage();
      expect({ id: answer.id, text: textOf(answer.result) }).toEqual({ id: 2, text: 'slept pair-b' });
      expect([a.probe.runs('pair-b'), b.probe.runs('pair-b')]).toEqual([0, 1]);

      // Another principal cannot use the pair through B.
      const stranger = await postTo(onB, legacyRequest('tools/list', undefined, 3), 'mallory');
      expect(statusAndError(stranger)).toEqual({ status: 404, error: SESSION_NOT_FOUND });

      // A call on B asks a question: it goes out on A's stream, named by B; the answer POSTed to
      // A reaches the call on B, whose result comes back on A's stream.
      expect((await postTo(onB, legacyRequest('tools/call', { name: 'ask_at_once' }, 'ask'))).status).toBe(202);
      const question = await pair.reader.nextMessage();
      expect(question).toMatchObject({ method: 'elicitation/create', params: { message: 'What is your name?' } });
      expect(CLUSTER_REQUEST_ID.exec(String(question.id))?.[1]).toBe(instanceIdOf(b));
      const answered = await postTo(onA, {
        jsonrpc: '2.0',
        id: question.id,
        result: { action: 'accept', content: { name: 'Grace' } },
      });
      expect(answered.status).toBe(202);
      const greeting = await pair.reader.nextMessage();
      expect({ id: greeting.id, text: textOf(greeting.result) }).toEqual({ id: 'ask', text: 'Hello, Grace!' });
      expect([a.probe.runs('ask_at_once'), b.probe.runs('ask_at_once')]).toEqual([0, 1]);

      // The pair's session is its stream's: once A's stream closes, B no longer knows it.
      await pair.reader.cancel();
      await pollFor(
        () => postTo(onB, legacyRequest('ping', undefined, 4)).then((response) => response.status),
        (status) => status === 404,
        'the closed pair’s session to end on B',
      );
    });

    it('Streamable GET held by A: B’s subscription and B’s changes reach A’s stream', async () => {
      const [a, b] = (await start('get-updates')).apps;
      const subscribed = await openLegacySession(a.url, REVISION);
      const held = await openLegacyStream(a.url, subscribed.headers, streams.signal);
      // A session that did not subscribe, its stream on B: it hears list changes, not updates.
      const other = await openLegacySession(b.url, REVISION);
      const otherStream = await openLegacyStream(b.url, other.headers, streams.signal);

      expect(
        rpcResultOf(await legacyPost(b.url, subscribed.headers, 'resources/subscribe', { uri: NOTE_URI })),
      ).toEqual({});
      expect(
        textOf(rpcResultOf(await legacyPost(b.url, subscribed.headers, 'tools/call', { name: 'touch_note' }))),
      ).toBe('touched 1');
      await expect(held.next()).resolves.toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: NOTE_URI },
      });

      expect(
        textOf(
          rpcResultOf(
            await legacyPost(b.url, other.headers, 'tools/call', { name: 'touch_note', arguments: { lists: true } }),
          ),
        ),
      ).toBe('touched 2');
      const received = [await held.next(), await held.next()].map((message) => message.method).sort();
      expect(received).toEqual(['notifications/resources/updated', 'notifications/tools/list_changed']);
      await expect(otherStream.next()).resolves.toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
      });

      // After unsubscribing on A, B's change no longer reaches A's stream, only the list change.
      expect(
        rpcResultOf(await legacyPost(a.url, subscribed.headers, 'resources/unsubscribe', { uri: NOTE_URI })),
      ).toEqual({});
      await legacyPost(b.url, other.headers, 'tools/call', { name: 'touch_note', arguments: { lists: true } });
      await expect(held.next()).resolves.toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      await expect(otherStream.next()).resolves.toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
      });
      // Reaching here on A's stream with the list change last proves no update was queued before it.
    });

    it('a call’s stream dropped on A and resumed on B (Last-Event-ID) goes on to the answer, nothing lost', async () => {
      const [a, b] = (await start('resume-call')).apps;
      const session = await openLegacySession(a.url, REVISION);
      const dropped = new AbortController();
      const response = await send(a.url, {
        body: legacyRequest(
          'tools/call',
          { name: 'progress_task', arguments: { steps: 4, ms: 150, label: 'resumed' }, _meta: { progressToken: 'p' } },
          'call',
        ),
        headers: session.headers,
        signal: dropped.signal,
      });
      const onA = new SseEventReader(response);
      const firstProgress = await nextWithMessage(onA);
      expect(firstProgress.message).toMatchObject({ method: 'notifications/progress', params: { progress: 1 } });
      const [streamId, seq] = String(firstProgress.id).split(':');
      dropped.abort();
      await onA.cancel();

      const resumed = await getStream(b, session.headers, { 'last-event-id': String(firstProgress.id) });
      expect(resumed.status).toBe(200);
      const onB = new SseEventReader(resumed);
      const rest: SseEvent[] = [];
      while (rest.at(-1)?.message?.id !== 'call') {
        rest.push(await nextWithMessage(onB));
      }
      // The same stream, every event after the one the client saw, in order, then the answer.
      expect(rest.map((event) => event.id)).toEqual(rest.map((_, index) => `${streamId}:${Number(seq) + 1 + index}`));
      const progress = rest.filter((event) => event.message?.method === 'notifications/progress');
      expect(progress.map((event) => event.message?.params?.progress)).toEqual([2, 3, 4]);
      expect(textOf(rest.at(-1)?.message?.result)).toBe('4 steps done');
      // Dropping the connection of a legacy call does not abort it.
      expect(a.probe.aborted).toEqual([]);
    });

    it('a batch on B (2025-03-26) asks the client on A’s GET stream; the answer POSTed to A reaches the call on B', async () => {
      const [a, b] = (await start('batch-question')).apps;
      const session = await openLegacySession(a.url, '2025-03-26', { capabilities: { sampling: {} } });
      const held = await openLegacyStream(a.url, session.headers, streams.signal);
      const batch = post(
        b.url,
        [
          legacyRequest('tools/call', { name: 'sample_in_task', arguments: { ms: 1, label: 'batch-sample' } }, 'call'),
          legacyRequest('ping', undefined, 'ping'),
        ],
        session.headers,
      );

      const question = await held.next();
      expect(question).toMatchObject({ method: 'sampling/createMessage', params: { maxTokens: 10 } });
      expect(CLUSTER_REQUEST_ID.exec(String(question.id))?.[1]).toBe(instanceIdOf(b));
      const answered = await post(
        a.url,
        {
          jsonrpc: '2.0',
          id: question.id,
          result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'hi' } },
        },
        session.headers,
      );
      expect(answered.status).toBe(202);

      const answers = await batch;
      expect(answers.status).toBe(200);
      expect(answers.json).toEqual([
        { jsonrpc: '2.0', id: 'call', result: { content: [{ type: 'text', text: 'model said: hi' }] } },
        { jsonrpc: '2.0', id: 'ping', result: {} },
      ]);
    });

    it('a second GET for the session gets 409 on either instance while A holds it; B gets it once A lets go', async () => {
      const [a, b] = (await start('get-claim')).apps;
      const session = await openLegacySession(a.url, REVISION);
      const held = new AbortController();
      const first = await send(a.url, {
        method: 'GET',
        headers: { ...session.headers, accept: 'text/event-stream' },
        signal: held.signal,
      });
      expect(first.status).toBe(200);
      const firstReader = new SseReader(first);
      const claim = await redis.get(`${keyPrefix}stream:${session.sessionId}`);
      // The holder, the kind of stream, and the stream's id.
      expect(claim).toMatch(new RegExp(`^${instanceIdOf(a)} get [0-9a-f]{16}$`));

      for (const app of [b, a]) {
        const second = await getStream(app, session.headers);
        expect(second.status).toBe(409);
        expect(((await second.json()) as RpcMessage).error).toMatchObject({ code: -32600 });
      }

      held.abort();
      await firstReader.cancel();
      const onB = await pollFor(
        async () => {
          const response = await getStream(b, session.headers);
          if (response.status !== 200) {
            await response.body?.cancel();
          }
          return response;
        },
        (response) => response.status === 200,
        'B to get the stream once A released it',
      );
      expect(onB.headers.get('mcp-session-id')).toBe(session.sessionId);
      expect(await redis.get(`${keyPrefix}stream:${session.sessionId}`)).toMatch(
        new RegExp(`^${instanceIdOf(b)} get [0-9a-f]{16}$`),
      );
      const onA = await getStream(a, session.headers);
      expect(onA.status).toBe(409);
      await onA.body?.cancel();

      // And B's stream is the live one: a change made on A reaches it.
      await legacyPost(a.url, session.headers, 'tools/call', { name: 'touch_note', arguments: { lists: true } });
      await expect(new SseReader(onB).next()).resolves.toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
      });
    });
  });

  it('notifications/cancelled POSTed to B aborts a legacy call running on A', async () => {
    const [a, b] = (await start('cancel')).apps;
    const session = await openLegacySession(a.url, REVISION, { headers: as('dave') });
    const label = 'cancel-from-b';
    const call = post(
      a.url,
      legacyRequest('tools/call', { name: 'sleepy', arguments: { ms: 30_000, label } }, 'long-call'),
      session.headers,
    );
    await waitUntil(() => a.probe.runs(label) === 1, 'the call to start on A');
    const cancel = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'long-call', reason: 'no' },
    };

    // Someone else's cancellation never reaches the call.
    const foreign = await post(b.url, cancel, { ...session.headers, ...as('eve') });
    expect(statusAndError(foreign)).toEqual({ status: 404, error: SESSION_NOT_FOUND });

    expect((await post(b.url, cancel, session.headers)).status).toBe(202);
    await a.probe.whenAborted(label);
    const answered = await call;
    expect(answered.events.filter((message) => message.id === 'long-call')).toEqual([]);
    expect(answered.json).toBeUndefined();
    expect(a.probe.aborted).toEqual([label]);
    expect(b.probe.aborted).toEqual([]);

    // The session goes on.
    const next = await legacyPost(b.url, session.headers, 'tools/call', { name: 'sleepy', arguments: { ms: 1 } });
    expect(textOf(rpcResultOf(next))).toBe('slept sleepy');
  });

  it('keys: live sessions’ keys expire within a bound; after every session ended, no key is left without expiry', async () => {
    const idleTimeoutMs = 20_000;
    /** A session's keys must not outlive an idle session by much more than one more idle period. */
    const bound = 2 * idleTimeoutMs + 60_000;
    const [a, b] = (await start('keys', { sessions: { idleTimeoutMs } })).apps;

    // Session 1: opened on A, subscribed on B, its GET stream on A, notified from B.
    const one = await openLegacySession(a.url, REVISION, { headers: as('frank') });
    const heldOne = new AbortController();
    const streamOne = await send(a.url, {
      method: 'GET',
      headers: { ...one.headers, accept: 'text/event-stream' },
      signal: heldOne.signal,
    });
    expect(streamOne.status).toBe(200);
    const eventsOne = new SseEventReader(streamOne);
    expect(rpcResultOf(await legacyPost(b.url, one.headers, 'resources/subscribe', { uri: NOTE_URI }))).toEqual({});
    await legacyPost(b.url, one.headers, 'tools/call', { name: 'touch_note' });
    const firstUpdate = await nextWithMessage(eventsOne);
    expect(firstUpdate.message?.method).toBe('notifications/resources/updated');
    expect(firstUpdate.id).toBeDefined();
    await legacyPost(b.url, one.headers, 'tools/call', { name: 'touch_note', arguments: { lists: true } });
    const afterFirst = [await nextWithMessage(eventsOne), await nextWithMessage(eventsOne)];

    // A call with progress: its answer is an SSE stream, kept in the replay buffer too.
    const progress = await post(
      a.url,
      legacyRequest('tools/call', {
        name: 'progress_task',
        arguments: { steps: 2, ms: 1 },
        _meta: { progressToken: 'p' },
      }),
      one.headers,
    );
    expect(progress.events.at(-1)?.result?.content).toEqual([{ type: 'text', text: '2 steps done' }]);

    // The GET connection drops; resuming it on B replays what followed the first update.
    heldOne.abort();
    await eventsOne.cancel();
    const resumed = await pollFor(
      async () => {
        const response = await getStream(b, one.headers, { 'last-event-id': firstUpdate.id! });
        if (response.status !== 200) {
          await response.body?.cancel();
        }
        return response;
      },
      (response) => response.status === 200,
      'a resumption on B',
    );
    const replayed = new SseReader(resumed);
    const replayedMethods = [await replayed.next(), await replayed.next()].map((message) => message.method);
    expect(replayedMethods).toEqual(afterFirst.map((event) => event.message?.method));

    // Session 2: a 2024-11-05 pair on B, used through A.
    const pair = await openPair(b, as('grace'));
    await post(
      pair.messagesOn(a),
      legacyRequest(
        'initialize',
        { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        'init',
      ),
      as('grace'),
    );
    await expect(pair.reader.nextMessage()).resolves.toMatchObject({ id: 'init' });
    await post(pair.messagesOn(a), legacyRequest('resources/subscribe', { uri: NOTE_URI }, 's'), as('grace'));
    await expect(pair.reader.nextMessage()).resolves.toMatchObject({ id: 's', result: {} });

    const live = await keysWithTtl();
    const kinds = new Set(live.map(({ key }) => key.split(':')[0]));
    expect([...kinds].sort()).toEqual([
      'instances',
      'replay',
      'replay-bytes',
      'replay-clock',
      'replay-order',
      'replay-total',
      'session',
      'sessions',
      'stream',
      'streams-of',
      'subscribers',
    ]);
    // Indexes over every session, emptied as sessions end: the live sessions read by every
    // sweeper, and the replay buffers' shared byte count (gone with the last buffer).
    const indexes = new Set(['sessions', 'replay-bytes', 'replay-clock', 'replay-order', 'replay-total']);
    for (const { key, pttl } of live) {
      if (indexes.has(key)) {
        continue;
      }
      expect({ key, expires: pttl > 0, withinBound: pttl <= bound }).toEqual({ key, expires: true, withinBound: true });
    }

    // Every session ends: session 1 by DELETE on A, session 2 as its pair's stream closes.
    streams.abort();
    expect((await send(a.url, { method: 'DELETE', headers: one.headers })).status).toBe(204);
    await pair.reader.cancel();
    await pollFor(
      () => redis.zcard(`${keyPrefix}sessions`),
      (count) => count === 0,
      'every session to end',
    );
    await pollFor(
      () => Promise.all([one.sessionId, pair.sessionId].map(sessionExists)),
      (exists) => exists.every((exist) => !exist),
      'the session records to go',
    );
    const left = await keysWithTtl();
    expect(left.filter(({ pttl }) => pttl <= 0)).toEqual([]);
    expect(left.every(({ pttl }) => pttl <= bound)).toBe(true);
  });

  it('idle expiry across instances: an unused session ends everywhere, one with a GET stream on A stays', async () => {
    const idleTimeoutMs = 1_000;
    const [a, b] = (
      await start('idle', {
        sessions: { idleTimeoutMs, sweepIntervalMs: 200 },
        http: { keepAliveMs: 1_000 },
      })
    ).apps;
    const idle = await openLegacySession(a.url, REVISION);
    const streamed = await openLegacySession(a.url, REVISION);
    const held = new AbortController();
    const response = await send(a.url, {
      method: 'GET',
      headers: { ...streamed.headers, accept: 'text/event-stream' },
      signal: held.signal,
    });
    expect(response.status).toBe(200);
    const stream = new SseEventReader(response, { comments: true });

    await pollFor(
      () => sessionExists(idle.sessionId),
      (exists) => !exists,
      'the unused session to expire',
      8_000,
    );
    for (const app of [a, b]) {
      expect(statusAndError(await legacyPost(app.url, idle.headers, 'ping'))).toEqual({
        status: 404,
        error: SESSION_NOT_FOUND,
      });
    }
    // One more full idle period of sweeps on both instances, measured by another unused session.
    const measure = await openLegacySession(b.url, REVISION);
    await pollFor(
      () => sessionExists(measure.sessionId),
      (exists) => !exists,
      'a second unused session to expire',
      8_000,
    );

    expect(await sessionExists(streamed.sessionId)).toBe(true);
    // B's sweep, seeing the session idle, leaves it alone for A's stream.
    expect(await b.app.get(McpSessionService).sweep(Date.now() + 2 * idleTimeoutMs)).toBe(0);
    expect(await sessionExists(streamed.sessionId)).toBe(true);
    // The stream stayed open all along: keep-alive comments still come.
    await expect(nextComment(stream)).resolves.toEqual(expect.any(String));
    expect(rpcResultOf(await legacyPost(b.url, streamed.headers, 'ping'))).toEqual({});

    // Once the stream closes, nothing keeps the session: it expires too.
    held.abort();
    await stream.cancel();
    await pollFor(
      () => sessionExists(streamed.sessionId),
      (exists) => !exists,
      'the session to expire after its stream closed',
      10_000,
    );
    expect(statusAndError(await legacyPost(b.url, streamed.headers, 'ping'))).toEqual({
      status: 404,
      error: SESSION_NOT_FOUND,
    });
  });
});
