import { randomBytes } from 'node:crypto';
import { ErrorCode } from '../protocol/json-rpc';
import { McpError } from '../protocol/mcp-error';
import type { LiveTasks } from './live-tasks';
import type { NewTask } from '../protocol/tasks/task-port';
import type { TaskSettings } from './task-settings';
import type { McpTaskRecord, TaskStore } from './task-store.interface';

export type { NewTask } from '../protocol/tasks/task-port';

/**
 * Makes tasks within the cap on the live tasks of each owner (`tasks.maxLivePerOwner`), with
 * the retention asked for (capped), and tracks their work as live here.
 */
export class TaskCreations {
  /** The last creation under way, by owner: the next one waits for it. */
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly live: LiveTasks,
    private readonly store: TaskStore,
    private readonly settings: TaskSettings,
  ) {}

  /**
   * Creates a task in `working`, within the owner's cap (-32603 beyond it), whose work `abort`
   * stops. The task is stored when this resolves.
   */
  create(init: NewTask, abort: (reason: unknown) => void): Promise<McpTaskRecord> {
    // One owner's creations run one after the other: the count they check against the cap is
    // then exact, whatever the store's latency.
    const { owner } = init;
    const created = (this.pending.get(owner) ?? Promise.resolve()).then(() => this.createNow(init, abort));
    const done = created.then(
      () => undefined,
      () => undefined,
    );
    this.pending.set(owner, done);
    void done.then(() => {
      if (this.pending.get(owner) === done) {
        this.pending.delete(owner);
      }
    });
    return created;
  }

  private async createNow(init: NewTask, abort: (reason: unknown) => void): Promise<McpTaskRecord> {
    const { maxLivePerOwner, defaultTtlMs, maxTtlMs, pollIntervalMs } = this.settings;
    if ((await this.store.countLive(init.owner)) >= maxLivePerOwner) {
      throw new McpError(ErrorCode.InternalError, `Too many tasks in progress: at most ${maxLivePerOwner} per caller`);
    }
    const now = Date.now();
    const requested = init.requestedTtlMs;
    const asked = requested !== undefined && Number.isInteger(requested) && requested > 0 ? requested : defaultTtlMs;
    const ttlMs = Math.min(asked, maxTtlMs);
    const record: McpTaskRecord = {
      id: `task_${randomBytes(16).toString('hex')}`,
      owner: init.owner,
      era: init.era,
      revision: init.revision,
      sessionId: init.sessionId,
      method: init.method,
      name: init.name,
      status: 'working',
      createdAt: now,
      updatedAt: now,
      ttlMs,
      expiresAt: now + ttlMs,
      pollIntervalMs,
    };
    // Live before it is stored: whoever reads the stored task (a cancellation) finds its work.
    this.live.add(record.id, abort);
    try {
      await this.store.create(record);
    } catch (error) {
      this.live.discard(record.id);
      throw error;
    }
    return record;
  }
}
