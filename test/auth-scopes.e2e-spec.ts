/**
 * Scopes and visibility, end to end on Express and Fastify: bearer static tokens for three
 * principals (no scopes; notes:read; notes:read + notes:write + admin with the claim role=admin)
 * against tools, resources, templates and prompts that require scopes (`@McpScopes` on methods
 * and classes, `scopes` at runtime) or are hidden by a visibility guard.
 *
 * - the four lists per principal in both eras, and their `cacheScope` in the modern era;
 * - calls without the scopes: 403 with the step-up challenge and -32003 on Streamable HTTP and
 *   the simple endpoint (no challenge with API keys), the bare JSON-RPC error on the SSE pair and
 *   on stdio; with the scopes every call succeeds;
 * - the official v1 and v2 clients: what they throw, and what `listTools()` shows.
 */
import {
  Client as ClientV2,
  InsufficientScopeError,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport as TransportV1,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Test, type TestingModule } from '@nestjs/testing';
import { type CanActivate, Injectable, Module, Scope, UseGuards } from '@nestjs/common';
import {
  McpErrorCode,
  McpConfigurationError,
  McpModule,
  type McpPrincipal,
  McpTool,
  McpVisibilityGuard,
} from 'nest-mcp';
import { McpStderrLogger, McpStdioServer } from 'nest-mcp/stdio';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import {
  legacyRequest,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  type RawResponse,
  type RpcMessage,
  SseEventReader,
} from './fixtures/raw-rpc';
import {
  API_KEY_AUTH,
  bearer,
  GuardProbe,
  type PrincipalName,
  PRINCIPALS,
  RESOURCE_METADATA_URL,
  ScopesFixtureModule,
  TOKENS,
  VISIBLE,
} from './fixtures/scopes-fixture';
import { StdioPeer } from './fixtures/stdio-fixture.module';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const ERAS = ['legacy', 'modern'] as const;
type EraName = (typeof ERAS)[number];
const PRINCIPAL_NAMES: PrincipalName[] = ['guest', 'reader', 'admin'];
const LEGACY_REVISION = '2025-11-25';

/** The four list methods: the result field, and the key of an entry. */
const LISTS = [
  { kind: 'tools', method: 'tools/list', field: 'tools', key: 'name' },
  { kind: 'prompts', method: 'prompts/list', field: 'prompts', key: 'name' },
  { kind: 'resources', method: 'resources/list', field: 'resources', key: 'uri' },
  { kind: 'templates', method: 'resources/templates/list', field: 'resourceTemplates', key: 'uriTemplate' },
] as const;

/** The step-up challenge of a 403 naming `scopes`. */
function stepUpChallenge(scopes: readonly string[]): string {
  return (
    `Bearer realm="mcp", error="insufficient_scope", scope="${scopes.join(' ')}", ` +
    `error_description="The token lacks a scope this request needs", resource_metadata="${RESOURCE_METADATA_URL}"`
  );
}

/** A request that needs scopes the guest lacks, and what a principal holding them gets. */
interface ScopedCase {
  readonly title: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly message: string;
  readonly required: readonly string[];
  /** Checks the result of a successful call. */
  readonly success: (result: Record<string, any>) => void;
}

const SCOPED_CASES: ScopedCase[] = [
  {
    title: 'tools/call of a tool scoped on its method',
    method: 'tools/call',
    params: { name: 'write_note', arguments: {} },
    message: 'Insufficient scope for tool write_note',
    required: ['notes:write'],
    success: (result) => expect(result.content).toEqual([{ type: 'text', text: 'written by admin' }]),
  },
  {
    title: 'tools/call of a tool scoped on its class and its method',
    method: 'tools/call',
    params: { name: 'edit_note', arguments: {} },
    message: 'Insufficient scope for tool edit_note',
    required: ['notes:read', 'notes:write'],
    success: (result) => expect(result.content).toEqual([{ type: 'text', text: 'edited by admin' }]),
  },
  {
    title: 'tools/call of a tool scoped at runtime',
    method: 'tools/call',
    params: { name: 'runtime_report', arguments: {} },
    message: 'Insufficient scope for tool runtime_report',
    required: ['notes:read'],
    success: (result) => expect(result.content).toEqual([{ type: 'text', text: 'report for admin' }]),
  },
  {
    title: 'resources/read of a scoped resource',
    method: 'resources/read',
    params: { uri: 'notes://index' },
    message: 'Insufficient scope for resource notes://index',
    required: ['notes:read'],
    success: (result) =>
      expect(result.contents).toEqual([{ uri: 'notes://index', mimeType: 'text/plain', text: 'n1,n2,x9' }]),
  },
  {
    title: 'resources/read of a URI of a scoped template',
    method: 'resources/read',
    params: { uri: 'notes://items/n2' },
    message: 'Insufficient scope for resource notes://items/n2',
    required: ['notes:read'],
    success: (result) =>
      expect(result.contents).toEqual([{ uri: 'notes://items/n2', mimeType: 'text/plain', text: 'note n2' }]),
  },
  {
    title: 'prompts/get of a scoped prompt',
    method: 'prompts/get',
    params: { name: 'summarize', arguments: { style: 'brief' } },
    message: 'Insufficient scope for prompt summarize',
    required: ['notes:read'],
    success: (result) =>
      expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Summarize brief' } }]),
  },
  {
    title: 'completion/complete of an argument of a scoped prompt',
    method: 'completion/complete',
    params: { ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'style', value: 'b' } },
    message: 'Insufficient scope for completions of summarize',
    required: ['notes:read'],
    success: (result) => expect(result.completion).toEqual({ values: ['brief', 'bullet'], total: 2, hasMore: false }),
  },
  {
    title: 'completion/complete of a variable of a scoped template',
    method: 'completion/complete',
    params: { ref: { type: 'ref/resource', uri: 'notes://items/{id}' }, argument: { name: 'id', value: 'n' } },
    message: 'Insufficient scope for completions of notes://items/{id}',
    required: ['notes:read'],
    success: (result) => expect(result.completion).toEqual({ values: ['n1', 'n2'], total: 2, hasMore: false }),
  },
];

/** The `Mcp-Name` of a modern request, where its method has one. */
function mcpNameOf(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'resources/read') {
    return String(params.uri);
  }
  return method === 'tools/call' || method === 'prompts/get' ? String(params.name) : undefined;
}

/** A modern POST with the envelope and the standard headers, plus `headers`. */
function postModern(
  url: URL,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string>,
  id: number | string = 1,
): Promise<RawResponse> {
  return post(url, modernRequest(method, params, id), {
    ...modernHeaders(method, mcpNameOf(method, params)),
    ...headers,
  });
}

/** The JSON-RPC insufficient-scope error of `scopedCase`. */
function scopeError(scopedCase: ScopedCase, id: number | string = 1): RpcMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: McpErrorCode.InsufficientScope,
      message: scopedCase.message,
      data: { requiredScopes: [...scopedCase.required] },
    },
  };
}

/** The names (or URIs) of a list result. */
function keysOf(result: Record<string, any>, list: (typeof LISTS)[number]): string[] {
  return (result[list.field] as Array<Record<string, string>>).map((entry) => entry[list.key]);
}

describe.each(PLATFORMS)('scopes and visibility over HTTP (%s)', (platform) => {
  let server: HttpApp;
  let probe: GuardProbe;
  let rpcUrl: URL;
  /** A legacy session on the Streamable HTTP endpoint per principal: the headers of its requests. */
  const sessions = {} as Record<PrincipalName, Record<string, string>>;

  beforeAll(async () => {
    server = await startHttpApp(
      ScopesFixtureModule.forRoot({
        cacheHints: { scope: 'public' },
        simpleHttpPath: 'rpc',
        ssePath: 'sse',
        sseMessagesPath: 'messages',
      }),
      { platform },
    );
    probe = server.app.get(GuardProbe);
    rpcUrl = new URL('/rpc', server.baseUrl);
    for (const name of PRINCIPAL_NAMES) {
      sessions[name] = (await openLegacySession(server.url, LEGACY_REVISION, { headers: bearer(name) })).headers;
    }
  });

  afterAll(async () => {
    await server?.close();
  });

  beforeEach(() => probe.clear());

  /** One request of `era` to the Streamable HTTP endpoint as `principal` (legacy: in its session). */
  function streamable(
    era: EraName,
    principal: PrincipalName,
    method: string,
    params: Record<string, unknown>,
    id: number | string = 1,
  ): Promise<RawResponse> {
    return era === 'legacy'
      ? post(server.url, legacyRequest(method, params, id), sessions[principal])
      : postModern(server.url, method, params, bearer(principal), id);
  }

  /** One request of `era` to the simple endpoint as `principal` (no session in either era). */
  function simple(
    era: EraName,
    principal: PrincipalName,
    method: string,
    params: Record<string, unknown>,
    id: number | string = 1,
  ): Promise<RawResponse> {
    return era === 'legacy'
      ? post(rpcUrl, legacyRequest(method, params, id), {
          ...bearer(principal),
          'mcp-protocol-version': LEGACY_REVISION,
        })
      : postModern(rpcUrl, method, params, bearer(principal), id);
  }

  describe('lists show each principal what it may call', () => {
    describe.each(ERAS)('%s era', (era) => {
      it.each(PRINCIPAL_NAMES)('as %s: exact names in tools, prompts, resources and templates lists', async (name) => {
        for (const list of LISTS) {
          const response = await streamable(era, name, list.method, {});
          expect({ list: list.method, status: response.status }).toEqual({ list: list.method, status: 200 });
          expect({ list: list.method, keys: keysOf(response.json.result, list) }).toEqual({
            list: list.method,
            keys: VISIBLE[list.kind][name],
          });
          if (era === 'modern') {
            // Every kind has an entry with rules: the list depends on who asks, despite the 'public' hint.
            expect({ list: list.method, cacheScope: response.json.result.cacheScope }).toEqual({
              list: list.method,
              cacheScope: 'private',
            });
          } else {
            expect(response.json.result).not.toHaveProperty('cacheScope');
          }
        }
      });
    });

    it('the simple endpoint filters lists the same way, in both eras', async () => {
      for (const era of ERAS) {
        const reader = await simple(era, 'reader', 'tools/list', {});
        expect(reader.status).toBe(200);
        expect(keysOf(reader.json.result, LISTS[0])).toEqual(VISIBLE.tools.reader);
        const admin = await simple(era, 'admin', 'resources/templates/list', {});
        expect(keysOf(admin.json.result, LISTS[3])).toEqual(VISIBLE.templates.admin);
      }
    });

    it('runs the visibility guard for lists with the list context; the unmarked guard never runs there', async () => {
      await streamable('modern', 'reader', 'tools/list', {});
      await streamable('legacy', 'admin', 'tools/list', {});
      expect(probe.runs).toEqual([
        { guard: 'AdminOnly', method: 'tools/list', listing: true, principal: 'reader', allowed: false },
        { guard: 'AdminOnly', method: 'tools/list', listing: true, principal: 'admin', allowed: true },
      ]);
    });

    it('lists are not cached across principals: the same request as another principal gives its own list', async () => {
      const admin = await streamable('modern', 'admin', 'tools/list', {});
      const guest = await streamable('modern', 'guest', 'tools/list', {});
      const again = await streamable('modern', 'admin', 'tools/list', {});
      expect(keysOf(admin.json.result, LISTS[0])).toEqual(VISIBLE.tools.admin);
      expect(keysOf(guest.json.result, LISTS[0])).toEqual(VISIBLE.tools.guest);
      expect(keysOf(again.json.result, LISTS[0])).toEqual(VISIBLE.tools.admin);
    });
  });

  describe('the visibility guard also guards calls', () => {
    it.each(ERAS)(
      '%s era: the guard refuses the call of a non-admin (access denied, -32004), admits the admin',
      async (era) => {
        const refused = await streamable(era, 'reader', 'tools/call', { name: 'admin_panel', arguments: {} });
        expect(refused.status).toBe(200);
        expect(refused.json.error).toEqual({ code: -32004, message: 'Forbidden resource', data: { status: 403 } });
        const admitted = await streamable(era, 'admin', 'tools/call', { name: 'admin_panel', arguments: {} });
        expect(admitted.json.result.content).toEqual([{ type: 'text', text: 'admin panel for admin' }]);
        expect(admitted.json.result.isError).toBeUndefined();
        expect(probe.runs).toEqual([
          { guard: 'AdminOnly', method: 'tools/call', listing: false, principal: 'reader', allowed: false },
          { guard: 'AdminOnly', method: 'tools/call', listing: false, principal: 'admin', allowed: true },
        ]);
      },
    );

    it('the unmarked guard runs for calls only: the guest sees and calls the tool it guards', async () => {
      const list = await streamable('modern', 'guest', 'tools/list', {});
      expect(keysOf(list.json.result, LISTS[0])).toContain('audited');
      const call = await streamable('modern', 'guest', 'tools/call', { name: 'audited', arguments: {} });
      expect(call.json.result.content).toEqual([{ type: 'text', text: 'audited for guest' }]);
      expect(probe.runs.filter((run) => run.guard === 'NotInLists')).toEqual([
        { guard: 'NotInLists', method: 'tools/call', listing: false, principal: 'guest', allowed: true },
      ]);
    });

    it('`visible` of a runtime tool decides lists only: the reader does not see runtime_report but may call it', async () => {
      const list = await streamable('modern', 'reader', 'tools/list', {});
      expect(keysOf(list.json.result, LISTS[0])).not.toContain('runtime_report');
      const call = await streamable('modern', 'reader', 'tools/call', { name: 'runtime_report', arguments: {} });
      expect(call.status).toBe(200);
      expect(call.json.result.content).toEqual([{ type: 'text', text: 'report for reader' }]);
    });
  });

  describe.each([
    { endpoint: 'Streamable HTTP', via: 'streamable' as const },
    { endpoint: 'the simple endpoint', via: 'simple' as const },
  ])('calls without the scopes on $endpoint', ({ via }) => {
    const send = (...args: Parameters<typeof simple>): Promise<RawResponse> =>
      via === 'simple' ? simple(...args) : streamable(...args);

    it.each(SCOPED_CASES)('$title: 403, the step-up challenge and -32003 in both eras', async (scopedCase) => {
      for (const era of ERAS) {
        const refused = await send(era, 'guest', scopedCase.method, scopedCase.params, 7);
        expect({ era, status: refused.status }).toEqual({ era, status: 403 });
        expect(refused.headers.get('content-type')).toContain('application/json');
        expect(refused.headers.get('www-authenticate')).toBe(stepUpChallenge(scopedCase.required));
        expect(refused.json).toEqual(scopeError(scopedCase, 7));
      }
    });

    it.each(SCOPED_CASES)('$title: succeeds with the scopes in both eras', async (scopedCase) => {
      for (const era of ERAS) {
        const allowed = await send(era, 'admin', scopedCase.method, scopedCase.params, 8);
        expect({ era, status: allowed.status }).toEqual({ era, status: 200 });
        expect(allowed.headers.get('www-authenticate')).toBeNull();
        expect(allowed.json.error).toBeUndefined();
        scopedCase.success(allowed.json.result);
      }
    });

    it('names every scope the entry requires, not only the missing one (the reader lacks notes:write)', async () => {
      for (const era of ERAS) {
        const refused = await send(era, 'reader', 'tools/call', { name: 'edit_note', arguments: {} });
        expect(refused.status).toBe(403);
        expect(refused.headers.get('www-authenticate')).toBe(
          'Bearer realm="mcp", error="insufficient_scope", scope="notes:read notes:write", ' +
            'error_description="The token lacks a scope this request needs", ' +
            'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
        );
        expect(refused.json.error).toEqual({
          code: -32003,
          message: 'Insufficient scope for tool edit_note',
          data: { requiredScopes: ['notes:read', 'notes:write'] },
        });
        const allowed = await send(era, 'reader', 'tools/call', { name: 'read_note', arguments: {} });
        expect(allowed.status).toBe(200);
        expect(allowed.json.result.content).toEqual([{ type: 'text', text: 'read by reader' }]);
      }
    });
  });

  it('inside a batch (2025-03-26 session) the refusal is just the JSON-RPC error: no 403, no challenge', async () => {
    const session = await openLegacySession(server.url, '2025-03-26', { headers: bearer('guest') });
    const response = await post(
      server.url,
      [
        legacyRequest('tools/call', { name: 'edit_note', arguments: {} }, 'b1'),
        legacyRequest('tools/call', { name: 'open_tool', arguments: {} }, 'b2'),
      ],
      session.headers,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('www-authenticate')).toBeNull();
    // Either a JSON array or an SSE stream may carry the responses, in any order.
    const responses = response.json ?? response.events;
    expect(responses).toHaveLength(2);
    expect(responses).toEqual(
      expect.arrayContaining([
        scopeError(SCOPED_CASES[1], 'b1'),
        { jsonrpc: '2.0', id: 'b2', result: { content: [{ type: 'text', text: 'open for guest' }] } },
      ]),
    );
  });

  describe('the HTTP+SSE pair: the error arrives on the stream', () => {
    let reader: SseEventReader | undefined;

    afterEach(async () => {
      await reader?.cancel();
      reader = undefined;
    });

    it('a call without the scopes is accepted with 202 and answered with -32003 on the stream; with them it works', async () => {
      const response = await fetch(new URL('/sse', server.baseUrl), {
        headers: { accept: 'text/event-stream', ...bearer('reader') },
      });
      expect(response.status).toBe(200);
      reader = new SseEventReader(response);
      const endpoint = await reader.nextEvent();
      expect(endpoint.event).toBe('endpoint');
      const messages = new URL(String(endpoint.data), server.baseUrl);
      const headers = bearer('reader');
      const init = await post(
        messages,
        legacyRequest(
          'initialize',
          { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'sse', version: '1' } },
          'init',
        ),
        headers,
      );
      expect(init.status).toBe(202);
      expect((await reader.nextMessage()).id).toBe('init');
      expect((await post(messages, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);

      const refused = await post(
        messages,
        legacyRequest('tools/call', { name: 'edit_note', arguments: {} }, 2),
        headers,
      );
      expect({ status: refused.status, text: refused.text }).toEqual({ status: 202, text: '' });
      expect(refused.headers.get('www-authenticate')).toBeNull();
      expect(await reader.nextMessage()).toEqual(scopeError(SCOPED_CASES[1], 2));

      const list = await post(messages, legacyRequest('tools/list', {}, 3), headers);
      expect(list.status).toBe(202);
      const listed = await reader.nextMessage();
      expect(listed.id).toBe(3);
      expect(keysOf(listed.result!, LISTS[0])).toEqual(VISIBLE.tools.reader);

      expect(
        (await post(messages, legacyRequest('tools/call', { name: 'read_note', arguments: {} }, 4), headers)).status,
      ).toBe(202);
      expect(await reader.nextMessage()).toEqual(
        expect.objectContaining({
          id: 4,
          result: expect.objectContaining({ content: [{ type: 'text', text: 'read by reader' }] }),
        }),
      );
    });
  });

  describe('the official clients', () => {
    const closers: Array<() => Promise<void>> = [];

    afterEach(async () => {
      await Promise.all(closers.splice(0).map((close) => close()));
    });

    async function v1Client(principal: PrincipalName): Promise<ClientV1> {
      const client = new ClientV1({ name: 'v1-scopes', version: '1.0.0' });
      await client.connect(new TransportV1(server.url, { requestInit: { headers: bearer(principal) } }));
      closers.push(() => client.close());
      return client;
    }

    async function v2Client(principal: PrincipalName): Promise<ClientV2> {
      const client = new ClientV2(
        { name: 'v2-scopes', version: '2.0.0' },
        { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
      );
      await client.connect(new TransportV2(server.url, { requestInit: { headers: bearer(principal) } }));
      closers.push(() => client.close());
      return client;
    }

    it('v1 client (legacy): listTools() shows only the visible tools; callTool without the scope rejects with 403', async () => {
      const reader = await v1Client('reader');
      expect((await reader.listTools()).tools.map((tool) => tool.name)).toEqual(VISIBLE.tools.reader);
      const error = await reader.callTool({ name: 'edit_note', arguments: {} }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(403);
      // Without an auth provider the SDK does not step up: it reports the 403 with the JSON-RPC body.
      expect((error as Error).message).toContain('"code":-32003');
      expect((error as Error).message).toContain('Insufficient scope for tool edit_note');
      expect((await reader.callTool({ name: 'read_note', arguments: {} })).content).toEqual([
        { type: 'text', text: 'read by reader' },
      ]);

      const admin = await v1Client('admin');
      expect((await admin.listTools()).tools.map((tool) => tool.name)).toEqual(VISIBLE.tools.admin);
      expect((await admin.callTool({ name: 'edit_note', arguments: {} })).content).toEqual([
        { type: 'text', text: 'edited by admin' },
      ]);
    });

    it('v2 client (modern): listTools() shows only the visible tools; callTool without the scope rejects with InsufficientScopeError', async () => {
      const reader = await v2Client('reader');
      expect(reader.getProtocolEra()).toBe('modern');
      expect((await reader.listTools()).tools.map((tool) => tool.name)).toEqual(VISIBLE.tools.reader);
      const error = await reader.callTool({ name: 'edit_note', arguments: {} }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(InsufficientScopeError);
      expect(error).toMatchObject({
        requiredScope: 'notes:read notes:write',
        resourceMetadataUrl: new URL(RESOURCE_METADATA_URL),
        errorDescription: 'The token lacks a scope this request needs',
      });
      expect((await reader.callTool({ name: 'read_note', arguments: {} })).content).toEqual([
        { type: 'text', text: 'read by reader' },
      ]);

      const admin = await v2Client('admin');
      expect((await admin.listTools()).tools.map((tool) => tool.name)).toEqual(VISIBLE.tools.admin);
      expect((await admin.callTool({ name: 'edit_note', arguments: {} })).content).toEqual([
        { type: 'text', text: 'edited by admin' },
      ]);
    });
  });
});

describe.each(PLATFORMS)('cacheScope of lists without any rules (%s)', (platform) => {
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(
      ScopesFixtureModule.forRoot({ cacheHints: { scope: 'public' } }, { openPromptsOnly: true }),
      {
        platform,
      },
    );
  });

  afterAll(async () => {
    await server?.close();
  });

  it('a kind without rules keeps the configured "public"; a kind with rules is "private"', async () => {
    const prompts = await postModern(server.url, 'prompts/list', {}, bearer('guest'));
    expect(prompts.status).toBe(200);
    expect(prompts.json.result.prompts.map((prompt: { name: string }) => prompt.name)).toEqual(['hello']);
    expect(prompts.json.result.cacheScope).toBe('public');
    const tools = await postModern(server.url, 'tools/list', {}, bearer('guest'));
    expect(tools.json.result.cacheScope).toBe('private');
  });
});

describe.each(PLATFORMS)('insufficient scope with API keys (%s)', (platform) => {
  let server: HttpApp;

  beforeAll(async () => {
    server = await startHttpApp(ScopesFixtureModule.forRoot({ auth: API_KEY_AUTH, simpleHttpPath: 'rpc' }), {
      platform,
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('answers 403 with -32003 and no WWW-Authenticate, on Streamable HTTP (both eras) and the simple endpoint', async () => {
    const key = { 'x-api-key': TOKENS.reader };
    const call = { name: 'edit_note', arguments: {} };
    const session = await openLegacySession(server.url, LEGACY_REVISION, { headers: key });
    const answers = {
      legacy: await post(server.url, legacyRequest('tools/call', call, 3), session.headers),
      modern: await postModern(server.url, 'tools/call', call, key, 3),
      simple: await postModern(new URL('/rpc', server.baseUrl), 'tools/call', call, key, 3),
    };
    for (const [where, answer] of Object.entries(answers)) {
      expect({ where, status: answer.status, challenge: answer.headers.get('www-authenticate') }).toEqual({
        where,
        status: 403,
        challenge: null,
      });
      expect(answer.json).toEqual(scopeError(SCOPED_CASES[1], 3));
    }
    const allowed = await postModern(server.url, 'tools/call', { name: 'read_note', arguments: {} }, key);
    expect(allowed.status).toBe(200);
    expect(allowed.json.result.content).toEqual([{ type: 'text', text: 'read by reader' }]);
  });
});

describe('scopes on stdio (in process)', () => {
  let moduleRef: TestingModule;
  let server: McpStdioServer;
  const peers: StdioPeer[] = [];

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({ imports: [ScopesFixtureModule.forRoot()] })
      .setLogger(new McpStderrLogger({ logLevels: ['error', 'warn'] }))
      .compile();
    await moduleRef.init();
    server = moduleRef.get(McpStdioServer);
  });

  afterEach(async () => {
    await Promise.all(peers.splice(0).map((peer) => peer.end()));
  });

  afterAll(async () => {
    await moduleRef?.close();
  });

  const connect = (principal: McpPrincipal): StdioPeer => {
    const peer = new StdioPeer(server, { principal });
    peers.push(peer);
    return peer;
  };

  it('a principal without the scope gets -32003; with it the call works; tools/list is filtered (modern)', async () => {
    const reader = connect(PRINCIPALS.reader);
    reader.send(modernRequest('tools/call', { name: 'edit_note', arguments: {} }, 'edit'));
    expect(await reader.answer('edit')).toEqual(scopeError(SCOPED_CASES[1], 'edit'));
    reader.send(modernRequest('tools/call', { name: 'read_note', arguments: {} }, 'read'));
    expect((await reader.answer('read')).result?.content).toEqual([{ type: 'text', text: 'read by reader' }]);
    reader.send(modernRequest('tools/list', {}, 'list'));
    const list = await reader.answer('list');
    expect(keysOf(list.result!, LISTS[0])).toEqual(VISIBLE.tools.reader);
    expect(list.result?.cacheScope).toBe('private');

    const admin = connect(PRINCIPALS.admin);
    admin.send(modernRequest('tools/call', { name: 'edit_note', arguments: {} }, 'edit'));
    expect((await admin.answer('edit')).result?.content).toEqual([{ type: 'text', text: 'edited by admin' }]);
    admin.send(modernRequest('tools/list', {}, 'list'));
    expect(keysOf((await admin.answer('list')).result!, LISTS[0])).toEqual(VISIBLE.tools.admin);
  });

  it('the same in a legacy session, and the anonymous principal sees only open entries', async () => {
    const reader = connect(PRINCIPALS.reader);
    reader.send(
      legacyRequest(
        'initialize',
        { protocolVersion: LEGACY_REVISION, capabilities: {}, clientInfo: { name: 's', version: '1' } },
        1,
      ),
    );
    await reader.answer(1);
    reader.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    reader.send(legacyRequest('prompts/get', { name: 'summarize', arguments: {} }, 2));
    expect((await reader.answer(2)).result?.messages).toHaveLength(1);
    reader.send(legacyRequest('tools/call', { name: 'write_note', arguments: {} }, 3));
    expect(await reader.answer(3)).toEqual(scopeError(SCOPED_CASES[0], 3));

    const anonymous = new StdioPeer(server);
    peers.push(anonymous);
    anonymous.send(modernRequest('resources/list', {}, 'r'));
    expect(keysOf((await anonymous.answer('r')).result!, LISTS[2])).toEqual(VISIBLE.resources.guest);
    anonymous.send(modernRequest('resources/read', { uri: 'notes://index' }, 'read'));
    expect(await anonymous.answer('read')).toEqual(scopeError(SCOPED_CASES[3], 'read'));
  });
});

describe('a visibility guard must not be request-scoped', () => {
  @Injectable({ scope: Scope.REQUEST })
  @McpVisibilityGuard()
  class PerRequestGuard implements CanActivate {
    canActivate(): boolean {
      return true;
    }
  }

  @Injectable()
  class GuardedTools {
    @McpTool({ description: 'guarded' })
    @UseGuards(PerRequestGuard)
    guarded() {
      return 'ok';
    }
  }

  @Module({ imports: [McpModule.forRoot({ name: 'scoped-guard', version: '1' })], providers: [GuardedTools] })
  class PerRequestGuardModule {}

  it('stops the application at startup with a message naming the guard and the handler', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [PerRequestGuardModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    const failure = await app.init().then(
      () => undefined,
      (error: unknown) => error,
    );
    await app.close().catch(() => undefined);
    expect(failure).toBeInstanceOf(McpConfigurationError);
    expect((failure as Error).message).toBe(
      'GuardedTools.guarded: the guard PerRequestGuard decides visibility (@McpVisibilityGuard()), so it must not be request-scoped.',
    );
  });
});
