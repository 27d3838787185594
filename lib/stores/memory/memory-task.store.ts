import type { McpTaskRecord, McpTaskStore } from '../../interfaces/task-store.interface';
import { isTerminal, taskQuotaKey } from '../../interfaces/task-store.interface';

/** The tasks counted under one quota key: the live ones, and the ended ones in the order they ended. */
interface QuotaTasks {
  readonly live: Set<string>;
  /** A `Set` keeps insertion order: a task ends once, so its first entry is the first that ended. */
  readonly ended: Set<string>;
}

/**
 * The default task store: a map in this process. Tasks do not survive a restart and are not
 * shared between instances. Records go in and out as deep copies, as they would through a
 * shared store: what a caller holds never aliases what is stored.
 */
export class MemoryTaskStore implements McpTaskStore {
  private readonly tasks = new Map<string, McpTaskRecord>();
  /** owner → task ids, kept in step with `tasks`. */
  private readonly byOwner = new Map<string, Set<string>>();
  /** quota key → its live and ended task ids, kept in step with `tasks`. */
  private readonly byQuota = new Map<string, QuotaTasks>();

  async create(record: McpTaskRecord): Promise<void> {
    this.add(record);
  }

  /** Counts and creates in one synchronous step: nothing else runs in between. */
  async createWithin(record: McpTaskRecord, maxLive: number): Promise<boolean> {
    const quota = this.byQuota.get(taskQuotaKey(record));
    if (!isTerminal(record.status) && quota !== undefined && quota.live.size >= maxLive) {
      return false;
    }
    this.add(record);
    return true;
  }

  async get(id: string): Promise<McpTaskRecord | undefined> {
    const record = this.tasks.get(id);
    // A copy: callers may keep what they read while the task moves on.
    return record === undefined ? undefined : structuredClone(record);
  }

  async update(
    id: string,
    change: (current: McpTaskRecord) => McpTaskRecord | undefined,
  ): Promise<McpTaskRecord | undefined> {
    const current = this.tasks.get(id);
    if (current === undefined) {
      return undefined;
    }
    const next = change(structuredClone(current));
    if (next === undefined) {
      return undefined;
    }
    const stored = structuredClone(next);
    this.tasks.set(id, stored);
    this.index(current, stored);
    return structuredClone(next);
  }

  async delete(id: string): Promise<void> {
    const record = this.tasks.get(id);
    if (record === undefined) {
      return;
    }
    this.tasks.delete(id);
    const ids = this.byOwner.get(record.owner);
    ids?.delete(id);
    if (ids?.size === 0) {
      this.byOwner.delete(record.owner);
    }
    this.unindex(record);
  }

  async list(owner: string): Promise<McpTaskRecord[]> {
    const ids = [...(this.byOwner.get(owner) ?? [])].sort();
    return ids.map((id) => structuredClone(this.tasks.get(id)!));
  }

  async countLive(owner: string): Promise<number> {
    let live = 0;
    for (const id of this.byOwner.get(owner) ?? []) {
      if (!isTerminal(this.tasks.get(id)!.status)) {
        live += 1;
      }
    }
    return live;
  }

  async trimEnded(quotaKey: string, maxKept: number): Promise<number> {
    const ended = this.byQuota.get(quotaKey)?.ended;
    let deleted = 0;
    while (ended !== undefined && ended.size > maxKept) {
      const first = ended.values().next().value as string;
      await this.delete(first);
      deleted += 1;
    }
    return deleted;
  }

  async due(now: number): Promise<McpTaskRecord[]> {
    const due: McpTaskRecord[] = [];
    for (const record of this.tasks.values()) {
      if (record.expiresAt <= now) {
        due.push(structuredClone(record));
      }
    }
    return due;
  }

  private add(record: McpTaskRecord): void {
    const previous = this.tasks.get(record.id);
    const stored = structuredClone(record);
    this.tasks.set(record.id, stored);
    let ids = this.byOwner.get(record.owner);
    if (ids === undefined) {
      ids = new Set();
      this.byOwner.set(record.owner, ids);
    }
    ids.add(record.id);
    if (previous !== undefined) {
      this.unindex(previous);
    }
    this.index(undefined, stored);
  }

  /** Moves a task within its quota key's sets: from `previous` (if stored before) to `next`. */
  private index(previous: McpTaskRecord | undefined, next: McpTaskRecord): void {
    const wasTerminal = previous !== undefined && isTerminal(previous.status);
    const terminal = isTerminal(next.status);
    if (previous !== undefined && wasTerminal === terminal) {
      return;
    }
    const key = taskQuotaKey(next);
    let quota = this.byQuota.get(key);
    if (quota === undefined) {
      quota = { live: new Set(), ended: new Set() };
      this.byQuota.set(key, quota);
    }
    if (terminal) {
      quota.live.delete(next.id);
      quota.ended.add(next.id);
    } else {
      quota.ended.delete(next.id);
      quota.live.add(next.id);
    }
  }

  private unindex(record: McpTaskRecord): void {
    const key = taskQuotaKey(record);
    const quota = this.byQuota.get(key);
    if (quota === undefined) {
      return;
    }
    quota.live.delete(record.id);
    quota.ended.delete(record.id);
    if (quota.live.size === 0 && quota.ended.size === 0) {
      this.byQuota.delete(key);
    }
  }
}
