import type { SessionState } from '../protocol/session-handle';
import type { Awaitable } from '../protocol/thenables';

/** One legacy session as stored. */
export interface SessionRecord {
  readonly id: string;
  /** The principal that opened the session; only it may use the session. */
  readonly principalId: string;
  readonly createdAt: number;
  lastActivity: number;
  state: SessionState;
}

/**
 * Where sessions live. Every method may answer with a promise, so that a shared store (Redis)
 * can stand in for the in-memory default without changing the callers.
 *
 * @publicApi
 */
export interface SessionStore {
  create(record: SessionRecord): Promise<void>;
  /**
   * The session `id`, or `undefined`. A store that holds its sessions in this process may answer
   * with the record itself rather than a promise of it (the in-memory store does): every legacy
   * request reads its session, and a value lets a request to a tool that answers at once be
   * answered without waiting for a turn of the microtask queue.
   */
  get(id: string): Awaitable<SessionRecord | undefined>;
  /** Merges `patch` into the state; returns the updated record, or `undefined` if it is gone. */
  update(id: string, patch: Partial<SessionState>): Promise<SessionRecord | undefined>;
  /** Records activity at `at` (ms since the epoch). */
  touch(id: string, at: number): Promise<void>;
  /** Removes a session and its subscriptions; returns whether it existed. */
  delete(id: string): Promise<boolean>;
  count(): Promise<number>;
  /** Ids of the sessions whose last activity is before `cutoff`. */
  idleSince(cutoff: number): Promise<string[]>;
  subscribe(id: string, uri: string): Promise<void>;
  unsubscribe(id: string, uri: string): Promise<void>;
  /** Ids of the sessions subscribed to `uri`. */
  subscribers(uri: string): Promise<string[]>;
}
