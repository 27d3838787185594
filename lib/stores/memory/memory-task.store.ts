import type { McpTaskRecord, TaskStore } from '../../tasks/task-store.interface';
import { isTerminal } from '../../tasks/task-store.interface';

/**
 * The default task store: a map in this process. Tasks do not survive a restart and are not
 * shared between instances. Records go in and out as deep copies, as they would through a
 * shared store: what a caller holds never aliases what is stored.
 */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, McpTaskRecord>();
  /** owner → task ids, kept in step with `tasks`. */
  private readonly byOwner = new Map<string, Set<string>>();

  async create(record: McpTaskRecord): Promise<void> {
    this.tasks.set(record.id, structuredClone(record));
    let ids = this.byOwner.get(record.owner);
    if (ids === undefined) {
      ids = new Set();
      this.byOwner.set(record.owner, ids);
    }
    ids.add(record.id);
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
    this.tasks.set(id, structuredClone(next));
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

  async due(now: number): Promise<McpTaskRecord[]> {
    const due: McpTaskRecord[] = [];
    for (const record of this.tasks.values()) {
      if (record.expiresAt <= now) {
        due.push(structuredClone(record));
      }
    }
    return due;
  }
}
