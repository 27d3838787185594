/**
 * The sample's notes tools against one bad input: `create_note` advertises `tags` as an array of
 * strings, so `tags: null` is refused (class-validator's `@IsOptional()` alone would let it
 * through), and `note_stats` keeps answering every caller. Over HTTP with the official SDK v1
 * client (legacy era) and raw modern requests.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AppModule } from '../sample/app.module';
import { NotesService } from '../sample/notes/notes.service';
import { startHttpApp, type HttpApp } from './fixtures/http-app';
import { firstText } from './fixtures/pipeline-app';
import { modernHeaders, modernRequest, post, type RpcMessage } from './fixtures/raw-rpc';

describe('sample: create_note refuses what its schema refuses; note_stats keeps answering', () => {
  const savedAuth = process.env.MCP_AUTH;
  let http: HttpApp;
  const clients: Client[] = [];

  async function connect(): Promise<Client> {
    const client = new Client({ name: 'sample-notes-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(http.url));
    clients.push(client);
    return client;
  }

  async function modernCall(name: string, args: Record<string, unknown>): Promise<RpcMessage> {
    const answer = await post(
      http.url,
      modernRequest('tools/call', { name, arguments: args }),
      modernHeaders('tools/call', name),
    );
    expect(answer.status).toBe(200);
    return answer.json as RpcMessage;
  }

  beforeAll(async () => {
    delete process.env.MCP_AUTH;
    http = await startHttpApp(AppModule);
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await http.close();
    if (savedAuth !== undefined) process.env.MCP_AUTH = savedAuth;
  });

  it('advertises tags as an optional array of strings', async () => {
    const { tools } = await (await connect()).listTools();
    const schema = tools.find((tool) => tool.name === 'create_note')!.inputSchema as Record<string, any>;
    expect(schema.properties.tags).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(schema.required).not.toContain('tags');
  });

  it('refuses tags: null with the invalid-arguments result, in both eras, and stores nothing', async () => {
    const notes = http.app.get(NotesService);
    const before = notes.list().length;
    const legacy = await (
      await connect()
    ).callTool({ name: 'create_note', arguments: { title: 'Bad', body: 'x', tags: null } });
    expect(legacy.isError).toBe(true);
    expect(firstText(legacy)).toBe('Invalid arguments for tool create_note: /tags must be array');
    const modern = await modernCall('create_note', { title: 'Bad', body: 'x', tags: null });
    expect(modern.error).toBeUndefined();
    expect(modern.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Invalid arguments for tool create_note: /tags must be array' }],
    });
    expect(notes.list()).toHaveLength(before);
  });

  it('note_stats still answers the next caller, with a tag and without', async () => {
    const next = await connect();
    const tagged = await next.callTool({ name: 'note_stats', arguments: { tag: 'intro' } });
    expect(tagged.isError).toBeFalsy();
    expect(tagged.structuredContent).toEqual({ total: 1, tag: 'intro' });
    const all = await next.callTool({ name: 'note_stats', arguments: {} });
    expect(all.structuredContent).toEqual({ total: http.app.get(NotesService).list().length, tag: null });
    const modern = await modernCall('note_stats', { tag: 'home' });
    expect(modern.result).toMatchObject({ structuredContent: { total: 1, tag: 'home' } });
  });

  it('create_note still takes valid tags, and no tags at all', async () => {
    const client = await connect();
    const created = await client.callTool({
      name: 'create_note',
      arguments: { title: 'Tagged', body: 'b', tags: ['x'] },
    });
    expect(firstText(created)).toMatch(/^Created note \d+: Tagged$/);
    const untagged = await client.callTool({ name: 'create_note', arguments: { title: 'Plain', body: 'b' } });
    expect(firstText(untagged)).toMatch(/^Created note \d+: Plain$/);
    expect((await client.callTool({ name: 'note_stats', arguments: { tag: 'x' } })).structuredContent).toEqual({
      total: 1,
      tag: 'x',
    });
  });

  it('the store keeps a list of tags whatever it is given, so one bad value cannot break the readers', async () => {
    const notes = http.app.get(NotesService);
    const stored = notes.create('Direct', 'from code', null);
    expect(stored.tags).toEqual([]);
    const result = await (await connect()).callTool({ name: 'note_stats', arguments: { tag: 'intro' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ total: 1, tag: 'intro' });
    const search = await (await connect()).callTool({ name: 'search_notes', arguments: { query: 'o', tag: 'nope' } });
    expect(firstText(search)).toBe('No notes found');
  });
});
