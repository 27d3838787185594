import { randomBytes } from 'node:crypto';
import type { Clock } from '../protocol/bounds/clock';
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { McpError } from '../protocol/messages/mcp-error';
import { tooMany, type RefusalLog } from '../protocol/bounds/refusal-log';
import type { LiveTasks } from './live-tasks';
import type { NewTask } from '../protocol/tasks/task-port';
import type { TaskSettings } from './task-settings';
import { taskQuotaKey, type McpTaskRecord, type McpTaskStore } from '../interfaces/task-store.interface';

export type { NewTask } from '../protocol/tasks/task-port';

/**
 * Makes tasks within the cap on the live tasks of each caller (`tasks.maxLivePerOwner`, counted
 * by quota key), with the retention asked for (capped), and tracks their work as live here.
 */
export class TaskCreations {
  /** The last creation under way, by quota key: the next one waits for it. */
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly live: LiveTasks,
    private readonly store: McpTaskStore,
    private readonly settings: TaskSettings,
    private readonly refusals: Pick<RefusalLog, 'warn'>,
    private readonly clock: Clock,
    /** This instance, named in the tasks it runs when other instances share the store. */
    private readonly instanceId?: string,
  ) {}

  /**
   * Creates a task in `working`, within the owner's cap (-32603 beyond it), whose work `abort`
   * stops. The task is stored when this resolves.
   */
  create(init: NewTask, abort: (reason: unknown) => void): Promise<McpTaskRecord> {
    // One caller's creations run one after the other here: with a store that cannot check and
    // create in one step (it counts by owner), the count they check against the cap is then exact.
    const owner = this.store.createWithin === undefined ? init.owner : taskQuotaKey(init);
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
    const { defaultTtlMs, maxTtlMs, pollIntervalMs } = this.settings;
    const now = this.clock.now();
    const requested = init.requestedTtlMs;
    const asked = requested !== undefined && Number.isInteger(requested) && requested > 0 ? requested : defaultTtlMs;
    const ttlMs = Math.min(asked, maxTtlMs);
    const record: McpTaskRecord = {
      id: `task_${randomBytes(16).toString('hex')}`,
      owner: init.owner,
      ...(init.quotaKey === undefined ? {} : { quotaKey: init.quotaKey }),
      era: init.era,
      revision: init.revision,
      sessionId: init.sessionId,
      ...(this.instanceId === undefined ? {} : { instanceId: this.instanceId }),
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
    this.live.add(record, abort);
    let created: boolean;
    try {
      created = await this.createWithin(record);
    } catch (error) {
      this.live.discard(record.id);
      throw error;
    }
    if (!created) {
      this.live.discard(record.id);
      const { maxLivePerOwner } = this.settings;
      const message = tooMany('tasks in progress for this caller', maxLivePerOwner, 'tasks.maxLivePerOwner');
      this.refusals.warn(
        'tasks.maxLivePerOwner',
        `Task of ${JSON.stringify(taskQuotaKey(record))} refused: ${message}`,
      );
      throw new McpError(McpErrorCode.InternalError, message);
    }
    return record;
  }

  /** Stores `record` within the live cap: in one step where the store can (see `McpTaskStore`). */
  private async createWithin(record: McpTaskRecord): Promise<boolean> {
    const { maxLivePerOwner } = this.settings;
    if (this.store.createWithin !== undefined) {
      return this.store.createWithin(record, maxLivePerOwner);
    }
    if ((await this.store.countLive(record.owner)) >= maxLivePerOwner) {
      return false;
    }
    await this.store.create(record);
    return true;
  }
}
