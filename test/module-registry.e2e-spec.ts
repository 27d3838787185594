/**
 * McpRegistry at runtime: entries added and removed by the application show up in the lists,
 * and every change is announced with a list_changed notification on the sessions' GET streams.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError as SdkMcpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpConfigurationError, McpModule, McpRegistry } from '../lib';
import { FeatureToggles, StaticTools } from './fixtures/pipeline-registry';
import { firstText, openRawSession, SseReader, startApp, type RunningApp } from './fixtures/pipeline-app';

describe('McpRegistry at runtime', () => {
  let running: RunningApp;
  let client: Client;
  let toggles: FeatureToggles;
  let registry: McpRegistry;
  const readers: SseReader[] = [];

  beforeAll(async () => {
    running = await startApp({
      imports: [McpModule.forRoot({ name: 'runtime', version: '1.0.0' })],
      providers: [StaticTools, FeatureToggles],
    });
    client = await running.connect();
    toggles = running.app.get(FeatureToggles);
    registry = running.app.get(McpRegistry);
  });

  afterEach(() => {
    registry.removeTool('beta_report');
  });

  afterAll(async () => {
    await Promise.all(readers.map((reader) => reader.cancel()));
    await running?.close();
  });

  /** Opens a legacy session over raw fetch and its GET stream. */
  async function openStream(): Promise<SseReader> {
    const session = await openRawSession(running.url());
    const response = await fetch(running.url(), {
      headers: { ...session.headers, accept: 'text/event-stream' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = new SseReader(response.body!);
    readers.push(reader);
    return reader;
  }

  const names = async () => (await client.listTools()).tools.map((tool) => tool.name);

  it('addTool: tools/list shows the tool, with its schema as JSON Schema, and it can be called', async () => {
    expect(await names()).toEqual(['always_there']);
    toggles.enableBetaReport();

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['always_there', 'beta_report']);
    const beta = tools.find((tool) => tool.name === 'beta_report');
    expect(beta?.description).toBe('A report still in beta');
    expect(beta?.inputSchema).toMatchObject({ type: 'object', properties: { month: { type: 'string' } } });

    const result = await client.callTool({ name: 'beta_report', arguments: { month: '2026-01' } });
    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toBe('beta report for 2026-01 (beta_report)');

    const invalid = await client.callTool({ name: 'beta_report', arguments: { month: 'January' } });
    expect(invalid.isError).toBe(true);
    expect(firstText(invalid)).toContain('month must look like 2026-01');
  });

  it('removeTool: tools/list hides the tool and calling it is an unknown-tool error', async () => {
    toggles.enableBetaReport();
    expect(await names()).toContain('beta_report');

    expect(toggles.disableBetaReport()).toBe(true);
    expect(await names()).toEqual(['always_there']);

    const error = await client.callTool({ name: 'beta_report', arguments: { month: '2026-01' } }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(SdkMcpError);
    expect((error as SdkMcpError).code).toBe(-32602);
    expect((error as SdkMcpError).message).toContain('Unknown tool: beta_report');

    expect(toggles.disableBetaReport()).toBe(false);
  });

  it('addTool refuses a name already taken by a decorated tool, and an invalid name', async () => {
    expect(() => registry.addTool({ name: 'always_there', handler: () => 'impostor' })).toThrow(McpConfigurationError);
    expect(() => registry.addTool({ name: 'has space', handler: () => 'x' })).toThrow(McpConfigurationError);
    expect(await names()).toEqual(['always_there']);
    expect(firstText(await client.callTool({ name: 'always_there', arguments: {} }))).toBe('here');
  });

  it('announces tool changes with notifications/tools/list_changed on the legacy GET stream', async () => {
    const stream = await openStream();
    const isToolsChanged = (message: any) => message.method === 'notifications/tools/list_changed';

    toggles.enableBetaReport();
    expect(await stream.next(isToolsChanged)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
    });

    toggles.disableBetaReport();
    expect(await stream.next(isToolsChanged)).toMatchObject({ method: 'notifications/tools/list_changed' });
  });

  it('announces to every session with a stream open', async () => {
    const first = await openStream();
    const second = await openStream();
    toggles.enableBetaReport();
    const isToolsChanged = (message: any) => message.method === 'notifications/tools/list_changed';
    await expect(first.next(isToolsChanged)).resolves.toMatchObject({ method: 'notifications/tools/list_changed' });
    await expect(second.next(isToolsChanged)).resolves.toMatchObject({ method: 'notifications/tools/list_changed' });
  });

  it('announces resource and prompt changes with their own notifications', async () => {
    const stream = await openStream();
    toggles.enableChangelog();
    await expect(
      stream.next((message) => message.method === 'notifications/resources/list_changed'),
    ).resolves.toMatchObject({ method: 'notifications/resources/list_changed' });
    toggles.enableHaikuPrompt();
    await expect(
      stream.next((message) => message.method === 'notifications/prompts/list_changed'),
    ).resolves.toMatchObject({ method: 'notifications/prompts/list_changed' });

    expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain('docs://changelog');
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('haiku');
  });

  it('the SDK client hears tools/list_changed through its notification handler', async () => {
    let streamOpened: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (streamOpened = resolve));
    // The client opens its GET stream by itself after initialize; watch for it.
    const watchingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method === 'GET' && response.ok) {
        streamOpened();
      }
      return response;
    };
    const listening = await running.connect({ fetch: watchingFetch });
    expect(listening.getServerCapabilities()?.tools?.listChanged).toBe(true);

    const heard: string[] = [];
    let notified: () => void = () => undefined;
    const notification = new Promise<void>((resolve) => (notified = resolve));
    listening.setNotificationHandler(ToolListChangedNotificationSchema, (message) => {
      heard.push(message.method);
      notified();
    });
    await opened;

    toggles.enableBetaReport();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      notification,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no list_changed within 3 s')), 3000))),
    ]).finally(() => clearTimeout(timer));
    expect(heard).toEqual(['notifications/tools/list_changed']);
    expect((await listening.listTools()).tools.map((tool) => tool.name)).toContain('beta_report');
  });
});
