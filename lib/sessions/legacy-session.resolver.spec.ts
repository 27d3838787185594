import { Logger } from '@nestjs/common';
import { McpStoreUnavailableError } from '../errors/mcp-store-unavailable.error';
import { STORE_UNAVAILABLE } from '../shared/mcp.messages';
import type { McpPrincipal } from '../protocol/calls/call-context';
import type { LegacyTarget } from '../protocol/inbound';
import type { McpRevision } from '../protocol/messages/revisions';
import type { SessionHandle } from '../protocol/messages/session-handle';
import { isThenable } from '../protocol/messages/thenables';
import { LegacySessionResolver, SESSION_NOT_FOUND, SESSION_REQUIRED } from './legacy-session.resolver';
import { SessionLimitError, SessionQuotaError, type McpSessionService } from './mcp-session.service';
import type { McpSessionRecord } from '../interfaces/session-store.interface';

const alice: McpPrincipal = { id: 'alice' } as McpPrincipal;
const SUPPORTED: McpRevision[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

function record(id: string, protocolVersion?: McpRevision): McpSessionRecord {
  return {
    id,
    principalId: 'alice',
    createdAt: 0,
    lastActivity: 0,
    state: { protocolVersion, clientCapabilities: {}, logLevel: 'info', initialized: protocolVersion !== undefined },
  };
}

/** How the fake's store answers a read: with the record itself (the memory store) or a promise (Redis). */
type StoreAnswer = 'at once' | 'promise';

/** A session service over a map: `limit` sessions at most; records what was closed and refreshed. */
function fakeSessions(limit = 10, answers: StoreAnswer = 'at once') {
  const records = new Map<string, McpSessionRecord>([['mcp_known', record('mcp_known', '2024-11-05')]]);
  const closed: string[] = [];
  const refreshed: string[] = [];
  let next = 0;
  const service = {
    open: (principal: McpPrincipal) => {
      if (records.size >= limit) {
        return Promise.reject(new SessionLimitError(limit));
      }
      const opened = { ...record(`mcp_new${(next += 1)}`), principalId: principal.id };
      records.set(opened.id, opened);
      return Promise.resolve(opened);
    },
    find: (id: string, principal: McpPrincipal) => Promise.resolve(service.lookup(id, principal)),
    lookup: (id: string, principal: McpPrincipal) => {
      const stored = records.get(id);
      const owned = stored?.principalId === principal.id ? stored : undefined;
      return answers === 'at once' ? owned : Promise.resolve(owned);
    },
    refresh: (found: McpSessionRecord) => {
      refreshed.push(found.id);
      return undefined;
    },
    close: (id: string) => {
      closed.push(id);
      return Promise.resolve(records.delete(id));
    },
    handle: (found: McpSessionRecord) => ({ id: found.id, state: found.state }) as SessionHandle,
  };
  return { service: service as unknown as McpSessionService, closed, refreshed };
}

const target = (method: string | undefined, id: number | null = 1, versionHeader?: string): LegacyTarget => ({
  id,
  method,
  versionHeader,
  supported: SUPPORTED,
});

describe('LegacySessionResolver.byHeader', () => {
  it.each<[string, string | undefined, LegacyTarget, Record<string, unknown>]>([
    [
      'initialize without a session opens one',
      undefined,
      target('initialize'),
      { ok: true, opened: true, revision: undefined },
    ],
    [
      'an initialize notification opens none',
      undefined,
      target('initialize', null),
      { ok: false, reason: 'session-required', message: SESSION_REQUIRED },
    ],
    [
      'a request without a session is refused',
      undefined,
      target('tools/list'),
      { ok: false, reason: 'session-required' },
    ],
    [
      'server/discover needs no session',
      undefined,
      target('server/discover'),
      { ok: true, session: undefined, opened: false },
    ],
    [
      'a batch without a session is refused',
      undefined,
      target(undefined, null),
      { ok: false, reason: 'session-required' },
    ],
    [
      'an unknown session is refused',
      'mcp_nope',
      target('tools/list'),
      { ok: false, reason: 'unknown-session', message: SESSION_NOT_FOUND },
    ],
    [
      'a known session serves at its revision',
      'mcp_known',
      target('tools/list'),
      { ok: true, revision: '2024-11-05', opened: false },
    ],
    [
      'the version header wins',
      'mcp_known',
      target('tools/list', 1, '2025-06-18'),
      { ok: true, revision: '2025-06-18' },
    ],
    [
      'a bad version header is refused',
      'mcp_known',
      target('tools/list', 1, '2026-07-28'),
      { ok: false, reason: 'bad-version' },
    ],
  ])('%s', async (_name, sessionId, message, expected) => {
    for (const answers of ['at once', 'promise'] as const) {
      const { service } = fakeSessions(10, answers);
      const resolved = await new LegacySessionResolver(service).byHeader(sessionId, alice).resolve(message);
      expect(resolved).toMatchObject(expected);
    }
  });

  it('resolves a known session at once when the store answers at once, and through its promise otherwise', async () => {
    const atOnce = new LegacySessionResolver(fakeSessions(10, 'at once').service);
    const known = atOnce.byHeader('mcp_known', alice).resolve(target('tools/list'));
    expect(isThenable(known)).toBe(false);
    expect(known).toMatchObject({ ok: true, session: { id: 'mcp_known' }, revision: '2024-11-05' });
    const unknown = atOnce.byHeader('mcp_nope', alice).resolve(target('tools/list'));
    expect(isThenable(unknown)).toBe(false);
    expect(unknown).toEqual({ ok: false, reason: 'unknown-session', message: SESSION_NOT_FOUND });

    const later = new LegacySessionResolver(fakeSessions(10, 'promise').service).byHeader('mcp_known', alice);
    const pending = later.resolve(target('tools/list'));
    expect(isThenable(pending)).toBe(true);
    expect(await pending).toEqual(known);
  });

  it("answers another principal's session like an unknown one, at once as through a promise", async () => {
    const bob = { id: 'bob' } as McpPrincipal;
    for (const answers of ['at once', 'promise'] as const) {
      const resolved = await new LegacySessionResolver(fakeSessions(10, answers).service)
        .byHeader('mcp_known', bob)
        .resolve(target('tools/list'));
      expect(resolved).toEqual({ ok: false, reason: 'unknown-session', message: SESSION_NOT_FOUND });
    }
  });

  it('answers the session limit when initialize cannot open a session', async () => {
    const { service } = fakeSessions(1);
    const resolved = await new LegacySessionResolver(service).byHeader(undefined, alice).resolve(target('initialize'));
    expect(resolved).toEqual({
      ok: false,
      reason: 'session-limit',
      message: 'Too many sessions: the server holds at most 1 (McpModule option sessions.maxSessions)',
    });
  });

  it("answers the caller's session quota when initialize finds the caller at its cap", async () => {
    const { service } = fakeSessions();
    service.open = () => Promise.reject(new SessionQuotaError(2));
    const resolved = await new LegacySessionResolver(service).byHeader(undefined, alice).resolve(target('initialize'));
    expect(resolved).toEqual({
      ok: false,
      reason: 'session-quota',
      message: 'Too many sessions for this caller: at most 2 (McpModule option sessions.maxPerPrincipal)',
    });
  });

  it.each<[string, (service: McpSessionService) => void, string | undefined, string]>([
    [
      'a session the store cannot open',
      (service) => (service.open = () => Promise.reject(new McpStoreUnavailableError('Redis cannot serve now: OOM'))),
      undefined,
      'initialize',
    ],
    [
      'a session the store cannot read',
      (service) => (service.lookup = () => Promise.reject(new McpStoreUnavailableError('Redis is unreachable'))),
      'mcp_known',
      'tools/list',
    ],
  ])('refuses %s as a store outage, for the dispatcher to answer with the id', async (_name, fail, id, method) => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { service } = fakeSessions(10, 'promise');
    fail(service);
    const resolved = await new LegacySessionResolver(service).byHeader(id, alice).resolve(target(method));
    expect(resolved).toEqual({ ok: false, reason: 'store-unavailable', message: STORE_UNAVAILABLE });
    jest.restoreAllMocks();
  });

  it('serves within a session whose activity the store cannot record (it refuses writes, not reads)', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { service } = fakeSessions(10, 'promise');
    service.refresh = () => Promise.reject(new McpStoreUnavailableError('Redis cannot serve now: READONLY'));
    const resolved = await new LegacySessionResolver(service)
      .byHeader('mcp_known', alice)
      .resolve(target('tools/list'));
    expect(resolved).toMatchObject({ ok: true, session: { id: 'mcp_known' }, revision: '2024-11-05' });
    jest.restoreAllMocks();
  });

  it('lets other failures of the store through', async () => {
    const { service } = fakeSessions(10, 'promise');
    service.lookup = () => Promise.reject(new Error('bug'));
    await expect(
      new LegacySessionResolver(service).byHeader('mcp_known', alice).resolve(target('ping')),
    ).rejects.toThrow('bug');
  });

  it('refreshes a session it found, not one it opened', async () => {
    const { service, refreshed } = fakeSessions();
    const resolver = new LegacySessionResolver(service);
    await resolver.byHeader('mcp_known', alice).resolve(target('ping'));
    await resolver.byHeader(undefined, alice).resolve(target('initialize'));
    expect(refreshed).toEqual(['mcp_known']);
  });

  it("finds answers' session without opening one, and discards a session by closing it", async () => {
    const { service, closed } = fakeSessions();
    const resolver = new LegacySessionResolver(service);
    expect(await resolver.byHeader(undefined, alice).current()).toBeUndefined();
    expect(await resolver.byHeader('mcp_nope', alice).current()).toBeUndefined();
    const known = await resolver.byHeader('mcp_known', alice).current();
    expect(known?.id).toBe('mcp_known');
    await resolver.byHeader('mcp_known', alice).discard(known!);
    expect(closed).toEqual(['mcp_known']);
  });

  it("reports another principal's session like an unknown one", async () => {
    const { service } = fakeSessions();
    const bob = { id: 'bob' } as McpPrincipal;
    expect(await new LegacySessionResolver(service).find('mcp_known', bob)).toEqual({
      ok: false,
      reason: 'unknown-session',
      message: SESSION_NOT_FOUND,
    });
  });
});

describe('LegacySessionResolver.of', () => {
  it('serves every message within the session found, at its revision', async () => {
    const { service } = fakeSessions();
    const port = new LegacySessionResolver(service).of(record('mcp_pair', '2024-11-05'));
    expect(await port.resolve(target('tools/list'))).toMatchObject({
      ok: true,
      session: { id: 'mcp_pair' },
      revision: '2024-11-05',
    });
    expect(await port.current()).toMatchObject({ id: 'mcp_pair' });
  });
});
