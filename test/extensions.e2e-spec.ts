/**
 * The extension API end to end: an application declares a vendor extension of its own
 * (`com.example/notes-audit`, with settings) through `McpModule.forRoot({ extensions })`. The
 * official clients see it where each era advertises extensions: the SDK v1 client in the
 * `initialize` result, the v2 client (`@modelcontextprotocol/client`) in `server/discover`,
 * beside the tasks extension the module declares. A tool that calls `ctx.requireExtension()`
 * answers -32021 with `requiredCapabilities.extensions` to a client that did not declare the
 * extension, and runs for one that did. Bad declarations stop the application at startup.
 */
import {
  Client as V2Client,
  ProtocolError,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpConfigurationError, McpErrorCode, McpModule, type McpModuleOptions } from 'nest-mcp';
import type { HttpApp } from './fixtures/http-app';
import { NOTES_AUDIT, NOTES_AUDIT_SETTINGS, startExtensionsApp } from './fixtures/extensions-fixture';
import { startupError } from './fixtures/pipeline-app';
import { MODERN_REVISION } from './fixtures/raw-rpc';
import { rpcError } from './fixtures/sdk-errors';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_AUDIT = { extensions: { [NOTES_AUDIT]: {} } };
const REQUIRED = { requiredCapabilities: { extensions: { [NOTES_AUDIT]: {} } } };

async function connectV1(app: HttpApp, capabilities: Record<string, unknown>): Promise<V1Client> {
  const client = new V1Client({ name: 'v1-extensions-e2e', version: '1.0.0' }, { capabilities });
  await client.connect(new V1Transport(app.url));
  return client;
}

async function connectV2(app: HttpApp, capabilities: Record<string, unknown>): Promise<V2Client> {
  const client = new V2Client(
    { name: 'v2-extensions-e2e', version: '2.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await client.connect(new V2Transport(app.url));
  return client;
}

describe('a vendor extension declared by the application', () => {
  let app: HttpApp;
  const clients: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    app = await startExtensionsApp();
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app?.close();
  });

  describe('the SDK v1 client (legacy era, initialize)', () => {
    it('sees the extension with its settings in the initialize capabilities', async () => {
      const client = await connectV1(app, {});
      clients.push(client);
      // 2025-11-25 has tasks in its core (`capabilities.tasks`): the tasks extension is modern only.
      expect(client.getServerCapabilities()?.extensions).toEqual({ [NOTES_AUDIT]: NOTES_AUDIT_SETTINGS });
      expect(client.getServerCapabilities()?.tasks).toBeDefined();
    });

    it('is refused a tool that needs the extension with -32021 naming it, when it did not declare it', async () => {
      const client = await connectV1(app, {});
      clients.push(client);
      const error = await rpcError(client.callTool({ name: 'audit_notes', arguments: {} }));
      expect(error.code).toBe(McpErrorCode.MissingRequiredClientCapability);
      expect(error.data).toEqual(REQUIRED);
      expect(await client.callTool({ name: 'audit_supported', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'unsupported' }],
      });
    });

    it('runs the tool for a client that declared the extension at initialize', async () => {
      const client = await connectV1(app, WITH_AUDIT);
      clients.push(client);
      expect(await client.callTool({ name: 'audit_notes', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'audited' }],
      });
      expect(await client.callTool({ name: 'audit_supported', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'supported' }],
      });
    });
  });

  describe('the v2 client (modern era, server/discover)', () => {
    it('sees the extension with its settings beside the tasks extension', async () => {
      const client = await connectV2(app, {});
      clients.push(client);
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getServerCapabilities()?.extensions).toEqual({
        [TASKS]: {},
        [NOTES_AUDIT]: NOTES_AUDIT_SETTINGS,
      });
    });

    it('is refused a tool that needs the extension with -32021 naming it, when its requests do not declare it', async () => {
      const client = await connectV2(app, {});
      clients.push(client);
      const error = await client.callTool({ name: 'audit_notes', arguments: {} }).then(
        (value) => {
          throw new Error(`Expected a JSON-RPC error, got ${JSON.stringify(value)}`);
        },
        (reason: unknown) => reason as ProtocolError,
      );
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error.code).toBe(McpErrorCode.MissingRequiredClientCapability);
      expect(error.data).toEqual(REQUIRED);
    });

    it('runs the tool for a client whose requests declare the extension in their _meta', async () => {
      const client = await connectV2(app, WITH_AUDIT);
      clients.push(client);
      expect(await client.callTool({ name: 'audit_notes', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'audited' }],
      });
    });
  });
});

describe('extension declarations that stop the application at startup', () => {
  const cases: Array<[string, unknown, string[]]> = [
    ['an id without a vendor prefix', [{ id: 'notes-audit' }], ['"extensions[0].id"', 'notes-audit']],
    ['an id with a malformed prefix', [{ id: 'com.-example/notes' }], ['"extensions[0].id"']],
    [
      'an id declared twice',
      [{ id: NOTES_AUDIT }, { id: NOTES_AUDIT, settings: { level: 'low' } }],
      ['"extensions[1].id"', `"${NOTES_AUDIT}" is declared twice`],
    ],
    [
      'the tasks extension, which the module declares',
      [{ id: TASKS }],
      ['"extensions[0].id"', 'declared by the module'],
    ],
    ['settings that are not an object', [{ id: NOTES_AUDIT, settings: 'full' }], ['"extensions[0].settings"']],
    ['an unknown era', [{ id: NOTES_AUDIT, eras: ['future'] }], ['"extensions[0].eras"']],
  ];

  it.each(cases)('%s', async (_title, extensions, expected) => {
    const options = { name: 'x', version: '1.0.0', extensions } as unknown as McpModuleOptions;
    const error = await startupError({ imports: [McpModule.forRoot(options)] });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain('Invalid McpModule option');
    for (const text of expected) {
      expect(error.message).toContain(text);
    }
  });
});
