/**
 * The stdio transport in process: `McpStdioServer.listen()` on two PassThrough streams, driven
 * line by line. Framing and error answers, the worker pool (overload, duplicate ids),
 * cancellation, the legacy session (handshake, server-to-client requests, batches, change
 * notifications), `subscriptions/listen`, a congested output, and the end of the input.
 * What happened on the server side is read from the fixture's probe and the engine, never
 * guessed from timing.
 */
import { Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { PassThrough, Writable } from 'node:stream';
import { McpNotifier, McpRegistry, McpSessionService } from 'nest-mcp';
import { McpStdioServer, runMcpStdio } from 'nest-mcp/stdio';
import { McpEngine } from '../lib/protocol/engine';
import { createStdioFixture, StdioFixtureModule, StdioPeer, StdioProbe } from './fixtures/stdio-fixture.module';
import { legacyRequest, MODERN_REVISION, modernRequest, type RpcMessage } from './fixtures/raw-rpc';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** A `tools/call` of the legacy era. */
const legacyCall = (id: string | number, name: string, args: Record<string, unknown> = {}): RpcMessage =>
  legacyRequest('tools/call', { name, arguments: args }, id);

/** A `tools/call` of the modern era (no session needed). */
const modernCall = (id: string | number, name: string, args: Record<string, unknown> = {}): RpcMessage =>
  modernRequest('tools/call', { name, arguments: args }, id);

const cancelled = (requestId: string | number, reason?: string): RpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: reason === undefined ? { requestId } : { requestId, reason },
});

/** The text of the first content block of a tool answer. */
const textOf = (message: RpcMessage): string => String(message.result?.content?.[0]?.text);

/** Opens the legacy session of `peer` at `protocolVersion` (initialize + initialized). */
async function handshake(
  peer: StdioPeer,
  protocolVersion: string,
  capabilities: Record<string, unknown> = {},
): Promise<RpcMessage> {
  peer.send(
    legacyRequest('initialize', { protocolVersion, capabilities, clientInfo: { name: 'stdio-e2e', version: '1.0.0' } }),
  );
  const answer = await peer.answer(1);
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return answer;
}

/** What the engine still holds for anyone: running calls, questions to clients, listens. */
function engineHoldings(engine: McpEngine): { running: number; clientRequests: number; subscriptions: number } {
  return {
    running: [...(engine.running['byScope'] as Map<string, Map<unknown, unknown>>).values()].reduce(
      (count, calls) => count + calls.size,
      0,
    ),
    clientRequests: engine.clientRequests.size,
    subscriptions: engine.subscriptions.size,
  };
}

describe('stdio transport (in process)', () => {
  let app: TestingModule;
  let server: McpStdioServer;
  let probe: StdioProbe;
  let engine: McpEngine;
  let sessions: McpSessionService;
  const peers: StdioPeer[] = [];

  /** A connection to the fixture app (made by `beforeEach` unless a test needs other options). */
  const connect = (options: ConstructorParameters<typeof StdioPeer>[1] = {}): StdioPeer => {
    const peer = new StdioPeer(server, options);
    peers.push(peer);
    return peer;
  };

  async function start(overrides: Parameters<typeof createStdioFixture>[0] = {}): Promise<void> {
    app = await createStdioFixture(overrides);
    server = app.get(McpStdioServer);
    probe = app.get(StdioProbe);
    engine = app.get(McpEngine);
    sessions = app.get(McpSessionService);
  }

  afterEach(async () => {
    probe?.releaseAll();
    await Promise.all(peers.splice(0).map((peer) => peer.end()));
    await app?.close();
  });

  describe('framing and invalid input', () => {
    beforeEach(() => start({ stdio: { maxFrameBytes: 1024 }, http: { maxJsonDepth: 8 } }));

    it('answers garbage with a parse error, an invalid envelope with its id, and keeps serving', async () => {
      const peer = connect();
      peer.send('this is not json');
      peer.send('{"jsonrpc":"2.0","id":');
      peer.send({ jsonrpc: '2.0', id: 5 });
      peer.send({ jsonrpc: '1.0', id: 6, method: 'ping' });
      peer.send({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: [1, 2] });
      peer.send(modernCall('after', 'echo', { text: 'still here' }));
      const after = await peer.answer('after');
      expect(textOf(after)).toBe('echo: still here');
      const errors = peer.messages((message) => message.error !== undefined);
      expect(errors).toEqual([
        { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
        { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
        { jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'Invalid Request: missing method' } },
        { jsonrpc: '2.0', id: 6, error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' } },
        { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid Request: params must be an object' } },
      ]);
    });

    it('drops invalid notifications and ignores blank and \\r\\n-terminated lines without answering', async () => {
      const peer = connect();
      peer.send({ jsonrpc: '1.0', method: 'notifications/initialized' });
      peer.send({ jsonrpc: '2.0', method: 42 });
      peer.input.write('\n\r\n   \n');
      peer.input.write(`${JSON.stringify(modernCall('crlf', 'echo', { text: 'crlf' }))}\r\n`);
      expect(textOf(await peer.answer('crlf'))).toBe('echo: crlf');
      expect(peer.received.items).toHaveLength(1);
    });

    it('answers an oversize frame with -32600 id null, skips it, and serves the next line', async () => {
      const peer = connect();
      const huge = JSON.stringify(modernCall('huge', 'echo', { text: 'x'.repeat(2048) }));
      // Written in pieces: the cap is noticed before the newline comes.
      peer.input.write(huge.slice(0, 1500));
      peer.input.write(huge.slice(1500));
      peer.input.write('\n');
      peer.send(modernCall('next', 'echo', { text: 'next' }));
      expect(textOf(await peer.answer('next'))).toBe('echo: next');
      expect(peer.messages()).toEqual([
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Request exceeds the maximum frame size' },
        },
        expect.objectContaining({ id: 'next' }),
      ]);
    });

    it('refuses JSON nested deeper than http.maxJsonDepth with -32600, keeping the id', async () => {
      const peer = connect();
      let deep: unknown = 'bottom';
      for (let level = 0; level < 10; level += 1) {
        deep = { nested: deep };
      }
      peer.send(modernCall('deep', 'echo', { text: 'x', deep }));
      const answer = await peer.answer('deep');
      expect(answer.error).toEqual({
        code: -32600,
        message: expect.stringMatching(/^Request nesting exceeds \d+ levels.*http\.maxJsonDepth/),
      });
    });
  });

  describe('worker pool', () => {
    it('runs 8 requests, queues 64, and refuses the next with "Server is overloaded"', async () => {
      await start();
      const peer = connect();
      for (let index = 0; index < 8; index += 1) {
        peer.send(modernCall(`run-${index}`, 'block', { label: `run-${index}` }));
      }
      await Promise.all(Array.from({ length: 8 }, (_, index) => probe.waitFor('started', `run-${index}`)));
      for (let index = 0; index < 64; index += 1) {
        peer.send(modernCall(`wait-${index}`, 'block', { label: `wait-${index}` }));
      }
      peer.send(modernCall('one-too-many', 'block', { label: 'one-too-many' }));
      const refused = await peer.answer('one-too-many');
      expect(refused.error).toEqual({ code: -32603, message: 'Server is overloaded' });
      // Nothing queued has started: the 8 workers are all busy.
      expect(probe.labels('started')).toHaveLength(8);
      expect(peer.messages()).toHaveLength(1);

      probe.releaseAll();
      const answers = await peer.received.waitFor(73);
      expect(answers).toHaveLength(73);
      const texts = peer.messages((message) => message.result !== undefined).map(textOf);
      expect(texts).toHaveLength(72);
      expect(new Set(texts)).toEqual(
        new Set([
          ...Array.from({ length: 8 }, (_, index) => `released run-${index}`),
          ...Array.from({ length: 64 }, (_, index) => `released wait-${index}`),
        ]),
      );
      expect(probe.labels('started')).not.toContain('one-too-many');
    });

    it('honours smaller limits from the module options', async () => {
      await start({ stdio: { maxWorkers: 1, maxQueue: 1 } });
      const peer = connect();
      peer.send(modernCall('a', 'block', { label: 'a' }));
      await probe.waitFor('started', 'a');
      peer.send(modernCall('b', 'echo', { text: 'b' }));
      peer.send(modernCall('c', 'echo', { text: 'c' }));
      expect((await peer.answer('c')).error).toEqual({ code: -32603, message: 'Server is overloaded' });
      probe.release('a');
      expect(textOf(await peer.answer('b'))).toBe('echo: b');
      expect(textOf(await peer.answer('a'))).toBe('released a');
    });

    it('refuses an id already in flight with -32600; the first request goes on', async () => {
      await start();
      const peer = connect();
      peer.send(modernCall('dup', 'block', { label: 'first' }));
      await probe.waitFor('started', 'first');
      peer.send(modernCall('dup', 'echo', { text: 'second' }));
      // 1 and "1" are different ids.
      peer.send(modernCall(1, 'block', { label: 'number-one' }));
      await probe.waitFor('started', 'number-one');
      peer.send(modernCall('1', 'echo', { text: 'string one' }));
      expect(textOf(await peer.answer('1'))).toBe('echo: string one');
      const [refusal] = peer.messages((message) => message.id === 'dup');
      expect(refusal).toEqual({ jsonrpc: '2.0', id: 'dup', error: { code: -32600, message: 'Duplicate request id' } });
      probe.releaseAll();
      await peer.received.waitFor(2, (item) => !Array.isArray(item) && item.id === 'dup');
      expect(textOf(peer.messages((message) => message.id === 'dup')[1])).toBe('released first');
      expect(textOf(await peer.answer(1))).toBe('released number-one');
      // Once answered, the id may be used again.
      peer.send(modernCall('dup', 'echo', { text: 'reused' }));
      await peer.received.waitFor(3, (item) => !Array.isArray(item) && item.id === 'dup');
      expect(textOf(peer.messages((message) => message.id === 'dup')[2])).toBe('echo: reused');
    });
  });

  describe('notifications/cancelled', () => {
    it('removes a queued request from the queue: it never runs and is never answered', async () => {
      await start({ stdio: { maxWorkers: 1 } });
      const peer = connect();
      peer.send(modernCall('running', 'block', { label: 'running' }));
      await probe.waitFor('started', 'running');
      peer.send(modernCall('queued', 'block', { label: 'queued' }));
      peer.send(cancelled('queued', 'changed my mind'));
      probe.release('running');
      expect(textOf(await peer.answer('running'))).toBe('released running');
      // With one worker, "queued" would have run (and been answered) before this one.
      peer.send(modernCall('marker', 'echo', { text: 'marker' }));
      await peer.answer('marker');
      expect(probe.labels('started')).toEqual(['running']);
      expect(peer.messages((message) => message.id === 'queued')).toEqual([]);
    });

    it("aborts a running request's ctx.signal through the engine, and writes no answer", async () => {
      await start();
      const peer = connect();
      peer.send(modernCall('modern-running', 'block', { label: 'modern' }));
      await probe.waitFor('started', 'modern');
      peer.send(cancelled('modern-running', 'user pressed stop'));
      expect((await probe.waitFor('aborted', 'modern')).reason).toBe('user pressed stop');

      await handshake(peer, '2025-06-18');
      peer.send(legacyCall('legacy-running', 'block', { label: 'legacy' }));
      await probe.waitFor('started', 'legacy');
      peer.send(cancelled('legacy-running'));
      await probe.waitFor('aborted', 'legacy');

      peer.send(modernCall('marker', 'echo', { text: 'marker' }));
      await peer.answer('marker');
      expect(peer.messages((message) => message.id === 'modern-running' || message.id === 'legacy-running')).toEqual(
        [],
      );
      expect(engineHoldings(engine).running).toBe(0);
    });

    it('ignores a cancellation of an unknown id', async () => {
      await start();
      const peer = connect();
      peer.send(cancelled('never-sent'));
      peer.send(modernCall('marker', 'echo', { text: 'marker' }));
      expect(textOf(await peer.answer('marker'))).toBe('echo: marker');
      expect(peer.received.items).toHaveLength(1);
    });
  });

  describe('legacy session', () => {
    beforeEach(() => start());

    it('opens one session per connection at initialize; the session serves later requests', async () => {
      const peer = connect();
      const initialized = await handshake(peer, '2025-06-18', { elicitation: {} });
      expect(initialized.result).toMatchObject({
        protocolVersion: '2025-06-18',
        serverInfo: { name: 'stdio-fixture', version: '0.0.1' },
        capabilities: { tools: { listChanged: true } },
      });
      expect(await sessions.count()).toBe(1);
      peer.send(legacyRequest('tools/list', {}, 2));
      const tools = (await peer.answer(2)).result?.tools as Array<{ name: string }>;
      expect(tools.map((tool) => tool.name)).toEqual(['ask_name', 'block', 'echo', 'progress']);
      peer.send(legacyRequest('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {} }, 3));
      expect((await peer.answer(3)).error).toEqual({ code: -32600, message: 'Session already initialized' });
      expect(await sessions.count()).toBe(1);
    });

    it('sends an elicitation request on stdout and reads its answer from stdin', async () => {
      const peer = connect();
      await handshake(peer, '2025-06-18', { elicitation: {} });
      peer.send(legacyCall(2, 'ask_name', { label: 'ask' }));
      const [question] = await peer.received.waitFor(
        1,
        (item) => !Array.isArray(item) && item.method === 'elicitation/create',
      );
      const request = question as RpcMessage;
      expect(request).toMatchObject({
        jsonrpc: '2.0',
        method: 'elicitation/create',
        params: { message: 'What is your name?' },
      });
      expect(request.id).toBeDefined();
      // An answer to an id nobody asked is dropped.
      peer.send({ jsonrpc: '2.0', id: 'nobody-asked', result: { action: 'accept', content: { name: 'Eve' } } });
      peer.send({ jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { name: 'Ada' } } });
      expect(textOf(await peer.answer(2))).toBe('action=accept name=Ada');
      expect(engine.clientRequests.size).toBe(0);
    });

    it('reports progress as notifications lines before the answer', async () => {
      const peer = connect();
      await handshake(peer, '2025-06-18');
      peer.send(
        legacyRequest('tools/call', { name: 'progress', arguments: { steps: 3 }, _meta: { progressToken: 'p' } }, 2),
      );
      await peer.answer(2);
      const lines = peer.messages((message) => message.method === 'notifications/progress' || message.id === 2);
      expect(lines.map((message) => message.params?.progress ?? 'answer')).toEqual([1, 2, 3, 'answer']);
      expect(lines[0].params).toEqual({ progressToken: 'p', progress: 1, total: 3 });
    });

    it('delivers list changes on the session: McpNotifier and McpRegistry changes reach stdio', async () => {
      const peer = connect();
      await handshake(peer, '2025-06-18');
      await app.get(McpNotifier).toolsChanged();
      await peer.received.waitFor(
        1,
        (item) => !Array.isArray(item) && item.method === 'notifications/tools/list_changed',
      );
      const registry = app.get(McpRegistry);
      registry.removeTool('echo');
      await peer.received.waitFor(
        2,
        (item) => !Array.isArray(item) && item.method === 'notifications/tools/list_changed',
      );
    });

    it('runs a batch on 2025-03-26 in one answer line, and refuses one on 2025-06-18', async () => {
      const batchPeer = connect();
      await handshake(batchPeer, '2025-03-26');
      batchPeer.send([
        legacyCall(10, 'echo', { text: 'in a batch' }),
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
        legacyRequest('ping', undefined, 11),
        { jsonrpc: '2.0', id: 12 },
      ]);
      const [batch] = await batchPeer.received.waitFor(1, (item) => Array.isArray(item));
      expect(batch).toEqual([
        { jsonrpc: '2.0', id: 12, error: { code: -32600, message: 'Invalid Request: missing method' } },
        expect.objectContaining({
          id: 10,
          result: expect.objectContaining({ content: [{ type: 'text', text: 'echo: in a batch' }] }),
        }),
        { jsonrpc: '2.0', id: 11, result: {} },
      ]);
      // Notifications only: nothing to answer.
      batchPeer.send([{ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }]);
      batchPeer.send(legacyRequest('ping', undefined, 13));
      await batchPeer.answer(13);
      expect(batchPeer.received.items.filter((item) => Array.isArray(item))).toHaveLength(1);

      const refusingPeer = connect();
      await handshake(refusingPeer, '2025-06-18');
      refusingPeer.send([legacyRequest('ping', undefined, 20)]);
      const [refusal] = await refusingPeer.received.waitFor(1, (item) => !Array.isArray(item) && item.id === null);
      expect(refusal).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Batch requests are not supported' },
      });
    });

    it('refuses a batch before any legacy revision was negotiated', async () => {
      const peer = connect();
      peer.send([modernCall('m', 'echo', { text: 'x' })]);
      const [refusal] = await peer.received.waitFor(1);
      expect(refusal).toMatchObject({ id: null, error: { code: -32600, message: 'Batch requests are not supported' } });
    });
  });

  describe('subscriptions/listen', () => {
    beforeEach(() => start({ stdio: { maxSubscriptions: 2 } }));

    const listen = (id: string): RpcMessage =>
      modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, id);

    it('acknowledges, then delivers tools/list_changed after a registry change, tagged with the listen id', async () => {
      const peer = connect();
      peer.send(listen('sub'));
      const [ack] = await peer.received.waitFor(
        1,
        (item) => !Array.isArray(item) && item.method === 'notifications/subscriptions/acknowledged',
      );
      expect(ack).toMatchObject({
        params: { _meta: { [SUBSCRIPTION_ID]: 'sub' }, notifications: { toolsListChanged: true } },
      });
      app.get(McpRegistry).removeTool('echo');
      const [changed] = await peer.received.waitFor(
        1,
        (item) => !Array.isArray(item) && item.method === 'notifications/tools/list_changed',
      );
      expect(changed).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUBSCRIPTION_ID]: 'sub' } },
      });
    });

    it('holds no worker: listens do not count against maxWorkers, and are capped by maxSubscriptions', async () => {
      await app.close();
      await start({ stdio: { maxSubscriptions: 2, maxWorkers: 1, maxQueue: 0 } });
      const peer = connect();
      peer.send(listen('sub-1'));
      peer.send(listen('sub-2'));
      await peer.received.waitFor(
        2,
        (item) => !Array.isArray(item) && item.method === 'notifications/subscriptions/acknowledged',
      );
      peer.send(listen('sub-3'));
      expect((await peer.answer('sub-3')).error).toEqual({ code: -32603, message: 'Server is overloaded' });
      // The one worker is still free.
      peer.send(modernCall('call', 'echo', { text: 'free' }));
      expect(textOf(await peer.answer('call'))).toBe('echo: free');
      expect(engine.subscriptions.size).toBe(2);

      // Cancelling a listen ends it without an answer, and frees its place.
      peer.send(cancelled('sub-1'));
      peer.send(listen('sub-4'));
      await peer.received.waitFor(
        1,
        (item) => !Array.isArray(item) && item.params?._meta?.[SUBSCRIPTION_ID] === 'sub-4',
      );
      expect(engine.subscriptions.size).toBe(2);
      expect(peer.messages((message) => message.id === 'sub-1')).toEqual([]);
    });

    it('is refused in the legacy era (the method is modern)', async () => {
      const peer = connect();
      await handshake(peer, '2025-06-18');
      peer.send(legacyRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, 5));
      expect((await peer.answer(5)).error).toMatchObject({ code: -32601 });
    });
  });

  describe('congested output', () => {
    beforeEach(() => start({ stdio: { maxPendingNotifications: 4 } }));

    it('drops notifications beyond maxPendingNotifications while stdout is congested, never answers', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn');
      const held: Array<() => void> = [];
      let flowing = false;
      const chunks: string[] = [];
      // A reader that does not read: every write stays pending until the test lets it go.
      const output = new Writable({
        highWaterMark: 1,
        write(chunk: Buffer, _encoding, callback) {
          chunks.push(chunk.toString('utf8'));
          if (flowing) {
            callback();
          } else {
            held.push(callback);
          }
        },
      });
      const peer = connect({ output });
      peer.send(
        modernRequest('tools/call', { name: 'progress', arguments: { steps: 10 }, _meta: { progressToken: 't' } }, 'p'),
      );
      await new Promise<void>((resolve) => {
        const check = (): void => (held.length > 0 ? resolve() : void setImmediate(check));
        check();
      });
      // The first progress line made the output congested; let everything out now.
      await new Promise<void>((resolve) => {
        flowing = true;
        output.once('drain', () => resolve());
        held.splice(0).forEach((callback) => callback());
      });
      peer.send(modernCall('after', 'echo', { text: 'after' }));
      await new Promise<void>((resolve) => {
        const check = (): void => (chunks.join('').includes('"after"') ? resolve() : void setImmediate(check));
        check();
      });
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .forEach((line) => peer.received.push(JSON.parse(line) as RpcMessage));
      const progress = peer.messages((message) => message.method === 'notifications/progress');
      // The one that congested the output, then 4 more; steps 6 to 10 were dropped.
      expect(progress.map((message) => message.params?.progress)).toEqual([1, 2, 3, 4, 5]);
      expect(textOf(peer.messages((message) => message.id === 'p')[0])).toBe('counted 10');
      expect(textOf(peer.messages((message) => message.id === 'after')[0])).toBe('echo: after');
      const dropWarnings = warn.mock.calls.filter(([message]) => String(message).includes('dropping notifications'));
      expect(dropWarnings).toHaveLength(1);
      expect(String(dropWarnings[0][0])).toContain('beyond 4 waiting');
      warn.mockRestore();
    });
  });

  describe('end of input', () => {
    beforeEach(() => start());

    it('answers the requests still running and queued, then resolves listen()', async () => {
      await app.close();
      await start({ stdio: { maxWorkers: 1 } });
      const peer = connect();
      peer.send(modernCall('running', 'block', { label: 'running' }));
      await probe.waitFor('started', 'running');
      peer.send(modernCall('queued', 'echo', { text: 'queued' }));
      // The last line has no newline: it is a message all the same.
      peer.input.write(JSON.stringify(modernCall('last', 'echo', { text: 'last' })));
      peer.input.end();
      await new Promise((resolve) => setImmediate(resolve));
      expect(peer.isServed).toBe(false);
      probe.release('running');
      await peer.served;
      expect(peer.messages().map((message) => [message.id, textOf(message)])).toEqual([
        ['running', 'released running'],
        ['queued', 'echo: queued'],
        ['last', 'echo: last'],
      ]);
    });

    it('ends open listens, fails questions to the client at once, closes the session, and keeps nothing', async () => {
      const peer = connect();
      await handshake(peer, '2025-06-18', { elicitation: {} });
      expect(await sessions.count()).toBe(1);
      peer.send(legacyCall(2, 'ask_name', { label: 'pending-question' }));
      await peer.received.waitFor(1, (item) => !Array.isArray(item) && item.method === 'elicitation/create');
      peer.send(modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'sub'));
      await peer.received.waitFor(
        1,
        (item) => !Array.isArray(item) && item.method === 'notifications/subscriptions/acknowledged',
      );
      peer.send(legacyCall(3, 'block', { label: 'still-running' }));
      await probe.waitFor('started', 'still-running');
      expect(engineHoldings(engine)).toEqual({ running: 3, clientRequests: 1, subscriptions: 1 });

      peer.input.end();
      // The question can never be answered now: it fails at once and the tool answers.
      const asked = await peer.answer(2);
      expect(textOf(asked)).toBe('rejected code=-32603 message=The client closed its input');
      expect(peer.isServed).toBe(false);
      probe.release('still-running');
      await peer.served;
      expect(textOf(await peer.answer(3))).toBe('released still-running');
      // The listen ends as at shutdown: answered, with no notifications/cancelled (an abrupt end).
      const cancelled = peer.messages(
        (message) => message.method === 'notifications/cancelled' && message.params?.requestId === 'sub',
      );
      expect(cancelled).toEqual([]);
      expect(peer.messages((message) => message.id === 'sub')).toEqual([
        expect.objectContaining({ result: expect.objectContaining({ resultType: 'complete' }) }),
      ]);
      expect(await sessions.count()).toBe(0);
      expect(engineHoldings(engine)).toEqual({ running: 0, clientRequests: 0, subscriptions: 0 });
      // Every line written is one complete JSON-RPC message.
      expect(peer.lines.every((line) => JSON.parse(line) !== undefined)).toBe(true);
    });

    it('close() (application shutdown) stops a listen that is waiting for input', async () => {
      const peer = connect();
      peer.send(modernCall('before', 'echo', { text: 'before' }));
      await peer.answer('before');
      await server.close();
      await peer.served;
      expect(server.closed).toBe(true);
      peer.send(modernCall('ignored', 'echo', { text: 'ignored' }));
      await new Promise((resolve) => setImmediate(resolve));
      expect(peer.messages((message) => message.id === 'ignored')).toEqual([]);
    });

    it('serves modern requests under a connection scope and opens no session for them', async () => {
      const peer = connect();
      peer.send(modernRequest('server/discover', {}, 'discover'));
      const discover = await peer.answer('discover');
      expect(discover.result).toMatchObject({ supportedVersions: expect.arrayContaining([MODERN_REVISION]) });
      expect(await sessions.count()).toBe(0);
      await peer.end();
      expect(await sessions.count()).toBe(0);
    });
  });

  describe('application shutdown (drain)', () => {
    const GRACE_MS = 200;
    const SHUTTING_DOWN = { code: -32603, message: 'Service unavailable: the server is shutting down; retry shortly' };

    beforeEach(() => start({ shutdownGraceMs: GRACE_MS, stdio: { maxWorkers: 1, maxQueue: 4 } }));

    it('refuses new and queued requests, ends listens, still reads cancellations, and stops the running call at the end of the grace period', async () => {
      const peer = connect();
      peer.send(modernCall('running', 'block', { label: 'running' }));
      await probe.waitFor('started', 'running');
      peer.send(modernCall('queued', 'block', { label: 'queued' }));
      peer.send(modernCall('cancel-me', 'block', { label: 'cancel-me' }));
      peer.send(modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'sub'));
      await peer.received.waitFor(1, (item) => !Array.isArray(item) && item.method !== undefined);

      const started = Date.now();
      const closing = app.close();
      // What had not started is refused at once, like what comes now; the listen ends, answered.
      expect((await peer.answer('queued')).error).toEqual(SHUTTING_DOWN);
      expect((await peer.answer('cancel-me')).error).toEqual(SHUTTING_DOWN);
      expect((await peer.answer('sub')).result).toMatchObject({ resultType: 'complete' });
      peer.send(modernCall('late', 'echo', { text: 'late' }));
      expect((await peer.answer('late')).error).toEqual(SHUTTING_DOWN);
      // The input is still read: a cancellation of something unknown is taken quietly.
      peer.send(cancelled('no-such-request'));

      const running = await peer.answer('running');
      expect(running.error).toEqual({
        code: -32603,
        message: `Server shutting down: the call was stopped after the ${GRACE_MS} ms grace period`,
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(GRACE_MS);
      expect(probe.saw('aborted', 'running')).toBe(true);
      expect(probe.labels('started')).toEqual(['running']);
      await closing;
      await peer.served;
      expect(engineHoldings(engine)).toEqual({ running: 0, clientRequests: 0, subscriptions: 0 });
    });
  });

  it('redirects console.log to stderr while serving on process.stdout when asked, and restores it', async () => {
    await start();
    const original = console.log;
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const peer = connect({ redirectConsole: true });
      expect(console.log).not.toBe(original);
      console.log('stray %s', 'output');
      expect(stderr).toHaveBeenCalledWith('stray output\n');
      await peer.end();
      expect(console.log).toBe(original);
    } finally {
      stderr.mockRestore();
    }
  });

  describe('runMcpStdio()', () => {
    /** Counts the shutdowns of the application `runMcpStdio()` made. */
    @Injectable()
    class ShutdownWatch implements OnApplicationShutdown {
      static shutdowns = 0;
      onApplicationShutdown(): void {
        ShutdownWatch.shutdowns += 1;
      }
    }

    @Module({ imports: [StdioFixtureModule.forRoot()], providers: [ShutdownWatch] })
    class RunModule {}

    it('serves an application context on the given streams and closes it once the input ends', async () => {
      const input = new PassThrough();
      const output = new PassThrough();
      const received: RpcMessage[] = [];
      let rest = '';
      output.setEncoding('utf8');
      output.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        lines.forEach((line) => received.push(JSON.parse(line) as RpcMessage));
      });
      const running = runMcpStdio(RunModule, { input, output, logger: ['error'] });
      input.write(`${JSON.stringify(modernCall('call', 'echo', { text: 'run' }))}\n`);
      input.end();
      await running;
      expect(received.map((message) => [message.id, textOf(message)])).toEqual([['call', 'echo: run']]);
      expect(ShutdownWatch.shutdowns).toBe(1);
    });
  });
});
