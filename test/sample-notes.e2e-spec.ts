/**
 * The sample's notes tools against one bad input: `create_note` advertises `tags` as an array of
 * strings, so `tags: null` is refused (class-validator's `@IsOptional()` alone would let it
 * through), and `note_stats` keeps answering every caller. Through the testing kit, in the
 * legacy era (a session) and the modern one.
 */
import type { INestApplication } from '@nestjs/common';
import { createMcpTestClient, type McpTestClient } from 'nest-mcp/testing';
import { AppModule } from '../sample/app.module';
import { NotesService } from '../sample/notes/notes.service';
import { firstText } from './fixtures/pipeline-app';
import { mcpApp } from './support/mcp-app';

describe('sample: create_note refuses what its schema refuses; note_stats keeps answering', () => {
  const savedAuth = process.env.MCP_AUTH;
  let app: INestApplication;
  let legacy: McpTestClient;
  let modern: McpTestClient;

  beforeAll(async () => {
    delete process.env.MCP_AUTH;
    app = await mcpApp(AppModule);
    legacy = await createMcpTestClient(app, { revision: '2025-06-18' });
    modern = await createMcpTestClient(app);
  });

  afterAll(async () => {
    await legacy.close();
    await modern.close();
    await app.close();
    if (savedAuth !== undefined) process.env.MCP_AUTH = savedAuth;
  });

  it('advertises tags as an optional array of strings', async () => {
    const tools = await legacy.listTools();
    const schema = tools.find((tool) => tool.name === 'create_note')!.inputSchema as Record<string, any>;
    expect(schema.properties.tags).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(schema.required).not.toContain('tags');
  });

  it('refuses tags: null with the invalid-arguments result, in both eras, and stores nothing', async () => {
    const notes = app.get(NotesService);
    const before = notes.list().length;
    const bad = { title: 'Bad', body: 'x', tags: null } as Record<string, unknown>;
    for (const client of [legacy, modern]) {
      // A result, not a JSON-RPC error (which the kit would throw).
      expect(await client.callTool('create_note', bad)).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Invalid arguments for tool create_note: /tags must be array' }],
      });
    }
    expect(notes.list()).toHaveLength(before);
  });

  it('note_stats still answers the next caller, with a tag and without', async () => {
    const tagged = await legacy.callTool('note_stats', { tag: 'intro' });
    expect(tagged.isError).toBeFalsy();
    expect(tagged.structuredContent).toEqual({ total: 1, tag: 'intro' });
    const all = await legacy.callTool('note_stats', {});
    expect(all.structuredContent).toEqual({ total: app.get(NotesService).list().length, tag: null });
    expect(await modern.callTool('note_stats', { tag: 'home' })).toMatchObject({
      structuredContent: { total: 1, tag: 'home' },
    });
  });

  it('create_note still takes valid tags, and no tags at all', async () => {
    const created = await legacy.callTool('create_note', { title: 'Tagged', body: 'b', tags: ['x'] });
    expect(firstText(created)).toMatch(/^Created note \d+: Tagged$/);
    const untagged = await legacy.callTool('create_note', { title: 'Plain', body: 'b' });
    expect(firstText(untagged)).toMatch(/^Created note \d+: Plain$/);
    expect((await legacy.callTool('note_stats', { tag: 'x' })).structuredContent).toEqual({ total: 1, tag: 'x' });
  });

  it('the store keeps a list of tags whatever it is given, so one bad value cannot break the readers', async () => {
    const stored = app.get(NotesService).create('Direct', 'from code', null);
    expect(stored.tags).toEqual([]);
    const result = await legacy.callTool('note_stats', { tag: 'intro' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ total: 1, tag: 'intro' });
    expect(firstText(await legacy.callTool('search_notes', { query: 'o', tag: 'nope' }))).toBe('No notes found');
  });
});
