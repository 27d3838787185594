/**
 * MCP Apps (`io.modelcontextprotocol/ui`) end to end, on Express and Fastify, with the official
 * clients: the SDK v1 client (legacy era, a session; it declares support in its `initialize`
 * capabilities) and the v2 client (`@modelcontextprotocol/client`, modern era; it declares
 * support in every request's `_meta` client capabilities). Both SDKs take `extensions` in the
 * client's `capabilities` as they are.
 *
 * - the extension advertised in `initialize` and `server/discover`;
 * - `tools/list`: each linked tool's `_meta.ui`; the app-only tool listed to a client that
 *   declared support and left out for one that did not (whose other tools keep their link);
 * - `resources/list` and `resources/read` of the views: a decorated one (text, every `_meta.ui`
 *   setting), one of bytes (blob, unlisted), one from a built HTML file (`apps.views`);
 * - the text fallback of a linked tool for a client without support, and `ctx.clientSupports`;
 * - the app-only tool called by name without support (visibility is not authorization), and
 *   refused to a principal without its scope whatever the client declared;
 * - one modern server asked in turn by a client with and one without support: neither gets the
 *   other's list, and both answers are `private` even where the server's lists are `public`;
 * - the same with Redis: a legacy session's declaration read back by another instance;
 * - startup errors.
 */
import { readFileSync } from 'node:fs';
import {
  Client as V2Client,
  InsufficientScopeError,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport as V1Transport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpStderrLogger, McpStdioServer } from 'nest-mcp/stdio';
import { StdioPeer } from './fixtures/stdio-fixture.module';
import {
  MCP_APP_MIME_TYPE,
  MCP_APPS_EXTENSION,
  McpConfigurationError,
  McpModule,
  type McpModuleOptions,
  McpTool,
  McpUiResource,
} from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { startupError } from './fixtures/pipeline-app';
import {
  answerOf,
  legacyRequest,
  META,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
} from './fixtures/raw-rpc';
import {
  AppsFixtureModule,
  bearer,
  CardOnlyTools,
  NOTE_CARD,
  NOTE_CARD_BYTES,
  NOTE_CARD_BYTES_HTML,
  NOTE_CARD_HTML,
  NOTE_CARD_UI,
  NOTE_LIST,
  NOTE_LIST_FILE,
  NOTE_LIST_UI,
  NoteViews,
  RefreshTools,
  startAppsApp,
  TOKENS,
} from './fixtures/apps-fixture';
import { startRedisServer, type RedisServerHandle } from './support/redis-server';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const UI_SETTINGS = { mimeTypes: [MCP_APP_MIME_TYPE] };
/** The capabilities of a client that renders views, as the text has hosts declare them. */
const WITH_UI = { extensions: { [MCP_APPS_EXTENSION]: UI_SETTINGS } };
const WITHOUT_UI = {};

type Principal = keyof typeof TOKENS;
type Closer = { close(): Promise<void> };

async function connectV1(
  url: URL,
  capabilities: Record<string, unknown>,
  principal: Principal = 'writer',
  sessionId?: string,
): Promise<V1Client> {
  const client = new V1Client({ name: 'v1-apps-e2e', version: '1.0.0' }, { capabilities });
  await client.connect(new V1Transport(url, { requestInit: { headers: bearer(principal) }, sessionId }));
  return client;
}

async function connectV2(url: URL, capabilities: Record<string, unknown>, principal: Principal = 'writer') {
  const client = new V2Client(
    { name: 'v2-apps-e2e', version: '2.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await client.connect(new V2Transport(url, { requestInit: { headers: bearer(principal) } }));
  return client;
}

/** What one tools/list shows: the names, and each tool's `_meta.ui`. */
function uiByTool(tools: ReadonlyArray<{ name: string; _meta?: Record<string, unknown> }>) {
  return Object.fromEntries(tools.map((tool) => [tool.name, tool._meta?.ui]));
}

const LINKS_WITH_UI = {
  apps_supported: undefined,
  list_notes: { resourceUri: NOTE_LIST, visibility: ['model', 'app'] },
  save_note: { resourceUri: NOTE_CARD, visibility: ['app'] },
  show_note: { resourceUri: NOTE_CARD },
};
const { save_note: _appOnly, ...LINKS_WITHOUT_UI } = LINKS_WITH_UI;

describe.each(PLATFORMS)('MCP Apps on %s', (platform) => {
  let app: HttpApp;
  const clients: Closer[] = [];

  async function v1(capabilities: Record<string, unknown>, principal?: Principal): Promise<V1Client> {
    const client = await connectV1(app.url, capabilities, principal);
    clients.push(client);
    return client;
  }

  async function v2(capabilities: Record<string, unknown>, principal?: Principal): Promise<V2Client> {
    const client = await connectV2(app.url, capabilities, principal);
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    app = await startAppsApp(platform);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app?.close();
  });

  describe('the v2 client (modern era)', () => {
    it('sees the extension in server/discover, with the MIME type it serves', async () => {
      const client = await v2(WITHOUT_UI);
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getServerCapabilities()?.extensions?.[MCP_APPS_EXTENSION]).toEqual(UI_SETTINGS);
    });

    it("declaring support, lists every tool with its view's link, the app-only tool included", async () => {
      const client = await v2(WITH_UI);
      expect(uiByTool((await client.listTools()).tools)).toEqual(LINKS_WITH_UI);
      expect(await client.callTool({ name: 'apps_supported', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'supported' }],
      });
    });

    it('without support, is not shown the app-only tool; the others keep their link', async () => {
      const client = await v2(WITHOUT_UI);
      expect(uiByTool((await client.listTools()).tools)).toEqual(LINKS_WITHOUT_UI);
      expect(await client.callTool({ name: 'apps_supported', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'unsupported' }],
      });
    });

    it('without support, gets the text content of a tool with a view (its fallback)', async () => {
      const client = await v2(WITHOUT_UI);
      const result = await client.callTool({ name: 'show_note', arguments: { id: 'n2' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Note n2, "Ideas": An MCP App for notes' }]);
      expect(result.structuredContent).toEqual({ id: 'n2', title: 'Ideas', body: 'An MCP App for notes' });
    });

    it('without support, may still call the app-only tool by name: visibility is not authorization', async () => {
      const client = await v2(WITHOUT_UI);
      expect(await client.callTool({ name: 'save_note', arguments: { id: 'n1', body: 'x' } })).toMatchObject({
        content: [{ type: 'text', text: 'Saved note n1' }],
      });
    });

    it('is refused the app-only tool without its scope, with support declared', async () => {
      const client = await v2(WITH_UI, 'reader');
      expect(Object.keys(uiByTool((await client.listTools()).tools))).not.toContain('save_note');
      const error = await client.callTool({ name: 'save_note', arguments: { id: 'n1', body: 'x' } }).then(
        (value) => {
          throw new Error(`Expected a refusal, got ${JSON.stringify(value)}`);
        },
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(InsufficientScopeError);
      expect(error).toMatchObject({ requiredScope: 'notes:write' });
    });

    it('lists the views, and reads each: text with every _meta.ui setting, a blob, a built file', async () => {
      const client = await v2(WITH_UI);
      const { resources } = await client.listResources();
      expect(resources).toEqual([
        {
          uri: NOTE_LIST,
          name: 'note_list',
          mimeType: MCP_APP_MIME_TYPE,
          _meta: { ui: NOTE_LIST_UI },
        },
        {
          uri: NOTE_CARD,
          name: 'note_card',
          title: 'Note card',
          description: 'Shows one note',
          mimeType: MCP_APP_MIME_TYPE,
          _meta: { ui: NOTE_CARD_UI },
        },
      ]);
      expect((await client.readResource({ uri: NOTE_CARD })).contents).toEqual([
        { uri: NOTE_CARD, mimeType: MCP_APP_MIME_TYPE, text: NOTE_CARD_HTML, _meta: { ui: NOTE_CARD_UI } },
      ]);
      expect((await client.readResource({ uri: NOTE_CARD_BYTES })).contents).toEqual([
        {
          uri: NOTE_CARD_BYTES,
          mimeType: MCP_APP_MIME_TYPE,
          blob: Buffer.from(NOTE_CARD_BYTES_HTML).toString('base64'),
        },
      ]);
      expect((await client.readResource({ uri: NOTE_LIST })).contents).toEqual([
        {
          uri: NOTE_LIST,
          mimeType: MCP_APP_MIME_TYPE,
          text: readFileSync(NOTE_LIST_FILE, 'utf8'),
          _meta: { ui: NOTE_LIST_UI },
        },
      ]);
    });
  });

  describe('the SDK v1 client (legacy era, a session)', () => {
    it('sees the extension in the initialize capabilities', async () => {
      const client = await v1(WITHOUT_UI);
      expect(client.getServerCapabilities()?.extensions).toEqual({ [MCP_APPS_EXTENSION]: UI_SETTINGS });
    });

    it('declaring support at initialize, lists the app-only tool, and the tool says it is supported', async () => {
      const client = await v1(WITH_UI);
      expect(uiByTool((await client.listTools()).tools)).toEqual(LINKS_WITH_UI);
      expect(await client.callTool({ name: 'apps_supported', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'supported' }],
      });
    });

    it('without support, is not shown the app-only tool, and gets the text fallback', async () => {
      const client = await v1(WITHOUT_UI);
      expect(uiByTool((await client.listTools()).tools)).toEqual(LINKS_WITHOUT_UI);
      const result = await client.callTool({ name: 'show_note', arguments: { id: 'n1' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Note n1, "Groceries": Milk, eggs' }]);
    });

    it('is refused the app-only tool without its scope: 403 with -32003', async () => {
      const client = await v1(WITH_UI, 'reader');
      const error = await client.callTool({ name: 'save_note', arguments: { id: 'n1', body: 'x' } }).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(403);
      expect((error as Error).message).toContain('"code":-32003');
      expect((error as Error).message).toContain('Insufficient scope for tool save_note');
    });

    it('on 2024-11-05, where the text negotiates the extension too, still gets each _meta.ui', async () => {
      const session = await openLegacySession(app.url, '2024-11-05', {
        capabilities: WITH_UI,
        headers: bearer('writer'),
      });
      expect(session.protocolVersion).toBe('2024-11-05');
      const tools = answerOf(await post(app.url, legacyRequest('tools/list', {}), session.headers)).result as {
        tools: Array<{ name: string; _meta?: Record<string, unknown> }>;
      };
      expect(uiByTool(tools.tools)).toEqual(LINKS_WITH_UI);
      const resources = answerOf(await post(app.url, legacyRequest('resources/list', {}), session.headers)).result as {
        resources: Array<{ uri: string; _meta?: Record<string, unknown> }>;
      };
      expect(resources.resources.map((resource) => [resource.uri, resource._meta])).toEqual([
        [NOTE_LIST, { ui: NOTE_LIST_UI }],
        [NOTE_CARD, { ui: NOTE_CARD_UI }],
      ]);
    });

    it('reads the decorated view with its _meta.ui', async () => {
      const client = await v1(WITH_UI);
      expect((await client.readResource({ uri: NOTE_CARD })).contents).toEqual([
        { uri: NOTE_CARD, mimeType: MCP_APP_MIME_TYPE, text: NOTE_CARD_HTML, _meta: { ui: NOTE_CARD_UI } },
      ]);
    });
  });
});

/** One raw modern tools/list, as a client declaring `capabilities` sends it. */
async function rawToolsList(url: URL, capabilities: Record<string, unknown>) {
  const response = await post(url, modernRequest('tools/list', {}, 1, { [META.clientCapabilities]: capabilities }), {
    ...modernHeaders('tools/list'),
    ...bearer('writer'),
  });
  return answerOf(response).result as { tools: Array<{ name: string }>; cacheScope: string; ttlMs: number };
}

describe('one modern server, asked in turn by clients with and without MCP Apps support', () => {
  const apps: HttpApp[] = [];

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  async function start(tools: Array<new () => unknown>): Promise<HttpApp> {
    const app = await startAppsApp('express', { tools, overrides: { cacheHints: { scope: 'public' } } });
    apps.push(app);
    return app;
  }

  it('gives each its own list, private to it even where lists are public', async () => {
    const app = await start([RefreshTools]);
    const names = (result: { tools: Array<{ name: string }> }) => result.tools.map((tool) => tool.name);
    for (let round = 0; round < 2; round += 1) {
      const withUi = await rawToolsList(app.url, WITH_UI);
      expect(names(withUi)).toEqual(['refresh_card', 'show_note']);
      expect(withUi.cacheScope).toBe('private');
      const withoutUi = await rawToolsList(app.url, WITHOUT_UI);
      expect(names(withoutUi)).toEqual(['show_note']);
      expect(withoutUi.cacheScope).toBe('private');
    }
    // The official client, in between, sees the same.
    const client = await connectV2(app.url, WITHOUT_UI);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['show_note']);
    await client.close();
  });

  it('keeps one public list for every client when no tool is for views alone', async () => {
    const app = await start([CardOnlyTools]);
    const withUi = await rawToolsList(app.url, WITH_UI);
    const withoutUi = await rawToolsList(app.url, WITHOUT_UI);
    expect(withUi).toEqual(withoutUi);
    expect(withUi.cacheScope).toBe('public');
  });
});

describe('MCP Apps with Redis: two instances', () => {
  let redis: RedisServerHandle;
  let a: HttpApp;
  let b: HttpApp;
  const clients: Closer[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    const overrides: Partial<McpModuleOptions> = {
      redis: { url: redis.url },
      requestState: { secret: 's'.repeat(32) },
    };
    a = await startHttpApp(AppsFixtureModule.forRoot({ overrides }), { platform: 'express' });
    b = await startHttpApp(AppsFixtureModule.forRoot({ overrides }), { platform: 'fastify' });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it("reads a legacy session's declaration on the other instance: the app-only tool is listed there", async () => {
    const withUi = await connectV1(a.url, WITH_UI);
    const withoutUi = await connectV1(a.url, WITHOUT_UI);
    clients.push(withUi, withoutUi);
    const elsewhere = async (client: V1Client) => {
      const resumed = await connectV1(b.url, {}, 'writer', (client.transport as V1Transport).sessionId);
      clients.push(resumed);
      return Object.keys(uiByTool((await resumed.listTools()).tools));
    };
    expect(await elsewhere(withUi)).toContain('save_note');
    expect(await elsewhere(withoutUi)).not.toContain('save_note');
  });

  it('serves a modern client on either instance by what its requests declare', async () => {
    for (const app of [a, b]) {
      const withUi = await connectV2(app.url, WITH_UI);
      const withoutUi = await connectV2(app.url, WITHOUT_UI);
      clients.push(withUi, withoutUi);
      expect(withUi.getServerCapabilities()?.extensions?.[MCP_APPS_EXTENSION]).toEqual(UI_SETTINGS);
      expect(Object.keys(uiByTool((await withUi.listTools()).tools))).toContain('save_note');
      expect(Object.keys(uiByTool((await withoutUi.listTools()).tools))).not.toContain('save_note');
    }
  });
});

describe('MCP Apps on stdio (in process, modern era)', () => {
  let moduleRef: TestingModule;
  let server: McpStdioServer;
  const peers: StdioPeer[] = [];

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({ imports: [AppsFixtureModule.forRoot()] })
      .setLogger(new McpStderrLogger({ logLevels: ['error', 'warn'] }))
      .compile();
    await moduleRef.init();
    server = moduleRef.get(McpStdioServer);
  });

  afterAll(async () => {
    await Promise.all(peers.map((peer) => peer.end()));
    await moduleRef?.close();
  });

  it('advertises the extension, and lists the app-only tool only to a request that declares support', async () => {
    const peer = new StdioPeer(server, { principal: { id: 'writer', scopes: ['notes:write'] } });
    peers.push(peer);
    peer.send(modernRequest('server/discover', {}, 'discover'));
    const discovered = (await peer.answer('discover')).result as {
      capabilities: { extensions: Record<string, unknown> };
    };
    expect(discovered.capabilities.extensions[MCP_APPS_EXTENSION]).toEqual(UI_SETTINGS);
    const names = async (id: string, capabilities: Record<string, unknown>) => {
      peer.send(modernRequest('tools/list', {}, id, { [META.clientCapabilities]: capabilities }));
      const { tools } = (await peer.answer(id)).result as { tools: Array<{ name: string }> };
      return tools.map((tool) => tool.name);
    };
    expect(await names('with', WITH_UI)).toContain('save_note');
    expect(await names('without', WITHOUT_UI)).not.toContain('save_note');
  });
});

@Injectable()
class DanglingLinkTools {
  @McpTool({ description: 'Links to a view nobody serves', ui: { resourceUri: 'ui://notes/missing' } })
  dangling() {
    return 'x';
  }
}

@Injectable()
class WebLinkTools {
  @McpTool({ description: 'Links to a web page', ui: { resourceUri: 'https://example.com/card.html' } })
  web_link() {
    return 'x';
  }
}

@Injectable()
class BadCspViews {
  @McpUiResource({ uri: 'ui://notes/bad', name: 'bad', csp: { connectDomains: ['https://api.example.com/v1'] } })
  bad() {
    return '<!doctype html>';
  }
}

@Injectable()
class HttpViews {
  @McpUiResource({ uri: 'https://example.com/card', name: 'card' })
  card() {
    return '<!doctype html>';
  }
}

describe('MCP Apps declarations that stop the application at startup', () => {
  const base = { name: 'apps-startup', version: '1.0.0' };

  it.each([
    [
      'a tool linked to no view of the server',
      [DanglingLinkTools],
      ['tool "dangling"', 'ui://notes/missing', 'DanglingLinkTools.dangling'],
    ],
    ['a tool linked to a URI that is not ui://', [WebLinkTools], ['tool "web_link"', 'must be a ui:// URI']],
    [
      'a view with a CSP entry that is not an origin',
      [BadCspViews],
      ['UI resource "ui://notes/bad"', 'csp.connectDomains[0]'],
    ],
    ['a view that is not at a ui:// URI', [HttpViews], ['UI resource "https://example.com/card"', 'HttpViews.card']],
  ])('%s', async (_title, providers, expected) => {
    const error = await startupError({ imports: [McpModule.forRoot(base)], providers });
    expect(error).toBeInstanceOf(McpConfigurationError);
    for (const text of expected) {
      expect(error.message).toContain(text);
    }
  });

  it.each([
    [
      'a view file that does not exist',
      { views: [{ uri: 'ui://a', name: 'a', file: 'no/such/view.html' }] },
      '"apps.views[0].file"',
    ],
    [
      'a view file at a URI that is not ui://',
      { views: [{ uri: 'notes://a', name: 'a', file: NOTE_LIST_FILE }] },
      '"apps.views[0].uri"',
    ],
    [
      'a view file with a wildcard CSP entry',
      { views: [{ uri: 'ui://a', name: 'a', file: NOTE_LIST_FILE, csp: { resourceDomains: ['https://*'] } }] },
      '"apps.views[0].csp.resourceDomains[0]"',
    ],
  ])('%s', async (_title, apps, expected) => {
    const error = await startupError({ imports: [McpModule.forRoot({ ...base, apps })] });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain(expected);
  });

  it('takes the io.modelcontextprotocol/ui id from no application: the module declares it', async () => {
    const error = await startupError({
      imports: [McpModule.forRoot({ ...base, extensions: [{ id: MCP_APPS_EXTENSION }] })],
      providers: [NoteViews],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain('declared by the module');
  });
});
