import { Inject, Injectable } from '@nestjs/common';
import { MCP_OWN_SESSIONS } from '../mcp.constants';
import type { McpPrincipal } from '../protocol/call-context';
import { sessionRevision, type LegacyResolution, type LegacySessionPort } from '../protocol/inbound';
import type { SessionHandle } from '../protocol/session-handle';
import { McpSessionService, SessionLimitError } from './mcp-session.service';
import type { SessionRecord } from './session-store.interface';

/** The refusal of a legacy message that names no session where one is needed. */
export const SESSION_REQUIRED = 'Bad Request: Mcp-Session-Id header required';
/** The refusal of a session that is unknown, ended, or another principal's: all alike to the sender. */
export const SESSION_NOT_FOUND = 'Session not found';

/** A session found or opened, or why there is none. */
export type SessionLookup =
  | { readonly ok: true; readonly record: SessionRecord }
  | {
      readonly ok: false;
      readonly reason: 'session-required' | 'unknown-session' | 'session-limit';
      readonly message: string;
    };

/**
 * The one way transports reach legacy sessions: find the session a message names (owned by its
 * principal), open one (or answer the session limit), and the session ports the inbound
 * dispatcher works with. Streamable HTTP, the SSE pair and stdio all go through here.
 */
@Injectable()
export class LegacySessionResolver {
  constructor(@Inject(MCP_OWN_SESSIONS) private readonly sessions: McpSessionService) {}

  /** The session `sessionId` names, if it is `principal`'s. */
  async find(sessionId: string | undefined, principal: McpPrincipal): Promise<SessionLookup> {
    if (sessionId === undefined) {
      return { ok: false, reason: 'session-required', message: SESSION_REQUIRED };
    }
    const record = await this.sessions.find(sessionId, principal);
    return record === undefined
      ? { ok: false, reason: 'unknown-session', message: SESSION_NOT_FOUND }
      : { ok: true, record };
  }

  /** Opens a session owned by `principal`, or refuses when the cap on live sessions is reached. */
  async open(principal: McpPrincipal): Promise<SessionLookup> {
    try {
      return { ok: true, record: await this.sessions.open(principal) };
    } catch (error) {
      if (error instanceof SessionLimitError) {
        return { ok: false, reason: 'session-limit', message: error.message };
      }
      throw error;
    }
  }

  /** The engine's view of a session. */
  handle(record: SessionRecord): SessionHandle {
    return this.sessions.handle(record);
  }

  /** Records activity on a session found moments ago (at a coarse resolution: see `McpSessionService.refresh`). */
  async refresh(record: SessionRecord): Promise<void> {
    const refreshing = this.sessions.refresh(record);
    if (refreshing !== undefined) {
      await refreshing;
    }
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
    return {
      resolve: async ({ id, method, versionHeader, supported }): Promise<LegacyResolution> => {
        let record: SessionRecord | undefined;
        // Only an initialize *request* opens a session: a notification of that name is served
        // like any other message without one, and holds no session against the cap.
        const opens = method === 'initialize' && id !== null && sessionId === undefined;
        if (opens || sessionId !== undefined || method !== 'server/discover') {
          const found = opens ? await this.open(principal) : await this.find(sessionId, principal);
          if (!found.ok) {
            return found;
          }
          record = found.record;
        }
        const read = sessionRevision(versionHeader, method, record?.state, record !== undefined, supported);
        if ('error' in read) {
          if (opens && record !== undefined) {
            await this.sessions.close(record.id);
          }
          return { ok: false, reason: 'bad-version', message: read.error };
        }
        if (record !== undefined && !opens) {
          await this.refresh(record);
        }
        const session = record === undefined ? undefined : this.sessions.handle(record);
        return { ok: true, session, revision: read.revision, opened: opens };
      },
      current: async () => {
        const record = sessionId === undefined ? undefined : await this.sessions.find(sessionId, principal);
        return record === undefined ? undefined : this.sessions.handle(record);
      },
      discard: (session) => this.sessions.close(session.id).then(() => undefined),
    };
  }

  /** The port of a session found already (the SSE pair's): every message is served within it. */
  of(record: SessionRecord): LegacySessionPort {
    const session = this.sessions.handle(record);
    return {
      resolve: () => ({ ok: true, session, revision: record.state.protocolVersion }),
      current: () => session,
      discard: () => this.sessions.close(record.id).then(() => undefined),
    };
  }
}
