import type { Catalog } from './calls/catalog';
import { McpEngine, type RequestChannel } from './engine';
import {
  InboundDispatcher,
  SESSIONLESS,
  inboundFacts,
  sessionRevision,
  type InboundBinding,
  type InboundKind,
  type InboundResult,
  type LegacyResolution,
  type LegacySessionPort,
} from './inbound';
import { McpErrorCode, type JSONObject, type JSONRPCRequest } from './messages/json-rpc';
import type { McpRevision } from './messages/revisions';
import type { SessionHandle, McpSessionState } from './messages/session-handle';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

const EMPTY_CATALOG: Catalog = {
  version: 1,
  listTools: () => [],
  getTool: () => undefined,
  listResources: () => [],
  getResource: () => undefined,
  listTemplates: () => [],
  getTemplate: () => undefined,
  listPrompts: () => [],
  getPrompt: () => undefined,
  hasCompletions: () => false,
};

const silent = { error: () => undefined, warn: () => undefined, debug: () => undefined };

function makeEngine(): McpEngine {
  return new McpEngine(
    {
      serverInfo: { name: 'inbound-spec', version: '1.0.0' },
      revisions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      pageSize: 0,
      maxUriLength: 8192,
      cacheHints: { ttlMs: 0, scope: 'private' },
      discoverCacheHints: { ttlMs: 0, scope: 'public' },
      callTimeoutMs: 0,
      defaultLogLevel: 'info',
      clientRequestTimeoutMs: 0,
      maxPendingQuestions: 32,
      requestState: { ttlMs: 60_000 },
      logger: silent,
    },
    EMPTY_CATALOG,
  );
}

function session(protocolVersion?: McpRevision): SessionHandle {
  const state: McpSessionState = { protocolVersion, clientCapabilities: {}, logLevel: 'info', initialized: true };
  return {
    id: 'mcp_session',
    state,
    update: () => Promise.resolve(),
    subscribe: () => Promise.resolve(),
    unsubscribe: () => Promise.resolve(),
  };
}

/** A port that serves every legacy message with `resolution` and records what it was asked. */
function port(resolution: LegacyResolution, current?: SessionHandle): LegacySessionPort & { discarded: string[] } {
  const discarded: string[] = [];
  return {
    discarded,
    resolve: () => resolution,
    current: () => current,
    discard: (handle) => {
      discarded.push(handle.id);
      return Promise.resolve();
    },
  };
}

const CHANNEL: RequestChannel = { notify: () => undefined };

function binding(overrides: Partial<InboundBinding> = {}): InboundBinding {
  return { transport: 'stdio', sessions: SESSIONLESS, channel: () => ({ channel: CHANNEL }), ...overrides };
}

const request = (method: string, params?: JSONObject, id = 1): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

const legacySession = session('2025-03-26');
const withSession = (revision: McpRevision = '2025-03-26') =>
  port({ ok: true, session: session(revision), revision }, session(revision));

describe('InboundDispatcher: each input class and the result kind it gets', () => {
  const cases: Array<[string, unknown, Partial<InboundBinding>, InboundKind, Partial<Record<string, unknown>>?]> = [
    ['a value that is not a JSON-RPC object', 42, {}, 'invalid', { notification: false }],
    ['a message of another JSON-RPC version', { jsonrpc: '1.0', id: 1, method: 'ping' }, {}, 'invalid'],
    ['an invalid notification', { jsonrpc: '2.0', method: 7 }, {}, 'invalid'],
    ['a response (legacy session)', { jsonrpc: '2.0', id: 9, result: {} }, { sessions: withSession() }, 'delivered'],
    ['a response without a session', { jsonrpc: '2.0', id: 9, result: {} }, {}, 'delivered', { session: undefined }],
    [
      'a legacy notification',
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {},
      'accepted',
      { era: 'legacy' },
    ],
    [
      'a modern notification',
      { jsonrpc: '2.0', method: 'notifications/progress', params: { _meta: MODERN_META } },
      {},
      'accepted',
      { era: 'modern' },
    ],
    ['a legacy request', request('ping'), { sessions: withSession() }, 'answered', { era: 'legacy' }],
    ['a modern request', request('ping', { _meta: MODERN_META }), {}, 'answered', { era: 'modern' }],
    [
      'a request the version header makes modern',
      request('ping'),
      { versionHeader: '2026-07-28', headers: { 'mcp-protocol-version': '2026-07-28' } },
      'answered',
      { era: 'modern' },
    ],
    [
      'a legacy request for an unknown session',
      request('ping'),
      { sessions: port({ ok: false, reason: 'unknown-session', message: 'Session not found' }) },
      'refused',
      { reason: 'unknown-session' },
    ],
    [
      'a legacy request without the session it needs',
      request('ping'),
      { sessions: port({ ok: false, reason: 'session-required', message: 'header required' }) },
      'refused',
      { reason: 'session-required' },
    ],
    [
      'an initialize beyond the session limit',
      request('initialize'),
      { sessions: port({ ok: false, reason: 'session-limit', message: 'Too many sessions' }) },
      'refused',
      { reason: 'session-limit' },
    ],
    [
      'a legacy request with a bad version header',
      request('ping'),
      { versionHeader: '1999-01-01' },
      'refused',
      { reason: 'bad-version' },
    ],
    [
      'a batch at 2025-03-26',
      [request('ping', undefined, 1), request('ping', undefined, 2)],
      { sessions: withSession() },
      'batch',
    ],
    [
      'a batch at 2025-11-25',
      [request('ping')],
      { sessions: withSession('2025-11-25') },
      'refused',
      { reason: 'batch-not-supported' },
    ],
    [
      'a batch under a modern version header',
      [request('ping')],
      { versionHeader: '2026-07-28' },
      'refused',
      { reason: 'batch-not-supported' },
    ],
    ['an empty batch', [], { sessions: withSession() }, 'invalid'],
    [
      'a batch mixing requests and responses',
      [request('ping'), { jsonrpc: '2.0', id: 5, result: {} }],
      { sessions: withSession() },
      'invalid',
    ],
    ['a batch of responses', [{ jsonrpc: '2.0', id: 5, result: {} }], { sessions: withSession() }, 'delivered'],
    ['a batch planned for the transport default revision', [request('ping')], { batchRevision: '2025-03-26' }, 'batch'],
    [
      'a request the transport does not admit',
      request('ping'),
      { admits: () => false },
      'refused',
      { reason: 'not-admitted' },
    ],
    [
      'a request withdrawn before the engine',
      request('ping'),
      { beforeHandle: () => false },
      'refused',
      { reason: 'withdrawn' },
    ],
  ];

  const rows = cases.map(([name, body, overrides, kind, fields]) => ({ name, body, overrides, kind, fields }));

  it.each(rows)('$name → $kind', async ({ body, overrides, kind, fields }) => {
    const result = await new InboundDispatcher(makeEngine()).dispatch(body, binding(overrides));
    expect(result.kind).toBe(kind);
    if (fields !== undefined) {
      expect(result).toMatchObject(fields);
    }
  });

  it('answers a legacy ping within the session and a batch with every answer, in order', async () => {
    const dispatcher = new InboundDispatcher(makeEngine());
    const single = await dispatcher.dispatch(request('ping'), binding({ sessions: withSession() }));
    expect(single).toMatchObject({ kind: 'answered', outcome: { type: 'response', response: { id: 1, result: {} } } });
    const batch = await dispatcher.dispatch(
      [request('ping', undefined, 1), { jsonrpc: '2.0', id: 2 }, request('ping', undefined, 3)],
      binding({ sessions: withSession() }),
    );
    expect(batch).toMatchObject({ kind: 'batch', answers: [{ id: 1 }, { id: 2 }, { id: 3 }] });
  });

  it.each<[string, LegacyResolution, number]>([
    [
      'an unknown session',
      { ok: false, reason: 'unknown-session', message: 'Session not found' },
      McpErrorCode.InvalidRequest,
    ],
    [
      'the session limit',
      { ok: false, reason: 'session-limit', message: 'Too many sessions' },
      McpErrorCode.InternalError,
    ],
    [
      'a session store that cannot serve',
      { ok: false, reason: 'store-unavailable', message: 'Service unavailable' },
      McpErrorCode.InternalError,
    ],
  ])('refuses %s with its JSON-RPC error, under the request id', async (_name, resolution, code) => {
    const result = await new InboundDispatcher(makeEngine()).dispatch(
      request('initialize', undefined, 7),
      binding({ sessions: port(resolution) }),
    );
    expect(result).toMatchObject({
      kind: 'refused',
      reason: resolution.ok ? undefined : resolution.reason,
      error: { id: 7, error: { code } },
    });
  });

  it('discards the session a failed handshake opened', async () => {
    const sessions = port({ ok: true, session: legacySession, opened: true });
    const result = await new InboundDispatcher(makeEngine()).dispatch(
      request('initialize', { protocolVersion: 42 }),
      binding({ sessions }),
    );
    expect(result).toMatchObject({ kind: 'answered', session: undefined });
    expect((result as Extract<InboundResult, { kind: 'answered' }>).outcome).toMatchObject({
      type: 'response',
      response: { error: {} },
    });
    expect(sessions.discarded).toEqual(['mcp_session']);
  });

  it('tells the transport when the engine has the request, with its cancel scope', async () => {
    const handed: Array<string | undefined> = [];
    await new InboundDispatcher(makeEngine()).dispatch(
      request('ping'),
      binding({ sessions: withSession(), onHanded: (scope) => handed.push(scope) }),
    );
    expect(handed).toEqual(['mcp_session']);
  });

  it('delivers answers synchronously when the session is known', () => {
    const engine = makeEngine();
    const deliver = jest.spyOn(engine, 'deliverResponse');
    void new InboundDispatcher(engine).deliver([{ jsonrpc: '2.0', id: 3, result: {} }], withSession());
    expect(deliver).toHaveBeenCalledWith('mcp_session', { jsonrpc: '2.0', id: 3, result: {} });
  });
});

describe('inboundFacts', () => {
  const input = {
    transport: 'streamable-http' as const,
    headers: { 'mcp-protocol-version': '2025-03-26' },
    cancelScope: 'connection',
  };

  it.each([
    ['modern', false, { era: 'modern', headers: input.headers, session: undefined, cancelScope: 'connection' }],
    ['legacy', false, { era: 'legacy', headers: undefined, session: legacySession, cancelScope: 'mcp_session' }],
    ['legacy', true, { era: 'legacy', headers: input.headers, revision: '2025-03-26', cancelScope: 'mcp_session' }],
  ] as const)('%s facts (legacy headers: %s)', (era, headersInLegacy, expected) => {
    const facts = inboundFacts(
      { ...input, headersInLegacy },
      era,
      { channel: CHANNEL },
      {
        session: legacySession,
        revision: '2025-03-26',
      },
    );
    expect(facts).toMatchObject({ transport: 'streamable-http', channel: CHANNEL, ...expected });
  });
});

describe('sessionRevision', () => {
  const supported: McpRevision[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
  it.each<[string | undefined, string, McpRevision | undefined, boolean, unknown]>([
    [undefined, 'ping', '2024-11-05', true, { revision: '2024-11-05' }],
    ['2025-06-18', 'ping', '2024-11-05', true, { revision: '2025-06-18' }],
    ['2025-06-18', 'initialize', undefined, true, { revision: undefined }],
    [undefined, 'ping', undefined, true, { revision: '2025-03-26' }],
    [undefined, 'server/discover', undefined, false, { revision: undefined }],
    ['2026-07-28', 'ping', undefined, true, { error: expect.stringContaining('unsupported MCP-Protocol-Version') }],
  ])('header %s, %s, session at %s (%s) → %j', (header, method, version, hasSession, expected) => {
    expect(sessionRevision(header, method, { protocolVersion: version }, hasSession, supported)).toEqual(expected);
  });
});
