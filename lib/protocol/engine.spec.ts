import { ServerShutdownError, type CancellationSource } from './calls/call-scope';
import type { McpCallContext } from './calls/call-context';
import type {
  Catalog,
  McpCompiledSchema,
  McpCompletionHandler,
  McpPromptEntry,
  McpResourceEntry,
  McpTemplateEntry,
  McpToolEntry,
} from './calls/catalog';
import {
  McpEngine,
  type EngineLogger,
  type EngineObserver,
  type EngineOptions,
  type EngineOutcome,
  type RequestFacts,
} from './engine';
import {
  McpErrorCode,
  type JSONObject,
  type JSONRPCErrorResponse,
  type RequestId,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type JSONRPCResultResponse,
} from './messages/json-rpc';
import type { LoggingLevel } from './messages/log-levels';
import { McpError, McpInternalError, McpToolError } from './messages/mcp-error';
import { isThenable } from './messages/thenables';
import type { McpHeaderBag } from './messages/request-headers';
import type { McpRevision } from './messages/revisions';
import type { SessionHandle, McpSessionState } from './messages/session-handle';

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
const MODERN = '2026-07-28';
const ALL_REVISIONS: McpRevision[] = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

// ---------------------------------------------------------------------------------------------
// Fixtures: a real, tiny catalog, session, logger and channel.
// ---------------------------------------------------------------------------------------------

/** A promise with its resolve function, to hold a handler until the test lets it go. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const anyObject: McpCompiledSchema = { jsonSchema: { type: 'object' }, validate: (value) => ({ ok: true, value }) };

/** Arguments `{ a: number, b: number }`; strings of digits are converted, like a transforming validator would. */
const sumSchema: McpCompiledSchema = {
  jsonSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  validate: (value) => {
    const args = value as { a?: unknown; b?: unknown };
    const a = typeof args.a === 'string' ? Number(args.a) : args.a;
    if (typeof a !== 'number' || Number.isNaN(a) || typeof args.b !== 'number') {
      return { ok: false, message: '/a and /b must be numbers' };
    }
    return { ok: true, value: { a, b: args.b } };
  },
};

const hitsOutput: McpCompiledSchema = {
  jsonSchema: { type: 'object', properties: { hits: { type: 'integer' } }, required: ['hits'] },
  validate: (value) =>
    typeof (value as { hits?: unknown })?.hits === 'number'
      ? { ok: true, value }
      : { ok: false, message: '/hits must be integer' },
};

function tool(
  name: string,
  invoke: (args: any, call: McpCallContext) => unknown,
  extra: Partial<McpToolEntry> = {},
): McpToolEntry {
  return {
    name,
    input: anyObject,
    taskSupport: 'forbidden',
    paramHeaders: [],
    invoke: async (args, call) => invoke(args, call),
    ...extra,
  };
}

class FixtureCatalog implements Catalog {
  version = 1;
  readonly tools = new Map<string, McpToolEntry>();
  readonly resources = new Map<string, McpResourceEntry>();
  readonly templates = new Map<string, McpTemplateEntry>();
  readonly prompts = new Map<string, McpPromptEntry>();

  addTool(entry: McpToolEntry): this {
    this.tools.set(entry.name, entry);
    this.version += 1;
    return this;
  }

  addResource(entry: McpResourceEntry): this {
    this.resources.set(entry.uri, entry);
    this.version += 1;
    return this;
  }

  addTemplate(entry: McpTemplateEntry): this {
    this.templates.set(entry.uriTemplate, entry);
    this.version += 1;
    return this;
  }

  addPrompt(entry: McpPromptEntry): this {
    this.prompts.set(entry.name, entry);
    this.version += 1;
    return this;
  }

  listTools(): readonly McpToolEntry[] {
    return sorted(this.tools, (entry) => entry.name);
  }
  getTool(name: string): McpToolEntry | undefined {
    return this.tools.get(name);
  }
  listResources(): readonly McpResourceEntry[] {
    return sorted(this.resources, (entry) => entry.uri);
  }
  getResource(uri: string): McpResourceEntry | undefined {
    return this.resources.get(uri);
  }
  listTemplates(): readonly McpTemplateEntry[] {
    return sorted(this.templates, (entry) => entry.uriTemplate);
  }
  getTemplate(uriTemplate: string): McpTemplateEntry | undefined {
    return this.templates.get(uriTemplate);
  }
  listPrompts(): readonly McpPromptEntry[] {
    return sorted(this.prompts, (entry) => entry.name);
  }
  getPrompt(name: string): McpPromptEntry | undefined {
    return this.prompts.get(name);
  }
  hasCompletions(): boolean {
    return [...this.prompts.values(), ...this.templates.values()].some(
      (entry) => Object.keys(entry.completions).length > 0,
    );
  }
}

function sorted<T>(map: Map<string, T>, key: (item: T) => string): T[] {
  return [...map.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

class FixtureSession implements SessionHandle {
  readonly id = 'session-1';
  state: McpSessionState = { clientCapabilities: {}, logLevel: 'info', initialized: false };
  readonly subscriptions = new Set<string>();

  constructor(patch: Partial<McpSessionState> = {}) {
    this.state = { ...this.state, ...patch };
  }

  async update(patch: Partial<McpSessionState>): Promise<void> {
    this.state = { ...this.state, ...patch };
  }
  async subscribe(uri: string): Promise<void> {
    this.subscriptions.add(uri);
  }
  async unsubscribe(uri: string): Promise<void> {
    this.subscriptions.delete(uri);
  }
}

class RecordingLogger implements EngineLogger {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  error(message: string, trace?: string): void {
    this.errors.push(`${message}${trace === undefined ? '' : `\n${trace}`}`);
  }
  warn(message: string): void {
    this.warnings.push(message);
  }
  debug(): void {}
}

interface TestFacts extends RequestFacts {
  readonly notes: JSONRPCNotification[];
  readonly abort: AbortController;
}

/** A transport's cancellation, driven by an AbortController the test holds. */
function cancellationOf(abort: AbortController): CancellationSource {
  return {
    isCancelled: () => abort.signal.aborted,
    onCancel(listener) {
      if (abort.signal.aborted) {
        listener(abort.signal.reason);
        return () => undefined;
      }
      const onAbort = (): void => listener(abort.signal.reason);
      abort.signal.addEventListener('abort', onAbort, { once: true });
      return () => abort.signal.removeEventListener('abort', onAbort);
    },
  };
}

function makeFacts(overrides: Partial<RequestFacts> = {}): TestFacts {
  const notes: JSONRPCNotification[] = [];
  const abort = new AbortController();
  return {
    era: 'legacy',
    transport: 'streamable-http',
    cancellation: cancellationOf(abort),
    channel: { notify: (message) => notes.push(message) },
    ...overrides,
    notes,
    abort,
  };
}

/** Facts of a modern HTTP request whose headers agree with the body; `null` for a transport without headers. */
function modernFacts(message: JSONRPCRequest, headers: McpHeaderBag | null = modernHeaders(message)): TestFacts {
  return makeFacts({ era: 'modern', headers: headers ?? undefined });
}

function modernHeaders(message: JSONRPCRequest): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': message.method };
  const params = message.params ?? {};
  const name = message.method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string') {
    headers['mcp-name'] = name;
  }
  return headers;
}

function modernRequest(
  method: string,
  params: JSONObject = {},
  id: RequestId = 1,
  meta: JSONObject = {},
): JSONRPCRequest {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: { ...params, _meta: { [VERSION_KEY]: MODERN, [CAPABILITIES_KEY]: {}, ...meta } },
  };
}

function legacyRequest(method: string, params: JSONObject = {}, id: RequestId = 1): JSONRPCRequest {
  return { jsonrpc: '2.0', id, method, params };
}

function response(outcome: EngineOutcome): JSONRPCResponse {
  if (outcome.type !== 'response') {
    throw new Error(`expected a response, got ${outcome.type}`);
  }
  return outcome.response;
}

function resultOf(outcome: EngineOutcome): JSONObject {
  const answer = response(outcome);
  if (!('result' in answer)) {
    throw new Error(`expected a result, got error ${JSON.stringify(answer.error)}`);
  }
  return answer.result;
}

function errorOf(outcome: EngineOutcome): JSONRPCErrorResponse['error'] & { id: RequestId | null } {
  const answer = response(outcome);
  if (!('error' in answer)) {
    throw new Error(`expected an error, got result ${JSON.stringify(answer.result)}`);
  }
  return { ...answer.error, id: answer.id };
}

const SERVER_INFO = { name: 'fixture-server', version: '9.9.9', title: 'Fixture Server' };

function makeEngine(
  catalog: Catalog = standardCatalog(),
  options: Partial<EngineOptions> = {},
  observer?: EngineObserver,
): { engine: McpEngine; logger: RecordingLogger } {
  const logger = new RecordingLogger();
  const engine = new McpEngine(
    {
      serverInfo: SERVER_INFO,
      revisions: ALL_REVISIONS,
      pageSize: 0,
      maxUriLength: 8192,
      cacheHints: { ttlMs: 5_000, scope: 'private' },
      discoverCacheHints: { ttlMs: 60_000, scope: 'public' },
      callTimeoutMs: 0,
      defaultLogLevel: 'info',
      clientRequestTimeoutMs: 0,
      maxPendingQuestions: 32,
      requestState: { ttlMs: 60_000 },
      logger,
      ...options,
    },
    catalog,
    {},
    observer,
  );
  return { engine, logger };
}

const complete: McpCompletionHandler = (value) => ['alpha', 'beta'].filter((item) => item.startsWith(value));

function standardCatalog(): FixtureCatalog {
  return new FixtureCatalog()
    .addTool(tool('echo', (args: { text?: string }) => args.text ?? ''))
    .addTool(tool('sum', (args: { a: number; b: number }) => String(args.a + args.b), { input: sumSchema }))
    .addResource({ uri: 'test://static', name: 'static', mimeType: 'text/plain', read: async () => 'static text' })
    .addResource({ uri: 'test://short-lived', name: 'short', cacheTtlMs: 250, read: async () => 'brief' })
    .addTemplate({
      uriTemplate: 'test://items/{id}',
      name: 'item',
      completions: { id: complete },
      match: (uri) => (uri.startsWith('test://items/') ? { id: uri.slice('test://items/'.length) } : undefined),
      read: async (_uri, variables) => ({ id: variables.id }),
    })
    .addPrompt({
      name: 'greet',
      description: 'Greets',
      arguments: [{ name: 'who', required: true }],
      completions: { who: complete },
      get: async (args) => `Hello, ${args.who}!`,
    });
}

// ---------------------------------------------------------------------------------------------

describe('McpEngine.handle', () => {
  describe('the modern validation ladder', () => {
    it('-32602 for a missing _meta field comes before a header mismatch, a bad version and an unknown method', async () => {
      const { engine } = makeEngine();
      const message: JSONRPCRequest = {
        jsonrpc: '2.0',
        id: 'ladder-1',
        method: 'foo/bar',
        params: { _meta: { [VERSION_KEY]: 'v999.0.0' } },
      };
      const facts = modernFacts(message, { 'mcp-protocol-version': MODERN, 'mcp-method': 'something/else' });
      const error = errorOf(await engine.handle(facts, message));
      expect(error).toMatchObject({ id: 'ladder-1', code: McpErrorCode.InvalidParams });
      expect(error.message).toContain(CAPABILITIES_KEY);
    });

    it('-32602 when a request sent as modern carries no _meta at all', async () => {
      const { engine } = makeEngine();
      const message = legacyRequest('tools/list', {}, 2);
      const error = errorOf(await engine.handle(modernFacts(message), message));
      expect(error).toMatchObject({ id: 2, code: -32602, message: 'Missing required _meta field: _meta' });
    });

    it('-32602 for an invalid log level', async () => {
      const { engine } = makeEngine();
      const message = modernRequest('tools/list', {}, 3, { [LOG_LEVEL_KEY]: 'loud' });
      expect(errorOf(await engine.handle(modernFacts(message), message))).toMatchObject({ code: -32602 });
    });

    it('-32020 for a version header that disagrees with _meta comes before -32022 and -32601', async () => {
      const { engine } = makeEngine();
      const message = modernRequest('foo/bar', {}, 4, { [VERSION_KEY]: 'v999.0.0' });
      const error = errorOf(
        await engine.handle(modernFacts(message, { 'mcp-protocol-version': MODERN, 'mcp-method': 'foo/bar' }), message),
      );
      expect(error).toMatchObject({ id: 4, code: McpErrorCode.HeaderMismatch });
      expect(error.message).toMatch(/MCP-Protocol-Version/);
    });

    it.each<[string, Record<string, string>]>([
      ['the version header is missing', { 'mcp-method': 'foo/bar' }],
      ['Mcp-Method is missing', { 'mcp-protocol-version': '2099-01-01' }],
      ['Mcp-Method disagrees', { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' }],
    ])('-32020 when %s, before -32022 and -32601', async (_label, headers) => {
      const { engine } = makeEngine();
      const message = modernRequest('foo/bar', {}, 5, { [VERSION_KEY]: '2099-01-01' });
      expect(errorOf(await engine.handle(modernFacts(message, headers), message))).toMatchObject({
        id: 5,
        code: -32020,
      });
    });

    it.each<[string, JSONObject, Record<string, string>]>([
      ['tools/call without Mcp-Name', { name: 'echo' }, {}],
      ['tools/call with another Mcp-Name', { name: 'echo' }, { 'mcp-name': 'sum' }],
      ['resources/read with another Mcp-Name', { uri: 'test://static' }, { 'mcp-name': 'test://other' }],
      ['prompts/get without Mcp-Name', { name: 'greet', arguments: { who: 'x' } }, {}],
    ])('-32020 for %s', async (label, params, extra) => {
      const { engine } = makeEngine();
      const method = label.split(' ')[0];
      const message = modernRequest(method, params, 6);
      const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...extra };
      expect(errorOf(await engine.handle(modernFacts(message, headers), message))).toMatchObject({ code: -32020 });
    });

    it('-32022 with data.supported and data.requested when header and body agree on an unsupported version, before -32601', async () => {
      const { engine } = makeEngine();
      const message = modernRequest('foo/bar', {}, 'v', { [VERSION_KEY]: '2099-01-01' });
      const error = errorOf(
        await engine.handle(
          modernFacts(message, { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'foo/bar' }),
          message,
        ),
      );
      expect(error).toEqual({
        id: 'v',
        code: McpErrorCode.UnsupportedProtocolVersion,
        message: expect.stringContaining('2099-01-01'),
        data: { supported: [MODERN], requested: '2099-01-01' },
      });
    });

    it('-32022 for a legacy revision named in a modern envelope', async () => {
      const { engine } = makeEngine();
      const message = modernRequest('tools/list', {}, 7, { [VERSION_KEY]: '2025-11-25' });
      const error = errorOf(await engine.handle(modernFacts(message, null), message));
      expect(error).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: '2025-11-25' } });
    });

    it('-32022 for every modern request when only legacy revisions are configured', async () => {
      const { engine } = makeEngine(standardCatalog(), { revisions: ['2025-11-25', '2025-06-18'] });
      const message = modernRequest('tools/list', {}, 8);
      const error = errorOf(await engine.handle(modernFacts(message), message));
      expect(error).toMatchObject({ code: -32022, data: { supported: [], requested: MODERN } });
    });

    it.each([
      ['foo/bar'],
      ['initialize'],
      ['ping'],
      ['logging/setLevel'],
      ['resources/subscribe'],
      ['resources/unsubscribe'],
    ])('-32601 for %s sent with a modern envelope', async (method) => {
      const { engine } = makeEngine();
      const message = modernRequest(method, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {} }, 9);
      expect(errorOf(await engine.handle(modernFacts(message), message))).toEqual({
        id: 9,
        code: McpErrorCode.MethodNotFound,
        message: `Method not found: ${method}`,
      });
    });

    it('skips the header checks when the transport has no headers (stdio)', async () => {
      const { engine } = makeEngine();
      const message = modernRequest('tools/call', { name: 'echo', arguments: { text: 'hi' } });
      const result = resultOf(await engine.handle(modernFacts(message, null), message));
      expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
    });

    it('checks Mcp-Param-* headers of tools/call against the arguments', async () => {
      const catalog = standardCatalog().addTool(
        tool('deploy', (args: { region: string }) => `deployed to ${args.region}`, {
          paramHeaders: [{ name: 'Region', header: 'mcp-param-region', path: ['region'], type: 'string' }],
        }),
      );
      const { engine } = makeEngine(catalog);
      const message = modernRequest('tools/call', { name: 'deploy', arguments: { region: 'us-west1' } });
      const agreeing = { ...modernHeaders(message), 'mcp-param-region': 'us-west1' };
      const disagreeing = { ...modernHeaders(message), 'mcp-param-region': 'eu-west1' };
      expect(resultOf(await engine.handle(modernFacts(message, agreeing), message)).content).toEqual([
        { type: 'text', text: 'deployed to us-west1' },
      ]);
      expect(errorOf(await engine.handle(modernFacts(message, disagreeing), message))).toMatchObject({
        code: -32020,
        message: expect.stringContaining('Mcp-Param-Region'),
      });
      expect(errorOf(await engine.handle(modernFacts(message, modernHeaders(message)), message))).toMatchObject({
        code: -32020,
      });
    });
  });

  describe('modern results', () => {
    it('stamp resultType and serverInfo on every result, without cache hints on tools/call', async () => {
      const { engine } = makeEngine();
      const message = modernRequest('tools/call', { name: 'echo', arguments: { text: 'hi' } });
      const result = resultOf(await engine.handle(modernFacts(message), message));
      expect(result).toEqual({
        content: [{ type: 'text', text: 'hi' }],
        resultType: 'complete',
        _meta: { [SERVER_INFO_KEY]: SERVER_INFO },
      });
    });

    it.each([
      ['tools/list', {}, 'tools'],
      ['prompts/list', {}, 'prompts'],
      ['resources/list', {}, 'resources'],
      ['resources/templates/list', {}, 'resourceTemplates'],
      ['resources/read', { uri: 'test://static' }, 'contents'],
    ])('%s carries the configured ttlMs and cacheScope', async (method, params, field) => {
      const { engine } = makeEngine();
      const message = modernRequest(method, params);
      const result = resultOf(await engine.handle(modernFacts(message), message));
      expect(result).toMatchObject({ resultType: 'complete', ttlMs: 5_000, cacheScope: 'private' });
      expect(Array.isArray(result[field])).toBe(true);
      expect(result._meta).toEqual({ [SERVER_INFO_KEY]: SERVER_INFO });
    });

    it('server/discover carries its own cache hints and the supported versions', async () => {
      const { engine } = makeEngine();
      const message = modernRequest('server/discover');
      const result = resultOf(await engine.handle(modernFacts(message), message));
      expect(result).toMatchObject({
        supportedVersions: ALL_REVISIONS,
        resultType: 'complete',
        ttlMs: 60_000,
        cacheScope: 'public',
        capabilities: {
          tools: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: true },
          logging: {},
          completions: {},
        },
      });
    });

    it('a resource ttl overrides the default on resources/read', async () => {
      const { engine } = makeEngine();
      const message = modernRequest('resources/read', { uri: 'test://short-lived' });
      expect(resultOf(await engine.handle(modernFacts(message), message))).toMatchObject({
        ttlMs: 250,
        cacheScope: 'private',
        contents: [{ uri: 'test://short-lived', text: 'brief' }],
      });
    });

    it.each([
      ['prompts/get', { name: 'greet', arguments: { who: 'Ada' } }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } }],
    ])('%s carries no cache hints', async (method, params) => {
      const { engine } = makeEngine();
      const message = modernRequest(method, params);
      const result = resultOf(await engine.handle(modernFacts(message), message));
      expect(result.resultType).toBe('complete');
      expect(result).not.toHaveProperty('ttlMs');
      expect(result).not.toHaveProperty('cacheScope');
    });

    it('keeps the _meta a handler returned next to serverInfo', async () => {
      const catalog = standardCatalog().addTool(
        tool('meta', () => ({ content: [], _meta: { 'com.example/trace': 'abc' } })),
      );
      const { engine } = makeEngine(catalog);
      const message = modernRequest('tools/call', { name: 'meta' });
      expect(resultOf(await engine.handle(modernFacts(message), message))._meta).toEqual({
        'com.example/trace': 'abc',
        [SERVER_INFO_KEY]: SERVER_INFO,
      });
    });
  });

  describe('legacy results', () => {
    it.each([
      ['tools/call', { name: 'echo', arguments: { text: 'hi' } }],
      ['tools/list', {}],
      ['resources/read', { uri: 'test://static' }],
      ['server/discover', {}],
      ['prompts/get', { name: 'greet', arguments: { who: 'Ada' } }],
    ])('%s is left untouched: no resultType, serverInfo or cache hints', async (method, params) => {
      const { engine } = makeEngine();
      const message = legacyRequest(method, params);
      const result = resultOf(
        await engine.handle(makeFacts({ revision: '2025-11-25', session: new FixtureSession() }), message),
      );
      expect(result).not.toHaveProperty('resultType');
      expect(result).not.toHaveProperty('_meta');
      expect(result).not.toHaveProperty('ttlMs');
      expect(result).not.toHaveProperty('cacheScope');
    });

    it('refuses server/discover on the 2024-11-05 SSE pair', async () => {
      const { engine } = makeEngine();
      const message = legacyRequest('server/discover', {}, 3);
      expect(errorOf(await engine.handle(makeFacts({ transport: 'sse' }), message))).toEqual({
        id: 3,
        code: -32601,
        message: 'Method not found: server/discover',
      });
    });

    it('answers an unknown method with -32601', async () => {
      const { engine } = makeEngine();
      expect(errorOf(await engine.handle(makeFacts(), legacyRequest('tools/delete')))).toMatchObject({
        code: -32601,
      });
    });

    it('answers ping with an empty result', async () => {
      const { engine } = makeEngine();
      expect(resultOf(await engine.handle(makeFacts(), legacyRequest('ping')))).toEqual({});
    });

    it('resources/read of an unknown URI is -32002 with data.uri in the legacy era, -32602 in the modern one', async () => {
      const { engine } = makeEngine();
      const uri = 'test://nonexistent';
      expect(errorOf(await engine.handle(makeFacts(), legacyRequest('resources/read', { uri })))).toMatchObject({
        code: -32002,
        data: { uri },
      });
      const message = modernRequest('resources/read', { uri });
      expect(errorOf(await engine.handle(modernFacts(message), message))).toMatchObject({
        code: -32602,
        data: { uri },
      });
    });
  });

  describe('initialize', () => {
    const params = (protocolVersion: unknown): JSONObject => ({
      protocolVersion,
      capabilities: { roots: { listChanged: true } },
      clientInfo: { name: 'client', version: '0.1' },
    });

    it.each([['2024-11-05'], ['2025-03-26'], ['2025-06-18'], ['2025-11-25']])(
      'echoes the supported legacy version %s and records it on the session',
      async (version) => {
        const { engine } = makeEngine();
        const session = new FixtureSession();
        const result = resultOf(
          await engine.handle(makeFacts({ session }), legacyRequest('initialize', params(version))),
        );
        expect(result.protocolVersion).toBe(version);
        expect(session.state).toMatchObject({
          protocolVersion: version,
          initialized: true,
          clientCapabilities: { roots: { listChanged: true } },
          clientInfo: { name: 'client', version: '0.1' },
        });
      },
    );

    it.each([['2026-07-28'], ['2099-01-01'], ['2024-10-07'], ['1.0']])(
      'counter-offers the newest legacy version for %s',
      async (version) => {
        const { engine } = makeEngine();
        const result = resultOf(await engine.handle(makeFacts(), legacyRequest('initialize', params(version))));
        expect(result.protocolVersion).toBe('2025-11-25');
      },
    );

    it('counter-offers the newest configured legacy revision', async () => {
      const { engine } = makeEngine(standardCatalog(), { revisions: ['2026-07-28', '2025-03-26', '2024-11-05'] });
      const result = resultOf(await engine.handle(makeFacts(), legacyRequest('initialize', params('2025-11-25'))));
      expect(result.protocolVersion).toBe('2025-03-26');
    });

    it.each([['protocolVersion'], ['capabilities'], ['clientInfo']])('-32602 without %s', async (key) => {
      const { engine } = makeEngine();
      const incomplete = params('2025-06-18');
      delete incomplete[key];
      const error = errorOf(await engine.handle(makeFacts(), legacyRequest('initialize', incomplete, 'init')));
      expect(error).toMatchObject({ id: 'init', code: -32602, message: expect.stringContaining(key) });
    });

    it('-32602 for a protocolVersion that is not a string, and for no params at all', async () => {
      const { engine } = makeEngine();
      expect(errorOf(await engine.handle(makeFacts(), legacyRequest('initialize', params(20250618))))).toMatchObject({
        code: -32602,
      });
      const bare: JSONRPCRequest = { jsonrpc: '2.0', id: 1, method: 'initialize' };
      expect(errorOf(await engine.handle(makeFacts(), bare))).toMatchObject({ code: -32602 });
    });

    it('returns capabilities and serverInfo rendered for the negotiated revision', async () => {
      const { engine } = makeEngine(standardCatalog(), { instructions: 'Be nice.' });
      const old = resultOf(await engine.handle(makeFacts(), legacyRequest('initialize', params('2024-11-05'))));
      expect(old).toEqual({
        protocolVersion: '2024-11-05',
        capabilities: {
          tools: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: true },
          logging: {},
        },
        serverInfo: { name: 'fixture-server', version: '9.9.9' },
        instructions: 'Be nice.',
      });
      const newer = resultOf(await engine.handle(makeFacts(), legacyRequest('initialize', params('2025-06-18'))));
      expect(newer.capabilities).toHaveProperty('completions', {});
      expect(newer.serverInfo).toEqual(SERVER_INFO);
    });

    it('-32600 on a session that is already initialized', async () => {
      const { engine } = makeEngine();
      const session = new FixtureSession({ initialized: true, protocolVersion: '2025-11-25' });
      expect(
        errorOf(await engine.handle(makeFacts({ session }), legacyRequest('initialize', params('2025-11-25')))),
      ).toMatchObject({ code: -32600 });
    });
  });

  describe('notifications', () => {
    it.each([
      ['notifications/initialized', undefined],
      ['notifications/cancelled', { requestId: 'unknown' }],
      ['notifications/progress', { progressToken: 1, progress: 1 }],
      ['notifications/roots/list_changed', undefined],
      ['notifications/whatever', { a: 1 }],
    ])('%s is answered with nothing', async (method, params) => {
      const { engine } = makeEngine();
      const note: JSONRPCNotification = { jsonrpc: '2.0', method, params };
      expect(await engine.handle(makeFacts({ cancelScope: 's' }), note)).toEqual({ type: 'none' });
      expect(await engine.handle(makeFacts({ era: 'modern' }), note)).toEqual({ type: 'none' });
    });
  });

  describe('cancellation', () => {
    function blockingCatalog() {
      const started = deferred<AbortSignal>();
      const release = deferred<string>();
      const catalog = standardCatalog().addTool(
        tool('block', async (_args, call) => {
          started.resolve(call.signal);
          return release.promise;
        }),
      );
      return { catalog, started, release };
    }

    const cancel = (requestId: RequestId): JSONRPCNotification => ({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId, reason: 'user gave up' },
    });

    it('legacy notifications/cancelled aborts a running call of the same scope; the call answers nothing', async () => {
      const { catalog, started } = blockingCatalog();
      const { engine } = makeEngine(catalog);
      const call = engine.handle(
        makeFacts({ cancelScope: 'session-a' }),
        legacyRequest('tools/call', { name: 'block' }, 42),
      );
      const signal = await started.promise;
      expect(signal.aborted).toBe(false);
      expect(await engine.handle(makeFacts({ cancelScope: 'session-a' }), cancel(42))).toEqual({ type: 'none' });
      expect(await call).toEqual({ type: 'none' });
      expect(signal.aborted).toBe(true);
    });

    it.each<[string, string, RequestId]>([
      ['another scope', 'session-b', 42],
      ['the same id as a string', 'session-a', '42'],
      ['another id', 'session-a', 43],
    ])('a cancel from %s does not touch the call', async (_label, scope, requestId) => {
      const { catalog, started, release } = blockingCatalog();
      const { engine } = makeEngine(catalog);
      const call = engine.handle(
        makeFacts({ cancelScope: 'session-a' }),
        legacyRequest('tools/call', { name: 'block' }, 42),
      );
      const signal = await started.promise;
      await engine.handle(makeFacts({ cancelScope: scope }), cancel(requestId));
      expect(signal.aborted).toBe(false);
      release.resolve('finished');
      expect(resultOf(await call).content).toEqual([{ type: 'text', text: 'finished' }]);
    });

    it('abortScope aborts every running call of a scope', async () => {
      const { catalog, started } = blockingCatalog();
      const { engine } = makeEngine(catalog);
      const call = engine.handle(
        makeFacts({ cancelScope: 'session-a' }),
        legacyRequest('tools/call', { name: 'block' }, 1),
      );
      const signal = await started.promise;
      engine.abortScope('session-a');
      expect(await call).toEqual({ type: 'none' });
      expect(signal.aborted).toBe(true);
    });

    it('a transport abort (modern disconnect) ends the call with nothing to send', async () => {
      const { catalog, started } = blockingCatalog();
      const { engine } = makeEngine(catalog);
      const message = modernRequest('tools/call', { name: 'block' });
      const facts = modernFacts(message);
      const call = engine.handle(facts, message);
      const signal = await started.promise;
      facts.abort.abort();
      expect(await call).toEqual({ type: 'none' });
      expect(signal.aborted).toBe(true);
    });

    it('does not run a handler for a request already aborted', async () => {
      let ran = false;
      const catalog = standardCatalog().addTool(tool('mark', () => (ran = true)));
      const { engine } = makeEngine(catalog);
      const facts = makeFacts();
      facts.abort.abort();
      expect(await engine.handle(facts, legacyRequest('tools/call', { name: 'mark' }))).toEqual({ type: 'none' });
      expect(ran).toBe(false);
    });
  });

  describe('callTimeoutMs', () => {
    const hanging = () => standardCatalog().addTool(tool('hang', () => new Promise(() => undefined)));

    it('answers -32603 in the modern era when a handler outlives the deadline', async () => {
      const { engine } = makeEngine(hanging(), { callTimeoutMs: 20 });
      const message = modernRequest('tools/call', { name: 'hang' }, 'slow');
      expect(errorOf(await engine.handle(modernFacts(message), message))).toEqual({
        id: 'slow',
        code: McpErrorCode.InternalError,
        message: 'Request timed out after 20 ms',
      });
    });

    it('answers -32000 in the legacy era', async () => {
      const { engine } = makeEngine(hanging(), { callTimeoutMs: 20 });
      expect(errorOf(await engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'hang' })))).toMatchObject({
        code: McpErrorCode.ServerError,
        message: 'Request timed out after 20 ms',
      });
    });

    it('aborts the handler signal on timeout', async () => {
      const started = deferred<AbortSignal>();
      const catalog = standardCatalog().addTool(
        tool('hang', (_args, call) => {
          started.resolve(call.signal);
          return new Promise(() => undefined);
        }),
      );
      const { engine } = makeEngine(catalog, { callTimeoutMs: 20 });
      await engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'hang' }));
      expect((await started.promise).aborted).toBe(true);
    });

    it("applies a transport's own deadline instead of the default one", async () => {
      // The default would never fire within the test; the transport's bound does.
      const { engine } = makeEngine(hanging(), { callTimeoutMs: 3_600_000 });
      const outcome = await engine.handle(makeFacts({ timeoutMs: 20 }), legacyRequest('tools/call', { name: 'hang' }));
      expect(errorOf(outcome)).toMatchObject({
        code: McpErrorCode.ServerError,
        message: 'Request timed out after 20 ms',
      });
    });

    it('lets a transport lift the deadline with a bound of 0', async () => {
      const release = deferred();
      const catalog = standardCatalog().addTool(tool('wait', () => release.promise.then(() => 'done')));
      const { engine } = makeEngine(catalog, { callTimeoutMs: 20 });
      const call = engine.handle(makeFacts({ timeoutMs: 0 }), legacyRequest('tools/call', { name: 'wait' }));
      // Longer than the default deadline, which would have failed the call by now.
      await new Promise((resolve) => setTimeout(resolve, 80));
      release.resolve();
      expect(await call).toMatchObject({ type: 'response', response: { result: { content: [{ text: 'done' }] } } });
    });

    it('keeps each deadline when default and transport bounds are mixed', async () => {
      const { engine } = makeEngine(hanging(), { callTimeoutMs: 40 });
      const [short, long] = await Promise.all([
        engine.handle(makeFacts({ timeoutMs: 10 }), legacyRequest('tools/call', { name: 'hang' }, 'short')),
        engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'hang' }, 'long')),
      ]);
      expect(errorOf(short).message).toBe('Request timed out after 10 ms');
      expect(errorOf(long).message).toBe('Request timed out after 40 ms');
    });
  });

  describe('running calls (what a shutdown drains)', () => {
    function blocking() {
      const started = deferred<AbortSignal>();
      const release = deferred<string>();
      const catalog = standardCatalog().addTool(
        tool('block', async (_args, call) => {
          started.resolve(call.signal);
          return release.promise;
        }),
      );
      return { catalog, started, release };
    }

    it('counts every running request, with or without a cancel scope, until it is answered', async () => {
      const { catalog, started, release } = blocking();
      const { engine } = makeEngine(catalog);
      expect(engine.running.size).toBe(0);
      const message = modernRequest('tools/call', { name: 'block' });
      const call = engine.handle(modernFacts(message), message);
      await started.promise;
      expect(engine.running.size).toBe(1);
      expect(engine.running.longLived).toBe(0);
      let idle = false;
      const whenIdle = engine.running.whenIdle().then(() => (idle = true));
      await Promise.resolve();
      expect(idle).toBe(false);
      release.resolve('done');
      expect(resultOf(await call).content).toEqual([{ type: 'text', text: 'done' }]);
      await whenIdle;
      expect(engine.running.size).toBe(0);
    });

    it.each<['legacy' | 'modern', number]>([
      ['modern', McpErrorCode.InternalError],
      ['legacy', McpErrorCode.ServerError],
    ])('a %s call stopped by a shutdown is answered with the error (%d), and its signal aborts', async (era, code) => {
      const { catalog, started } = blocking();
      const { engine } = makeEngine(catalog);
      const message =
        era === 'modern'
          ? modernRequest('tools/call', { name: 'block' }, 7)
          : legacyRequest('tools/call', { name: 'block' }, 7);
      const call = engine.handle(era === 'modern' ? modernFacts(message) : makeFacts({ cancelScope: 's' }), message);
      const signal = await started.promise;
      expect(engine.running.abortAll(new ServerShutdownError('Server shutting down: stopped'))).toBe(1);
      expect(errorOf(await call)).toEqual({ id: 7, code, message: 'Server shutting down: stopped' });
      expect(signal.aborted).toBe(true);
      expect(engine.running.size).toBe(0);
    });

    it('runningIn counts the running requests of one cancel scope', async () => {
      const { catalog, started, release } = blocking();
      const { engine } = makeEngine(catalog);
      const call = engine.handle(
        makeFacts({ cancelScope: 'session-a' }),
        legacyRequest('tools/call', { name: 'block' }),
      );
      await started.promise;
      expect(engine.runningIn('session-a')).toBe(1);
      expect(engine.runningIn('session-b')).toBe(0);
      release.resolve('done');
      await call;
      expect(engine.runningIn('session-a')).toBe(0);
    });
  });

  describe('handler failures', () => {
    const secret = 'db password is hunter2';
    const failing = () =>
      standardCatalog()
        .addTool(
          tool('explode', () => {
            throw new Error(secret);
          }),
        )
        .addTool(
          tool('throw-string', () => {
            throw secret as unknown as Error;
          }),
        )
        .addResource({
          uri: 'test://explode',
          name: 'explode',
          read: async () => {
            throw new Error(secret);
          },
        })
        .addPrompt({
          name: 'explode',
          arguments: [{ name: 'who' }],
          completions: {
            who: () => {
              throw new Error(secret);
            },
          },
          get: async () => {
            throw new Error(secret);
          },
        });

    it.each([['explode'], ['throw-string']])(
      'a tool throwing %s gives an isError result with a generic message; the details are only logged',
      async (name) => {
        const { engine, logger } = makeEngine(failing());
        const answer = response(
          await engine.handle(makeFacts(), legacyRequest('tools/call', { name }, 'boom')),
        ) as JSONRPCResultResponse;
        expect(answer.result).toEqual({ content: [{ type: 'text', text: 'Internal tool error' }], isError: true });
        expect(JSON.stringify(answer)).not.toContain('hunter2');
        expect(logger.errors.join('\n')).toContain('hunter2');
      },
    );

    it.each([
      ['resources/read', { uri: 'test://explode' }, 'Internal resource error'],
      ['prompts/get', { name: 'explode' }, 'Internal prompt error'],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'explode' }, argument: { name: 'who', value: '' } },
        'Internal completion error',
      ],
    ])('%s answers -32603 with a generic message', async (method, params, text) => {
      const { engine, logger } = makeEngine(failing());
      for (const era of ['legacy', 'modern'] as const) {
        const message = era === 'modern' ? modernRequest(method, params) : legacyRequest(method, params);
        const facts = era === 'modern' ? modernFacts(message) : makeFacts();
        const answer = response(await engine.handle(facts, message));
        expect(answer).toMatchObject({ error: { code: -32603, message: text } });
        expect(JSON.stringify(answer)).not.toContain('hunter2');
      }
      expect(logger.errors.length).toBe(2);
    });

    it('an McpError from a handler is sent exactly as thrown', async () => {
      const catalog = standardCatalog().addTool(
        tool('refuse', () => {
          throw new McpError(-32602, 'Unknown warehouse', { warehouse: 'w9' });
        }),
      );
      const { engine } = makeEngine(catalog);
      for (const message of [
        modernRequest('tools/call', { name: 'refuse' }, 5),
        legacyRequest('tools/call', { name: 'refuse' }, 5),
      ]) {
        const facts = message.params?._meta ? modernFacts(message) : makeFacts();
        expect(errorOf(await engine.handle(facts, message))).toEqual({
          id: 5,
          code: -32602,
          message: 'Unknown warehouse',
          data: { warehouse: 'w9' },
        });
      }
    });

    describe("the observer hears each failure the engine logs, once, with the handler's own error", () => {
      const internal = new Error('what the filter saw');
      const validation = new Error('the validator broke');
      const catalog = () =>
        failing()
          .addTool(
            tool('filtered', () => {
              throw new McpInternalError(internal);
            }),
          )
          .addTool(
            tool('refuse', () => {
              throw new McpError(McpErrorCode.InvalidParams, 'Unknown warehouse');
            }),
          )
          .addTool(
            tool('reject', () => {
              throw new McpToolError('Out of stock');
            }),
          )
          .addTool(
            tool('broken-validator', () => 'never', {
              input: {
                ...anyObject,
                validate: () => {
                  throw validation;
                },
              },
            }),
          );

      function observedEngine(): { engine: McpEngine; logger: RecordingLogger; exceptions: unknown[] } {
        const exceptions: unknown[] = [];
        const observer: EngineObserver = {
          message: (_facts, _message, handle) => handle(),
          question: (_request, question) => ({ question, end: () => undefined }),
          task: () => {
            throw new Error('no task in these tests');
          },
          exception: (error) => exceptions.push(error),
        };
        return { ...makeEngine(catalog(), {}, observer), exceptions };
      }

      it.each([
        ['a tool that throws', 'tools/call', { name: 'explode' }],
        ['a resource that throws', 'resources/read', { uri: 'test://explode' }],
        ['a prompt that throws', 'prompts/get', { name: 'explode' }],
      ])('%s: its error', async (_title, method, params) => {
        const { engine, logger, exceptions } = observedEngine();
        await engine.handle(makeFacts(), legacyRequest(method, params));
        expect(logger.errors).toHaveLength(1);
        expect(exceptions).toEqual([new Error(secret)]);
      });

      it('an error a filter made 5xx (McpInternalError): the error it caught, not the wrapper', async () => {
        const { engine, logger, exceptions } = observedEngine();
        const answer = errorOf(await engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'filtered' })));
        expect(answer.code).toBe(McpErrorCode.InternalError);
        expect(logger.errors).toHaveLength(1);
        expect(exceptions).toHaveLength(1);
        expect(exceptions[0]).toBe(internal);
      });

      it('an error that escapes the handler (the generic answer of the result finisher)', async () => {
        const { engine, logger, exceptions } = observedEngine();
        const answer = errorOf(
          await engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'broken-validator' })),
        );
        expect(answer).toMatchObject({ code: McpErrorCode.InternalError, message: 'Internal error' });
        expect(logger.errors).toHaveLength(1);
        expect(exceptions).toHaveLength(1);
        expect(exceptions[0]).toBe(validation);
      });

      it('a protocol error or a tool error: nothing (the handler meant it)', async () => {
        const { engine, exceptions } = observedEngine();
        await engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'refuse' }));
        await engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'reject' }));
        expect(exceptions).toEqual([]);
      });
    });

    it('an McpToolError is an isError result carrying its message', async () => {
      const catalog = standardCatalog().addTool(
        tool('reject', () => {
          throw new McpToolError('Out of stock');
        }),
      );
      const { engine } = makeEngine(catalog);
      expect(resultOf(await engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'reject' })))).toEqual({
        content: [{ type: 'text', text: 'Out of stock' }],
        isError: true,
      });
    });
  });

  describe('tools/call', () => {
    it.each(['legacy', 'modern'] as const)('an unknown tool is -32602 (%s)', async (era) => {
      const { engine } = makeEngine();
      const message =
        era === 'modern'
          ? modernRequest('tools/call', { name: 'nope' }, 'u')
          : legacyRequest('tools/call', { name: 'nope' }, 'u');
      const facts = era === 'modern' ? modernFacts(message) : makeFacts();
      expect(errorOf(await engine.handle(facts, message))).toEqual({
        id: 'u',
        code: -32602,
        message: 'Unknown tool: nope',
      });
    });

    it.each<[string, JSONObject]>([
      ['no name', {}],
      ['a numeric name', { name: 7 }],
      ['arguments that are not an object', { name: 'echo', arguments: [1] }],
    ])('-32602 for %s', async (_label, params) => {
      const { engine } = makeEngine();
      expect(errorOf(await engine.handle(makeFacts(), legacyRequest('tools/call', params)))).toMatchObject({
        code: -32602,
      });
    });

    it('invalid arguments give an isError result and the tool does not run', async () => {
      let ran = false;
      const catalog = standardCatalog().addTool(tool('strict', () => (ran = true), { input: sumSchema }));
      const { engine } = makeEngine(catalog);
      const result = resultOf(
        await engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'strict', arguments: { a: 'x', b: 2 } })),
      );
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([
        { type: 'text', text: 'Invalid arguments for tool strict: /a and /b must be numbers' },
      ]);
      expect(ran).toBe(false);
    });

    it('passes the validated (transformed) arguments to the tool', async () => {
      const { engine } = makeEngine();
      const result = resultOf(
        await engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'sum', arguments: { a: '40', b: 2 } })),
      );
      expect(result).toEqual({ content: [{ type: 'text', text: '42' }] });
    });

    it('validates structured output against the output schema', async () => {
      const catalog = standardCatalog()
        .addTool(tool('good', () => ({ hits: 3 }), { output: hitsOutput }))
        .addTool(tool('bad', () => ({ hits: 'many' }), { output: hitsOutput }))
        .addTool(tool('none', () => 'plain text', { output: hitsOutput }));
      const { engine, logger } = makeEngine(catalog);
      const facts = makeFacts({ revision: '2025-06-18' });
      expect(resultOf(await engine.handle(facts, legacyRequest('tools/call', { name: 'good' })))).toEqual({
        content: [{ type: 'text', text: '{"hits":3}' }],
        structuredContent: { hits: 3 },
      });
      expect(resultOf(await engine.handle(facts, legacyRequest('tools/call', { name: 'bad' })))).toMatchObject({
        isError: true,
      });
      expect(resultOf(await engine.handle(facts, legacyRequest('tools/call', { name: 'none' })))).toMatchObject({
        isError: true,
      });
      expect(logger.warnings).toHaveLength(2);
    });
  });

  describe('progress', () => {
    function progressCatalog() {
      return standardCatalog().addTool(
        tool('work', (_args, call) => {
          call.progress(1, 10, 'started');
          call.progress(1, 10);
          call.progress(0.5);
          call.progress(Number.NaN);
          call.progress(3, 10);
          call.progress(2);
          call.progress(10, 10, 'done');
          return 'ok';
        }),
      );
    }

    it('is sent only with a progressToken, and only while it increases', async () => {
      const { engine } = makeEngine(progressCatalog());
      const message = modernRequest('tools/call', { name: 'work' }, 1, { progressToken: 'tok' });
      const facts = modernFacts(message);
      resultOf(await engine.handle(facts, message));
      expect(facts.notes).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 'tok', progress: 1, total: 10, message: 'started' },
        },
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 3, total: 10 } },
        {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 'tok', progress: 10, total: 10, message: 'done' },
        },
      ]);
    });

    it('stops once the request has been answered', async () => {
      let late: McpCallContext | undefined;
      const catalog = standardCatalog().addTool(
        tool('early', (_args, call) => {
          late = call;
          call.progress(1);
          return 'done';
        }),
      );
      const { engine } = makeEngine(catalog);
      const message = modernRequest('tools/call', { name: 'early' }, 1, { progressToken: 'tok' });
      const facts = modernFacts(message);
      resultOf(await engine.handle(facts, message));
      late!.progress(2);
      expect(facts.notes.map((note) => note.params?.progress)).toEqual([1]);
    });

    it('is not sent without a progressToken', async () => {
      const { engine } = makeEngine(progressCatalog());
      const message = modernRequest('tools/call', { name: 'work' });
      const facts = modernFacts(message);
      resultOf(await engine.handle(facts, message));
      expect(facts.notes).toEqual([]);
    });

    it('carries no message at 2024-11-05, which predates it', async () => {
      const { engine } = makeEngine(progressCatalog());
      const facts = makeFacts({ revision: '2024-11-05' });
      await engine.handle(facts, legacyRequest('tools/call', { name: 'work', _meta: { progressToken: 7 } }));
      expect(facts.notes).toHaveLength(3);
      expect(facts.notes.every((note) => note.params?.progressToken === 7 && !('message' in note.params))).toBe(true);
    });
  });

  describe('logging', () => {
    const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

    function loggingCatalog() {
      return standardCatalog().addTool(
        tool('chatty', (_args, call) => {
          for (const level of LEVELS) {
            call.log(level, { at: level }, level === 'error' ? 'db' : undefined);
          }
          return 'ok';
        }),
      );
    }

    const levelsOf = (notes: JSONRPCNotification[]): unknown[] => notes.map((note) => note.params?.level);

    it('modern: only with a _meta logLevel, and only levels that pass it', async () => {
      const { engine } = makeEngine(loggingCatalog());
      const message = modernRequest('tools/call', { name: 'chatty' }, 1, { [LOG_LEVEL_KEY]: 'error' });
      const facts = modernFacts(message);
      resultOf(await engine.handle(facts, message));
      expect(levelsOf(facts.notes)).toEqual(['error', 'critical', 'alert', 'emergency']);
      expect(facts.notes[0]).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'error', data: { at: 'error' }, logger: 'db' },
      });
    });

    it('modern: nothing at all without a _meta logLevel', async () => {
      const { engine } = makeEngine(loggingCatalog());
      const message = modernRequest('tools/call', { name: 'chatty' });
      const facts = modernFacts(message);
      resultOf(await engine.handle(facts, message));
      expect(facts.notes).toEqual([]);
    });

    it('legacy: filtered by the level of the session', async () => {
      const { engine } = makeEngine(loggingCatalog());
      const facts = makeFacts({ session: new FixtureSession({ logLevel: 'alert', initialized: true }) });
      await engine.handle(facts, legacyRequest('tools/call', { name: 'chatty' }));
      expect(levelsOf(facts.notes)).toEqual(['alert', 'emergency']);
    });

    it('legacy without a session: filtered by the default level', async () => {
      const { engine } = makeEngine(loggingCatalog(), { defaultLogLevel: 'warning' });
      const facts = makeFacts();
      await engine.handle(facts, legacyRequest('tools/call', { name: 'chatty' }));
      expect(levelsOf(facts.notes)).toEqual(['warning', 'error', 'critical', 'alert', 'emergency']);
    });

    it('legacy logging/setLevel changes the session level and validates it', async () => {
      const { engine } = makeEngine(loggingCatalog());
      const session = new FixtureSession({ initialized: true });
      expect(
        resultOf(await engine.handle(makeFacts({ session }), legacyRequest('logging/setLevel', { level: 'debug' }))),
      ).toEqual({});
      expect(session.state.logLevel).toBe('debug');
      expect(
        errorOf(await engine.handle(makeFacts({ session }), legacyRequest('logging/setLevel', { level: 'loud' }))),
      ).toMatchObject({ code: -32602 });
      expect(errorOf(await engine.handle(makeFacts({ session }), legacyRequest('logging/setLevel')))).toMatchObject({
        code: -32602,
      });
    });
  });
});

describe('McpEngine: asking the client', () => {
  const FORM = { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
  const ELICIT_CAPS = { [CAPABILITIES_KEY]: { elicitation: {} } };

  function askingCatalog(runs: string[]): FixtureCatalog {
    return new FixtureCatalog()
      .addTool(
        tool('ask', async (_args, call) => {
          runs.push('ask');
          const answer = await call.elicit(FORM, { key: 'name' });
          return `Hello, ${String(answer.content?.name)}`;
        }),
      )
      .addTool(
        tool('two_rounds', async (_args, call) => {
          call.state.rounds = Number(call.state.rounds ?? 0) + 1;
          const first = await call.elicit(FORM);
          const second = await call.listRoots();
          return `${String(first.content?.name)} ${second.roots.length} after ${String(call.state.rounds)} rounds`;
        }),
      )
      .addPrompt({
        name: 'context',
        arguments: [],
        completions: {},
        get: async (_args, call) => {
          const answer = await call.elicit(FORM, { key: 'ctx' });
          return `Context: ${String(answer.content?.name)}`;
        },
      });
  }

  function modernCall(name: string, params: JSONObject = {}, id: RequestId = 1, meta: JSONObject = ELICIT_CAPS) {
    const message = modernRequest('tools/call', { name, arguments: {}, ...params }, id, meta);
    return { message, facts: modernFacts(message) };
  }

  it('answers input_required, then completes on the retry without re-asking', async () => {
    const runs: string[] = [];
    const { engine } = makeEngine(askingCatalog(runs));
    const first = modernCall('ask');
    const round1 = resultOf(await engine.handle(first.facts, first.message));
    expect(round1).toMatchObject({
      resultType: 'input_required',
      inputRequests: { name: { method: 'elicitation/create', params: FORM } },
      requestState: expect.any(String),
    });
    expect(round1.ttlMs).toBeUndefined();
    const retry = modernCall('ask', {
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: round1.requestState,
    });
    const round2 = resultOf(await engine.handle(retry.facts, retry.message));
    expect(round2).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ada' }] });
    expect(runs).toEqual(['ask', 'ask']);
  });

  it('carries answers and handler state through requestState over several rounds', async () => {
    const { engine } = makeEngine(askingCatalog([]));
    const caps = { [CAPABILITIES_KEY]: { elicitation: {}, roots: {} } };
    const r1 = resultOf(
      await engine.handle(
        ...(Object.values(modernCall('two_rounds', {}, 1, caps)).reverse() as [TestFacts, JSONRPCRequest]),
      ),
    );
    expect(Object.keys(r1.inputRequests as JSONObject)).toEqual(['elicitation-1']);
    const c2 = modernCall(
      'two_rounds',
      {
        inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } },
        requestState: r1.requestState,
      },
      2,
      caps,
    );
    const r2 = resultOf(await engine.handle(c2.facts, c2.message));
    expect(r2.inputRequests).toEqual({ 'roots-1': { method: 'roots/list', params: {} } });
    expect(r2.requestState).not.toBe(r1.requestState);
    const c3 = modernCall(
      'two_rounds',
      { inputResponses: { 'roots-1': { roots: [] } }, requestState: r2.requestState },
      3,
      caps,
    );
    const r3 = resultOf(await engine.handle(c3.facts, c3.message));
    expect(r3.content).toEqual([{ type: 'text', text: 'Ada 0 after 3 rounds' }]);
  });

  it('refuses a tampered requestState without running the handler', async () => {
    const runs: string[] = [];
    const { engine, logger } = makeEngine(askingCatalog(runs));
    const first = modernCall('ask');
    const round1 = resultOf(await engine.handle(first.facts, first.message));
    const retry = modernCall('ask', { inputResponses: {}, requestState: `${String(round1.requestState)}x` });
    expect(errorOf(await engine.handle(retry.facts, retry.message))).toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: 'Invalid requestState',
    });
    expect(runs).toEqual(['ask']);
    expect(logger.warnings.join()).toContain('refused a requestState');
  });

  it('refuses a requestState presented by another principal', async () => {
    const { engine } = makeEngine(askingCatalog([]));
    const first = modernCall('ask');
    const round1 = resultOf(
      await engine.handle({ ...first.facts, principal: { id: 'alice', scopes: [] } }, first.message),
    );
    const retry = modernCall('ask', { requestState: round1.requestState });
    const outcome = await engine.handle({ ...retry.facts, principal: { id: 'bob', scopes: [] } }, retry.message);
    expect(errorOf(outcome).code).toBe(McpErrorCode.InvalidParams);
  });

  it('refuses a question the client has no capability for with -32021', async () => {
    const { engine } = makeEngine(askingCatalog([]));
    const call = modernCall('ask', {}, 1, {});
    expect(errorOf(await engine.handle(call.facts, call.message))).toMatchObject({
      code: McpErrorCode.MissingRequiredClientCapability,
      data: { requiredCapabilities: { elicitation: {} } },
    });
  });

  it('asks on prompts/get too', async () => {
    const { engine } = makeEngine(askingCatalog([]));
    const message = modernRequest('prompts/get', { name: 'context' }, 1, ELICIT_CAPS);
    const round1 = resultOf(await engine.handle(modernFacts(message), message));
    expect(round1.resultType).toBe('input_required');
    const retry = modernRequest(
      'prompts/get',
      {
        name: 'context',
        inputResponses: { ctx: { action: 'accept', content: { name: 'docs' } } },
        requestState: round1.requestState,
      },
      2,
      ELICIT_CAPS,
    );
    expect(resultOf(await engine.handle(modernFacts(retry), retry)).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Context: docs' } },
    ]);
  });

  it('legacy: sends the question on the call stream and resolves with the answer delivered for the session', async () => {
    const { engine } = makeEngine(askingCatalog([]));
    const sent: JSONRPCRequest[] = [];
    const session = new FixtureSession({ clientCapabilities: { elicitation: {} }, protocolVersion: '2025-11-25' });
    const facts = makeFacts({
      session,
      revision: '2025-11-25',
      cancelScope: session.id,
      channel: { notify: () => undefined, request: (message) => sent.push(message) > 0 },
    });
    const pending = engine.handle(facts, legacyRequest('tools/call', { name: 'ask', arguments: {} }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'elicitation/create', params: FORM });
    expect(engine.deliverResponse('another-session', { jsonrpc: '2.0', id: sent[0].id, result: {} })).toBe(false);
    expect(
      engine.deliverResponse(session.id, {
        jsonrpc: '2.0',
        id: sent[0].id,
        result: { action: 'accept', content: { name: 'Grace' } },
      }),
    ).toBe(true);
    expect(resultOf(await pending).content).toEqual([{ type: 'text', text: 'Hello, Grace' }]);
  });

  it('legacy: a question the client does not answer in time is cancelled on the client too', async () => {
    const { engine } = makeEngine(askingCatalog([]), { clientRequestTimeoutMs: 20 });
    const sent: JSONRPCRequest[] = [];
    const notes: JSONRPCNotification[] = [];
    const session = new FixtureSession({ clientCapabilities: { elicitation: {} }, protocolVersion: '2025-11-25' });
    const facts = makeFacts({
      session,
      revision: '2025-11-25',
      cancelScope: session.id,
      channel: { notify: (message) => notes.push(message), request: (message) => sent.push(message) > 0 },
    });
    const outcome = await engine.handle(facts, legacyRequest('tools/call', { name: 'ask', arguments: {} }));
    expect(sent).toHaveLength(1);
    expect(notes).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: sent[0].id, reason: 'The client did not answer elicitation/create within 20 ms' },
      },
    ]);
    expect(errorOf(outcome)).toMatchObject({
      code: McpErrorCode.InternalError,
      message: 'The client did not answer elicitation/create within 20 ms',
    });
    expect(engine.clientRequests.size).toBe(0);
  });

  it('legacy: a session that ends fails the waiting question', async () => {
    const { engine } = makeEngine(askingCatalog([]));
    const session = new FixtureSession({ clientCapabilities: { elicitation: {} }, protocolVersion: '2025-11-25' });
    const facts = makeFacts({
      session,
      revision: '2025-11-25',
      cancelScope: session.id,
      channel: { notify: () => undefined, request: () => true },
    });
    const pending = engine.handle(facts, legacyRequest('tools/call', { name: 'ask', arguments: {} }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(engine.clientRequests.size).toBe(1);
    engine.abortScope(session.id);
    expect((await pending).type).toBe('none');
    expect(engine.clientRequests.size).toBe(0);
  });

  describe('maxPendingQuestions', () => {
    /** A legacy session whose questions are recorded and never answered. */
    function askingSession(id: string): { facts: RequestFacts; sent: JSONRPCRequest[]; id: string } {
      const sent: JSONRPCRequest[] = [];
      const session = new FixtureSession({ clientCapabilities: { elicitation: {} }, protocolVersion: '2025-11-25' });
      const facts = makeFacts({
        session,
        revision: '2025-11-25',
        cancelScope: id,
        channel: { notify: () => undefined, request: (message) => sent.push(message) > 0 },
      });
      return { facts, sent, id };
    }
    const ask = (id: number) => legacyRequest('tools/call', { name: 'ask', arguments: {} }, id);

    it('legacy: a question past the bound of its session fails its call at once, naming the option; other sessions still ask', async () => {
      const { engine, logger } = makeEngine(askingCatalog([]), { maxPendingQuestions: 2 });
      const full = askingSession('session-1');
      const parked = [engine.handle(full.facts, ask(1)), engine.handle(full.facts, ask(2))];
      await new Promise((resolve) => setImmediate(resolve));
      expect(full.sent).toHaveLength(2);

      const refused = [await engine.handle(full.facts, ask(3)), await engine.handle(full.facts, ask(4))];
      const message =
        'Too many questions waiting for the client in this session: at most 2 (McpModule option maxPendingQuestions)';
      for (const [index, outcome] of refused.entries()) {
        expect(errorOf(outcome)).toEqual({ id: index + 3, code: McpErrorCode.InternalError, message });
      }
      expect(full.sent).toHaveLength(2);
      expect(engine.running.size).toBe(2);
      // One warning for the operator, not one per refusal.
      expect(logger.warnings).toEqual([`Refused elicitation/create in session ${full.id}: ${message}`]);

      const other = askingSession('session-2');
      void engine.handle(other.facts, ask(1));
      await new Promise((resolve) => setImmediate(resolve));
      expect(other.sent).toHaveLength(1);

      // An answer makes room for the next question.
      engine.deliverResponse(full.id, { jsonrpc: '2.0', id: full.sent[0].id, result: { action: 'decline' } });
      expect(resultOf(await parked[0]).content).toEqual([{ type: 'text', text: 'Hello, undefined' }]);
      void engine.handle(full.facts, ask(5));
      await new Promise((resolve) => setImmediate(resolve));
      expect(full.sent).toHaveLength(3);
      engine.abortScope(full.id);
      engine.abortScope(other.id);
      expect(engine.clientRequests.size).toBe(0);
    });
  });
});

describe('ctx.closeStream()', () => {
  function closingEngine(): McpEngine {
    return makeEngine(
      new FixtureCatalog().addTool(
        tool('poll', async (_args, call) => {
          call.closeStream();
          return 'done';
        }),
      ),
    ).engine;
  }

  it.each([
    ['2025-11-25', 1],
    ['2025-06-18', 0],
    ['2025-03-26', 0],
    ['2024-11-05', 0],
  ] as const)('legacy %s: asks the channel to close the stream %i time(s)', async (revision, times) => {
    const closeStream = jest.fn();
    const facts = makeFacts({ revision, channel: { notify: () => undefined, closeStream } });
    const outcome = await closingEngine().handle(facts, legacyRequest('tools/call', { name: 'poll', arguments: {} }));
    expect(resultOf(outcome).content).toEqual([{ type: 'text', text: 'done' }]);
    expect(closeStream).toHaveBeenCalledTimes(times);
  });

  it('does nothing in the modern era, whose streams are not resumable', async () => {
    const closeStream = jest.fn();
    const message = modernRequest('tools/call', { name: 'poll', arguments: {} });
    const facts = makeFacts({
      era: 'modern',
      headers: modernHeaders(message),
      channel: { notify: () => undefined, closeStream },
    });
    expect(resultOf(await closingEngine().handle(facts, message)).content).toEqual([{ type: 'text', text: 'done' }]);
    expect(closeStream).not.toHaveBeenCalled();
  });

  it('is a no-op on a channel that cannot close streams', async () => {
    const facts = makeFacts({ revision: '2025-11-25' });
    const outcome = await closingEngine().handle(facts, legacyRequest('tools/call', { name: 'poll', arguments: {} }));
    expect(resultOf(outcome).content).toEqual([{ type: 'text', text: 'done' }]);
  });
});

describe('McpEngine: answers as synchronously as the handler does', () => {
  /** A tool whose invoker answers as the method does (the fixture's `tool` always answers with a promise). */
  const direct = (name: string, invoke: (args: any) => unknown): McpToolEntry =>
    tool(name, invoke, { invoke: (args) => invoke(args) });

  it.each(['legacy', 'modern'] as const)(
    'a tool that answers at once is answered without a promise, and its request is over (%s)',
    (era) => {
      const { engine } = makeEngine(standardCatalog().addTool(direct('now', (args: { text: string }) => args.text)));
      const message =
        era === 'modern'
          ? modernRequest('tools/call', { name: 'now', arguments: { text: 'now' } }, 1)
          : legacyRequest('tools/call', { name: 'now', arguments: { text: 'now' } }, 1);
      const facts = era === 'modern' ? modernFacts(message) : makeFacts({ cancelScope: 'session-a' });
      const outcome = engine.handle(facts, message);
      expect(isThenable(outcome)).toBe(false);
      expect(resultOf(outcome as EngineOutcome).content).toEqual([{ type: 'text', text: 'now' }]);
      expect(engine.runningIn('session-a')).toBe(0);
    },
  );

  it('a tool that throws at once is answered at once, as it would be from a promise', () => {
    const catalog = standardCatalog()
      .addTool(
        direct('refuse', () => {
          throw new McpError(-32602, 'Unknown warehouse');
        }),
      )
      .addTool(
        direct('reject', () => {
          throw new McpToolError('Out of stock');
        }),
      );
    const { engine } = makeEngine(catalog);
    const refused = engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'refuse' }, 2));
    const rejected = engine.handle(makeFacts(), legacyRequest('tools/call', { name: 'reject' }, 3));
    expect(isThenable(refused) || isThenable(rejected)).toBe(false);
    expect(errorOf(refused as EngineOutcome)).toMatchObject({ id: 2, code: -32602, message: 'Unknown warehouse' });
    expect(resultOf(rejected as EngineOutcome)).toEqual({
      content: [{ type: 'text', text: 'Out of stock' }],
      isError: true,
    });
  });

  it('a tool that answers with a promise is answered with a promise, counted as running until it settles', async () => {
    let finish: (text: string) => void = () => undefined;
    const catalog = standardCatalog().addTool(
      direct('later', () => new Promise<string>((resolve) => (finish = resolve))),
    );
    const { engine } = makeEngine(catalog);
    const outcome = engine.handle(
      makeFacts({ cancelScope: 'session-b' }),
      legacyRequest('tools/call', { name: 'later' }, 4),
    );
    expect(isThenable(outcome)).toBe(true);
    expect(engine.runningIn('session-b')).toBe(1);
    finish('done');
    expect(resultOf(await outcome).content).toEqual([{ type: 'text', text: 'done' }]);
    expect(engine.runningIn('session-b')).toBe(0);
  });
});
