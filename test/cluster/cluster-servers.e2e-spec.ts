/**
 * Two servers (public, no auth; admin, bearer) in one application, run as two instances on one
 * Redis behind a round-robin proxy: sessions, tasks, Redis keys and notifications stay per server
 * across instances. A session or task of one server is served by every instance of that server
 * and by no instance of the other; each server's keys live under its own default prefix; a change
 * announced on one instance reaches that server's streams held on the other instance, and only
 * those. Instances are addressed directly (A and B) wherever a test is about which one does what.
 */
import Redis from 'ioredis';
import { getMcpToken, McpNotifier } from 'nest-mcp';
import type { HttpApp } from '../fixtures/http-app';
import {
  META,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  type RawResponse,
  type RpcMessage,
  send,
  SseReader,
} from '../fixtures/raw-rpc';
import {
  ADMIN_AUTH,
  ADMIN_PRINCIPAL,
  AS_ADMIN_PRINCIPAL,
  type ServerPath,
  type ServersCluster,
  startServersCluster,
} from '../fixtures/cluster-servers-fixture';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import {
  legacyPost,
  openLegacyStream,
  pollFor,
  rpcErrorOf,
  rpcResultOf,
  SUBSCRIPTION_ID,
  MCP_TASKS_EXTENSION,
} from './cluster-helpers';

const REVISION = '2025-11-25';
const PUBLIC_TOOLS = ['echo', 'time'];
const ADMIN_TOOLS = ['admin_reindex', 'admin_reset', 'admin_users'];
const TASK_ID = /^task_[0-9a-f]{32}$/;
/** Well past the inline window (100 ms): the call is a task by then, even on a loaded machine. */
const PAST_WINDOW_MS = 600;

/** The sorted names of a tools/list answer. */
function toolNames(response: RawResponse): string[] {
  return (rpcResultOf(response).tools as Array<{ name: string }>).map((tool) => tool.name).sort();
}

/** The body field `Mcp-Name` mirrors, by modern method. */
const NAME_FIELD: Record<string, string> = { 'tools/call': 'name', 'tasks/get': 'taskId' };

/** The headers and body of a modern request that declares the tasks extension. */
function modernParts(
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string>,
  id: string | number,
): { body: RpcMessage; headers: Record<string, string> } {
  const field = NAME_FIELD[method];
  const name = field !== undefined && typeof params[field] === 'string' ? params[field] : undefined;
  return {
    body: modernRequest(method, params, id, {
      [META.clientCapabilities]: { extensions: { [MCP_TASKS_EXTENSION]: {} } },
    }),
    headers: { ...modernHeaders(method, name), ...headers },
  };
}

/** One modern (2026-07-28) request, with extra headers (admin's bearer). */
function modernPost(
  url: URL,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  id: string | number = 1,
): Promise<RawResponse> {
  const parts = modernParts(method, params, headers, id);
  return post(url, parts.body, parts.headers);
}

/** Every key in Redis (the server is this spec's own). */
async function allKeys(redis: Redis): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', '*', 'COUNT', 500);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys.sort();
}

describe('cluster: two servers on one Redis, two instances behind a round-robin proxy', () => {
  let redisServer: RedisServerHandle;
  let redis: Redis;
  let cluster: ServersCluster;
  let a: HttpApp;
  let b: HttpApp;
  /** Aborted after each test: drops every stream a test left open. */
  let streams: AbortController;

  beforeAll(async () => {
    // A redis-server of this file's own: both servers keep their default prefixes (`mcp:` and
    // `mcp:admin:`), which any other spec on a shared server would share.
    redisServer = await startRedisServer();
    redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
  });

  afterAll(async () => {
    await redis?.quit();
    await redisServer?.stop();
  });

  beforeEach(async () => {
    streams = new AbortController();
    cluster = await startServersCluster({ redisUrl: redisServer.url });
    [a, b] = cluster.apps;
  });

  afterEach(async () => {
    streams.abort();
    await cluster?.close();
  });

  const on = (app: HttpApp, server: ServerPath): URL => cluster.urlOn(app, server);

  /**
   * Opens a legacy session of `server` on `app`: admin's with the bearer, public's as admin's
   * principal, so that both sessions have one owner and only the servers' stores tell them apart.
   */
  async function legacySession(app: HttpApp, server: ServerPath) {
    const session = await openLegacySession(on(app, server), REVISION, {
      headers: { ...(server === 'admin' ? ADMIN_AUTH : AS_ADMIN_PRINCIPAL) },
    });
    expect(session.protocolVersion).toBe(REVISION);
    return session;
  }

  /** The status and JSON-RPC error of a legacy tools/list sent with `headers` to `url`. */
  async function listStatus(url: URL, headers: Record<string, string>) {
    const response = await legacyPost(url, headers, 'tools/list');
    return { status: response.status, error: response.json?.error };
  }

  describe('sessions stay per server across instances', () => {
    it('a public session opened on A works on B, and is 404 on admin (with its token) on A and B', async () => {
      const { headers } = await legacySession(a, 'public');

      expect(toolNames(await legacyPost(on(b, 'public'), headers, 'tools/list'))).toEqual(PUBLIC_TOOLS);
      const echoed = rpcResultOf(
        await legacyPost(on(b, 'public'), headers, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }),
      );
      expect(echoed.content).toEqual([{ type: 'text', text: 'public:hi' }]);

      // The token gets past admin's auth, and the session's owner is the token's principal: what
      // refuses the request is that admin has no such session.
      const onAdmin = { ...headers, ...ADMIN_AUTH };
      for (const app of [a, b]) {
        const refused = await listStatus(on(app, 'admin'), onAdmin);
        expect(refused.status).toBe(404);
        expect(refused.error).toMatchObject({ code: -32600 });
      }
      // Nor does any admin request open it by the way: public still serves it, on both instances.
      for (const app of [a, b]) {
        expect(toolNames(await legacyPost(on(app, 'public'), headers, 'tools/list'))).toEqual(PUBLIC_TOOLS);
      }
    });

    it('an admin session opened on A works on B, and is 404 on public on A and B', async () => {
      const { headers } = await legacySession(a, 'admin');

      expect(toolNames(await legacyPost(on(b, 'admin'), headers, 'tools/list'))).toEqual(ADMIN_TOOLS);
      const reset = rpcResultOf(
        await legacyPost(on(b, 'admin'), headers, 'tools/call', { name: 'admin_reset', arguments: {} }),
      );
      expect(reset.content).toEqual([{ type: 'text', text: 'admin:reset by ops' }]);
      // Admin's auth still holds on B: the session id alone does not get in.
      const { authorization: _token, ...withoutToken } = headers;
      expect((await legacyPost(on(b, 'admin'), withoutToken, 'tools/list')).status).toBe(401);

      // Sent as the session's owner, so that no ownership check can be what refuses it.
      for (const app of [a, b]) {
        const refused = await listStatus(on(app, 'public'), { ...headers, ...AS_ADMIN_PRINCIPAL });
        expect(refused.status).toBe(404);
        expect(refused.error).toMatchObject({ code: -32600 });
      }
    });

    it('through the proxy: each session is served by both instances of its server, and by neither of the other', async () => {
      // Each request goes to the next instance: the handshake itself is split between A and B.
      const publicSession = await openLegacySession(cluster.proxied('public'), REVISION, {
        headers: { ...AS_ADMIN_PRINCIPAL },
      });
      const adminSession = await openLegacySession(cluster.proxied('admin'), REVISION, { headers: { ...ADMIN_AUTH } });
      const before = [...cluster.proxy.hits];

      for (let round = 0; round < 2; round += 1) {
        expect(toolNames(await legacyPost(cluster.proxied('public'), publicSession.headers, 'tools/list'))).toEqual(
          PUBLIC_TOOLS,
        );
        expect(toolNames(await legacyPost(cluster.proxied('admin'), adminSession.headers, 'tools/list'))).toEqual(
          ADMIN_TOOLS,
        );
        expect((await listStatus(cluster.proxied('admin'), { ...publicSession.headers, ...ADMIN_AUTH })).status).toBe(
          404,
        );
        expect(
          (await listStatus(cluster.proxied('public'), { ...adminSession.headers, ...AS_ADMIN_PRINCIPAL })).status,
        ).toBe(404);
      }
      // Eight requests, four on each instance: every check above ran on both.
      expect(cluster.proxy.hits.map((hits, index) => hits - before[index])).toEqual([4, 4]);
    });
  });

  describe('tasks stay per server', () => {
    it('an admin task created on A is read on B at /admin, and is unknown (-32602) at /public on A and B', async () => {
      const created = rpcResultOf(
        await modernPost(
          on(a, 'admin'),
          'tools/call',
          { name: 'admin_reindex', arguments: { ms: PAST_WINDOW_MS } },
          ADMIN_AUTH,
        ),
      );
      expect(created).toMatchObject({ resultType: 'task', taskId: expect.stringMatching(TASK_ID) });
      const { taskId } = created;

      const done = await pollFor(
        async () => rpcResultOf(await modernPost(on(b, 'admin'), 'tasks/get', { taskId }, ADMIN_AUTH)),
        (task) => task.status !== 'working',
        `task ${taskId} to end, read on B`,
      );
      expect(done).toMatchObject({
        taskId,
        status: 'completed',
        result: { content: [{ type: 'text', text: 'admin:reindexed' }] },
      });

      for (const app of [a, b]) {
        // As the task's owner (public has no auth; the stand-in makes the caller admin's principal),
        // so that only the servers' separate stores explain the refusal; and anonymously.
        for (const headers of [AS_ADMIN_PRINCIPAL, {}]) {
          expect(rpcErrorOf(await modernPost(on(app, 'public'), 'tasks/get', { taskId }, headers)).code).toBe(-32602);
        }
      }
      // Admin still has it, on both instances.
      for (const app of [a, b]) {
        expect(rpcResultOf(await modernPost(on(app, 'admin'), 'tasks/get', { taskId }, ADMIN_AUTH))).toEqual(done);
      }
    });
  });

  describe('Redis keys', () => {
    it("admin's session and task keys live under mcp:admin:, public's under mcp: and not mcp:admin:", async () => {
      const publicSession = await legacySession(a, 'public');
      const adminSession = await legacySession(b, 'admin');
      // Used across instances, so that both instances wrote to each session.
      rpcResultOf(await legacyPost(on(b, 'public'), publicSession.headers, 'tools/list'));
      rpcResultOf(await legacyPost(on(a, 'admin'), adminSession.headers, 'tools/list'));
      const { taskId } = rpcResultOf(
        await modernPost(
          on(a, 'admin'),
          'tools/call',
          { name: 'admin_reindex', arguments: { ms: PAST_WINDOW_MS } },
          ADMIN_AUTH,
        ),
      );
      expect(taskId).toMatch(TASK_ID);
      // Let it end before the instances stop, so that its outcome is stored (and its keys final).
      await pollFor(
        async () => rpcResultOf(await modernPost(on(b, 'admin'), 'tasks/get', { taskId }, ADMIN_AUTH)),
        (task) => task.status === 'completed',
        `task ${taskId} to complete`,
      );

      const keys = await allKeys(redis);
      const holding = (id: string) => keys.filter((key) => key.includes(id));

      const adminKeys = holding(adminSession.sessionId);
      expect(adminKeys).toContain(`mcp:admin:session:${adminSession.sessionId}`);
      expect(adminKeys.filter((key) => !key.startsWith('mcp:admin:'))).toEqual([]);

      const publicKeys = holding(publicSession.sessionId);
      expect(publicKeys).toContain(`mcp:session:${publicSession.sessionId}`);
      expect(publicKeys.filter((key) => !key.startsWith('mcp:') || key.startsWith('mcp:admin:'))).toEqual([]);

      const taskKeys = holding(taskId);
      expect(taskKeys).toContain(`mcp:admin:task:${taskId}`);
      expect(taskKeys.filter((key) => !key.startsWith('mcp:admin:'))).toEqual([]);
      expect(await redis.exists(`mcp:task:${taskId}`)).toBe(0);

      // Each server's index lists only its own session.
      // Both sessions have one owner: only the prefixes keep them apart.
      expect(await redis.hget(`mcp:admin:session:${adminSession.sessionId}`, 'principalId')).toBe(ADMIN_PRINCIPAL);
      expect(await redis.hget(`mcp:session:${publicSession.sessionId}`, 'principalId')).toBe(ADMIN_PRINCIPAL);
      expect(await redis.zscore('mcp:admin:sessions', adminSession.sessionId)).not.toBeNull();
      expect(await redis.zscore('mcp:admin:sessions', publicSession.sessionId)).toBeNull();
      expect(await redis.zscore('mcp:sessions', publicSession.sessionId)).not.toBeNull();
      expect(await redis.zscore('mcp:sessions', adminSession.sessionId)).toBeNull();
      // Nothing the application wrote is outside the two prefixes.
      expect(keys.filter((key) => !key.startsWith('mcp:'))).toEqual([]);
    });
  });

  describe('notifications stay per server', () => {
    /** Opens a modern listen stream of `server` on `app` and checks its acknowledgement. */
    async function listen(app: HttpApp, server: ServerPath, notifications: Record<string, unknown>, id: string) {
      const parts = modernParts('subscriptions/listen', { notifications }, server === 'admin' ? ADMIN_AUTH : {}, id);
      const response = await send(on(app, server), {
        body: parts.body,
        headers: parts.headers,
        signal: streams.signal,
      });
      expect(response.status).toBe(200);
      const reader = new SseReader(response);
      const ack = await reader.next();
      expect(ack).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { [SUBSCRIPTION_ID]: id }, notifications },
      });
      return reader;
    }

    const notifierOn = (app: HttpApp, server: ServerPath): McpNotifier =>
      app.app.get<McpNotifier>(getMcpToken(McpNotifier, server));

    const listChanged = (list: string, subscriptionId?: string) =>
      subscriptionId === undefined
        ? { jsonrpc: '2.0', method: `notifications/${list}/list_changed` }
        : {
            jsonrpc: '2.0',
            method: `notifications/${list}/list_changed`,
            params: { _meta: { [SUBSCRIPTION_ID]: subscriptionId } },
          };

    it("a change announced on admin at A reaches admin's listen and GET streams on B, and not public's", async () => {
      const everyList = { toolsListChanged: true, resourcesListChanged: true, promptsListChanged: true };
      const adminListen = await listen(b, 'admin', everyList, 'admin-on-b');
      const publicListen = await listen(b, 'public', everyList, 'public-on-b');
      // Legacy sessions opened on A, their GET streams held on B.
      const adminSession = await legacySession(a, 'admin');
      const publicSession = await legacySession(a, 'public');
      const adminGet = await openLegacyStream(on(b, 'admin'), adminSession.headers, streams.signal);
      const publicGet = await openLegacyStream(on(b, 'public'), publicSession.headers, streams.signal);

      await notifierOn(a, 'admin').toolsChanged();
      expect(await adminListen.next()).toEqual(listChanged('tools', 'admin-on-b'));
      expect(await adminGet.next()).toMatchObject(listChanged('tools'));

      // Had admin's change reached public's streams, it would be the first thing they read now.
      await notifierOn(a, 'public').resourcesChanged();
      expect(await publicListen.next()).toEqual(listChanged('resources', 'public-on-b'));
      expect(await publicGet.next()).toMatchObject(listChanged('resources'));

      // And the other way round: public's change did not reach admin's streams.
      await notifierOn(a, 'admin').promptsChanged();
      expect(await adminListen.next()).toEqual(listChanged('prompts', 'admin-on-b'));
      expect(await adminGet.next()).toMatchObject(listChanged('prompts'));
    });
  });
});
