/**
 * A vendor extension a team defines as a provider (`@McpExtensionProvider`,
 * `com.example/notes-audit`) end to end, on Express and Fastify: advertised in both eras (the SDK
 * v1 client's `initialize`, the v2 client's `server/discover`), its methods called with the
 * clients' generic `request`, through the server's auth and the application's global guard and
 * interceptor (once per call), `@McpScopes` honoured, refused in the era they are not declared
 * for, -32021 with `requiredCapabilities.extensions` to a client that lacks the extension, the
 * `Mcp-Method` / `Mcp-Name` rules of built-in methods on raw POSTs, and the extension's `_meta`
 * on list entries and on results.
 */
import {
  Client as V2Client,
  InsufficientScopeError,
  ProtocolError,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Injectable, Module, type ModuleMetadata, Scope } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  McpConfigurationError,
  McpErrorCode,
  McpExtensionMethod,
  McpExtensionProvider,
  McpModule,
  type McpPrincipal,
} from 'nest-mcp';
import { McpStderrLogger, McpStdioServer } from 'nest-mcp/stdio';
import { z } from 'zod';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import {
  ExtensionMethodsFixtureModule,
  NOTES_AUDIT,
  NOTES_AUDIT_SETTINGS,
  NotesAuditExtension,
  PipelineLog,
  TOKENS,
  startExtensionMethodsApp,
} from './fixtures/extension-methods-fixture';
import { MODERN_REVISION, legacyRequest, modernHeaders, modernRequest, post } from './fixtures/raw-rpc';
import { StdioPeer } from './fixtures/stdio-fixture.module';
import { rpcError } from './fixtures/sdk-errors';
import { startupError } from './fixtures/pipeline-app';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_AUDIT = { extensions: { [NOTES_AUDIT]: {} } };
const REQUIRED = { requiredCapabilities: { extensions: { [NOTES_AUDIT]: {} } } };
const AnyResult = z.looseObject({});

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/**
 * The v2 client's fetch, plus the `Mcp-Name` the extension's text asks of its clients for
 * `notes-audit/entries` (`params.noteId`): the client sets it for the specification's methods only.
 */
const namingFetch: typeof fetch = (input, init) => {
  const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; params?: any }) : {};
  if (body.method === 'notes-audit/entries' && typeof body.params?.noteId === 'string') {
    const headers = new Headers(init?.headers);
    headers.set('mcp-name', body.params.noteId);
    return fetch(input, { ...init, headers });
  }
  return fetch(input, init);
};

async function v2Error(promise: Promise<unknown>): Promise<ProtocolError> {
  return promise.then(
    (value) => {
      throw new Error(`Expected a JSON-RPC error, got ${JSON.stringify(value)}`);
    },
    (reason: unknown) => {
      expect(reason).toBeInstanceOf(ProtocolError);
      return reason as ProtocolError;
    },
  );
}

describe.each<HttpPlatform>(['express', 'fastify'])('a vendor extension defined as a provider (%s)', (platform) => {
  let app: HttpApp;
  let log: PipelineLog;
  const clients: Array<{ close(): Promise<void> }> = [];

  async function connectV1(capabilities: Record<string, unknown>, token: string = TOKENS.guest): Promise<V1Client> {
    const client = new V1Client({ name: 'v1-extension-methods-e2e', version: '1.0.0' }, { capabilities });
    await client.connect(new V1Transport(app.url, { requestInit: { headers: bearer(token) } }));
    clients.push(client);
    return client;
  }

  async function connectV2(capabilities: Record<string, unknown>, token: string = TOKENS.guest): Promise<V2Client> {
    const client = new V2Client(
      { name: 'v2-extension-methods-e2e', version: '2.0.0' },
      { capabilities, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    await client.connect(new V2Transport(app.url, { fetch: namingFetch, requestInit: { headers: bearer(token) } }));
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    app = await startExtensionMethodsApp(platform);
    log = app.app.get(PipelineLog);
  });

  beforeEach(() => {
    log.guarded.length = 0;
    log.intercepted.length = 0;
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app?.close();
  });

  describe('the SDK v1 client (legacy era, a session)', () => {
    it('sees the extension with its settings in the initialize capabilities', async () => {
      const client = await connectV1({});
      expect(client.getServerCapabilities()?.extensions).toEqual({ [NOTES_AUDIT]: NOTES_AUDIT_SETTINGS });
    });

    it("calls the extension's method through the server's auth and the application's pipeline, once", async () => {
      const client = await connectV1({});
      const result = await client.request({ method: 'notes-audit/entries', params: { noteId: 'n-1' } }, AnyResult);
      expect(result).toEqual({
        noteId: 'n-1',
        entries: ['n-1 audited for guest'],
        era: 'legacy',
        name: 'n-1',
        _meta: { [`${NOTES_AUDIT}/auditor`]: 'fixture' },
      });
      expect(log.guarded).toEqual(['notes-audit/entries']);
      expect(log.intercepted).toEqual(['notes-audit/entries']);
    });

    it('is refused a method that needs the extension with -32021 naming it, until it declares it', async () => {
      const without = await connectV1({});
      for (const method of ['notes-audit/strict', 'notes-audit/checked']) {
        const error = await rpcError(without.request({ method }, AnyResult));
        expect(error.code).toBe(McpErrorCode.MissingRequiredClientCapability);
        expect(error.data).toEqual(REQUIRED);
      }
      // Refused before the handler, and before the pipeline, when the declaration requires it.
      expect(log.guarded).toEqual(['notes-audit/checked']);
      const withIt = await connectV1(WITH_AUDIT);
      expect(await withIt.request({ method: 'notes-audit/strict' }, AnyResult)).toEqual({ strict: true });
      expect(await withIt.request({ method: 'notes-audit/checked' }, AnyResult)).toEqual({ checked: true });
    });

    it('is refused a method of the modern era only with -32601', async () => {
      const client = await connectV1(WITH_AUDIT, TOKENS.admin);
      const error = await rpcError(client.request({ method: 'notes-audit/purge' }, AnyResult));
      expect(error.code).toBe(McpErrorCode.MethodNotFound);
      expect(log.guarded).toEqual([]);
    });

    it('runs a method named like a list as a call, not a listing', async () => {
      const client = await connectV1({});
      expect(await client.request({ method: 'notes-audit/list' }, AnyResult)).toEqual({ notes: [] });
      expect(log.guarded).toEqual(['notes-audit/list']);
    });

    it('gets -32603 from a method whose value is not a JSON object', async () => {
      const client = await connectV1({});
      const error = await rpcError(client.request({ method: 'notes-audit/broken' }, AnyResult));
      expect(error.code).toBe(McpErrorCode.InternalError);
    });

    it("sees the extension's _meta on the tools of tools/list, beside the tool's own", async () => {
      const client = await connectV1({});
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === 'list_notes')?._meta).toEqual({
        [NOTES_AUDIT]: { audited: 'list_notes' },
        'com.example/own': true,
      });
    });
  });

  describe('the v2 client (modern era, server/discover)', () => {
    it('sees the extension with its settings in server/discover, beside the tasks extension', async () => {
      const client = await connectV2({});
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getServerCapabilities()?.extensions).toEqual({
        [TASKS]: {},
        [NOTES_AUDIT]: NOTES_AUDIT_SETTINGS,
      });
    });

    it("calls the extension's method with its Mcp-Method and Mcp-Name, through the pipeline once", async () => {
      const client = await connectV2({});
      const result = await client.request({ method: 'notes-audit/entries', params: { noteId: 'n-2' } }, AnyResult);
      expect(result).toMatchObject({
        noteId: 'n-2',
        entries: ['n-2 audited for guest'],
        era: 'modern',
        name: 'n-2',
        _meta: { [`${NOTES_AUDIT}/auditor`]: 'fixture' },
      });
      expect(log.guarded).toEqual(['notes-audit/entries']);
      expect(log.intercepted).toEqual(['notes-audit/entries']);
    });

    it('is refused a method that needs the extension with -32021 naming it, unless its request declares it', async () => {
      const without = await connectV2({});
      const error = await v2Error(without.request({ method: 'notes-audit/strict' }, AnyResult));
      expect(error.code).toBe(McpErrorCode.MissingRequiredClientCapability);
      expect(error.data).toEqual(REQUIRED);
      const withIt = await connectV2(WITH_AUDIT);
      expect(await withIt.request({ method: 'notes-audit/strict' }, AnyResult)).toMatchObject({ strict: true });
    });

    it('is refused a method behind @McpScopes without the scope, as a tool is (HTTP 403)', async () => {
      const guest = await connectV2({});
      const method = await guest.request({ method: 'notes-audit/purge' }, AnyResult).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      const tool = await guest.callTool({ name: 'admin_notes', arguments: {} }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(method).toBeInstanceOf(InsufficientScopeError);
      expect(tool).toBeInstanceOf(InsufficientScopeError);
      expect(method).toMatchObject({ requiredScope: 'notes:admin' });
      expect({ ...(method as object) }).toEqual({ ...(tool as object) });
      expect(log.guarded).toEqual([]);
      const admin = await connectV2({}, TOKENS.admin);
      expect(await admin.request({ method: 'notes-audit/purge' }, AnyResult)).toMatchObject({ purged: true });
    });
  });

  describe('raw modern POSTs: the header rules of built-in methods', () => {
    const entries = (noteId = 'n-3') => modernRequest('notes-audit/entries', { noteId });
    const headers = (method: string, name?: string) => ({ ...modernHeaders(method, name), ...bearer(TOKENS.guest) });

    it('serves a request whose headers agree with the body', async () => {
      const reply = await post(app.url, entries(), headers('notes-audit/entries', 'n-3'));
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({ result: { noteId: 'n-3' } });
    });

    it.each([
      ['no Mcp-Method', undefined],
      ['another Mcp-Method', 'tools/list'],
    ])('refuses %s exactly as it refuses a built-in method', async (_label, methodHeader) => {
      const make = (method: string): Record<string, string> => {
        const all = headers(method, method === 'tools/call' ? 'list_notes' : 'n-3');
        if (methodHeader === undefined) {
          delete all['mcp-method'];
        } else {
          all['mcp-method'] = methodHeader === 'tools/list' && method === 'tools/list' ? 'tools/call' : methodHeader;
        }
        return all;
      };
      const extension = await post(app.url, entries(), make('notes-audit/entries'));
      const builtIn = await post(
        app.url,
        modernRequest('tools/call', { name: 'list_notes', arguments: {} }),
        make('tools/call'),
      );
      expect(extension.status).toBe(builtIn.status);
      expect(extension.json?.error?.code).toBe(McpErrorCode.HeaderMismatch);
      expect(builtIn.json?.error?.code).toBe(McpErrorCode.HeaderMismatch);
    });

    it.each([
      ['no Mcp-Name', undefined, /Mcp-Name header is required/],
      ['another Mcp-Name', 'n-4', /Mcp-Name header value 'n-4' does not match/],
    ])('refuses %s for the method that names one', async (_label, name, message) => {
      const reply = await post(app.url, entries(), headers('notes-audit/entries', name));
      expect(reply.status).toBe(400);
      expect(reply.json).toMatchObject({
        error: { code: McpErrorCode.HeaderMismatch, message: expect.stringMatching(message) },
      });
    });

    it('refuses a request without credentials before any method runs', async () => {
      const reply = await post(app.url, entries(), modernHeaders('notes-audit/entries', 'n-3'));
      expect(reply.status).toBe(401);
      expect(log.guarded).toEqual([]);
    });
  });
});

describe('extension providers that stop the application at startup', () => {
  @Injectable()
  @McpExtensionProvider({ id: NOTES_AUDIT })
  class SameIdExtension {}

  @Injectable()
  @McpExtensionProvider({ id: 'com.example/shadow' })
  class BuiltInShadow {
    @McpExtensionMethod('tools/call')
    call() {
      return {};
    }
  }

  @Injectable()
  @McpExtensionProvider({ id: 'com.example/other-audit' })
  class SameMethodExtension {
    @McpExtensionMethod('notes-audit/entries')
    entries() {
      return {};
    }
  }

  @Injectable()
  @McpExtensionProvider({ id: 'com.example/malformed' })
  class MalformedMethod {
    @McpExtensionMethod('entries')
    entries() {
      return {};
    }
  }

  @Injectable()
  @McpExtensionProvider({ id: 'notes-audit' })
  class MalformedId {}

  @Injectable()
  class NoProvider {
    @McpExtensionMethod('notes-audit/lost')
    lost() {
      return {};
    }
  }

  const base = { name: 'startup', version: '0.0.1' };
  it.each<[string, ModuleMetadata, string[]]>([
    [
      'an extension declared by a provider and in forRoot',
      { imports: [McpModule.forRoot({ ...base, extensions: [{ id: NOTES_AUDIT }] })], providers: [SameIdExtension] },
      ['SameIdExtension', `"${NOTES_AUDIT}" is declared twice`, 'forRoot({ extensions })'],
    ],
    [
      'two providers of one extension',
      { imports: [McpModule.forRoot(base)], providers: [NotesAuditExtension, SameIdExtension] },
      ['SameIdExtension', 'declared twice (also by NotesAuditExtension)'],
    ],
    [
      'a method of the specification',
      { imports: [McpModule.forRoot(base)], providers: [BuiltInShadow] },
      ['BuiltInShadow.call', '"tools/call" is a method of the specification'],
    ],
    [
      "another extension's method",
      { imports: [McpModule.forRoot(base)], providers: [NotesAuditExtension, SameMethodExtension] },
      ['SameMethodExtension.entries', `"notes-audit/entries" is added twice (by ${NOTES_AUDIT}`],
    ],
    [
      'a malformed method name',
      { imports: [McpModule.forRoot(base)], providers: [MalformedMethod] },
      ['MalformedMethod.entries', 'slash-separated segments'],
    ],
    [
      'a malformed extension id',
      { imports: [McpModule.forRoot(base)], providers: [MalformedId] },
      ['MalformedId', 'must be an extension identifier'],
    ],
    [
      'a method on a class that is no extension provider',
      { imports: [McpModule.forRoot(base)], providers: [NoProvider] },
      ['NoProvider.lost', 'without @McpExtensionProvider()'],
    ],
  ])('%s', async (_label, metadata, fragments) => {
    const error = await startupError(metadata);
    expect(error).toBeInstanceOf(McpConfigurationError);
    for (const fragment of fragments) {
      expect(error.message).toContain(fragment);
    }
  });
});

describe('an extension provider with several servers', () => {
  @Injectable()
  @McpExtensionProvider({ id: 'com.example/admin-audit' })
  class AdminAuditExtension {
    @McpExtensionMethod('admin-audit/report')
    report() {
      return { report: 'admin' };
    }
  }

  @Module({ providers: [AdminAuditExtension] })
  class AdminModule {}

  @Module({})
  class PublicModule {}

  @Module({
    imports: [
      AdminModule,
      PublicModule,
      McpModule.forRoot({ name: 'public', version: '1.0.0', path: 'public', include: [PublicModule] }),
      McpModule.forRoot({ name: 'admin', version: '1.0.0', path: 'admin', include: [AdminModule] }),
    ],
  })
  class ServersModule {}

  let app: HttpApp;

  beforeAll(async () => {
    app = await startHttpApp(ServersModule, { path: 'admin' });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('belongs to the server whose include holds its module, and to no other', async () => {
    const call = (path: string) =>
      post(new URL(path, app.baseUrl), modernRequest('admin-audit/report'), modernHeaders('admin-audit/report'));
    const discover = (path: string) =>
      post(new URL(path, app.baseUrl), modernRequest('server/discover'), modernHeaders('server/discover'));
    expect((await call('/admin')).json).toMatchObject({ result: { report: 'admin' } });
    expect((await call('/public')).json).toMatchObject({ error: { code: McpErrorCode.MethodNotFound } });
    expect((await discover('/admin')).json).toMatchObject({
      result: { capabilities: { extensions: { 'com.example/admin-audit': {} } } },
    });
    expect(
      ((await discover('/public')).json as { result: { capabilities: { extensions?: object } } }).result.capabilities
        .extensions,
    ).not.toHaveProperty(['com.example/admin-audit']);
  });
});

/** An extension provider made anew for every call. */
@Injectable({ scope: Scope.REQUEST })
@McpExtensionProvider({ id: 'com.example/per-request' })
class PerRequestExtension {
  private static made = 0;
  private readonly serial = (PerRequestExtension.made += 1);

  @McpExtensionMethod('per-request/serial')
  read() {
    return { serial: this.serial };
  }
}

describe('a vendor extension over stdio (in process)', () => {
  let moduleRef: TestingModule;
  let server: McpStdioServer;
  const peers: StdioPeer[] = [];
  const guest = { id: 'guest', scopes: [] };

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [ExtensionMethodsFixtureModule.forRoot()],
      providers: [PerRequestExtension],
    })
      .setLogger(new McpStderrLogger({ logLevels: ['error'] }))
      .compile();
    await moduleRef.init();
    server = moduleRef.get(McpStdioServer);
  });

  afterAll(async () => {
    await Promise.all(peers.splice(0).map((peer) => peer.end()));
    await moduleRef?.close();
  });

  const connect = (principal: McpPrincipal): StdioPeer => {
    const peer = new StdioPeer(server, { principal });
    peers.push(peer);
    return peer;
  };

  it('serves the methods in the modern era: the result, -32021, the scopes', async () => {
    const peer = connect(guest);
    peer.send(modernRequest('notes-audit/entries', { noteId: 'n-5' }, 'entries'));
    expect((await peer.answer('entries')).result).toMatchObject({ noteId: 'n-5', era: 'modern', name: 'n-5' });
    peer.send(modernRequest('notes-audit/strict', {}, 'without'));
    expect((await peer.answer('without')).error).toMatchObject({
      code: McpErrorCode.MissingRequiredClientCapability,
      data: REQUIRED,
    });
    peer.send(
      modernRequest('notes-audit/strict', {}, 'with', { 'io.modelcontextprotocol/clientCapabilities': WITH_AUDIT }),
    );
    expect((await peer.answer('with')).result).toMatchObject({ strict: true });
    peer.send(modernRequest('notes-audit/purge', {}, 'purge'));
    expect((await peer.answer('purge')).error).toMatchObject({ code: McpErrorCode.InsufficientScope });
    const admin = connect({ id: 'admin', scopes: ['notes:admin'] });
    admin.send(modernRequest('notes-audit/purge', {}, 'purge'));
    expect((await admin.answer('purge')).result).toMatchObject({ purged: true });
  });

  it('serves a request-scoped provider with an instance per call', async () => {
    const peer = connect(guest);
    peer.send(modernRequest('per-request/serial', {}, 'a'));
    peer.send(modernRequest('per-request/serial', {}, 'b'));
    const [a, b] = [(await peer.answer('a')).result?.serial, (await peer.answer('b')).result?.serial];
    expect(typeof a).toBe('number');
    expect(b).not.toBe(a);
  });

  it('serves them in a legacy session, except the modern-only one (-32601)', async () => {
    const peer = connect(guest);
    peer.send(
      legacyRequest(
        'initialize',
        { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 's', version: '1' } },
        1,
      ),
    );
    expect((await peer.answer(1)).result).toMatchObject({
      capabilities: { extensions: { [NOTES_AUDIT]: NOTES_AUDIT_SETTINGS } },
    });
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    peer.send(legacyRequest('notes-audit/entries', { noteId: 'n-6' }, 2));
    expect((await peer.answer(2)).result).toMatchObject({ noteId: 'n-6', era: 'legacy' });
    peer.send(legacyRequest('notes-audit/purge', {}, 3));
    expect((await peer.answer(3)).error).toMatchObject({ code: McpErrorCode.MethodNotFound });
  });
});
