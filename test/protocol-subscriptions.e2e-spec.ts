/**
 * `subscriptions/listen` (2026-07-28) on the Streamable HTTP endpoint: raw `fetch` over SSE for
 * the wire (acknowledgement first, subscription ids, filters, keep-alive, cancellation by
 * closing the stream, graceful close at shutdown), then the official v2 client's `listen()`.
 * Whether a subscription is still registered is read from the engine's hub, not guessed from
 * timing.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpNotifier, McpRegistry } from 'nest-mcp';
import { McpEngine } from '../lib/protocol/engine';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { ProtocolFixtureModule } from './fixtures/protocol-fixture.module';
import {
  Collector,
  legacyRequest,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  type RpcMessage,
  send,
  SseReader,
  withTimeout,
} from './fixtures/raw-rpc';
import { waitUntil as waitUntilHolds } from './support/waiting';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
/** Short, so that a test sees the keep-alive and outlives the call deadline within a second or two. */
const KEEP_ALIVE_MS = 1_000;
const CALL_TIMEOUT_MS = 300;

/** Resolves once `condition` holds; rejects after 3 s. */
const waitUntil = (condition: () => boolean, what: string): Promise<void> =>
  waitUntilHolds(condition, what, 3_000, { intervalMs: 5 });

/** The `_meta` every message of subscription `id` carries. */
const tagged = (id: string | number): Record<string, unknown> => ({ [SUBSCRIPTION_ID]: id });

function startFixture(platform: HttpPlatform): Promise<HttpApp> {
  return startHttpApp(
    ProtocolFixtureModule.forRoot({ callTimeoutMs: CALL_TIMEOUT_MS, http: { keepAliveMs: KEEP_ALIVE_MS } }),
    { platform },
  );
}

/** POSTs a `subscriptions/listen` request and returns the raw response. */
function listen(
  server: HttpApp,
  notifications: Record<string, unknown>,
  id: string | number,
  signal?: AbortSignal,
): Promise<Response> {
  return send(server.url, {
    body: modernRequest('subscriptions/listen', { notifications }, id),
    headers: modernHeaders('subscriptions/listen'),
    signal,
  });
}

/** Opens a listen stream and reads its acknowledgement. */
async function openListen(
  server: HttpApp,
  notifications: Record<string, unknown>,
  id: string | number,
  signal?: AbortSignal,
): Promise<{ reader: SseReader; ack: RpcMessage }> {
  const response = await listen(server, notifications, id, signal);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const reader = new SseReader(response);
  return { reader, ack: await reader.next() };
}

describe.each(PLATFORMS)('subscriptions/listen over Streamable HTTP (%s)', (platform) => {
  let server: HttpApp;
  let notifier: McpNotifier;
  let registry: McpRegistry;
  let engine: McpEngine;
  /** Aborted after each test: ends whatever stream a test left open. */
  let cleanup: AbortController;

  beforeAll(async () => {
    server = await startFixture(platform);
    notifier = server.app.get(McpNotifier);
    registry = server.app.get(McpRegistry);
    engine = server.app.get(McpEngine);
  });

  beforeEach(() => {
    cleanup = new AbortController();
  });

  afterEach(async () => {
    cleanup.abort();
    await waitUntil(() => engine.subscriptions.size === 0, 'every subscription of the test to end');
  });

  afterAll(async () => {
    await server?.close();
  });

  it('answers with a held SSE stream whose first message is the acknowledgement', async () => {
    const { ack } = await openListen(
      server,
      { toolsListChanged: true, resourceSubscriptions: ['fixture://counter', 42], somethingNew: true },
      'ack-1',
      cleanup.signal,
    );
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        _meta: tagged('ack-1'),
        notifications: { toolsListChanged: true, resourceSubscriptions: ['fixture://counter'] },
      },
    });
    expect(engine.subscriptions.size).toBe(1);
  });

  it('tags every notification with the listen request id', async () => {
    const id = Date.now();
    const { reader } = await openListen(server, { toolsListChanged: true }, id, cleanup.signal);
    await notifier.toolsChanged();
    await expect(reader.next()).resolves.toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: tagged(id) },
    });
  });

  it('honours the filter: a prompts-only stream gets no tools/list_changed', async () => {
    const { reader } = await openListen(server, { promptsListChanged: true }, 'prompts-only', cleanup.signal);
    // The tools change is published first: had it leaked, it would be the next message.
    await notifier.toolsChanged();
    await notifier.resourcesChanged();
    await notifier.resourceUpdated('fixture://counter');
    await notifier.promptsChanged();
    await expect(reader.next()).resolves.toEqual({
      jsonrpc: '2.0',
      method: 'notifications/prompts/list_changed',
      params: { _meta: tagged('prompts-only') },
    });
  });

  it('delivers list changes the registry makes at runtime', async () => {
    const { reader } = await openListen(server, { promptsListChanged: true }, 'registry', cleanup.signal);
    const name = `listen_prompt_${platform}`;
    registry.addPrompt({ name, handler: () => 'Say hi' });
    try {
      await expect(reader.next()).resolves.toMatchObject({
        method: 'notifications/prompts/list_changed',
        params: { _meta: tagged('registry') },
      });
    } finally {
      registry.removePrompt(name);
    }
  });

  it('sends resource updates only for the URIs the listen request named', async () => {
    const { reader } = await openListen(
      server,
      { resourceSubscriptions: ['fixture://counter'] },
      'resources',
      cleanup.signal,
    );
    await notifier.resourceUpdated('fixture://greeting');
    await notifier.resourceUpdated('fixture://counter');
    await expect(reader.next()).resolves.toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { _meta: tagged('resources'), uri: 'fixture://counter' },
    });
  });

  it('serves two listens at once, each with its own filter and id', async () => {
    const tools = await openListen(server, { toolsListChanged: true }, 1, cleanup.signal);
    const both = await openListen(server, { toolsListChanged: true, promptsListChanged: true }, 2, cleanup.signal);
    expect(engine.subscriptions.size).toBe(2);

    await notifier.promptsChanged();
    await notifier.toolsChanged();
    await expect(tools.reader.next()).resolves.toMatchObject({
      method: 'notifications/tools/list_changed',
      params: { _meta: tagged(1) },
    });
    await expect(both.reader.next()).resolves.toMatchObject({
      method: 'notifications/prompts/list_changed',
      params: { _meta: tagged(2) },
    });
    await expect(both.reader.next()).resolves.toMatchObject({
      method: 'notifications/tools/list_changed',
      params: { _meta: tagged(2) },
    });
  });

  it('the same notifier call reaches a legacy session stream and a modern listen stream', async () => {
    const session = await openLegacySession(server.url);
    const legacy = new SseReader(
      await send(server.url, {
        method: 'GET',
        headers: { ...session.headers, accept: 'text/event-stream' },
        signal: cleanup.signal,
      }),
    );
    const modern = await openListen(server, { resourceSubscriptions: ['fixture://counter'] }, 'mixed', cleanup.signal);
    const subscribed = await post(
      server.url,
      legacyRequest('resources/subscribe', { uri: 'fixture://counter' }),
      session.headers,
    );
    expect(subscribed.json.result).toEqual({});

    await notifier.resourceUpdated('fixture://counter');
    await expect(legacy.next()).resolves.toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'fixture://counter' },
    });
    await expect(modern.reader.next()).resolves.toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { _meta: tagged('mixed'), uri: 'fixture://counter' },
    });
  });

  it('outlives the call deadline and carries keep-alive comments', async () => {
    const response = await listen(server, { toolsListChanged: true }, 'held', cleanup.signal);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const sawKeepAlive = async (): Promise<void> => {
      while (!/^: keep-alive$/m.test(text)) {
        const { value, done } = await reader.read();
        if (done) {
          throw new Error(`The stream ended: ${text}`);
        }
        text += decoder.decode(value, { stream: true });
      }
    };
    await withTimeout(sawKeepAlive(), KEEP_ALIVE_MS * 3, 'a keep-alive comment');
    // Well past the call deadline (callTimeoutMs), the stream is still registered and delivers.
    expect(engine.subscriptions.size).toBe(1);
    await notifier.toolsChanged();
    const delivered = async (): Promise<void> => {
      while (!text.includes('notifications/tools/list_changed')) {
        const { value, done } = await reader.read();
        if (done) {
          throw new Error(`The stream ended: ${text}`);
        }
        text += decoder.decode(value, { stream: true });
      }
    };
    await withTimeout(delivered(), 3_000, 'the tools/list_changed notification');
    expect(text).not.toContain('"error"');
    await reader.cancel();
  });

  it('removes the subscription as soon as the client closes the stream, even mid-notification', async () => {
    const client = new AbortController();
    const { reader } = await openListen(server, { toolsListChanged: true }, 'leaving', client.signal);
    const stay = await openListen(server, { toolsListChanged: true }, 'staying', cleanup.signal);
    expect(engine.subscriptions.size).toBe(2);

    // Keep notifications flowing while the client goes away.
    const burst = setInterval(() => void notifier.toolsChanged(), 2);
    try {
      await reader.next();
      client.abort();
      await waitUntil(() => engine.subscriptions.size === 1, 'the closed stream to be unsubscribed');
    } finally {
      clearInterval(burst);
    }
    // The other listener is untouched and still hears events.
    await expect(stay.reader.next()).resolves.toMatchObject({
      method: 'notifications/tools/list_changed',
      params: { _meta: tagged('staying') },
    });
  });

  it('is refused to a legacy session (-32601)', async () => {
    const session = await openLegacySession(server.url);
    const answer = await post(
      server.url,
      legacyRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }),
      session.headers,
    );
    expect(answer.json.error).toMatchObject({ code: -32601 });
    expect(engine.subscriptions.size).toBe(0);
  });

  it('server/discover advertises the change notifications listen delivers', async () => {
    const discovered = await post(server.url, modernRequest('server/discover'), modernHeaders('server/discover'));
    expect(discovered.json.result.capabilities).toMatchObject({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
    });
  });
});

describe.each(PLATFORMS)('subscriptions/listen at shutdown (%s)', (platform) => {
  it('ends every listen gracefully: the result, then the end of the stream', async () => {
    const server = await startFixture(platform);
    try {
      const engine = server.app.get(McpEngine);
      const first = await openListen(server, { toolsListChanged: true }, 'first');
      const second = await openListen(server, { resourceSubscriptions: ['fixture://counter'] }, 7);
      expect(engine.subscriptions.size).toBe(2);

      const rests = [first.reader.rest(), second.reader.rest()];
      await server.close();
      const [firstRest, secondRest] = await Promise.all(rests);

      for (const [rest, id] of [
        [firstRest, 'first'],
        [secondRest, 7],
      ] as const) {
        expect(rest).toEqual([
          {
            jsonrpc: '2.0',
            id,
            result: {
              resultType: 'complete',
              _meta: expect.objectContaining(tagged(id)),
            },
          },
        ]);
      }
      expect(engine.subscriptions.size).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('subscriptions/listen through the v2 client', () => {
  let server: HttpApp;
  let engine: McpEngine;
  let notifier: McpNotifier;
  let client: Client;

  beforeEach(async () => {
    server = await startFixture('express');
    engine = server.app.get(McpEngine);
    notifier = server.app.get(McpNotifier);
    client = new Client(
      { name: 'v2-listen-e2e', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    await client.connect(new StreamableHTTPClientTransport(server.url));
  });

  afterEach(async () => {
    await client?.close();
    await server?.close();
  });

  it('listen() resolves with the honoured filter; notifications reach the client handlers', async () => {
    const tools = new Collector<unknown>();
    const updates = new Collector<{ uri: string }>();
    client.setNotificationHandler('notifications/tools/list_changed', (notification) => tools.push(notification));
    client.setNotificationHandler('notifications/resources/updated', (notification) =>
      updates.push(notification.params),
    );
    const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['fixture://counter'] });
    expect(subscription.honoredFilter).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ['fixture://counter'],
    });
    expect(engine.subscriptions.size).toBe(1);

    await notifier.promptsChanged();
    await notifier.resourceUpdated('fixture://greeting');
    await notifier.toolsChanged();
    await notifier.resourceUpdated('fixture://counter');
    await tools.waitFor(1);
    const [update] = await updates.waitFor(1);
    expect(update).toMatchObject({ uri: 'fixture://counter' });

    await subscription.close();
    await expect(subscription.closed).resolves.toBe('local');
    await waitUntil(() => engine.subscriptions.size === 0, 'the closed subscription to be removed');
  });

  it('two listen() calls are independent subscriptions', async () => {
    const first = await client.listen({ toolsListChanged: true });
    const second = await client.listen({ promptsListChanged: true });
    expect(engine.subscriptions.size).toBe(2);
    await first.close();
    await waitUntil(() => engine.subscriptions.size === 1, 'the first subscription to be removed');
    const prompts = new Collector<unknown>();
    client.setNotificationHandler('notifications/prompts/list_changed', (notification) => prompts.push(notification));
    await notifier.promptsChanged();
    await prompts.waitFor(1);
    await second.close();
  });

  it('a server shutdown ends the subscription: the client sees it closed by the server', async () => {
    const subscription = await client.listen({ toolsListChanged: true });
    await server.close();
    // The listen request is answered, with no notifications/cancelled before it: the v2 client
    // reads that as the server's graceful end, not as a dropped connection.
    await expect(withTimeout(subscription.closed, 3_000, 'the subscription to close')).resolves.toBe('graceful');
    expect(engine.subscriptions.size).toBe(0);
  });
});
