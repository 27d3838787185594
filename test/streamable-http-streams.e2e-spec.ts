/**
 * Streams and cancellation on the Streamable HTTP endpoint, with plain `fetch`: request-scoped
 * SSE in both eras, the legacy GET stream and its notifications, and every way a running call
 * ends early (closing a modern stream, legacy notifications/cancelled, DELETE of the session).
 * What the tool saw is read from the fixture's probe, so "aborted" means `ctx.signal` fired.
 */
import { McpNotifier, McpRegistry } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { ProtocolFixtureModule, ProtocolProbe } from './fixtures/protocol-fixture.module';
import {
  exchange,
  legacyRequest,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  send,
  SseReader,
} from './fixtures/raw-rpc';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

/** Opens the legacy GET stream of a session. */
function openGetStream(server: HttpApp, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
  return send(server.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' }, signal });
}

describe.each(PLATFORMS)('Streamable HTTP streams (%s)', (platform) => {
  let server: HttpApp;
  let probe: ProtocolProbe;
  let registry: McpRegistry;
  let notifier: McpNotifier;
  /** Aborted after each test: ends whatever stream a test left open. */
  let cleanup: AbortController;

  beforeAll(async () => {
    server = await startHttpApp(ProtocolFixtureModule.forRoot(), { platform });
    probe = server.app.get(ProtocolProbe);
    registry = server.app.get(McpRegistry);
    notifier = server.app.get(McpNotifier);
  });

  beforeEach(() => {
    cleanup = new AbortController();
  });

  afterEach(() => {
    cleanup.abort();
  });

  afterAll(async () => {
    await server?.close();
  });

  describe('modern request streams', () => {
    it('answers a tools/call carrying a progressToken as SSE: progress events first, then the result', async () => {
      const body = modernRequest('tools/call', {
        name: 'count_up',
        arguments: { steps: 3 },
        _meta: { progressToken: 'tok-1' },
      });
      const response = await exchange(server.url, { body, headers: modernHeaders('tools/call', 'count_up') });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      expect(response.headers.get('x-accel-buffering')).toBe('no');
      expect(response.headers.get('cache-control')).toContain('no-cache');
      expect(response.events).toEqual([
        ...[1, 2, 3].map((step) => ({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 'tok-1', progress: step, total: 3, message: `step ${step}` },
        })),
        {
          jsonrpc: '2.0',
          id: 1,
          result: expect.objectContaining({
            content: [{ type: 'text', text: 'counted to 3' }],
            resultType: 'complete',
          }),
        },
      ]);
      // Modern streams are not resumable: no event ids.
      expect(response.text).not.toMatch(/^id:/m);
    });

    it('answers the same call without a progressToken as plain JSON', async () => {
      const body = modernRequest('tools/call', { name: 'count_up', arguments: { steps: 3 } });
      const response = await exchange(server.url, { body, headers: modernHeaders('tools/call', 'count_up') });
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(response.json.result.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
    });

    it('aborts the tool (ctx.signal) when the client closes the SSE response mid-call', async () => {
      const label = `modern-sse-${platform}`;
      const call = new AbortController();
      const response = await send(server.url, {
        body: modernRequest('tools/call', {
          name: 'block_until_aborted',
          arguments: { label, progress: true },
          _meta: { progressToken: 'tok-abort' },
        }),
        headers: modernHeaders('tools/call', 'block_until_aborted'),
        signal: call.signal,
      });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const reader = new SseReader(response);
      await expect(reader.next()).resolves.toMatchObject({
        method: 'notifications/progress',
        params: { progressToken: 'tok-abort', progress: 1 },
      });
      await probe.waitFor('started', label);
      call.abort();
      await expect(probe.waitFor('aborted', label)).resolves.toMatchObject({ reason: 'Client disconnected' });
      expect(probe.events.filter((event) => event.label === label).map((event) => event.type)).toEqual([
        'started',
        'aborted',
      ]);
    });

    it('aborts the tool when the client drops a modern request before any byte of the answer', async () => {
      const label = `modern-json-${platform}`;
      const call = new AbortController();
      const pending = send(server.url, {
        body: modernRequest('tools/call', { name: 'block_until_aborted', arguments: { label } }),
        headers: modernHeaders('tools/call', 'block_until_aborted'),
        signal: call.signal,
      });
      pending.catch(() => undefined);
      await probe.waitFor('started', label);
      call.abort();
      await expect(pending).rejects.toThrow();
      await expect(probe.waitFor('aborted', label)).resolves.toMatchObject({ reason: 'Client disconnected' });
    });
  });

  describe('legacy GET stream', () => {
    it('delivers notifications/tools/list_changed after McpRegistry.addTool at runtime', async () => {
      const session = await openLegacySession(server.url);
      const response = await openGetStream(server, session.headers, cleanup.signal);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      expect(response.headers.get('mcp-session-id')).toBe(session.sessionId);
      const stream = new SseReader(response);

      registry.addTool({ name: `late_tool_${platform}`, description: 'Added at runtime', handler: () => 'late' });
      try {
        await expect(stream.next()).resolves.toEqual({
          jsonrpc: '2.0',
          method: 'notifications/tools/list_changed',
        });
        const listed = await post(server.url, legacyRequest('tools/list', {}), session.headers);
        expect(listed.json.result.tools.map((tool: { name: string }) => tool.name)).toContain(`late_tool_${platform}`);
        const called = await post(
          server.url,
          legacyRequest('tools/call', { name: `late_tool_${platform}`, arguments: {} }),
          session.headers,
        );
        expect(called.json.result.content).toEqual([{ type: 'text', text: 'late' }]);
      } finally {
        registry.removeTool(`late_tool_${platform}`);
      }
    });

    it('delivers notifications/resources/updated for subscribed URIs only', async () => {
      const session = await openLegacySession(server.url);
      const stream = new SseReader(await openGetStream(server, session.headers, cleanup.signal));
      const subscribed = await post(
        server.url,
        legacyRequest('resources/subscribe', { uri: 'fixture://counter' }),
        session.headers,
      );
      expect(subscribed.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });

      // An update of a URI the session did not subscribe to must not arrive; the later one
      // arriving first proves it was not sent.
      await notifier.resourceUpdated('fixture://greeting');
      await notifier.resourceUpdated('fixture://counter');
      await expect(stream.next()).resolves.toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'fixture://counter' },
      });

      const unsubscribed = await post(
        server.url,
        legacyRequest('resources/unsubscribe', { uri: 'fixture://counter' }, 2),
        session.headers,
      );
      expect(unsubscribed.json).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
      await notifier.resourceUpdated('fixture://counter');
      await notifier.promptsChanged();
      await expect(stream.next()).resolves.toEqual({
        jsonrpc: '2.0',
        method: 'notifications/prompts/list_changed',
      });
    });

    it('delivers resources and prompts list_changed when templates and prompts change at runtime', async () => {
      const session = await openLegacySession(server.url);
      const stream = new SseReader(await openGetStream(server, session.headers, cleanup.signal));
      const uriTemplate = `runtime-${platform}://{name}`;
      registry.addResourceTemplate({ uriTemplate, name: 'runtime', handler: (_uri, variables) => variables.name });
      await expect(stream.next()).resolves.toEqual({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
      registry.addPrompt({ name: `runtime_${platform}`, handler: () => 'Say hi' });
      await expect(stream.next()).resolves.toEqual({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
      const read = await post(
        server.url,
        legacyRequest('resources/read', { uri: `runtime-${platform}://x` }),
        session.headers,
      );
      expect(read.json.result.contents).toEqual([{ uri: `runtime-${platform}://x`, text: 'x' }]);
      registry.removeResourceTemplate(uriTemplate);
      registry.removePrompt(`runtime_${platform}`);
    });

    it('ends the GET stream when the session is deleted', async () => {
      const session = await openLegacySession(server.url);
      const stream = new SseReader(await openGetStream(server, session.headers, cleanup.signal));
      const deleted = await exchange(server.url, { method: 'DELETE', headers: session.headers });
      expect(deleted.status).toBe(204);
      await expect(stream.rest()).resolves.toEqual([]);
    });

    it('answers a second GET stream on the same session with 409', async () => {
      const session = await openLegacySession(server.url);
      const first = await openGetStream(server, session.headers, cleanup.signal);
      expect(first.status).toBe(200);
      const second = await exchange(server.url, {
        method: 'GET',
        headers: { ...session.headers, accept: 'text/event-stream' },
      });
      expect(second.status).toBe(409);
      expect(second.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it('answers GET without a session with 400, with an unknown session with 404, without SSE in Accept with 406', async () => {
      const session = await openLegacySession(server.url);
      const missing = await exchange(server.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
      expect(missing.status).toBe(400);
      const unknown = await exchange(server.url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'mcp_unknown' },
      });
      expect(unknown.status).toBe(404);
      const wrongAccept = await exchange(server.url, {
        method: 'GET',
        headers: { ...session.headers, accept: 'application/json' },
      });
      expect(wrongAccept.status).toBe(406);
    });
  });

  describe('legacy cancellation', () => {
    it('notifications/cancelled ends the running POST without a JSON-RPC response and aborts the tool', async () => {
      const label = `legacy-cancel-json-${platform}`;
      const session = await openLegacySession(server.url);
      const pending = send(server.url, {
        body: legacyRequest('tools/call', { name: 'block_until_aborted', arguments: { label } }, 'call-1'),
        headers: session.headers,
      }).then(async (response) => ({
        status: response.status,
        type: response.headers.get('content-type'),
        text: await response.text(),
      }));
      await probe.waitFor('started', label);

      const cancelled = await post(
        server.url,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'call-1', reason: 'user gave up' } },
        session.headers,
      );
      expect(cancelled.status).toBe(202);
      await expect(probe.waitFor('aborted', label)).resolves.toMatchObject({ reason: 'user gave up' });
      const answer = await pending;
      // No JSON-RPC response for the cancelled request, but the answer to a POSTed request must
      // still be SSE or JSON (Streamable HTTP); an empty SSE stream is the only way to say nothing.
      expect(answer.text).not.toContain('"id":"call-1"');
      expect(answer.type).toMatch(/^(text\/event-stream|application\/json)/);
    });

    it('notifications/cancelled ends an open request stream without a response message', async () => {
      const label = `legacy-cancel-sse-${platform}`;
      const session = await openLegacySession(server.url);
      const response = await send(server.url, {
        body: legacyRequest(
          'tools/call',
          { name: 'block_until_aborted', arguments: { label, progress: true }, _meta: { progressToken: 7 } },
          42,
        ),
        headers: session.headers,
        signal: cleanup.signal,
      });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const stream = new SseReader(response);
      await expect(stream.next()).resolves.toMatchObject({
        method: 'notifications/progress',
        params: { progressToken: 7 },
      });
      const cancelled = await post(
        server.url,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 42 } },
        session.headers,
      );
      expect(cancelled.status).toBe(202);
      await expect(probe.waitFor('aborted', label)).resolves.toBeDefined();
      await expect(stream.rest()).resolves.toEqual([]);
    });

    it('does not cancel a call of another session with the same request id', async () => {
      const label = `legacy-cancel-foreign-${platform}`;
      const owner = await openLegacySession(server.url);
      const stranger = await openLegacySession(server.url);
      const pending = send(server.url, {
        body: legacyRequest('tools/call', { name: 'block_until_aborted', arguments: { label, limitMs: 300 } }, 'same'),
        headers: owner.headers,
      }).then((response) => response.json());
      await probe.waitFor('started', label);
      const cancelled = await post(
        server.url,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'same' } },
        stranger.headers,
      );
      expect(cancelled.status).toBe(202);
      await expect(pending).resolves.toMatchObject({
        id: 'same',
        result: { content: [{ type: 'text', text: 'finished without being aborted' }] },
      });
      expect(probe.events.some((event) => event.label === label && event.type === 'aborted')).toBe(false);
    });

    it('does not treat a legacy client disconnect as cancellation', async () => {
      const label = `legacy-disconnect-${platform}`;
      const session = await openLegacySession(server.url);
      const call = new AbortController();
      const response = await send(server.url, {
        body: legacyRequest(
          'tools/call',
          {
            name: 'block_until_aborted',
            arguments: { label, progress: true, limitMs: 300 },
            _meta: { progressToken: 1 },
          },
          9,
        ),
        headers: session.headers,
        signal: call.signal,
      });
      await new SseReader(response).next();
      call.abort();
      await expect(probe.waitFor('finished', label)).resolves.toBeDefined();
      expect(probe.events.some((event) => event.label === label && event.type === 'aborted')).toBe(false);
    });

    it('DELETE of the session aborts its running calls', async () => {
      const label = `legacy-delete-${platform}`;
      const session = await openLegacySession(server.url);
      const pending = send(server.url, {
        body: legacyRequest('tools/call', { name: 'block_until_aborted', arguments: { label } }, 5),
        headers: session.headers,
      }).then(async (response) => ({ type: response.headers.get('content-type'), text: await response.text() }));
      await probe.waitFor('started', label);
      const deleted = await exchange(server.url, { method: 'DELETE', headers: session.headers });
      expect(deleted.status).toBe(204);
      await expect(probe.waitFor('aborted', label)).resolves.toBeDefined();
      const answer = await pending;
      expect(answer.text).not.toContain('"id":5');
      expect(answer.type).toMatch(/^(text\/event-stream|application\/json)/);
    });
  });

  describe('era of a GET or DELETE', () => {
    it('refuses GET with a modern MCP-Protocol-Version even with a valid session (405)', async () => {
      const session = await openLegacySession(server.url);
      const response = await exchange(server.url, {
        method: 'GET',
        headers: { ...session.headers, accept: 'text/event-stream', 'mcp-protocol-version': MODERN_REVISION },
      });
      expect(response.status).toBe(405);
    });
  });
});
