import { Inject, Injectable } from '@nestjs/common';
import { MCP_OWN_SESSIONS } from '../shared/mcp.constants';
import type { McpPrincipal } from '../protocol/calls/call-context';
import { sessionRevision, type LegacyResolution, type LegacySessionPort, type LegacyTarget } from '../protocol/inbound';
import { isThenable, settledAs, type Awaitable } from '../protocol/messages/thenables';
import type { SessionHandle } from '../protocol/messages/session-handle';
import { McpSessionService, SessionLimitError, SessionQuotaError } from './mcp-session.service';
import type { McpSessionRecord } from '../interfaces/session-store.interface';
import { isStoreUnavailable, logStoreUnavailable } from '../protocol/bounds/store-unavailable';
import { RefusalLog } from '../protocol/bounds/refusal-log';
import { McpLogger } from '../telemetry/mcp.logger';
import { STORE_UNAVAILABLE } from '../shared/mcp.messages';

/** The refusal of a legacy message that names no session where one is needed. */
export const SESSION_REQUIRED = 'Bad Request: Mcp-Session-Id header required';
/** The refusal of a session that is unknown, ended, or another principal's: all alike to the sender. */
export const SESSION_NOT_FOUND = 'Session not found';

/** The refusals of a message without a session, and of one whose session is not found. */
const SESSION_MISSING = Object.freeze({ ok: false, reason: 'session-required', message: SESSION_REQUIRED } as const);
const UNKNOWN_SESSION = Object.freeze({ ok: false, reason: 'unknown-session', message: SESSION_NOT_FOUND } as const);
/** The refusal of a message whose session the store could not read or open. */
const STORE_OUTAGE = Object.freeze({ ok: false, reason: 'store-unavailable', message: STORE_UNAVAILABLE } as const);

/** A session found or opened, or why there is none. */
export type SessionLookup =
  | { readonly ok: true; readonly record: McpSessionRecord }
  | {
      readonly ok: false;
      readonly reason: 'session-required' | 'unknown-session' | 'session-limit' | 'session-quota';
      readonly message: string;
    };

/**
 * The one way transports reach legacy sessions: find the session a message names (owned by its
 * principal), open one (or answer the session limit), and the session ports the inbound
 * dispatcher works with. Streamable HTTP, the SSE pair and stdio all go through here.
 */
@Injectable()
export class LegacySessionResolver {
  private readonly refusals = new RefusalLog(new McpLogger('McpSessions'));

  constructor(@Inject(MCP_OWN_SESSIONS) private readonly sessions: McpSessionService) {}

  /**
   * The resolution of a message whose session the store could not read or open: a
   * refusal the dispatcher answers with the message's id (HTTP: 503). Made once, so that the
   * request path passes it to `then` without a closure of its own.
   */
  private readonly outage = (error: unknown): LegacyResolution =>
    this.despiteOutage(error, 'A legacy session could not be resolved', STORE_OUTAGE);

  /** `answer` when `error` says the store cannot serve (logged once a minute), else `error` thrown again. */
  private despiteOutage(error: unknown, where: string, answer: LegacyResolution): LegacyResolution {
    if (!isStoreUnavailable(error)) {
      throw error;
    }
    logStoreUnavailable(this.refusals, where, error);
    return answer;
  }

  /** The session `sessionId` names, if it is `principal`'s. */
  async find(sessionId: string | undefined, principal: McpPrincipal): Promise<SessionLookup> {
    if (sessionId === undefined) {
      return SESSION_MISSING;
    }
    const record = await this.sessions.find(sessionId, principal);
    return record === undefined ? UNKNOWN_SESSION : { ok: true, record };
  }

  /** Opens a session owned by `principal`, or refuses when the server's or the caller's cap is reached. */
  async open(principal: McpPrincipal): Promise<SessionLookup> {
    try {
      return { ok: true, record: await this.sessions.open(principal) };
    } catch (error) {
      if (error instanceof SessionLimitError) {
        return { ok: false, reason: 'session-limit', message: error.message };
      }
      if (error instanceof SessionQuotaError) {
        return { ok: false, reason: 'session-quota', message: error.message };
      }
      throw error;
    }
  }

  /** The engine's view of a session. */
  handle(record: McpSessionRecord): SessionHandle {
    return this.sessions.handle(record);
  }

  /**
   * Records activity on a session found moments ago (at a coarse resolution: see
   * `McpSessionService.refresh`); a promise only when there is something to write.
   */
  refresh(record: McpSessionRecord): Promise<void> | undefined {
    return this.sessions.refresh(record);
  }

  /** Ends a session; returns whether it existed. */
  close(sessionId: string, reason?: 'deleted' | 'closed'): Promise<boolean> {
    return this.sessions.close(sessionId, reason);
  }

  /**
   * The sessions of messages that name theirs in a header (Streamable HTTP): `initialize`
   * without one opens a session; any other message needs one, but `server/discover`.
   */
  byHeader(sessionId: string | undefined, principal: McpPrincipal): LegacySessionPort {
    return new HeaderSessionPort(this, sessionId, principal);
  }

  /**
   * The session of a message that names its own in a header, or opens one (see `byHeader`).
   * Answered at once when the session store answers at once (the in-memory store), else chained
   * on the store's own promise, with no async frame of its own: this runs on every legacy
   * request. Called by the header port `byHeader` makes, not by the transports.
   *
   * @internal
   */
  resolveByHeader(
    sessionId: string | undefined,
    principal: McpPrincipal,
    target: LegacyTarget,
  ): Awaitable<LegacyResolution> {
    // Only an initialize *request* opens a session: a notification of that name is served like
    // any other message without one, and holds no session against the cap.
    if (target.method === 'initialize' && target.id !== null && sessionId === undefined) {
      return this.open(principal).then(
        (found) => (found.ok ? this.resolvedIn(found.record, true, target) : found),
        this.outage,
      );
    }
    if (sessionId !== undefined) {
      const found = this.sessions.lookup(sessionId, principal);
      return isThenable(found) ? this.foundLater(found, target) : this.found(found, target);
    }
    return target.method === 'server/discover' ? this.resolvedIn(undefined, false, target) : SESSION_MISSING;
  }

  /** The resolution of a message whose session was looked up (`undefined`: not found, or not its principal's). */
  private found(record: McpSessionRecord | undefined, target: LegacyTarget): Awaitable<LegacyResolution> {
    return record === undefined ? UNKNOWN_SESSION : this.resolvedIn(record, false, target);
  }

  /** `found` once a store that answers with promises has answered (a continuation of its own: see `Awaitable`). */
  private foundLater(
    pending: PromiseLike<McpSessionRecord | undefined>,
    target: LegacyTarget,
  ): Promise<LegacyResolution> {
    return Promise.resolve(pending).then((record) => this.found(record, target), this.outage);
  }

  /** A message's revision within its session (or without one: `server/discover`), the session refreshed. */
  private resolvedIn(
    record: McpSessionRecord | undefined,
    opened: boolean,
    { method, versionHeader, supported }: LegacyTarget,
  ): Awaitable<LegacyResolution> {
    const read = sessionRevision(versionHeader, method, record?.state, record !== undefined, supported);
    if ('error' in read) {
      const refusal = { ok: false, reason: 'bad-version', message: read.error } as const;
      return opened && record !== undefined ? settledAs(this.sessions.close(record.id), refusal) : refusal;
    }
    const resolution: LegacyResolution = {
      ok: true,
      session: record === undefined ? undefined : this.sessions.handle(record),
      revision: read.revision,
      opened,
    };
    if (record === undefined || opened) {
      return resolution;
    }
    const refreshing = this.refresh(record);
    return refreshing === undefined ? resolution : this.refreshedAs(record.id, refreshing, resolution);
  }

  /**
   * `resolution` once the session's activity is recorded, or although a store that cannot serve
   * could not record it: the session was read, and a store that refuses writes (out of memory,
   * read-only) still serves what needs none; the next request records the activity again.
   */
  private refreshedAs(
    sessionId: string,
    refreshing: Promise<void>,
    resolution: LegacyResolution,
  ): Promise<LegacyResolution> {
    return refreshing.then(
      () => resolution,
      (error: unknown) =>
        this.despiteOutage(error, `The activity of session ${sessionId} could not be recorded`, resolution),
    );
  }

  /** The port of a session found already (the SSE pair's): every message is served within it. */
  of(record: McpSessionRecord): LegacySessionPort {
    const session = this.sessions.handle(record);
    return {
      resolve: () => ({ ok: true, session, revision: record.state.protocolVersion }),
      current: () => session,
      discard: () => this.sessions.close(record.id).then(() => undefined),
    };
  }
}

/**
 * The session port of one message that names its session in a header, made when a legacy
 * message first asks for it: one object whose methods are shared, rather than a literal with a
 * closure per method.
 */
class HeaderSessionPort implements LegacySessionPort {
  constructor(
    private readonly resolver: LegacySessionResolver,
    private readonly sessionId: string | undefined,
    private readonly principal: McpPrincipal,
  ) {}

  resolve(target: LegacyTarget): Awaitable<LegacyResolution> {
    return this.resolver.resolveByHeader(this.sessionId, this.principal, target);
  }

  async current(): Promise<SessionHandle | undefined> {
    const lookup = await this.resolver.find(this.sessionId, this.principal);
    return lookup.ok ? this.resolver.handle(lookup.record) : undefined;
  }

  discard(session: SessionHandle): Promise<void> {
    return this.resolver.close(session.id).then(() => undefined);
  }
}
