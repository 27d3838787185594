/**
 * The session bounds on Redis, with two instances of the sessions fixture on one real
 * redis-server: the server's cap and the per-caller cap hold however many initializes race on
 * both instances (each is one atomic step in Redis), a caller whose sessions are in use on one
 * instance is refused on the other while another caller is served, subscriptions per session
 * are bounded, and a session id of the wrong shape (`<id>:subs`, the key of its subscription
 * set) is an unknown session (404), never a read of another key.
 */
import { MCP_SESSION_STORE } from '../../lib/shared/mcp.constants';
import type { McpSessionStore } from '../../lib/interfaces/session-store.interface';
import type { McpModuleExtras, McpModuleOptions } from 'nest-mcp';
import { RecordingLogger } from '../fixtures/recording-logger';
import { exchange, legacyRequest, openLegacySession, post, waitUntil, type RawResponse } from '../fixtures/raw-rpc';
import {
  type HeldStream,
  holdStream,
  PRINCIPAL_HEADER,
  type SessionsApp,
  startSessionsApp,
  WATCHED_URI,
} from '../fixtures/sessions-fixture';
import type { HttpPlatform } from '../fixtures/http-app';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { uniqueKeyPrefix } from './cluster-helpers';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

const INITIALIZE = legacyRequest(
  'initialize',
  { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cluster-quotas', version: '0.0.1' } },
  1,
);

const as = (principal: string): Record<string, string> => ({ [PRINCIPAL_HEADER]: principal });

describe('cluster: session bounds on Redis', () => {
  let redisServer: RedisServerHandle;
  let apps: SessionsApp[] = [];
  let held: HeldStream[] = [];

  beforeAll(async () => {
    redisServer = await startRedisServer();
  });

  afterEach(async () => {
    held.forEach((stream) => stream.close());
    held = [];
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
  });

  afterAll(async () => {
    await redisServer?.stop();
  });

  /** Two instances (or `count`) sharing one Redis under a key prefix of their own. */
  async function startInstances(
    label: string,
    overrides: Partial<McpModuleOptions> & McpModuleExtras,
    options: { count?: number; platform?: HttpPlatform; logger?: RecordingLogger } = {},
  ): Promise<SessionsApp[]> {
    const keyPrefix = uniqueKeyPrefix(`quotas-${label}`);
    for (let index = 0; index < (options.count ?? 2); index += 1) {
      apps.push(
        await startSessionsApp(
          { ...overrides, redis: { url: redisServer.url, keyPrefix, commandTimeoutMs: 1_000 } },
          {
            platform: options.platform,
            configure: (app) => {
              if (options.logger !== undefined) {
                app.useLogger(options.logger);
              }
            },
          },
        ),
      );
    }
    return apps;
  }

  function statuses(answers: RawResponse[]): Record<number, number> {
    const counted: Record<number, number> = {};
    answers.forEach((answer) => (counted[answer.status] = (counted[answer.status] ?? 0) + 1));
    return counted;
  }

  it('lets at most sessions.maxSessions through when 160 initializes race on two instances', async () => {
    const [a, b] = await startInstances('total', { sessions: { maxSessions: 50, maxPerPrincipal: 1_000 } });
    const answers = await Promise.all(
      Array.from({ length: 160 }, (_, index) => post((index % 2 === 0 ? a : b).url, INITIALIZE, as(`caller-${index}`))),
    );
    const counted = statuses(answers);
    expect(Object.keys(counted).sort()).toEqual(['200', '503']);
    expect(counted[200]).toBe(50);
    await expect(a.sessions.count()).resolves.toBe(50);
    const refused = answers.find((answer) => answer.status === 503)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.json).toMatchObject({
      error: {
        code: -32603,
        message: 'Too many sessions: the server holds at most 50 (McpModule option sessions.maxSessions)',
      },
    });
  });

  it('lets at most sessions.maxSessions through when both instances open 160 sessions at once', async () => {
    const [a, b] = await startInstances('total-at-once', { sessions: { maxSessions: 50, maxPerPrincipal: 1_000 } });
    // Every open is issued before any answer comes back: a check apart from the creation lets them all through.
    const opened = await Promise.allSettled(
      Array.from({ length: 160 }, (_, index) =>
        (index % 2 === 0 ? a : b).sessions.open({ id: `caller-${index}`, scopes: [] }),
      ),
    );
    expect(opened.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(50);
    await expect(b.sessions.count()).resolves.toBe(50);
  });

  it('lets at most sessions.maxPerPrincipal through for one caller when both instances open 40 at once', async () => {
    const [a, b] = await startInstances('per-caller-at-once', { sessions: { maxPerPrincipal: 5 } });
    const alice = { id: 'alice', scopes: [] };
    const opened = await Promise.allSettled(
      Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? a : b).sessions.open(alice)),
    );
    expect(opened.some((outcome) => outcome.status === 'fulfilled')).toBe(true);
    await expect(a.sessions.count()).resolves.toBeLessThanOrEqual(5);
  });

  it('leaves one caller at most sessions.maxPerPrincipal sessions when 40 initializes race on two instances', async () => {
    const [a, b] = await startInstances('per-caller', { sessions: { maxPerPrincipal: 5 } });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, index) => post((index % 2 === 0 ? a : b).url, INITIALIZE, as('alice'))),
    );
    // Each one ends an idle session of alice's to make room, or is refused: never more than 5 live.
    expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
    await expect(a.sessions.count()).resolves.toBeLessThanOrEqual(5);
    const alive = [];
    for (const answer of answers.filter((one) => one.status === 200)) {
      const headers = { ...as('alice'), 'mcp-session-id': answer.headers.get('mcp-session-id')! };
      if ((await post(b.url, legacyRequest('ping', {}, 2), headers)).status === 200) {
        alive.push(headers);
      }
    }
    expect(alive.length).toBeGreaterThan(0);
    expect(alive.length).toBeLessThanOrEqual(5);
  });

  it('refuses a caller whose sessions hold streams on the other instance (429); another caller is served', async () => {
    const [a, b] = await startInstances('in-use', { sessions: { maxPerPrincipal: 2 } });
    for (let index = 0; index < 2; index += 1) {
      const session = await openLegacySession(a.url, '2025-11-25', { headers: as('alice') });
      const stream = await holdStream(a.url, session.headers);
      expect(stream.status).toBe(200);
      held.push(stream);
    }
    const refused = await post(b.url, INITIALIZE, as('alice'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32603,
        message: 'Too many sessions for this caller: at most 2 (McpModule option sessions.maxPerPrincipal)',
      },
    });
    const bob = await openLegacySession(b.url, '2025-11-25', { headers: as('bob') });
    const call = await post(
      a.url,
      legacyRequest('tools/call', { name: 'echo', arguments: { text: 'served' } }, 2),
      bob.headers,
    );
    expect(call.json).toMatchObject({ result: { content: [{ text: 'echo: served' }] } });
  });

  it('bounds the subscriptions of a session across instances', async () => {
    const [a, b] = await startInstances('subscriptions', { sessions: { maxSubscriptions: 2 } });
    const session = await openLegacySession(a.url);
    const subscribe = (url: URL, uri: string, id: number) =>
      post(url, legacyRequest('resources/subscribe', { uri }, id), session.headers);
    expect((await subscribe(a.url, WATCHED_URI, 1)).json).toMatchObject({ result: {} });
    expect((await subscribe(b.url, 'sessions://b', 2)).json).toMatchObject({ result: {} });
    expect((await subscribe(b.url, WATCHED_URI, 3)).json).toMatchObject({ result: {} });
    expect((await subscribe(a.url, 'sessions://c', 4)).json).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: {
        code: -32603,
        message: 'Too many subscriptions in this session: at most 2 (McpModule option sessions.maxSubscriptions)',
      },
    });
  });

  describe.each(PLATFORMS)('a session id of the wrong shape (%s)', (platform) => {
    it('answers 404 for `<id>:subs` on every verb and the SSE messages path, reading no other key, logging no error', async () => {
      const logger = new RecordingLogger();
      const [app] = await startInstances(
        `shape-${platform}`,
        { ssePath: 'sse', sseMessagesPath: 'messages' },
        { count: 1, platform, logger },
      );
      const session = await openLegacySession(app.url);
      expect(
        (await post(app.url, legacyRequest('resources/subscribe', { uri: WATCHED_URI }, 2), session.headers)).json,
      ).toMatchObject({ result: {} });
      const store = app.app.get<McpSessionStore>(MCP_SESSION_STORE);
      const get = jest.spyOn(store, 'get');
      const crafted = { ...session.headers, 'mcp-session-id': `${session.sessionId}:subs` };

      expect((await post(app.url, legacyRequest('ping', {}, 3), crafted)).status).toBe(404);
      const stream = await exchange(app.url, { method: 'GET', headers: { ...crafted, accept: 'text/event-stream' } });
      expect(stream.status).toBe(404);
      expect((await exchange(app.url, { method: 'DELETE', headers: crafted })).status).toBe(404);
      for (const id of [`${session.sessionId}:subs`, 'x'.repeat(10_000), `../${session.sessionId}`]) {
        const messages = new URL(`/messages?sessionId=${encodeURIComponent(id)}`, app.baseUrl);
        expect((await post(messages, legacyRequest('ping', {}, 4))).status).toBe(404);
      }
      expect(get).not.toHaveBeenCalled();
      expect(logger.lines.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);

      // The session itself is untouched.
      expect((await post(app.url, legacyRequest('ping', {}, 5), session.headers)).status).toBe(200);
      await waitUntil(async () => (await app.sessions.subscribers(WATCHED_URI)).length === 1, 'the subscription');
    });
  });
});
