import type { SessionRecord, SessionStore } from '../../sessions/session-store.interface';
import type { SessionState } from '../../protocol/session-handle';

/**
 * The default session store: a map in this process. Sessions do not survive a restart and are
 * not shared between instances.
 */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();
  /** uri → session ids, and session id → uris, kept in step. */
  private readonly byUri = new Map<string, Set<string>>();
  private readonly bySession = new Map<string, Set<string>>();

  async create(record: SessionRecord): Promise<void> {
    this.sessions.set(record.id, { ...record, state: { ...record.state } });
  }

  /** At once, not as a promise: see `SessionStore.get`. */
  get(id: string): SessionRecord | undefined {
    return this.sessions.get(id);
  }

  async update(id: string, patch: Partial<SessionState>): Promise<SessionRecord | undefined> {
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
    return this.sessions.delete(id);
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
    if (!this.sessions.has(id)) {
      return;
    }
    let ids = this.byUri.get(uri);
    if (ids === undefined) {
      ids = new Set();
      this.byUri.set(uri, ids);
    }
    ids.add(id);
    let uris = this.bySession.get(id);
    if (uris === undefined) {
      uris = new Set();
      this.bySession.set(id, uris);
    }
    uris.add(uri);
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
}
