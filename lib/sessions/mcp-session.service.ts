import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  MCP_CLOCK,
  MCP_CLUSTER_LINK,
  MCP_SERVER_SETTINGS,
  MCP_SESSION_SETTINGS,
  MCP_SESSION_STORE,
} from '../shared/mcp.constants';
import type { ClusterLink } from '../cluster/cluster-link.interface';
import type { McpServerSettings } from '../shared/server-settings';
import type { McpPrincipal } from '../protocol/calls/call-context';
import type { Clock } from '../protocol/bounds/clock';
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { McpError } from '../protocol/messages/mcp-error';
import { quotaKeyOf } from '../protocol/bounds/principal';
import { RefusalLog, tooMany } from '../protocol/bounds/refusal-log';
import type { SessionHandle, McpSessionState } from '../protocol/messages/session-handle';
import { isThenable, type Awaitable } from '../protocol/messages/thenables';
import type {
  McpSessionAdmission,
  McpSessionCaps,
  McpSessionRecord,
  McpSessionStore,
} from '../interfaces/session-store.interface';
import { IDLE_SESSIONS_ENDED, SWEEP_LOG_IDS } from '../shared/mcp.messages';
import { SessionChannels } from './session-channels';
import { isSessionId, newSessionId } from './session-id';
import type { SessionSettings } from './session-settings';
import { McpLogger } from '../telemetry/mcp.logger';
import { logFailedSend } from '../protocol/bounds/store-unavailable';

/** Why a session ended: `evicted` to make room for a new session of the same caller. */
export type McpSessionEndReason = 'deleted' | 'expired' | 'closed' | 'evicted';

/**
 * Listener of ended sessions. `here` says whether the session was ended by this instance (it
 * then does what is done once, such as cancelling the session's tasks); every instance hears
 * of it, to stop what it runs for the session.
 */
export type McpSessionEndListener = (sessionId: string, reason: McpSessionEndReason, here: boolean) => void;

/** Thrown by `open` when the server's cap on live sessions (`sessions.maxSessions`) is reached. */
export class SessionLimitError extends Error {
  constructor(readonly limit: number) {
    super(`Too many sessions: the server holds at most ${limit} (McpModule option sessions.maxSessions)`);
  }
}

/**
 * Thrown by `open` when the caller holds `sessions.maxPerPrincipal` sessions and none of its
 * longest idle ones may be ended to make room.
 */
export class SessionQuotaError extends Error {
  constructor(readonly limit: number) {
    super(tooMany('sessions for this caller', limit, 'sessions.maxPerPrincipal'));
  }
}

/** How many of a caller's longest idle sessions `open` considers ending, at most. */
const EVICTION_CANDIDATES = 8;
/** How many sessions one `open` ends at most (others of the caller may take the room meanwhile). */
const EVICTION_ATTEMPTS = 3;

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
  private readonly listeners = new Set<McpSessionEndListener>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly activityResolutionMs: number;
  private readonly handles = new WeakMap<McpSessionRecord, SessionHandle>();
  private readonly refusals = new RefusalLog(this.logger);
  private readonly caps: McpSessionCaps;
  /** Whether a session has work running here (see `spareWhile`). */
  private busy: (sessionId: string) => boolean = () => false;

  private stopListening: (() => void) | undefined;

  /** @internal */
  constructor(
    @Inject(MCP_SESSION_SETTINGS) private readonly settings: SessionSettings,
    @Inject(MCP_SERVER_SETTINGS) private readonly server: Pick<McpServerSettings, 'defaultLogLevel'>,
    @Inject(MCP_SESSION_STORE) private readonly store: McpSessionStore,
    private readonly channels: SessionChannels,
    @Inject(MCP_CLUSTER_LINK) private readonly link: ClusterLink,
    /** Redis's clock with Redis: idleness is compared across instances. */
    @Inject(MCP_CLOCK) private readonly clock: Clock,
  ) {
    this.activityResolutionMs = Math.min(15_000, Math.floor(settings.idleTimeoutMs / 10));
    this.caps = {
      maxSessions: settings.maxSessions,
      maxPerPrincipal: settings.maxPerPrincipal,
      candidates: EVICTION_CANDIDATES,
    };
  }

  /** Starts following sessions ended elsewhere, and the sweeper of idle sessions. */
  onModuleInit(): void {
    const stopMessages = this.link.onMessage((message) => {
      if (message.type === 'session_ended') {
        this.ended(message.sessionId, message.reason, false);
      }
    });
    const stopWatching = this.link.watchClaims({
      exists: async (id) => (await this.store.get(id)) !== undefined,
      lost: (id, why) => {
        if (why === 'taken') {
          // Another instance took this instance for stopped and serves the stream now.
          this.channels.close(id);
          return;
        }
        this.logger.warn(`Session ${id} is no longer in the store: its stream here ends`);
        this.ended(id, 'expired', true);
      },
    });
    this.stopListening = () => {
      stopMessages();
      stopWatching();
    };
    this.sweeper = setInterval(() => {
      this.sweep().catch((error: unknown) => this.logger.error(`Session sweep failed: ${String(error)}`));
    }, this.settings.sweepIntervalMs);
    this.sweeper.unref();
  }

  /** Stops the sweeper and stops following other instances' sessions. */
  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
    this.stopListening?.();
  }

  /**
   * Opens a session owned by `principal`, counted under its quota key. A caller at its cap
   * (`sessions.maxPerPrincipal`) first ends its own session idle the longest that may end (see
   * `evictOne`).
   * @throws SessionLimitError when `sessions.maxSessions` sessions are open.
   * @throws SessionQuotaError when the caller is at its cap and none of its sessions may end.
   */
  async open(principal: McpPrincipal): Promise<McpSessionRecord> {
    const now = this.clock.now();
    const record: McpSessionRecord = {
      id: newSessionId(),
      principalId: principal.id,
      quotaKey: quotaKeyOf(principal),
      createdAt: now,
      lastActivity: now,
      state: { clientCapabilities: {}, logLevel: this.server.defaultLogLevel, initialized: false },
    };
    for (let attempt = 1; ; attempt += 1) {
      const admission = await this.admit(record);
      if (admission.outcome === 'created') {
        return record;
      }
      if (admission.outcome === 'server-full') {
        const refusal = new SessionLimitError(this.caps.maxSessions);
        this.refusals.warn('sessions.maxSessions', `initialize refused: ${refusal.message}`);
        throw refusal;
      }
      if (attempt > EVICTION_ATTEMPTS || !(await this.evictOne(admission.idlest))) {
        const refusal = new SessionQuotaError(this.caps.maxPerPrincipal);
        this.refusals.warn(
          'sessions.maxPerPrincipal',
          `initialize of ${JSON.stringify(record.quotaKey)} refused: ${refusal.message}`,
        );
        throw refusal;
      }
    }
  }

  /**
   * Sessions for which `check` answers `true` (calls running on this instance) are never ended
   * to make room for another. Set once by the composition root, which knows the engine.
   *
   * @internal
   */
  spareWhile(check: (sessionId: string) => boolean): void {
    this.busy = check;
  }

  /** Creates `record` within the caps, atomically where the store can (see `McpSessionStore`). */
  private async admit(record: McpSessionRecord): Promise<McpSessionAdmission> {
    if (this.store.createWithin !== undefined) {
      return this.store.createWithin(record, this.caps);
    }
    // A store without it: the server's cap only, checked as before.
    if ((await this.store.count()) >= this.caps.maxSessions) {
      return { outcome: 'server-full' };
    }
    await this.store.create(record);
    return { outcome: 'created' };
  }

  /**
   * Ends the first of `idlest` (a caller's sessions, the longest idle first) that is not in use:
   * no stream open on any instance (the rule of the idle sweep) and no call running here.
   * Ending it does all a session's end does: its streams close, its calls abort, its replay is
   * cleared. Resolves whether one ended.
   */
  private async evictOne(idlest: readonly string[]): Promise<boolean> {
    for (const id of idlest) {
      if (this.channels.has(id) || this.busy(id) || (await this.channels.holder(id)) !== undefined) {
        continue;
      }
      // `false`: another initialize of the same caller ended it first; try the next one.
      if (await this.close(id, 'evicted')) {
        this.refusals.warn(
          'sessions.maxPerPrincipal.evicted',
          `Session ${id} ended to make room for a new session of the same caller (McpModule option sessions.maxPerPrincipal)`,
        );
        return true;
      }
    }
    return false;
  }

  /**
   * The session `id` if it exists and belongs to `principal`. A session of another principal is
   * reported exactly like an unknown one.
   */
  async find(id: string, principal: McpPrincipal): Promise<McpSessionRecord | undefined> {
    return this.lookup(id, principal);
  }

  /**
   * `find`, answered at once when the store answers at once (the in-memory store): the request
   * path reads every legacy request's session through here.
   *
   * @internal
   */
  lookup(id: string, principal: McpPrincipal): Awaitable<McpSessionRecord | undefined> {
    if (!isSessionId(id)) {
      // Not an id this module made: no store is asked (see `isSessionId`).
      return undefined;
    }
    const stored = this.store.get(id);
    return isThenable(stored) ? ownedLater(stored, principal) : ownedBy(stored, principal);
  }

  /** Records activity on a session. */
  async touch(id: string): Promise<void> {
    await this.store.touch(id, this.clock.now());
  }

  /**
   * Records activity on a session found moments ago, at a resolution of a tenth of the idle
   * timeout (15 s at most): a session in constant use is not written on every request.
   */
  refresh(record: McpSessionRecord): Promise<void> | undefined {
    const now = this.clock.now();
    if (now - record.lastActivity < this.activityResolutionMs) {
      // Nothing to write: no promise, no wait.
      return undefined;
    }
    record.lastActivity = now;
    return this.store.touch(record.id, now);
  }

  /** Ends a session; returns whether it existed. */
  async close(id: string, reason: McpSessionEndReason = 'closed'): Promise<boolean> {
    const existed = await this.store.delete(id);
    if (!existed) {
      this.channels.close(id);
      return false;
    }
    this.ended(id, reason, true);
    this.link.broadcast({ type: 'session_ended', sessionId: id, reason }).catch((error: unknown) => {
      logFailedSend(this.logger, `tell the other instances that session ${id} ended`, error);
    });
    return true;
  }

  /** A session ended, here or on another instance: its stream here closes and the listeners hear of it. */
  private ended(id: string, reason: McpSessionEndReason, here: boolean): void {
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
  onEnd(listener: McpSessionEndListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The engine's view of a session: reads the record, writes through the store. A store that
   * hands out the same record object for a session (the memory store) gets the same handle back.
   *
   * @internal
   */
  handle(record: McpSessionRecord): SessionHandle {
    let handle = this.handles.get(record);
    if (handle === undefined) {
      handle = this.createHandle(record);
      this.handles.set(record, handle);
    }
    return handle;
  }

  private createHandle(record: McpSessionRecord): SessionHandle {
    const store = this.store;
    const subscribe = (uri: string): Promise<void> => this.subscribe(record.id, uri);
    let state: McpSessionState = record.state;
    return {
      id: record.id,
      get state() {
        return state;
      },
      async update(patch) {
        state = { ...state, ...patch };
        await store.update(record.id, patch);
      },
      subscribe,
      unsubscribe: (uri) => store.unsubscribe(record.id, uri),
    };
  }

  /**
   * Subscribes a session to a uri, within `sessions.maxSubscriptions` when the store can count
   * them (see `McpSessionStore.subscribeWithin`).
   * @throws McpError -32603 naming the option beyond it.
   */
  private async subscribe(id: string, uri: string): Promise<void> {
    if (this.store.subscribeWithin === undefined) {
      await this.store.subscribe(id, uri);
      return;
    }
    const max = this.settings.maxSubscriptions;
    if (!(await this.store.subscribeWithin(id, uri, max))) {
      const message = tooMany('subscriptions in this session', max, 'sessions.maxSubscriptions');
      this.refusals.warn('sessions.maxSubscriptions', `resources/subscribe of session ${id} refused: ${message}`);
      throw new McpError(McpErrorCode.InternalError, message);
    }
  }

  /**
   * Ends the sessions idle for longer than the timeout, and says which in one line. Sessions
   * with an open stream (on any instance) stay.
   */
  async sweep(now = this.clock.now()): Promise<number> {
    const cutoff = now - this.settings.idleTimeoutMs;
    const ended: string[] = [];
    try {
      for (const id of await this.store.idleSince(cutoff)) {
        if (this.channels.has(id) || (await this.channels.holder(id)) !== undefined) {
          await this.store.touch(id, now);
          continue;
        }
        // Since when, for the sessions the line names.
        const idleSince = ended.length < SWEEP_LOG_IDS ? (await this.store.get(id))?.lastActivity : undefined;
        if (await this.close(id, 'expired')) {
          ended.push(idleSince === undefined ? id : `${id} (idle since ${new Date(idleSince).toISOString()})`);
        }
      }
    } finally {
      if (ended.length > 0) {
        this.logger.log(IDLE_SESSIONS_ENDED(ended, this.settings.idleTimeoutMs));
      }
    }
    return ended.length;
  }
}

/** The record if `principal` owns it: another principal's session is reported like an unknown one. */
function ownedBy(record: McpSessionRecord | undefined, principal: McpPrincipal): McpSessionRecord | undefined {
  return record !== undefined && record.principalId === principal.id ? record : undefined;
}

/** `ownedBy` once a store's promise settles (a continuation of its own: see `Awaitable`). */
function ownedLater(
  stored: PromiseLike<McpSessionRecord | undefined>,
  principal: McpPrincipal,
): Promise<McpSessionRecord | undefined> {
  return Promise.resolve(stored).then((record) => ownedBy(record, principal));
}
