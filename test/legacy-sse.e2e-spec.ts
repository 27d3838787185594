/**
 * The 2024-11-05 HTTP+SSE pair (`ssePath` + `sseMessagesPath`) on Express and Fastify, with and
 * without a global prefix + URI versioning: first through the official v1 client
 * (`SSEClientTransport`), then byte by byte with plain `fetch` and `node:http` (the endpoint
 * event, session ownership, body errors, batches, answers to the server's own requests, verbs,
 * Origin checks). The session lives as long as its stream: the tests poll
 * `McpSessionService.count()` and the probe to see it end and its running calls aborted.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  ElicitRequestSchema,
  type Progress,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpNotifier, McpSessionService } from 'nest-mcp';
import {
  GREETING_URI,
  MATRIX,
  NAME_QUESTION,
  PLATFORMS,
  PRINCIPAL_HEADER,
  ROUTINGS,
  startTransportsApp,
  STATUS_URI,
  TRANSPORTS_SERVER,
  TRANSPORTS_TOOL_NAMES,
  type TransportsApp,
} from './fixtures/transports-fixture';
import {
  Collector,
  exchange,
  legacyRequest,
  modernRequest,
  openLegacySession,
  post,
  rawHttp,
  type RawResponse,
  type RpcMessage,
  SseEventReader,
  waitUntil,
} from './fixtures/raw-rpc';

const MAX_BODY_BYTES = 16384;
const MAX_JSON_DEPTH = 16;
const SESSION_NOT_FOUND = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Session not found' } };

/** One SSE pair opened by hand: its event stream and where to POST. */
interface Pair {
  readonly reader: SseEventReader;
  /** The data of the `endpoint` event, as sent. */
  readonly endpoint: string;
  readonly messages: URL;
  readonly sessionId: string;
  /** Headers sent with the GET, and with every POST of the pair. */
  readonly headers: Record<string, string>;
}

/** Asserts an answer without a body. */
function expectEmpty(response: RawResponse, status: number): void {
  expect({ status: response.status, text: response.text }).toEqual({ status, text: '' });
}

/** The text of the first content block of a tool result. */
function textOf(message: RpcMessage): string {
  return String(message.result?.content?.[0]?.text);
}

describe.each(MATRIX)('HTTP+SSE pair ($title)', ({ platform, routing }) => {
  let app: TransportsApp;
  let sessions: McpSessionService;
  let notifier: McpNotifier;
  const opened: Pair[] = [];

  beforeAll(async () => {
    app = await startTransportsApp(
      {
        ssePath: 'sse',
        sseMessagesPath: 'messages',
        http: { keepAliveMs: 1000, maxBodyBytes: MAX_BODY_BYTES, maxJsonDepth: MAX_JSON_DEPTH },
      },
      platform,
      routing,
    );
    sessions = app.app.get(McpSessionService);
    notifier = app.app.get(McpNotifier);
  });

  afterAll(async () => {
    await app?.close();
  });

  /** Opens a pair with `fetch` and reads its `endpoint` event; the pair is dropped after the test. */
  async function openPair(headers: Record<string, string> = {}): Promise<Pair> {
    const response = await fetch(app.route('sse'), { headers: { accept: 'text/event-stream', ...headers } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = new SseEventReader(response, { comments: true });
    const first = await reader.nextEvent();
    expect(first.event).toBe('endpoint');
    const endpoint = String(first.data);
    const messages = new URL(endpoint, app.baseUrl);
    const pair = { reader, endpoint, messages, sessionId: String(messages.searchParams.get('sessionId')), headers };
    opened.push(pair);
    return pair;
  }

  /** POSTs a body to the pair's messages URL, with the pair's headers. */
  function send(pair: Pair, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
    return post(pair.messages, body, { ...pair.headers, ...headers });
  }

  /** The initialize handshake over the pair; returns the initialize result. */
  async function initialize(
    pair: Pair,
    protocolVersion: string,
    capabilities: Record<string, unknown> = {},
  ): Promise<Record<string, any>> {
    const init = await send(
      pair,
      legacyRequest(
        'initialize',
        { protocolVersion, capabilities, clientInfo: { name: 'raw-sse', version: '0.0.1' } },
        'init',
      ),
    );
    expectEmpty(init, 202);
    const answer = await pair.reader.nextMessage();
    expect(answer.id).toBe('init');
    expectEmpty(await send(pair, { jsonrpc: '2.0', method: 'notifications/initialized' }), 202);
    return answer.result!;
  }

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((pair) => pair.reader.cancel()));
  });

  describe('the official v1 client (SSEClientTransport)', () => {
    let client: Client;
    const elicitations = new Collector<Record<string, unknown>>();
    const toolChanges = new Collector<unknown>();
    const updates = new Collector<string>();

    beforeAll(async () => {
      client = new Client({ name: 'v1-sse-e2e', version: '1.0.0' }, { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        elicitations.push(request.params);
        return { action: 'accept', content: { name: 'Ada' } };
      });
      client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => {
        toolChanges.push(notification);
      });
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        updates.push(notification.params.uri);
      });
      await client.connect(new SSEClientTransport(app.route('sse')));
    });

    afterAll(async () => {
      await client?.close();
    });

    it('connects: the handshake runs over the pair and opens one session', async () => {
      expect(client.getServerVersion()).toEqual(TRANSPORTS_SERVER);
      expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
      expect(await sessions.count()).toBe(1);
    });

    it('lists and calls tools', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([...TRANSPORTS_TOOL_NAMES]);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'over sse' } });
      expect(result.content).toEqual([{ type: 'text', text: 'echo: over sse' }]);
      await expect(client.ping()).resolves.toEqual({});
    });

    it('delivers progress notifications on the stream', async () => {
      const label = `sdk-progress-${platform}-${routing.base}`;
      const progress = new Collector<Progress>();
      const call = client.callTool({ name: 'progress_then_wait', arguments: { label, steps: 3 } }, undefined, {
        onprogress: progress.push,
      });
      // Every progress message reaches the client while its request is pending; then the tool answers.
      const seen = await progress.waitFor(3);
      app.probe.release(label);
      expect((await call).content).toEqual([{ type: 'text', text: 'counted to 3' }]);
      expect(seen.map((item) => [item.progress, item.total, item.message])).toEqual([
        [1, 3, 'step 1'],
        [2, 3, 'step 2'],
        [3, 3, 'step 3'],
      ]);
    });

    it('reads a resource and gets a prompt', async () => {
      const read = await client.readResource({ uri: GREETING_URI });
      expect(read.contents).toEqual([
        { uri: GREETING_URI, mimeType: 'text/plain', text: 'Hello over every transport' },
      ]);
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Greet Ada warmly.' } }]);
    });

    it("asks the client through the stream: the client's elicitation handler answers", async () => {
      const result = await client.callTool({ name: 'ask_name', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'action=accept name=Ada' }]);
      const [question] = await elicitations.waitFor(1);
      expect(question).toMatchObject({
        message: NAME_QUESTION.message,
        requestedSchema: NAME_QUESTION.requestedSchema,
      });
    });

    it('receives notifications/tools/list_changed after McpNotifier.toolsChanged()', async () => {
      await notifier.toolsChanged();
      const [change] = await toolChanges.waitFor(1);
      expect(change).toMatchObject({ method: 'notifications/tools/list_changed' });
    });

    it('receives notifications/resources/updated for a subscribed resource', async () => {
      await client.subscribeResource({ uri: STATUS_URI });
      await notifier.resourceUpdated(STATUS_URI);
      expect(await updates.waitFor(1, (uri) => uri === STATUS_URI)).toEqual([STATUS_URI]);
    });
  });

  describe('the session lives as long as its stream', () => {
    it('ends when the client closes', async () => {
      await waitUntil(async () => (await sessions.count()) === 0, 'the earlier sessions ended');
      const client = new Client({ name: 'v1-sse-close', version: '1.0.0' });
      await client.connect(new SSEClientTransport(app.route('sse')));
      expect(await sessions.count()).toBe(1);
      await client.close();
      await waitUntil(async () => (await sessions.count()) === 0, 'McpSessionService.count() drops to 0');
    });

    it('aborts the running calls of the session when the client closes', async () => {
      const label = `sse-close-${platform}-${routing.base}`;
      const client = new Client({ name: 'v1-sse-abort', version: '1.0.0' });
      await client.connect(new SSEClientTransport(app.route('sse')));
      const call = client.callTool({ name: 'wait_for_abort', arguments: { label } }).catch((error: unknown) => error);
      await app.probe.waitFor('started', label);
      await client.close();
      const aborted = await app.probe.waitFor('aborted', label);
      expect(aborted.reason).toBe('Session ended');
      expect(await call).toBeInstanceOf(Error);
      await waitUntil(() => app.probe.running === 0, 'no handler is left running');
      await waitUntil(async () => (await sessions.count()) === 0, 'the session ended');
      expect(app.probe.trail(label)).toEqual(['started', 'aborted']);
    });

    it('ends when a raw stream is dropped: its messages URL then answers 404', async () => {
      const pair = await openPair();
      await initialize(pair, '2024-11-05');
      await pair.reader.cancel();
      await waitUntil(async () => (await send(pair, legacyRequest('ping', undefined, 1))).status === 404, 'a 404');
      const response = await send(pair, legacyRequest('ping', undefined, 2));
      expect(response.json).toEqual(SESSION_NOT_FOUND);
    });
  });

  describe('on the wire', () => {
    it('opens with an endpoint event naming the messages path under the prefix and version', async () => {
      const pair = await openPair();
      const pattern = new RegExp(`^${routing.base.replace(/\//g, '\\/')}\\/messages\\?sessionId=([^&]+)$`);
      expect(pair.endpoint).toMatch(pattern);
      expect(pair.messages.pathname).toBe(`${routing.base}/messages`);
      expect(pair.sessionId.length).toBeGreaterThan(0);
      expect(await sessions.find(pair.sessionId, { id: 'anonymous', scopes: [] })).toBeDefined();
    });

    if (platform === 'express') {
      // Express matches routes whatever their case.
      it('keeps the prefix and version in the endpoint event whatever the case of the events path', async () => {
        const response = await fetch(new URL(`${routing.base.toUpperCase()}/SSE`, app.baseUrl), {
          headers: { accept: 'text/event-stream' },
        });
        const reader = new SseEventReader(response);
        try {
          const endpoint = await reader.nextEvent();
          const messages = new URL(String(endpoint.data), app.baseUrl);
          expect(messages.pathname.toLowerCase()).toBe(`${routing.base}/messages`);
          const ping = await post(messages, legacyRequest('ping', undefined, 1));
          expect(ping.status).toBe(202);
        } finally {
          await reader.cancel();
        }
      });
    }

    it('gives every stream its own session', async () => {
      const first = await openPair();
      const second = await openPair();
      expect(first.sessionId).not.toBe(second.sessionId);
    });

    it('answers a GET whose Accept excludes text/event-stream with 406', async () => {
      const response = await exchange(app.route('sse'), { method: 'GET', headers: { accept: 'application/json' } });
      expect(response.status).toBe(406);
    });

    it('answers 202 to each POST and puts the answers on the stream', async () => {
      const pair = await openPair();
      const result = await initialize(pair, '2025-03-26');
      expect(result).toMatchObject({ protocolVersion: '2025-03-26', serverInfo: TRANSPORTS_SERVER });
      expectEmpty(await send(pair, legacyRequest('tools/call', { name: 'echo', arguments: { text: 'raw' } }, 7)), 202);
      expect(await pair.reader.nextMessage()).toEqual({
        jsonrpc: '2.0',
        id: 7,
        result: { content: [{ type: 'text', text: 'echo: raw' }] },
      });
    });

    it('serves every request in the legacy era: a modern _meta is not honoured, server/discover is -32601', async () => {
      const pair = await openPair();
      await initialize(pair, '2025-11-25');
      expectEmpty(await send(pair, legacyRequest('server/discover', {}, 'd')), 202);
      expect(await pair.reader.nextMessage()).toMatchObject({ id: 'd', error: { code: -32601 } });
      expectEmpty(await send(pair, modernRequest('tools/list', {}, 'm')), 202);
      const listed = await pair.reader.nextMessage();
      expect(listed.id).toBe('m');
      expect(listed.result?.tools).toHaveLength(TRANSPORTS_TOOL_NAMES.length);
      expect(listed.result).not.toHaveProperty('resultType');
    });

    it('sends keep-alive comments on an idle stream (http.keepAliveMs: 1000)', async () => {
      const pair = await openPair();
      const block = await pair.reader.next(5000);
      expect(block).toEqual({ comment: 'keep-alive' });
    });

    it('answers a POST without sessionId with 400', async () => {
      const messages = app.route('messages');
      const response = await post(messages, legacyRequest('ping', undefined, 1));
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      const empty = await post(new URL(`${messages.href}?sessionId=`), legacyRequest('ping', undefined, 1));
      expect(empty.status).toBe(400);
    });

    it('answers an unknown sessionId with 404', async () => {
      const response = await post(
        new URL(`${app.route('messages').href}?sessionId=no-such-session`),
        legacyRequest('ping', undefined, 1),
      );
      expect(response.status).toBe(404);
      expect(response.json).toEqual(SESSION_NOT_FOUND);
    });

    it("answers another principal's session with the same 404", async () => {
      const pair = await openPair({ [PRINCIPAL_HEADER]: 'alice' });
      const asBob = await send(pair, legacyRequest('ping', undefined, 1), { [PRINCIPAL_HEADER]: 'bob' });
      expect(asBob.status).toBe(404);
      expect(asBob.json).toEqual(SESSION_NOT_FOUND);
      const anonymous = await post(pair.messages, legacyRequest('ping', undefined, 2));
      expect({ status: anonymous.status, body: anonymous.json }).toEqual({ status: 404, body: SESSION_NOT_FOUND });
      // Its owner is served.
      await initialize(pair, '2025-06-18');
      expectEmpty(await send(pair, legacyRequest('ping', undefined, 3)), 202);
      expect(await pair.reader.nextMessage()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    });

    it('answers the id of a Streamable HTTP session (not an SSE pair) with the same 404', async () => {
      const streamable = await openLegacySession(app.route('mcp'));
      try {
        const response = await post(
          new URL(`${app.route('messages').href}?sessionId=${streamable.sessionId}`),
          legacyRequest('ping', undefined, 1),
        );
        expect({ status: response.status, body: response.json }).toEqual({ status: 404, body: SESSION_NOT_FOUND });
      } finally {
        await exchange(app.route('mcp'), { method: 'DELETE', headers: streamable.headers });
      }
    });

    it('answers body errors with 400, 413 and 415 and a JSON-RPC error, and keeps the session', async () => {
      const pair = await openPair();
      await initialize(pair, '2025-06-18');
      const malformed = await exchange(pair.messages, { body: '{"jsonrpc":"2.0","id":1,"method":' });
      expect({ status: malformed.status, body: malformed.json }).toEqual({
        status: 400,
        body: { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32700 }) },
      });
      const big = await send(
        pair,
        legacyRequest('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(MAX_BODY_BYTES) } }),
      );
      expect(big.status).toBe(413);
      expect(big.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      let deep: Record<string, unknown> = { leaf: true };
      for (let level = 0; level < MAX_JSON_DEPTH; level += 1) {
        deep = { nested: deep };
      }
      const tooDeep = await send(pair, legacyRequest('tools/call', { name: 'echo', arguments: deep }));
      expect({ status: tooDeep.status, body: tooDeep.json }).toEqual({
        status: 400,
        body: { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
      });
      const plain = await exchange(pair.messages, {
        body: JSON.stringify(legacyRequest('ping', undefined, 1)),
        headers: { 'content-type': 'text/plain' },
      });
      expect(plain.status).toBe(415);
      const invalid = await send(pair, { jsonrpc: '2.0', id: 'bad' });
      expect({ status: invalid.status, body: invalid.json }).toEqual({
        status: 400,
        body: { jsonrpc: '2.0', id: 'bad', error: expect.objectContaining({ code: -32600 }) },
      });
      // None of them reached the stream; the session still serves.
      expectEmpty(await send(pair, legacyRequest('ping', undefined, 'still')), 202);
      expect(await pair.reader.nextMessage()).toEqual({ jsonrpc: '2.0', id: 'still', result: {} });
    });

    it('answers a batch on a 2024-11-05 session with one JSON array event', async () => {
      const pair = await openPair();
      await initialize(pair, '2024-11-05');
      const response = await send(pair, [
        legacyRequest('ping', undefined, 'b1'),
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
        legacyRequest('tools/call', { name: 'echo', arguments: { text: 'batched' } }, 'b2'),
      ]);
      expectEmpty(response, 202);
      const answers = await pair.reader.nextJson();
      expect(Array.isArray(answers)).toBe(true);
      expect(answers).toHaveLength(2);
      expect(answers).toEqual(
        expect.arrayContaining([
          { jsonrpc: '2.0', id: 'b1', result: {} },
          { jsonrpc: '2.0', id: 'b2', result: { content: [{ type: 'text', text: 'echo: batched' }] } },
        ]),
      );
    });

    it('refuses a batch on a 2025-06-18 session with 400 and -32600', async () => {
      const pair = await openPair();
      await initialize(pair, '2025-06-18');
      const response = await send(pair, [
        legacyRequest('ping', undefined, 'b1'),
        legacyRequest('ping', undefined, 'b2'),
      ]);
      expect({ status: response.status, body: response.json }).toEqual({
        status: 400,
        body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Batch requests are not supported' } },
      });
      // Nothing of the batch reached the stream: the next message is the next answer.
      expectEmpty(await send(pair, legacyRequest('ping', undefined, 'after')), 202);
      expect(await pair.reader.nextMessage()).toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
    });

    it('refuses an empty batch and a batch mixing requests and responses on a 2024-11-05 session', async () => {
      const pair = await openPair();
      await initialize(pair, '2024-11-05');
      expect((await send(pair, [])).status).toBe(400);
      const mixed = await send(pair, [legacyRequest('ping', undefined, 1), { jsonrpc: '2.0', id: 9, result: {} }]);
      expect(mixed.status).toBe(400);
      expect(mixed.json).toMatchObject({ error: { code: -32600 } });
    });

    it("delivers a POSTed response to the server's own request (elicitation) and the call completes", async () => {
      const pair = await openPair();
      await initialize(pair, '2025-11-25', { elicitation: {} });
      expectEmpty(await send(pair, legacyRequest('tools/call', { name: 'ask_name', arguments: {} }, 'call')), 202);
      const question = await pair.reader.nextMessage();
      expect(question).toMatchObject({ jsonrpc: '2.0', method: 'elicitation/create', id: expect.anything() });
      expect(question.params).toMatchObject({ message: NAME_QUESTION.message });
      const answer = await send(pair, {
        jsonrpc: '2.0',
        id: question.id,
        result: { action: 'accept', content: { name: 'Raw' } },
      });
      expectEmpty(answer, 202);
      const done = await pair.reader.nextMessage();
      expect(done.id).toBe('call');
      expect(textOf(done)).toBe('action=accept name=Raw');
    });

    it('delivers a batch of responses only (2024-11-05) with 202: the waiting call completes', async () => {
      const pair = await openPair();
      await initialize(pair, '2024-11-05', { roots: {} });
      expectEmpty(await send(pair, legacyRequest('tools/call', { name: 'ask_roots', arguments: {} }, 'roots')), 202);
      const question = await pair.reader.nextMessage();
      expect(question).toMatchObject({ method: 'roots/list', id: expect.anything() });
      const answer = await send(pair, [{ jsonrpc: '2.0', id: question.id, result: { roots: [{ uri: 'file:///a' }] } }]);
      expectEmpty(answer, 202);
      const done = await pair.reader.nextMessage();
      expect({ id: done.id, text: textOf(done) }).toEqual({ id: 'roots', text: 'roots=file:///a' });
    });

    it('aborts a running call on notifications/cancelled from the client', async () => {
      const label = `sse-cancelled-${platform}-${routing.base}`;
      const pair = await openPair();
      await initialize(pair, '2025-06-18');
      expectEmpty(
        await send(pair, legacyRequest('tools/call', { name: 'wait_for_abort', arguments: { label } }, 'w')),
        202,
      );
      await app.probe.waitFor('started', label);
      const cancel = {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 'w', reason: 'changed my mind' },
      };
      expectEmpty(await send(pair, cancel), 202);
      await app.probe.waitFor('aborted', label);
      // A cancelled request gets no answer: the next message on the stream is the next answer.
      expectEmpty(await send(pair, legacyRequest('ping', undefined, 'after')), 202);
      expect(await pair.reader.nextMessage()).toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
    });

    it('fails a question waiting for the client when the stream ends', async () => {
      const label = `sse-pending-question-${platform}-${routing.base}`;
      const pair = await openPair();
      await initialize(pair, '2025-11-25', { elicitation: {} });
      expectEmpty(
        await send(pair, legacyRequest('tools/call', { name: 'try_elicit', arguments: { label } }, 'q')),
        202,
      );
      expect(await pair.reader.nextMessage()).toMatchObject({ method: 'elicitation/create' });
      await pair.reader.cancel();
      const outcome = await app.probe.waitFor('rejected', label);
      expect(outcome.reason).toBe('Session ended');
      expect(app.probe.trail(label)).toEqual(['rejected']);
    });

    it('drops the subscriptions of a session when its stream ends', async () => {
      const pair = await openPair();
      await initialize(pair, '2025-06-18');
      expectEmpty(await send(pair, legacyRequest('resources/subscribe', { uri: STATUS_URI }, 's')), 202);
      expect(await pair.reader.nextMessage()).toEqual({ jsonrpc: '2.0', id: 's', result: {} });
      expect(await sessions.subscribers(STATUS_URI)).toContain(pair.sessionId);
      await pair.reader.cancel();
      await waitUntil(
        async () => !(await sessions.subscribers(STATUS_URI)).includes(pair.sessionId),
        'the subscription is dropped',
      );
    });

    it('keeps an idle session alive while its stream is open (the idle sweep spares it)', async () => {
      const pair = await openPair();
      await initialize(pair, '2025-06-18');
      const streamable = await openLegacySession(app.route('mcp'));
      // A sweep an hour from now: every session is idle by then; only the one without a stream ends.
      const ended = await sessions.sweep(Date.now() + 3_600_000);
      expect(ended).toBe(1);
      const gone = await post(app.route('mcp'), legacyRequest('ping', undefined, 1), streamable.headers);
      expect(gone.status).toBe(404);
      expectEmpty(await send(pair, legacyRequest('ping', undefined, 'alive')), 202);
      expect(await pair.reader.nextMessage()).toEqual({ jsonrpc: '2.0', id: 'alive', result: {} });
    });

    it('accepts a notification with 202 and puts nothing on the stream', async () => {
      const pair = await openPair();
      await initialize(pair, '2025-06-18');
      expectEmpty(await send(pair, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }), 202);
      expectEmpty(await send(pair, legacyRequest('ping', undefined, 'next')), 202);
      expect(await pair.reader.nextMessage()).toEqual({ jsonrpc: '2.0', id: 'next', result: {} });
    });
  });

  describe('verbs and Origin', () => {
    it('answers a POST on the events path (a Streamable HTTP client probing) with 405 and Allow: GET, OPTIONS', async () => {
      const initialize = legacyRequest('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'probe', version: '1' },
      });
      const response = await post(app.route('sse'), initialize);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, OPTIONS');
    });

    it.each(['PUT', 'PATCH', 'DELETE'])(
      'answers %s on the events path with 405 and Allow: GET, OPTIONS',
      async (method) => {
        const response = await exchange(app.route('sse'), { method });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('GET, OPTIONS');
      },
    );

    it.each(['GET', 'PUT', 'PATCH', 'DELETE'])(
      'answers %s on the messages path with 405 and Allow: POST, OPTIONS',
      async (method) => {
        const response = await exchange(app.route('messages'), { method });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST, OPTIONS');
      },
    );

    it('answers OPTIONS on both paths with 204 and Allow', async () => {
      const events = await exchange(app.route('sse'), { method: 'OPTIONS' });
      expect({ status: events.status, allow: events.headers.get('allow') }).toEqual({
        status: 204,
        allow: 'GET, OPTIONS',
      });
      const messages = await exchange(app.route('messages'), { method: 'OPTIONS' });
      expect({ status: messages.status, allow: messages.headers.get('allow') }).toEqual({
        status: 204,
        allow: 'POST, OPTIONS',
      });
    });

    it('refuses a foreign Origin with 403 on both paths, and opens no session', async () => {
      const before = await sessions.count();
      const origin = 'http://evil.example.com';
      const events = await rawHttp(app.route('sse'), {
        method: 'GET',
        headers: { origin, accept: 'text/event-stream' },
      });
      expect(events.status).toBe(403);
      expect(JSON.parse(events.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      expect(await sessions.count()).toBe(before);
      const pair = await openPair();
      const messages = await rawHttp(pair.messages, {
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify(legacyRequest('ping', undefined, 1)),
      });
      expect(messages.status).toBe(403);
    });

    it('answers an allowed Origin with the CORS headers on the event stream', async () => {
      const origin = `http://localhost:${app.route('sse').port}`;
      const pair = await openPair({ origin });
      expect(pair.reader.response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(pair.endpoint).toContain(`${routing.base}/messages?sessionId=`);
    });

    it('refuses a foreign Host with 403', async () => {
      const response = await rawHttp(app.route('sse'), {
        method: 'GET',
        headers: { host: 'evil.example.com', accept: 'text/event-stream' },
      });
      expect(response.status).toBe(403);
    });
  });
});

describe.each(PLATFORMS)('HTTP+SSE pair with sessions.maxSessions: 1 (%s)', (platform) => {
  let app: TransportsApp;

  beforeAll(async () => {
    app = await startTransportsApp(
      { ssePath: 'sse', sseMessagesPath: 'messages', sessions: { maxSessions: 1 } },
      platform,
      ROUTINGS[0],
    );
  });

  afterAll(async () => {
    await app?.close();
  });

  it('refuses a stream beyond the cap with 503 and Retry-After, and serves again once a stream ends', async () => {
    const open = () => fetch(app.route('sse'), { headers: { accept: 'text/event-stream' } });
    const first = new SseEventReader(await open());
    expect((await first.nextEvent()).event).toBe('endpoint');
    const refused = await open();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toEqual(expect.any(String));
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32603 } });
    await first.cancel();
    const sessions = app.app.get(McpSessionService);
    await waitUntil(async () => (await sessions.count()) === 0, 'the first session ended');
    const again = new SseEventReader(await open());
    try {
      expect((await again.nextEvent()).event).toBe('endpoint');
    } finally {
      await again.cancel();
    }
  });
});
