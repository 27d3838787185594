import {
  sessionQuotaKey,
  type McpSessionAdmission,
  type McpSessionCaps,
  type McpSessionRecord,
  type McpSessionStore,
} from '../../interfaces/session-store.interface';
import type { McpSessionState } from '../../protocol/messages/session-handle';

const CREATED: McpSessionAdmission = Object.freeze({ outcome: 'created' });
const SERVER_FULL: McpSessionAdmission = Object.freeze({ outcome: 'server-full' });

/**
 * The default session store: a map in this process. Sessions do not survive a restart and are
 * not shared between instances.
 */
export class MemorySessionStore implements McpSessionStore {
  private readonly sessions = new Map<string, McpSessionRecord>();
  /** uri → session ids, and session id → uris, kept in step. */
  private readonly byUri = new Map<string, Set<string>>();
  private readonly bySession = new Map<string, Set<string>>();
  /** quota key → the ids of the sessions counted under it. */
  private readonly byQuota = new Map<string, Set<string>>();

  async create(record: McpSessionRecord): Promise<void> {
    this.add(record);
  }

  /** Checks and creates in one synchronous step: nothing else runs in between. */
  async createWithin(record: McpSessionRecord, caps: McpSessionCaps): Promise<McpSessionAdmission> {
    const quota = this.byQuota.get(sessionQuotaKey(record));
    if (quota !== undefined && quota.size >= caps.maxPerPrincipal && !quota.has(record.id)) {
      return { outcome: 'principal-full', idlest: this.idlest(quota, caps.candidates) };
    }
    if (this.sessions.size >= caps.maxSessions && !this.sessions.has(record.id)) {
      return SERVER_FULL;
    }
    this.add(record);
    return CREATED;
  }

  /** At once, not as a promise: see `McpSessionStore.get`. */
  get(id: string): McpSessionRecord | undefined {
    return this.sessions.get(id);
  }

  async update(id: string, patch: Partial<McpSessionState>): Promise<McpSessionRecord | undefined> {
    const record = this.sessions.get(id);
    if (record !== undefined) {
      record.state = { ...record.state, ...patch };
    }
    return record;
  }

  async touch(id: string, at: number): Promise<void> {
    const record = this.sessions.get(id);
    if (record !== undefined && at > record.lastActivity) {
      record.lastActivity = at;
    }
  }

  async delete(id: string): Promise<boolean> {
    for (const uri of this.bySession.get(id) ?? []) {
      const ids = this.byUri.get(uri);
      ids?.delete(id);
      if (ids?.size === 0) {
        this.byUri.delete(uri);
      }
    }
    this.bySession.delete(id);
    const record = this.sessions.get(id);
    if (record === undefined) {
      return false;
    }
    this.sessions.delete(id);
    this.leaveQuota(record);
    return true;
  }

  async count(): Promise<number> {
    return this.sessions.size;
  }

  async idleSince(cutoff: number): Promise<string[]> {
    const idle: string[] = [];
    for (const record of this.sessions.values()) {
      if (record.lastActivity < cutoff) {
        idle.push(record.id);
      }
    }
    return idle;
  }

  async subscribe(id: string, uri: string): Promise<void> {
    this.addSubscription(id, uri, Infinity);
  }

  async subscribeWithin(id: string, uri: string, max: number): Promise<boolean> {
    return this.addSubscription(id, uri, max);
  }

  async unsubscribe(id: string, uri: string): Promise<void> {
    const ids = this.byUri.get(uri);
    ids?.delete(id);
    if (ids?.size === 0) {
      this.byUri.delete(uri);
    }
    this.bySession.get(id)?.delete(uri);
  }

  async subscribers(uri: string): Promise<string[]> {
    return [...(this.byUri.get(uri) ?? [])];
  }

  private add(record: McpSessionRecord): void {
    const previous = this.sessions.get(record.id);
    if (previous !== undefined) {
      // A record created again under its id replaces the old one, in its quota too.
      this.leaveQuota(previous);
    }
    this.sessions.set(record.id, { ...record, state: { ...record.state } });
    const key = sessionQuotaKey(record);
    let quota = this.byQuota.get(key);
    if (quota === undefined) {
      quota = new Set();
      this.byQuota.set(key, quota);
    }
    quota.add(record.id);
  }

  private leaveQuota(record: McpSessionRecord): void {
    const key = sessionQuotaKey(record);
    const quota = this.byQuota.get(key);
    quota?.delete(record.id);
    if (quota?.size === 0) {
      this.byQuota.delete(key);
    }
  }

  /** Up to `count` of the sessions of `ids`, the longest idle first. */
  private idlest(ids: ReadonlySet<string>, count: number): string[] {
    return [...ids]
      .map((id) => this.sessions.get(id)!)
      .sort((a, b) => a.lastActivity - b.lastActivity)
      .slice(0, count)
      .map((record) => record.id);
  }

  /** Subscribes unless the session holds `max` other subscriptions; `true` when subscribed (or unknown). */
  private addSubscription(id: string, uri: string, max: number): boolean {
    if (!this.sessions.has(id)) {
      return true;
    }
    let uris = this.bySession.get(id);
    if (uris !== undefined && uris.size >= max && !uris.has(uri)) {
      return false;
    }
    if (uris === undefined) {
      uris = new Set();
      this.bySession.set(id, uris);
    }
    uris.add(uri);
    let ids = this.byUri.get(uri);
    if (ids === undefined) {
      ids = new Set();
      this.byUri.set(uri, ids);
    }
    ids.add(id);
    return true;
  }
}
