/**
 * The testing kit's client in-process, in both eras, on Express and Fastify: discovery, every
 * list (cursors followed), tools (a DTO tool, an isError result), resources, templates,
 * prompts, completion, and the log level.
 */
import type { INestApplication } from '@nestjs/common';
import { createMcpTestClient, type McpTestClient } from 'nest-mcp/testing';
import { KIT_SERVER, KIT_TOKENS } from './kit-fixture';
import { kitApp, PLATFORMS, REVISIONS } from './kit-app';

const ADMIN = { authorization: `Bearer ${KIT_TOKENS.admin}` };

describe.each(PLATFORMS)('the test client in-process (%s)', (platform) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await kitApp(platform, { pageSize: 3 });
  });

  afterAll(async () => {
    await app.close();
  });

  describe.each(REVISIONS)('speaking %s', (revision) => {
    let client: McpTestClient;

    beforeEach(async () => {
      client = await createMcpTestClient(app, { revision, headers: ADMIN });
    });

    afterEach(async () => {
      await client.close();
    });

    it('discovers the server (server/discover, or the initialize handshake)', async () => {
      const info = await client.discover();
      expect(info.protocolVersion).toBe(revision);
      expect(info.capabilities.tools).toBeDefined();
      expect(info.serverInfo).toMatchObject(KIT_SERVER);
      expect(client.session === undefined).toBe(revision === '2026-07-28');
    });

    it('lists every tool, following the cursors', async () => {
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'ask_in_task',
        'ask_model',
        'ask_name',
        'ask_roots',
        'block',
        'broken',
        'chatty',
        'guarded',
        'repeat',
        'scoped',
        'search',
        'slow_task',
      ]);
      expect(tools.find((tool) => tool.name === 'repeat')?.inputSchema).toMatchObject({
        type: 'object',
        required: expect.arrayContaining(['text', 'times']),
      });
    });

    it('calls a DTO tool, and gets its validation failure as an isError result', async () => {
      const result = await client.callTool('repeat', { text: 'ab', times: 2 });
      expect(result.content).toEqual([{ type: 'text', text: 'abab' }]);
      expect(result.isError).toBeUndefined();
      const invalid = await client.callTool('repeat', { text: 'ab', times: 'two' });
      expect(invalid.isError).toBe(true);
    });

    it('returns a tool error as an isError result', async () => {
      const result = await client.callTool('broken');
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.any(String) }] });
    });

    it('reads resources, lists templates, gets prompts and completes arguments', async () => {
      expect((await client.listResources()).map((resource) => resource.uri)).toEqual(['kit://greeting']);
      expect((await client.readResource('kit://greeting')).contents).toEqual([
        { uri: 'kit://greeting', mimeType: 'text/plain', text: 'hello' },
      ]);
      expect((await client.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual([
        'kit://colors/{name}',
      ]);
      expect((await client.readResource('kit://colors/red')).contents[0]).toMatchObject({ text: 'color red' });
      // A name that is not header-safe travels in Mcp-Name as base64 (modern era).
      expect((await client.readResource('kit://colors/grün')).contents[0]).toMatchObject({ text: 'color grün' });
      expect((await client.listPrompts()).map((prompt) => prompt.name)).toEqual(['greet']);
      const prompt = await client.getPrompt('greet', { who: 'Ada' });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Greet Ada' } }]);
      const completed = await client.complete(
        { type: 'ref/resource', uri: 'kit://colors/{name}' },
        { name: 'name', value: 'gr' },
      );
      expect(completed.completion.values).toEqual(['green', 'grey']);
    });

    it('returns the progress and log notifications of a call with its result', async () => {
      await client.setLoggingLevel('info');
      const progress: number[] = [];
      const result = await client.callTool('chatty', {}, { onProgress: (update) => progress.push(update.progress) });
      expect(result.content).toEqual([{ type: 'text', text: 'chatted' }]);
      expect(progress).toEqual([1, 2]);
      expect(result.notifications.map((notification) => notification.method)).toEqual([
        'notifications/progress',
        'notifications/message',
        'notifications/progress',
      ]);
      expect(result.notifications[1].params).toMatchObject({ level: 'info', logger: 'kit', data: 'working' });
    });
  });
});
