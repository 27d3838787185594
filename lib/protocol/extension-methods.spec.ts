import type { Catalog } from './calls/catalog';
import type { ExtensionMethod } from './calls/extension-method';
import { McpEngine, type EngineLogger, type EngineOutcome, type RequestFacts } from './engine';
import { extensionMethodEntries, extensionMethodProblem, isExtensionMethodName } from './extension-methods';
import type { McpExtension } from './extensions/extensions';
import { McpErrorCode, type JSONObject, type JSONRPCRequest } from './messages/json-rpc';
import type { McpHeaderBag } from './messages/request-headers';
import type { McpEra } from './messages/revisions';
import { MethodTable } from './methods';

const AUDIT = 'com.example/notes-audit';
const MODERN = '2026-07-28';
const EXTENSIONS: McpExtension[] = [{ id: AUDIT }, { id: 'com.example/legacy-only', eras: ['legacy'] }];

function method(overrides: Partial<ExtensionMethod> = {}): ExtensionMethod {
  return { method: 'notes-audit/entries', extension: AUDIT, handler: () => ({ entries: [] }), ...overrides };
}

describe('isExtensionMethodName', () => {
  it.each(['notes-audit/entries', 'skills/list', 'resources/directory/read', 'ui/open_link', 'a/b2'])(
    'accepts %s',
    (name) => {
      expect(isExtensionMethodName(name)).toBe(true);
    },
  );

  it.each([
    ['one segment', 'entries'],
    ['an empty segment', 'notes-audit//entries'],
    ['a trailing slash', 'notes-audit/'],
    ['a segment starting with a digit', 'notes-audit/1st'],
    ['a dot (JSON-RPC reserves rpc.)', 'rpc.discover/x'],
    ['a space', 'notes audit/entries'],
    ['too long a name', `a/${'b'.repeat(200)}`],
    ['a non-string', 42],
  ])('refuses %s', (_label, name) => {
    expect(isExtensionMethodName(name)).toBe(false);
  });
});

describe('extensionMethodProblem', () => {
  it('accepts methods of declared extensions in their eras', () => {
    expect(
      extensionMethodProblem(EXTENSIONS, [
        method(),
        method({ method: 'notes-audit/purge', eras: ['modern'], nameParam: 'noteId' }),
        method({ method: 'legacy-only/ping', extension: 'com.example/legacy-only' }),
      ]),
    ).toBeUndefined();
  });

  it.each([
    ['a malformed name', [method({ method: 'entries' })], '[0]', 'slash-separated segments'],
    ['a notification name', [method({ method: 'notifications/audit' })], '[0]', 'notification'],
    ['a built-in method', [method({ method: 'tools/call' })], '[0]', 'method of the specification'],
    ['a built-in legacy method', [method({ method: 'logging/setLevel' })], '[0]', 'method of the specification'],
    [
      'an undeclared extension',
      [method({ extension: 'com.example/unknown' })],
      '[0]',
      'which the server does not declare',
    ],
    [
      'an era its extension is not advertised in',
      [method({ extension: 'com.example/legacy-only', eras: ['modern'] })],
      '[0]',
      'eras must be',
    ],
    ['no era', [method({ eras: [] })], '[0]', 'eras must be'],
    ['an empty nameParam', [method({ nameParam: '' })], '[0]', 'nameParam'],
    ['no handler', [method({ handler: undefined as never })], '[0]', 'handler'],
    [
      'a method added twice',
      [method(), method({ extension: 'com.example/legacy-only' })],
      '[1]',
      `by ${AUDIT} and by com.example/legacy-only`,
    ],
  ])('names %s', (_label, methods, at, reason) => {
    const problem = extensionMethodProblem(EXTENSIONS, methods);
    expect(problem?.at).toBe(at);
    expect(problem?.reason).toContain(reason);
  });
});

describe('MethodTable with extension methods', () => {
  const table = new MethodTable(
    extensionMethodEntries(EXTENSIONS, [
      method({ nameParam: 'noteId', cacheable: true }),
      method({ method: 'notes-audit/modern', eras: ['modern'] }),
      method({ method: 'legacy-only/ping', extension: 'com.example/legacy-only', nameParam: 'x' }),
    ]),
  );

  it.each<[string, McpEra, boolean]>([
    ['notes-audit/entries', 'legacy', true],
    ['notes-audit/entries', 'modern', true],
    ['notes-audit/modern', 'legacy', false],
    ['notes-audit/modern', 'modern', true],
    // The extension's own eras gate its methods when they name none.
    ['legacy-only/ping', 'legacy', true],
    ['legacy-only/ping', 'modern', false],
  ])('serves %s to %s requests: %s', (name, era, served) => {
    expect(table.serves(era, name, 'streamable-http', '2025-11-25')).toBe(served);
    expect(table.serves(era, name, 'stdio', '2025-11-25')).toBe(served);
  });

  it('knows them (telemetry names them, not _OTHER), beside the built-in ones', () => {
    expect(table.isKnown('notes-audit/entries')).toBe(true);
    expect(table.isKnown('tools/call')).toBe(true);
    expect(table.isKnown('notes-audit/other')).toBe(false);
    expect(new MethodTable().isKnown('notes-audit/entries')).toBe(false);
  });

  it('takes the Mcp-Name param and the cache flag of the declaration; a legacy-only method has no Mcp-Name', () => {
    expect(table.entry('notes-audit/entries')).toMatchObject({
      era: 'both',
      nameParam: 'noteId',
      cacheable: 'catalog',
    });
    expect(table.entry('notes-audit/modern')).toMatchObject({ era: 'modern' });
    expect(table.entry('notes-audit/modern')?.cacheable).toBeUndefined();
    expect(table.entry('legacy-only/ping')?.nameParam).toBeUndefined();
  });

  it('never lets an added method replace a built-in one', () => {
    expect(() => new MethodTable(new Map([['tools/list', table.entry('notes-audit/entries')!]]))).toThrow(
      /cannot replace the built-in tools\/list/,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Served by a real engine: the request resolver, the handler and the result finisher.
// ---------------------------------------------------------------------------------------------

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

function engineWith(methods: ExtensionMethod[]): { engine: McpEngine; errors: string[] } {
  const errors: string[] = [];
  const logger: EngineLogger = { error: (message) => errors.push(message), warn: () => undefined, debug: () => {} };
  const engine = new McpEngine(
    {
      serverInfo: { name: 'extension-methods', version: '1.0.0' },
      revisions: [MODERN, '2025-11-25'],
      pageSize: 0,
      maxUriLength: 8192,
      cacheHints: { ttlMs: 5_000, scope: 'private' },
      discoverCacheHints: { ttlMs: 60_000, scope: 'public' },
      callTimeoutMs: 0,
      defaultLogLevel: 'info',
      clientRequestTimeoutMs: 0,
      maxPendingQuestions: 8,
      requestState: { ttlMs: 60_000 },
      extensions: EXTENSIONS,
      extensionMethods: methods,
      logger,
    },
    EMPTY_CATALOG,
  );
  return { engine, errors };
}

function modern(name: string, params: JSONObject = {}, capabilities: JSONObject = {}): JSONRPCRequest {
  return {
    jsonrpc: '2.0',
    id: 7,
    method: name,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    },
  };
}

function facts(era: McpEra, headers?: McpHeaderBag, extra: Partial<RequestFacts> = {}): RequestFacts {
  return { era, transport: 'streamable-http', channel: { notify: () => undefined }, headers, ...extra };
}

async function answer(engine: McpEngine, requestFacts: RequestFacts, message: JSONRPCRequest): Promise<JSONObject> {
  const outcome: EngineOutcome = await engine.handle(requestFacts, message);
  if (outcome.type !== 'response') {
    throw new Error(`expected a response, got ${outcome.type}`);
  }
  return outcome.response as unknown as JSONObject;
}

describe('an extension method served by the engine', () => {
  const seen: Array<{ params: JSONObject; name: string | undefined; method: string }> = [];
  const { engine, errors } = engineWith([
    method({
      nameParam: 'noteId',
      cacheable: true,
      handler: (params, call) => {
        seen.push({ params, name: call.name, method: call.method });
        return { noteId: params.noteId, _meta: { [`${AUDIT}/checked`]: true } };
      },
    }),
    method({ method: 'notes-audit/strict', requiresClientSupport: true, handler: () => ({ ok: true }) }),
    method({ method: 'notes-audit/guarded', scopes: ['audit:read'], handler: () => ({ ok: true }) }),
    method({ method: 'notes-audit/modern', eras: ['modern'], handler: () => ({ ok: true }) }),
    method({ method: 'notes-audit/broken', handler: async () => ['not', 'an', 'object'] }),
  ]);
  const headersOf = (name: string, mcpName?: string): McpHeaderBag => ({
    'mcp-protocol-version': MODERN,
    'mcp-method': name,
    ...(mcpName === undefined ? {} : { 'mcp-name': mcpName }),
  });

  beforeEach(() => {
    seen.length = 0;
    errors.length = 0;
  });

  it('runs the handler with the params without _meta, the name and the result finished for the era', async () => {
    const reply = await answer(
      engine,
      facts('modern', headersOf('notes-audit/entries', 'n-1')),
      modern('notes-audit/entries', { noteId: 'n-1' }),
    );
    expect(seen).toEqual([{ params: { noteId: 'n-1' }, name: 'n-1', method: 'notes-audit/entries' }]);
    expect(reply.result).toMatchObject({
      noteId: 'n-1',
      resultType: 'complete',
      ttlMs: 5_000,
      cacheScope: 'private',
      _meta: { [`${AUDIT}/checked`]: true, 'io.modelcontextprotocol/serverInfo': expect.anything() },
    });
  });

  it.each([
    ['no Mcp-Method', { 'mcp-protocol-version': MODERN, 'mcp-name': 'n-1' }, /Mcp-Method header is required/],
    ['another Mcp-Method', headersOf('tools/list', 'n-1'), /Mcp-Method header value 'tools\/list'/],
    ['no Mcp-Name', headersOf('notes-audit/entries'), /Mcp-Name header is required/],
    ['another Mcp-Name', headersOf('notes-audit/entries', 'n-2'), /Mcp-Name header value 'n-2' does not match/],
  ])('refuses a modern request with %s (-32020), as a built-in method', async (_label, headers, message) => {
    const reply = await answer(engine, facts('modern', headers), modern('notes-audit/entries', { noteId: 'n-1' }));
    expect(reply.error).toMatchObject({ code: McpErrorCode.HeaderMismatch, message: expect.stringMatching(message) });
    expect(seen).toEqual([]);
  });

  it('refuses a legacy request whose name param is not a string (-32602)', async () => {
    const reply = await answer(engine, facts('legacy', undefined, { revision: '2025-11-25' }), {
      jsonrpc: '2.0',
      id: 1,
      method: 'notes-audit/entries',
      params: { noteId: 3 },
    });
    expect(reply.error).toMatchObject({ code: McpErrorCode.InvalidParams });
  });

  it('refuses a method in the era it is not declared for (-32601)', async () => {
    const reply = await answer(engine, facts('legacy', undefined, { revision: '2025-11-25' }), {
      jsonrpc: '2.0',
      id: 1,
      method: 'notes-audit/modern',
    });
    expect(reply.error).toMatchObject({ code: McpErrorCode.MethodNotFound });
  });

  it('answers -32021 naming the extension to a client that did not declare it, when the method requires it', async () => {
    const name = 'notes-audit/strict';
    const refused = await answer(engine, facts('modern', headersOf(name)), modern(name));
    expect(refused.error).toMatchObject({
      code: McpErrorCode.MissingRequiredClientCapability,
      data: { requiredCapabilities: { extensions: { [AUDIT]: {} } } },
    });
    const served = await answer(
      engine,
      facts('modern', headersOf(name)),
      modern(name, {}, { extensions: { [AUDIT]: {} } }),
    );
    expect(served.result).toMatchObject({ ok: true });
  });

  it('refuses a principal without the scopes as a tool would', async () => {
    const name = 'notes-audit/guarded';
    const refused = await answer(
      engine,
      facts('modern', headersOf(name), { principal: { id: 'p', scopes: [] } }),
      modern(name),
    );
    expect(refused.error).toMatchObject({
      code: McpErrorCode.InsufficientScope,
      data: { requiredScopes: ['audit:read'] },
    });
    const served = await answer(
      engine,
      facts('modern', headersOf(name), { principal: { id: 'p', scopes: ['audit:read'] } }),
      modern(name),
    );
    expect(served.result).toMatchObject({ ok: true });
  });

  it('answers -32603 and logs a handler whose value is not a JSON object', async () => {
    const name = 'notes-audit/broken';
    const reply = await answer(engine, facts('modern', headersOf(name)), modern(name));
    expect(reply.error).toMatchObject({ code: McpErrorCode.InternalError, message: 'Internal error' });
    expect(errors.join('\n')).toContain('returned an array: a result must be a JSON object');
  });
});
