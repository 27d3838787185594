/**
 * Two MCP servers in one application over real HTTP, on Express and Fastify (issue 17): the
 * public server (no auth, echo + time) and the admin server (bearer, three tools, one of them a
 * task tool) of test/fixtures/servers-fixture.ts. Each lists and runs only its own tools in both
 * eras; a session, a task and a list change of one server stay unknown to the other.
 */
import { getMcpToken, McpNotifier, McpRegistry, McpTaskService } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from '../fixtures/http-app';
import {
  legacyRequest,
  META,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  type RawResponse,
  type RpcMessage,
  send,
  SseReader,
  toolText,
  waitUntil,
} from '../fixtures/raw-rpc';
import { ADMIN_TOKEN, twoServersModule } from '../fixtures/servers-fixture';

type Server = 'public' | 'admin';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const SERVERS: Server[] = ['public', 'admin'];
const TOOLS: Record<Server, string[]> = {
  public: ['echo', 'time'],
  admin: ['admin_reindex', 'admin_reset', 'admin_users'],
};
/** A tool of the other server, for each server. */
const FOREIGN: Record<Server, string> = { public: 'admin_reset', admin: 'echo' };
/** What each server's own tool answers (admin_reset names the bearer principal of ADMIN_TOKEN). */
const OWN_CALLS: Array<[Server, string, string]> = [
  ['public', 'echo', 'public:hi'],
  ['public', 'time', 'public:time'],
  ['admin', 'admin_reset', 'admin:reset by ops'],
  ['admin', 'admin_users', 'admin:users'],
];
const ADMIN_AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };
const AUTH: Record<Server, Record<string, string>> = { public: {}, admin: ADMIN_AUTH };
const OTHER: Record<Server, Server> = { public: 'admin', admin: 'public' };
/** JSON-RPC "Invalid params": what tools/call answers for a tool the server does not have, and tasks/get for an unknown task. */
const INVALID_PARAMS = -32602;
const TASKS = 'io.modelcontextprotocol/tasks';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
/** Well past the default inline window (100 ms), so that the call is a task by then. */
const PAST_WINDOW_MS = 600;

const names = (response: RawResponse | RpcMessage): string[] => {
  const message = ('json' in response ? response.json : response) as RpcMessage;
  return (message.result?.tools as Array<{ name: string }>).map((tool) => tool.name).sort();
};

describe.each(PLATFORMS)('two servers in one application (%s)', (platform) => {
  let http: HttpApp;
  /** Aborted after each test: ends the streams a test left open. */
  let cleanup: AbortController;

  beforeAll(async () => {
    http = await startHttpApp(twoServersModule(), { platform, path: 'public' });
  });
  afterAll(() => http?.close());
  beforeEach(() => {
    cleanup = new AbortController();
  });
  afterEach(() => cleanup.abort());

  const url = (server: Server): string => `${http.baseUrl}/${server}`;

  /** A modern (2026-07-28) stateless request, with the admin token when sent to admin. */
  const modern = (
    server: Server,
    method: string,
    params: Record<string, unknown> = {},
    options: { name?: string; capabilities?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ): Promise<RawResponse> =>
    post(
      url(server),
      modernRequest(method, params, 1, options.capabilities ? { [META.clientCapabilities]: options.capabilities } : {}),
      { ...modernHeaders(method, options.name), ...(options.headers ?? AUTH[server]) },
    );

  const modernCall = (server: Server, name: string, args: Record<string, unknown> = {}) =>
    modern(server, 'tools/call', { name, arguments: args }, { name });

  describe('the modern era (stateless POST with _meta)', () => {
    it.each(SERVERS)('%s lists exactly its own tools', async (server) => {
      const listed = await modern(server, 'tools/list');
      expect(listed.status).toBe(200);
      expect(names(listed)).toEqual(TOOLS[server]);
    });

    it.each(OWN_CALLS)('%s runs its own %s', async (server, tool, text) => {
      const called = await modernCall(server, tool, { text: 'hi' });
      expect(called.status).toBe(200);
      expect(called.json.result.isError).toBeUndefined();
      expect(toolText(called)).toBe(text);
    });

    it.each(SERVERS)("%s answers the other server's tool as an unknown tool (-32602)", async (server) => {
      const tool = FOREIGN[server];
      const called = await modernCall(server, tool);
      // The modern era carries -32602 with 400 (lib/protocol/messages/error-status.ts).
      expect(called.status).toBe(400);
      expect(called.json.result).toBeUndefined();
      expect(called.json.error).toMatchObject({ code: INVALID_PARAMS, message: `Unknown tool: ${tool}` });
      // The same answer as for a tool no server has: nothing tells the client the other server has it.
      const nowhere = await modernCall(server, 'no_such_tool');
      expect(nowhere.status).toBe(called.status);
      expect(nowhere.json.error).toMatchObject({ code: INVALID_PARAMS, message: 'Unknown tool: no_such_tool' });
    });

    it('admin without its token is 401 with a Bearer challenge; public needs none', async () => {
      for (const headers of [{} as Record<string, string>, { authorization: 'Bearer not-the-admin-token' }]) {
        const refused = await modern('admin', 'tools/list', {}, { headers });
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      }
      const open = await modern('public', 'tools/list', {}, { headers: {} });
      expect(open.status).toBe(200);
      expect(open.headers.get('www-authenticate')).toBeNull();
    });
  });

  describe('the legacy era (initialize, then the session)', () => {
    const openSession = (server: Server) => openLegacySession(url(server), '2025-11-25', { headers: AUTH[server] });

    it.each(SERVERS)('%s lists and runs only its own tools in a session', async (server) => {
      const { headers } = await openSession(server);
      const listed = await post(url(server), legacyRequest('tools/list', {}, 2), headers);
      expect(listed.status).toBe(200);
      expect(names(listed)).toEqual(TOOLS[server]);

      for (const [owner, tool, text] of OWN_CALLS.filter(([owner]) => owner === server)) {
        const called = await post(
          url(owner),
          legacyRequest('tools/call', { name: tool, arguments: { text: 'hi' } }, 3),
          headers,
        );
        expect(toolText(called)).toBe(text);
      }

      const foreign = await post(
        url(server),
        legacyRequest('tools/call', { name: FOREIGN[server], arguments: {} }, 4),
        headers,
      );
      // The legacy era carries every JSON-RPC error of a call with 200.
      expect(foreign.status).toBe(200);
      expect(foreign.json.result).toBeUndefined();
      expect(foreign.json.error).toMatchObject({ code: INVALID_PARAMS, message: `Unknown tool: ${FOREIGN[server]}` });
    });

    it('admin refuses the handshake without its token: 401 with a Bearer challenge', async () => {
      const init = await post(
        url('admin'),
        legacyRequest('initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw-e2e', version: '0.0.1' },
        }),
      );
      expect(init.status).toBe(401);
      expect(init.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      expect(init.headers.get('mcp-session-id')).toBeNull();
    });

    it.each(SERVERS)('a session id of %s is 404 on the other server', async (server) => {
      const session = await openSession(server);
      const other = OTHER[server];
      // The other server's credentials, the first server's session id.
      const headers = {
        ...AUTH[other],
        'mcp-session-id': session.sessionId,
        'mcp-protocol-version': session.protocolVersion,
      };
      const crossed = await post(url(other), legacyRequest('tools/list', {}, 2), headers);
      expect(crossed.status).toBe(404);
      // Still a live session where it was opened.
      const home = await post(url(server), legacyRequest('tools/list', {}, 3), session.headers);
      expect(home.status).toBe(200);
      expect(names(home)).toEqual(TOOLS[server]);
    });
  });

  describe('tasks', () => {
    const WITH_TASKS = { extensions: { [TASKS]: {} } };
    const getTask = (server: Server, taskId: string) =>
      modern(server, 'tasks/get', { taskId }, { name: taskId, capabilities: WITH_TASKS });

    it('an admin task is readable on admin and unknown (-32602) on public', async () => {
      const started = await modern(
        'admin',
        'tools/call',
        { name: 'admin_reindex', arguments: { ms: PAST_WINDOW_MS } },
        { name: 'admin_reindex', capabilities: WITH_TASKS },
      );
      expect(started.status).toBe(200);
      expect(started.json.result).toMatchObject({ resultType: 'task', taskId: expect.any(String) });
      const { taskId } = started.json.result as { taskId: string };

      const onAdmin = await getTask('admin', taskId);
      expect(onAdmin.status).toBe(200);
      expect(onAdmin.json.result).toMatchObject({ taskId, status: expect.stringMatching(/^(working|completed)$/) });

      const onPublic = await getTask('public', taskId);
      expect(onPublic.status).toBe(400);
      expect(onPublic.json.result).toBeUndefined();
      expect(onPublic.json.error?.code).toBe(INVALID_PARAMS);

      // Not a matter of ownership (public serves everyone as anonymous): public's store has no such task.
      const tasksOf = (server: Server) => http.app.get<McpTaskService>(getMcpToken(McpTaskService, server));
      await expect(tasksOf('admin').get(taskId)).resolves.toMatchObject({ id: taskId });
      await expect(tasksOf('public').get(taskId)).resolves.toBeUndefined();

      // It ends on admin, and is still unknown on public.
      await waitUntil(
        async () => (await getTask('admin', taskId)).json.result?.status === 'completed',
        'the admin task to complete',
      );
      expect((await getTask('public', taskId)).json.error?.code).toBe(INVALID_PARAMS);
    });
  });

  describe('list changes', () => {
    const notifierOf = (server: Server) => http.app.get<McpNotifier>(getMcpToken(McpNotifier, server));

    /** A `subscriptions/listen` stream for tools and prompts changes, past its acknowledgement. */
    async function openListen(server: Server, id: string): Promise<SseReader> {
      const response = await send(url(server), {
        body: modernRequest(
          'subscriptions/listen',
          { notifications: { toolsListChanged: true, promptsListChanged: true } },
          id,
        ),
        headers: { ...modernHeaders('subscriptions/listen'), ...AUTH[server] },
        signal: cleanup.signal,
      });
      expect(response.status).toBe(200);
      const reader = new SseReader(response);
      await expect(reader.next()).resolves.toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
      return reader;
    }

    /** A legacy session's GET stream. */
    async function openGet(server: Server): Promise<SseReader> {
      const session = await openLegacySession(url(server), '2025-11-25', { headers: AUTH[server] });
      const response = await send(url(server), {
        method: 'GET',
        headers: { ...session.headers, accept: 'text/event-stream' },
        signal: cleanup.signal,
      });
      expect(response.status).toBe(200);
      return new SseReader(response);
    }

    /** Where a change notification was published; the other server's streams must not see it. */
    async function expectHeardOnlyByAdmin(change: () => void | Promise<void>): Promise<void> {
      const listens = {
        admin: await openListen('admin', 'listen-admin'),
        public: await openListen('public', 'listen-public'),
      };
      const gets = { admin: await openGet('admin'), public: await openGet('public') };

      await change();
      await expect(listens.admin.next()).resolves.toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUBSCRIPTION_ID]: 'listen-admin' } },
      });
      await expect(gets.admin.next()).resolves.toMatchObject({ method: 'notifications/tools/list_changed' });

      // Admin's notification is out on both of admin's streams; a different change on public now.
      // Had admin's leaked to public, it would be the first message public's streams read.
      await notifierOf('public').promptsChanged();
      await expect(listens.public.next()).resolves.toEqual({
        jsonrpc: '2.0',
        method: 'notifications/prompts/list_changed',
        params: { _meta: { [SUBSCRIPTION_ID]: 'listen-public' } },
      });
      await expect(gets.public.next()).resolves.toMatchObject({ method: 'notifications/prompts/list_changed' });
    }

    it("admin's notifier is heard by admin's listen and GET streams only", async () => {
      await expectHeardOnlyByAdmin(() => notifierOf('admin').toolsChanged());
    });

    it("a tool registered at runtime on admin's registry is heard by admin's streams only", async () => {
      const registry = http.app.get<McpRegistry>(getMcpToken(McpRegistry, 'admin'));
      const name = `admin_runtime_${platform}`;
      try {
        await expectHeardOnlyByAdmin(() => {
          registry.addTool({ name, description: 'Added at runtime', handler: () => 'admin:runtime' });
        });
        expect(names(await modern('admin', 'tools/list'))).toContain(name);
        expect(names(await modern('public', 'tools/list'))).toEqual(TOOLS.public);
      } finally {
        registry.removeTool(name);
      }
    });

    it('the default notifier (by class) is the public one', async () => {
      // Resolved by class, it is public's: its change reaches public's listen, not admin's.
      const listens = { admin: await openListen('admin', 'a'), public: await openListen('public', 'p') };
      await http.app.get(McpNotifier).toolsChanged();
      await expect(listens.public.next()).resolves.toMatchObject({ method: 'notifications/tools/list_changed' });
      await notifierOf('admin').promptsChanged();
      await expect(listens.admin.next()).resolves.toMatchObject({ method: 'notifications/prompts/list_changed' });
    });
  });
});
