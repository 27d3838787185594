import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { MCP_CLUSTER_LINK, MCP_SERVER_SETTINGS, MCP_SESSION_SETTINGS, MCP_SESSION_STORE } from '../mcp.constants';
import type { ClusterLink } from '../cluster/cluster-link.interface';
import type { McpServerSettings } from '../server-settings';
import type { McpPrincipal } from '../protocol/call-context';
import type { SessionHandle, SessionState } from '../protocol/session-handle';
import { isThenable, type Awaitable } from '../protocol/thenables';
import type { SessionRecord, SessionStore } from './session-store.interface';
import { SessionChannels } from './session-channels';
import type { SessionSettings } from './session-settings';
import { McpLogger } from '../telemetry/mcp.logger';

/** Why a session ended. */
export type SessionEndReason = 'deleted' | 'expired' | 'closed';

/**
 * Listener of ended sessions. `here` says whether the session was ended by this instance (it
 * then does what is done once, such as cancelling the session's tasks); every instance hears
 * of it, to stop what it runs for the session.
 */
export type SessionEndListener = (sessionId: string, reason: SessionEndReason, here: boolean) => void;

/** Thrown by `open` when the cap on live sessions is reached. */
export class SessionLimitError extends Error {
  constructor(readonly limit: number) {
    super(`Too many sessions: the server holds at most ${limit}`);
  }
}

/**
 * Legacy-era sessions: opened by `initialize` (or the 2024-11-05 SSE pair), owned by the
 * principal that opened them, ended by DELETE, by the end of their stream (SSE pair) or after
 * `sessions.idleTimeoutMs` without activity. Ending a session aborts its running calls and
 * closes its stream.
 *
 * @publicApi
 */
@Injectable()
export class McpSessionService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new McpLogger('McpSessionService');
  private readonly listeners = new Set<SessionEndListener>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly activityResolutionMs: number;
  private readonly handles = new WeakMap<SessionRecord, SessionHandle>();

  private stopListening: (() => void) | undefined;

  constructor(
    @Inject(MCP_SESSION_SETTINGS) private readonly settings: SessionSettings,
    @Inject(MCP_SERVER_SETTINGS) private readonly server: Pick<McpServerSettings, 'defaultLogLevel'>,
    @Inject(MCP_SESSION_STORE) private readonly store: SessionStore,
    private readonly channels: SessionChannels,
    @Inject(MCP_CLUSTER_LINK) private readonly link: ClusterLink,
  ) {
    this.activityResolutionMs = Math.min(15_000, Math.floor(settings.idleTimeoutMs / 10));
  }

  onModuleInit(): void {
    this.stopListening = this.link.onMessage((message) => {
      if (message.type === 'session_ended') {
        this.ended(message.sessionId, message.reason, false);
      }
    });
    this.sweeper = setInterval(() => {
      this.sweep().catch((error: unknown) => this.logger.error(`Session sweep failed: ${String(error)}`));
    }, this.settings.sweepIntervalMs);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
    this.stopListening?.();
  }

  /**
   * Opens a session owned by `principal`.
   * @throws SessionLimitError when `sessions.maxSessions` sessions are open.
   */
  async open(principal: McpPrincipal): Promise<SessionRecord> {
    const limit = this.settings.maxSessions;
    if ((await this.store.count()) >= limit) {
      throw new SessionLimitError(limit);
    }
    const now = Date.now();
    const record: SessionRecord = {
      id: `mcp_${randomBytes(16).toString('hex')}`,
      principalId: principal.id,
      createdAt: now,
      lastActivity: now,
      state: { clientCapabilities: {}, logLevel: this.server.defaultLogLevel, initialized: false },
    };
    await this.store.create(record);
    return record;
  }

  /**
   * The session `id` if it exists and belongs to `principal`. A session of another principal is
   * reported exactly like an unknown one.
   */
  async find(id: string, principal: McpPrincipal): Promise<SessionRecord | undefined> {
    return this.lookup(id, principal);
  }

  /**
   * `find`, answered at once when the store answers at once (the in-memory store): the request
   * path reads every legacy request's session through here.
   *
   * @internal
   */
  lookup(id: string, principal: McpPrincipal): Awaitable<SessionRecord | undefined> {
    const stored = this.store.get(id);
    return isThenable(stored) ? ownedLater(stored, principal) : ownedBy(stored, principal);
  }

  /** Records activity on a session. */
  async touch(id: string): Promise<void> {
    await this.store.touch(id, Date.now());
  }

  /**
   * Records activity on a session found moments ago, at a resolution of a tenth of the idle
   * timeout (15 s at most): a session in constant use is not written on every request.
   */
  refresh(record: SessionRecord): Promise<void> | undefined {
    const now = Date.now();
    if (now - record.lastActivity < this.activityResolutionMs) {
      // Nothing to write: no promise, no wait.
      return undefined;
    }
    record.lastActivity = now;
    return this.store.touch(record.id, now);
  }

  /** Ends a session; returns whether it existed. */
  async close(id: string, reason: SessionEndReason = 'closed'): Promise<boolean> {
    const existed = await this.store.delete(id);
    if (!existed) {
      this.channels.close(id);
      return false;
    }
    this.ended(id, reason, true);
    this.link.broadcast({ type: 'session_ended', sessionId: id, reason }).catch((error: unknown) => {
      this.logger.error(`Could not tell the other instances that session ${id} ended: ${String(error)}`);
    });
    return true;
  }

  /** A session ended, here or on another instance: its stream here closes and the listeners hear of it. */
  private ended(id: string, reason: SessionEndReason, here: boolean): void {
    this.channels.close(id);
    for (const listener of this.listeners) {
      listener(id, reason, here);
    }
  }

  /** How many sessions are open. */
  count(): Promise<number> {
    return this.store.count();
  }

  /** Sessions subscribed to updates of `uri`. */
  subscribers(uri: string): Promise<string[]> {
    return this.store.subscribers(uri);
  }

  /**
   * Calls `listener` whenever a session ends.
   * @returns a function that removes the listener.
   */
  onEnd(listener: SessionEndListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The engine's view of a session: reads the record, writes through the store. A store that
   * hands out the same record object for a session (the memory store) gets the same handle back.
   */
  handle(record: SessionRecord): SessionHandle {
    let handle = this.handles.get(record);
    if (handle === undefined) {
      handle = this.createHandle(record);
      this.handles.set(record, handle);
    }
    return handle;
  }

  private createHandle(record: SessionRecord): SessionHandle {
    const store = this.store;
    let state: SessionState = record.state;
    return {
      id: record.id,
      get state() {
        return state;
      },
      async update(patch) {
        state = { ...state, ...patch };
        await store.update(record.id, patch);
      },
      subscribe: (uri) => store.subscribe(record.id, uri),
      unsubscribe: (uri) => store.unsubscribe(record.id, uri),
    };
  }

  /** Ends the sessions idle for longer than the timeout. Sessions with an open stream (on any instance) stay. */
  async sweep(now = Date.now()): Promise<number> {
    const cutoff = now - this.settings.idleTimeoutMs;
    let ended = 0;
    for (const id of await this.store.idleSince(cutoff)) {
      if (this.channels.has(id) || (await this.channels.holder(id)) !== undefined) {
        await this.store.touch(id, now);
        continue;
      }
      if (await this.close(id, 'expired')) {
        ended += 1;
      }
    }
    return ended;
  }
}

/** The record if `principal` owns it: another principal's session is reported like an unknown one. */
function ownedBy(record: SessionRecord | undefined, principal: McpPrincipal): SessionRecord | undefined {
  return record !== undefined && record.principalId === principal.id ? record : undefined;
}

/** `ownedBy` once a store's promise settles (a continuation of its own: see `Awaitable`). */
function ownedLater(
  stored: PromiseLike<SessionRecord | undefined>,
  principal: McpPrincipal,
): Promise<SessionRecord | undefined> {
  return Promise.resolve(stored).then((record) => ownedBy(record, principal));
}
