import type { McpSessionState } from '../protocol/messages/session-handle';

/** One legacy session as stored. */
export interface McpSessionRecord {
  /** The session's id (the `Mcp-Session-Id` header). */
  readonly id: string;
  /** The principal that opened the session; only it may use the session. */
  readonly principalId: string;
  /**
   * Whom `sessions.maxPerPrincipal` counts the session under (`quotaKeyOf(principal)`: an
   * anonymous HTTP caller by its address); `principalId` when absent.
   */
  readonly quotaKey?: string;
  /** When the session was opened, in epoch milliseconds. */
  readonly createdAt: number;
  /** When the session was last used, in epoch milliseconds. */
  lastActivity: number;
  /** What the session agreed at `initialize`, and its log level. */
  state: McpSessionState;
}

/** The caps `McpSessionStore.createWithin` checks, from the `sessions` options. */
export interface McpSessionCaps {
  /** `sessions.maxSessions`: the sessions of the whole server. */
  readonly maxSessions: number;
  /** `sessions.maxPerPrincipal`: the sessions counted under one quota key. */
  readonly maxPerPrincipal: number;
  /** How many of the quota key's sessions to name, the longest idle first, when it is at its cap. */
  readonly candidates: number;
}

/** What `McpSessionStore.createWithin` did. */
export type McpSessionAdmission =
  | { readonly outcome: 'created' }
  /** The server holds `maxSessions` sessions: nothing was created. */
  | { readonly outcome: 'server-full' }
  /**
   * The record's quota key holds `maxPerPrincipal` sessions: nothing was created. `idlest` names
   * up to `candidates` of them, the longest idle first, for the caller to end one and try again.
   */
  | { readonly outcome: 'principal-full'; readonly idlest: readonly string[] };

/** The quota key a session is counted under. */
export function sessionQuotaKey(record: Pick<McpSessionRecord, 'principalId' | 'quotaKey'>): string {
  return record.quotaKey ?? record.principalId;
}

/**
 * Where sessions live. Every method may answer with a promise, so that a shared store (Redis)
 * can stand in for the in-memory default without changing the callers.
 *
 * `createWithin` and `subscribeWithin` are optional, so that a store written before them keeps
 * working: without `createWithin` the server's cap (`sessions.maxSessions`) is checked with
 * `count` before `create` (not atomically across instances) and `sessions.maxPerPrincipal` is
 * not enforced; without `subscribeWithin` subscriptions go through `subscribe` and
 * `sessions.maxSubscriptions` is not enforced. Implement both to have every bound.
 *
 * @publicApi
 */
export interface McpSessionStore {
  /** Stores a new session. */
  create(record: McpSessionRecord): Promise<void>;
  /**
   * Creates `record` unless a cap forbids it, as one atomic step (two instances creating at once
   * cannot both pass a cap): first the record's quota key (`quotaKey ?? principalId`) must hold
   * fewer than `caps.maxPerPrincipal` sessions, then the server fewer than `caps.maxSessions`.
   */
  createWithin?(record: McpSessionRecord, caps: McpSessionCaps): Promise<McpSessionAdmission>;
  /**
   * The session `id`, or `undefined`. A store that holds its sessions in this process may answer
   * with the record itself rather than a promise of it (the in-memory store does): every legacy
   * request reads its session, and a value lets a request to a tool that answers at once be
   * answered without waiting for a turn of the microtask queue.
   */
  get(id: string): McpSessionRecord | undefined | Promise<McpSessionRecord | undefined>;
  /** Merges `patch` into the state; returns the updated record, or `undefined` if it is gone. */
  update(id: string, patch: Partial<McpSessionState>): Promise<McpSessionRecord | undefined>;
  /** Records activity at `at` (ms since the epoch). */
  touch(id: string, at: number): Promise<void>;
  /** Removes a session and its subscriptions; returns whether it existed. */
  delete(id: string): Promise<boolean>;
  /** How many sessions are stored. */
  count(): Promise<number>;
  /** Ids of the sessions whose last activity is before `cutoff`. */
  idleSince(cutoff: number): Promise<string[]>;
  /** Subscribes a session to the updates of a resource. */
  subscribe(id: string, uri: string): Promise<void>;
  /**
   * `subscribe`, unless the session holds `max` subscriptions already, as one atomic step.
   * Resolves `false` when refused; a uri the session is subscribed to already is accepted again
   * and not counted twice. An unknown session is ignored (resolves `true`).
   */
  subscribeWithin?(id: string, uri: string, max: number): Promise<boolean>;
  /** Ends a session's subscription to a resource; an unknown one is ignored. */
  unsubscribe(id: string, uri: string): Promise<void>;
  /** Ids of the sessions subscribed to `uri`. */
  subscribers(uri: string): Promise<string[]>;
}
