/**
 * The sample's REST notes (`NotesController` at /api/notes) as route tools beside the hand-written
 * ones, with the official v2 client over the sample's own HTTP server: the route tools are listed
 * with their generated names and annotations, share the notes with search_notes, answer a missing
 * note with an isError 404, and refuse a delete the way delete_note is refused (EditorGuard, the
 * `x-notes-role` header forwarded); plain HTTP keeps answering the same routes.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppModule } from '../sample/app.module';
import { NotesService } from '../sample/notes/notes.service';
import { type HttpApp, startHttpApp } from './fixtures/http-app';
import { MODERN_REVISION } from './fixtures/raw-rpc';

type Result = { isError?: boolean; content: Array<{ type: string; text: string }>; structuredContent?: unknown };

async function connect(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client(
    { name: 'sample-routes', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

describe('sample: the notes REST routes are tools beside the hand-written ones', () => {
  const savedAuth = process.env.MCP_AUTH;
  let server: HttpApp;
  let client: Client;
  let editor: Client;

  beforeAll(async () => {
    delete process.env.MCP_AUTH;
    server = await startHttpApp(AppModule);
    client = await connect(server.url);
    editor = await connect(server.url, { 'x-notes-role': 'editor' });
  });

  afterAll(async () => {
    await client.close();
    await editor.close();
    await server.close();
    if (savedAuth !== undefined) process.env.MCP_AUTH = savedAuth;
  });

  it('lists the route tools with their generated names and annotations beside the hand-written tools', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    for (const name of ['create_note', 'search_notes', 'note_stats', 'delete_note']) {
      expect(byName[name]).toBeDefined();
    }
    expect(byName.notes_list).toMatchObject({
      description: 'GET /api/notes',
      inputSchema: { type: 'object', properties: { tag: { type: 'string' } } },
      annotations: { readOnlyHint: true },
    });
    expect(byName.notes_get).toMatchObject({
      description: 'GET /api/notes/:id',
      inputSchema: { properties: { id: { type: 'string' } }, required: ['id'] },
      annotations: { readOnlyHint: true },
    });
    expect(byName.notes_create).toMatchObject({
      description: 'POST /api/notes',
      inputSchema: { properties: { body: { type: 'object' } }, required: ['body'] },
      annotations: { readOnlyHint: false },
    });
    expect(byName.notes_remove).toMatchObject({
      description: 'DELETE /api/notes/:id',
      annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: true },
    });
  });

  it('a note created through notes_create is found by search_notes and by notes_get', async () => {
    const created = await call(client, 'notes_create', {
      body: { title: 'Over REST', body: 'made by a route tool', tags: ['rest'] },
    });
    expect(created.isError).toBeFalsy();
    const note = created.structuredContent as { id: string; title: string; tags: string[] };
    expect(note).toMatchObject({ title: 'Over REST', tags: ['rest'] });
    expect((await call(client, 'search_notes', { query: 'route tool', tag: 'rest' })).content[0].text).toBe(
      `${note.id}: Over REST`,
    );
    expect((await call(client, 'notes_get', { id: note.id })).structuredContent).toEqual(note);
  });

  it('the route ValidationPipe refuses a bad body as an isError result', async () => {
    const refused = await call(client, 'notes_create', { body: { title: '', body: 'x' } });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(/^HTTP 400: .*title/);
  });

  it('get of a missing note is an isError 404 result', async () => {
    const missing = await call(client, 'notes_get', { id: '999999' });
    expect(missing).toMatchObject({ isError: true, content: [{ type: 'text', text: 'HTTP 404: No note 999999' }] });
  });

  it('notes_remove is refused without x-notes-role: editor, as delete_note is, and allowed with it', async () => {
    const notes = server.app.get(NotesService);
    const first = notes.create('Doomed', 'to go', []);
    const second = notes.create('Doomed too', 'to go', []);
    // The hand-written tool's guard answers a JSON-RPC error; the route's a 403, an isError result.
    await expect(call(client, 'delete_note', { id: first.id })).rejects.toThrow('Forbidden resource');
    const refused = await call(client, 'notes_remove', { id: first.id });
    expect(refused).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^HTTP 403: /) }] });
    expect(notes.get(first.id)).toBeDefined();

    expect((await call(editor, 'notes_remove', { id: first.id })).isError).toBeFalsy();
    expect(notes.get(first.id)).toBeUndefined();
    expect((await call(editor, 'delete_note', { id: second.id })).isError).toBeFalsy();
    expect(notes.get(second.id)).toBeUndefined();
  });

  it('plain HTTP keeps answering the routes, with the same guard on DELETE', async () => {
    const listed = await fetch(`${server.baseUrl}/api/notes?tag=intro`);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ notes: [expect.objectContaining({ title: 'Welcome', tags: ['intro'] })] });
    const id = server.app.get(NotesService).create('Http', 'x', []).id;
    expect((await fetch(`${server.baseUrl}/api/notes/${id}`, { method: 'DELETE' })).status).toBe(403);
    const allowed = await fetch(`${server.baseUrl}/api/notes/${id}`, {
      method: 'DELETE',
      headers: { 'x-notes-role': 'editor' },
    });
    expect(allowed.status).toBe(204);
  });
});
