import { McpStoreUnavailableError } from '../errors/mcp-store-unavailable.error';
import type { McpEvent } from '../interfaces/notification-bus.interface';
import type { InputRequest } from '../protocol/messages/client-requests';
import { McpError } from '../protocol/messages/mcp-error';
import { markReported } from '../protocol/bounds/store-unavailable';
import { MemoryNotificationBus } from '../stores/memory/memory-notification.bus';
import { MemoryTaskStore } from '../stores/memory/memory-task.store';
import type { ClusterLink } from '../cluster/cluster-link.interface';
import { MemoryClusterLink } from '../stores/memory/memory-cluster.link';
import { TaskManager, type NewTask } from './task-manager';
import { resolveTaskOptions, type TaskSettings } from './task-settings';
import type { McpTaskRecord } from '../interfaces/task-store.interface';
import { delay, flush } from '../../test/support/waiting';

const MODERN: NewTask = {
  owner: 'principal:alice',
  era: 'modern',
  revision: '2026-07-28',
  method: 'tools/call',
  name: 'sleepy',
};
const LEGACY: NewTask = {
  owner: 'session:s1',
  era: 'legacy',
  revision: '2025-11-25',
  sessionId: 's1',
  method: 'tools/call',
  name: 'sleepy',
};

const ELICIT: InputRequest = {
  method: 'elicitation/create',
  params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
};
const SAMPLE: InputRequest = {
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 5 },
};
const ACCEPT = { action: 'accept', content: { name: 'Ada' } };
const DECLINE = { action: 'decline' };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Hello' }, model: 'm' };
const OK_RESULT = { content: [{ type: 'text', text: 'slept' }] };
const TOOL_ERROR = { content: [{ type: 'text', text: 'bad input' }], isError: true };

const DEFAULTS = resolveTaskOptions({});

/** A store that answers late, as a shared store would: each call waits a random 0–2 ms. */
class SlowTaskStore extends MemoryTaskStore {
  private static pause(): Promise<void> {
    const ms = Math.floor(Math.random() * 3);
    return new Promise((resolve) => (ms === 0 ? setImmediate(resolve) : setTimeout(resolve, ms)));
  }

  override async countLive(owner: string): Promise<number> {
    await SlowTaskStore.pause();
    const live = await super.countLive(owner);
    await SlowTaskStore.pause();
    return live;
  }

  override async createWithin(record: McpTaskRecord, maxLive: number): Promise<boolean> {
    await SlowTaskStore.pause();
    const created = await super.createWithin(record, maxLive);
    await SlowTaskStore.pause();
    return created;
  }
}

/** A store that stores a new task at once but acknowledges the creation only when released. */
class LateAckTaskStore extends MemoryTaskStore {
  release!: () => void;

  override async createWithin(record: McpTaskRecord, maxLive: number): Promise<boolean> {
    const created = await super.createWithin(record, maxLive);
    if (created) {
      await new Promise<void>((resolve) => (this.release = resolve));
    }
    return created;
  }
}

/**
 * A store whose writes fail while `failing` is set, as Redis does when it stalls, restarts or
 * runs out of memory; `landing` makes a write apply and still fail, as a command that timed out
 * in the client and ran in Redis after all. `writes` counts the writes asked of it.
 */
class FlakyTaskStore extends MemoryTaskStore {
  failing = false;
  landing = false;
  writes = 0;

  override async update(
    id: string,
    change: (current: McpTaskRecord) => McpTaskRecord | undefined,
  ): Promise<McpTaskRecord | undefined> {
    this.writes += 1;
    if (this.landing) {
      await super.update(id, change);
    }
    if (this.failing || this.landing) {
      throw new McpStoreUnavailableError('The session store is unavailable: Command timed out');
    }
    return super.update(id, change);
  }
}

/** Stops the bus subscriptions made by `listening` (after each test). */
const subscriptions: Array<() => void> = [];

function setup(
  overrides: Partial<TaskSettings> = {},
  store = new MemoryTaskStore(),
  bus = new MemoryNotificationBus(),
  link: ClusterLink = new MemoryClusterLink(),
) {
  const settings: TaskSettings = { ...DEFAULTS, ...overrides };
  const logger = {
    warn: jest.fn<void, [string]>(),
    error: jest.fn<void, [string]>(),
    debug: jest.fn<void, [string]>(),
    log: jest.fn<void, [string]>(),
  };
  const manager = new TaskManager(store, bus, link, settings, logger);
  return { store, bus, link, manager, settings, logger };
}

/** A manager fed the task events of its bus, as its owner (McpTaskService) feeds it. */
function listening(overrides: Partial<TaskSettings> = {}, store?: MemoryTaskStore, bus?: MemoryNotificationBus) {
  const made = setup(overrides, store, bus);
  subscriptions.push(
    made.bus.subscribe((event) => {
      if (event.type === 'task_status') {
        made.manager.statusChanged(event.task);
      }
    }),
  );
  return made;
}

afterEach(() => {
  subscriptions.splice(0).forEach((stop) => stop());
});

/** Records the task events of a bus and what the store held when each was published. */
function watch(bus: MemoryNotificationBus, store: MemoryTaskStore) {
  const events: McpTaskRecord[] = [];
  const storedThen: Array<Promise<McpTaskRecord | undefined>> = [];
  bus.subscribe((event: McpEvent) => {
    if (event.type === 'task_status') {
      events.push(event.task);
      // The memory store reads synchronously: this is the stored state at publication time.
      storedThen.push(store.get(event.task.id));
    }
  });
  return { events, storedThen };
}

/** Whether a promise settled yet. */
function tracked<T>(promise: Promise<T>) {
  const state = { settled: false, value: undefined as T | undefined, error: undefined as unknown };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }
  throw new Error('expected a rejection');
}
describe('TaskManager', () => {
  describe('create', () => {
    it('creates a working task with the default retention and stores it before resolving', async () => {
      const { manager, store } = setup();
      const before = Date.now();
      const record = await manager.create(MODERN, () => undefined);
      const after = Date.now();

      expect(record.id).toMatch(/^task_[0-9a-f]{32}$/);
      expect(record).toMatchObject({
        owner: 'principal:alice',
        era: 'modern',
        revision: '2026-07-28',
        method: 'tools/call',
        name: 'sleepy',
        status: 'working',
        ttlMs: 3_600_000,
        pollIntervalMs: 1_000,
      });
      expect(record.createdAt).toBeGreaterThanOrEqual(before);
      expect(record.createdAt).toBeLessThanOrEqual(after);
      expect(record.updatedAt).toBe(record.createdAt);
      expect(record.expiresAt).toBe(record.createdAt + record.ttlMs);
      expect(record.result).toBeUndefined();
      expect(record.error).toBeUndefined();
      expect(record.statusMessage).toBeUndefined();
      // Stored by the time create resolves: a tasks/get right after finds it.
      await expect(store.get(record.id)).resolves.toEqual(record);
      await expect(manager.get(record.id)).resolves.toEqual(record);
      expect(manager.isLive(record.id)).toBe(true);
    });

    it('keeps the legacy session of the task', async () => {
      const { manager } = setup();
      const record = await manager.create(LEGACY, () => undefined);
      expect(record).toMatchObject({ owner: 'session:s1', era: 'legacy', revision: '2025-11-25', sessionId: 's1' });
    });

    it('makes a distinct id for every task', async () => {
      const { manager } = setup({ maxLivePerOwner: 1_000 });
      const records = await Promise.all(Array.from({ length: 200 }, () => manager.create(MODERN, () => undefined)));
      const ids = new Set(records.map((record) => record.id));
      expect(ids.size).toBe(200);
      records.forEach((record) => expect(record.id).toMatch(/^task_[0-9a-f]{32}$/));
    });

    it('takes the retention the client asked for, capped by maxTtlMs', async () => {
      const { manager } = setup({ defaultTtlMs: 10_000, maxTtlMs: 60_000, pollIntervalMs: 250 });
      expect((await manager.create({ ...MODERN }, () => undefined)).ttlMs).toBe(10_000);
      expect((await manager.create({ ...LEGACY, requestedTtlMs: 5_000 }, () => undefined)).ttlMs).toBe(5_000);
      expect((await manager.create({ ...LEGACY, requestedTtlMs: 60_000 }, () => undefined)).ttlMs).toBe(60_000);
      const capped = await manager.create({ ...LEGACY, requestedTtlMs: 3_600_000 }, () => undefined);
      expect(capped.ttlMs).toBe(60_000);
      expect(capped.expiresAt).toBe(capped.createdAt + 60_000);
      expect(capped.pollIntervalMs).toBe(250);
    });

    it.each([
      ['zero', 0],
      ['negative', -5_000],
      ['fractional', 1_500.5],
      ['NaN', Number.NaN],
      ['infinite', Number.POSITIVE_INFINITY],
    ])('takes the default retention when the requested one is %s', async (_label, requestedTtlMs) => {
      const { manager } = setup({ defaultTtlMs: 10_000, maxTtlMs: 60_000 });
      expect((await manager.create({ ...LEGACY, requestedTtlMs }, () => undefined)).ttlMs).toBe(10_000);
    });
  });

  describe('the per-owner cap', () => {
    it('refuses a task beyond maxLivePerOwner with -32603, per owner', async () => {
      const { manager, store } = setup({ maxLivePerOwner: 2 });
      await manager.create(MODERN, () => undefined);
      await manager.create(MODERN, () => undefined);
      const error = await rejection(manager.create(MODERN, () => undefined));
      expect(error.code).toBe(-32603);
      expect(error.message).toMatch(/^Too many tasks in progress/);
      expect(error.message).toContain('2');
      await expect(store.countLive('principal:alice')).resolves.toBe(2);
      // Another owner has a cap of its own.
      await expect(manager.create({ ...MODERN, owner: 'principal:bob' }, () => undefined)).resolves.toMatchObject({
        owner: 'principal:bob',
      });
      await expect(manager.create(LEGACY, () => undefined)).resolves.toMatchObject({ owner: 'session:s1' });
    });

    it('does not count terminal tasks: completed, failed and cancelled tasks free their place', async () => {
      const { manager } = setup({ maxLivePerOwner: 1 });
      const first = await manager.create(MODERN, () => undefined);
      await expect(manager.create(MODERN, () => undefined)).rejects.toThrow(/Too many tasks/);
      await manager.settle(first.id, { type: 'result', result: OK_RESULT });
      const second = await manager.create(MODERN, () => undefined);
      await manager.settle(second.id, { type: 'error', error: { code: -32050, message: 'Quota exceeded' } });
      const third = await manager.create(MODERN, () => undefined);
      await manager.cancel(third.id);
      const fourth = await manager.create(MODERN, () => undefined);
      expect(fourth.status).toBe('working');
      expect((await manager.list('principal:alice')).map((record) => record.status).sort()).toEqual([
        'cancelled',
        'completed',
        'failed',
        'working',
      ]);
    });

    it('cannot be overshot by creations made at once', async () => {
      const CAP = 5;
      const { manager, store } = setup({ maxLivePerOwner: CAP });
      const outcomes = await Promise.allSettled(
        Array.from({ length: CAP + 3 }, () => manager.create(MODERN, () => undefined)),
      );
      const created = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(created).toHaveLength(CAP);
      expect(refused).toHaveLength(3);
      refused.forEach((outcome) => expect(outcome.reason).toMatchObject({ code: -32603 }));
      await expect(store.countLive('principal:alice')).resolves.toBe(CAP);
    });

    it('cannot be overshot by creations made at once when the store answers late', async () => {
      const CAP = 5;
      const store = new SlowTaskStore();
      const { manager } = setup({ maxLivePerOwner: CAP }, store);
      for (let round = 0; round < 20; round += 1) {
        const owner = `principal:burst-${round}`;
        const outcomes = await Promise.allSettled(
          Array.from({ length: CAP + 3 }, () => manager.create({ ...MODERN, owner }, () => undefined)),
        );
        const created = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        expect(created.length).toBeGreaterThan(0);
        expect(created.length).toBeLessThanOrEqual(CAP);
        outcomes
          .filter((outcome) => outcome.status === 'rejected')
          .forEach((outcome) => expect(outcome.reason).toMatchObject({ code: -32603 }));
        expect(await store.countLive(owner)).toBeLessThanOrEqual(CAP);
      }
    });

    it('counts existing live tasks against creations made at once, and frees the places of refused ones', async () => {
      const CAP = 4;
      const { manager, store } = setup({ maxLivePerOwner: CAP });
      const existing = await manager.create(MODERN, () => undefined);
      const burst = await Promise.allSettled(
        Array.from({ length: CAP + 3 }, () => manager.create(MODERN, () => undefined)),
      );
      expect(burst.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(CAP - 1);
      await expect(store.countLive('principal:alice')).resolves.toBe(CAP);

      // Once every task ended, a full cap of creations at once succeeds: nothing stayed reserved.
      await manager.cancel(existing.id);
      for (const record of await manager.list('principal:alice')) {
        await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      }
      const again = await Promise.allSettled(
        Array.from({ length: CAP }, () => manager.create(MODERN, () => undefined)),
      );
      expect(again.every((outcome) => outcome.status === 'fulfilled')).toBe(true);
    });

    it('does not refuse a creation under the cap while another one is being stored', async () => {
      const store = new LateAckTaskStore();
      const { manager } = setup({ maxLivePerOwner: 2 }, store);
      const first = manager.create(MODERN, () => undefined);
      // Wait until the first task is stored (its creation is not acknowledged yet).
      while ((await store.countLive('principal:alice')) === 0) {
        await flush();
      }
      const releaseFirst = store.release;
      // One task exists, the cap is 2: the second creation must succeed.
      const second = manager.create(MODERN, () => undefined);
      await flush();
      releaseFirst();
      await flush();
      store.release();
      await expect(first).resolves.toMatchObject({ status: 'working' });
      await expect(second).resolves.toMatchObject({ status: 'working' });
      await expect(store.countLive('principal:alice')).resolves.toBe(2);
    });

    it('refuses beyond the cap while another creation is being stored', async () => {
      const store = new LateAckTaskStore();
      const { manager } = setup({ maxLivePerOwner: 1 }, store);
      const first = manager.create(MODERN, () => undefined);
      while ((await store.countLive('principal:alice')) === 0) {
        await flush();
      }
      // The second creation waits for the first one to be acknowledged, then counts it.
      const second = manager.create(MODERN, () => undefined);
      store.release();
      await expect(first).resolves.toMatchObject({ status: 'working' });
      await expect(second).rejects.toMatchObject({ code: -32603 });
      await expect(store.countLive('principal:alice')).resolves.toBe(1);
    });
  });

  describe('the per-caller quota', () => {
    it('counts live tasks by quota key: one owner, two keys, two quotas', async () => {
      const { manager } = setup({ maxLivePerOwner: 1 });
      const anonymous = { ...MODERN, owner: 'principal:anonymous' };
      await manager.create({ ...anonymous, quotaKey: 'principal:anonymous@10.0.0.1' }, () => undefined);
      await expect(
        manager.create({ ...anonymous, quotaKey: 'principal:anonymous@10.0.0.1' }, () => undefined),
      ).rejects.toMatchObject({
        code: -32603,
        message: 'Too many tasks in progress for this caller: at most 1 (McpModule option tasks.maxLivePerOwner)',
      });
      await expect(
        manager.create({ ...anonymous, quotaKey: 'principal:anonymous@10.0.0.2' }, () => undefined),
      ).resolves.toMatchObject({ owner: 'principal:anonymous', quotaKey: 'principal:anonymous@10.0.0.2' });
      expect(await manager.list('principal:anonymous')).toHaveLength(2);
    });

    it('logs a refusal once as a warning, then as debug lines', async () => {
      const { manager, logger } = setup({ maxLivePerOwner: 1 });
      await manager.create(MODERN, () => undefined);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        await manager.create(MODERN, () => undefined).catch(() => undefined);
      }
      expect(logger.warn.mock.calls.filter(([line]) => line.includes('tasks.maxLivePerOwner'))).toHaveLength(1);
    });

    it('keeps tasks.maxKeptPerOwner ended tasks of a caller, dropping the one that ended first', async () => {
      const { manager } = setup({ maxKeptPerOwner: 2 });
      const made = [];
      for (let index = 0; index < 4; index += 1) {
        made.push(await manager.create(MODERN, () => undefined));
      }
      const other = await manager.create({ ...MODERN, owner: 'principal:bob' }, () => undefined);
      await manager.settle(other.id, { type: 'result', result: OK_RESULT });
      await manager.settle(made[2].id, { type: 'result', result: OK_RESULT });
      await manager.cancel(made[0].id);
      expect((await manager.list('principal:alice')).length).toBe(4);
      await manager.settle(made[3].id, { type: 'error', error: { code: -32050, message: 'no' } });
      // Three ended: the first to end (made[2]) is gone, the live one stays.
      expect((await manager.list('principal:alice')).map((record) => record.id).sort()).toEqual(
        [made[0].id, made[1].id, made[3].id].sort(),
      );
      await expect(manager.get(made[2].id)).resolves.toBeUndefined();
      await expect(manager.get(other.id)).resolves.toMatchObject({ status: 'completed' });
    });

    it("creates a task without reading the caller's 20,000 ended tasks", async () => {
      const { manager, store } = setup();
      const now = Date.now();
      for (let index = 0; index < 20_000; index += 1) {
        await store.create({
          ...MODERN,
          id: `task_old_${index}`,
          status: 'completed',
          createdAt: now,
          updatedAt: now,
          ttlMs: 60_000,
          expiresAt: now + 60_000,
          pollIntervalMs: 1_000,
        });
      }
      const reads = jest.spyOn(Map.prototype, 'get');
      try {
        await manager.create(MODERN, () => undefined);
        // A handful of map reads per creation; counting the caller's live tasks by walking them read 20,000.
        expect(reads.mock.calls.length).toBeLessThan(100);
      } finally {
        reads.mockRestore();
      }
    });
  });

  describe('settle', () => {
    it('completes a task with its result', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      const settled = (await manager.get(record.id))!;
      expect(settled).toMatchObject({ status: 'completed', result: OK_RESULT });
      expect(settled.error).toBeUndefined();
      expect(settled.statusMessage).toBeUndefined();
      expect(settled.updatedAt).toBeGreaterThanOrEqual(record.updatedAt);
      expect(manager.isLive(record.id)).toBe(false);
    });

    it('completes a modern task whose tool reported an error (the result says isError)', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      await manager.settle(record.id, { type: 'result', result: TOOL_ERROR });
      const settled = (await manager.get(record.id))!;
      expect(settled).toMatchObject({ status: 'completed', result: TOOL_ERROR });
      expect(settled.error).toBeUndefined();
    });

    it('fails a legacy task whose tool reported an error, keeping the result for tasks/result', async () => {
      const { manager } = setup();
      const record = await manager.create(LEGACY, () => undefined);
      await manager.settle(record.id, { type: 'result', result: TOOL_ERROR });
      const settled = (await manager.get(record.id))!;
      expect(settled).toMatchObject({ status: 'failed', result: TOOL_ERROR });
      expect(settled.error).toBeUndefined();
    });

    it('completes a legacy task with a plain result', async () => {
      const { manager } = setup();
      const record = await manager.create(LEGACY, () => undefined);
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'completed', result: OK_RESULT });
    });

    it.each([
      ['modern', MODERN],
      ['legacy', LEGACY],
    ])('fails a %s task whose work threw a protocol error, with that error', async (_era, init) => {
      const { manager } = setup();
      const record = await manager.create(init, () => undefined);
      const thrown = new McpError(-32050, 'Quota exceeded', { retryAfterMs: 1000 });
      await manager.settle(record.id, {
        type: 'error',
        error: { code: thrown.code, message: thrown.message, data: thrown.data },
      });
      const settled = (await manager.get(record.id))!;
      expect(settled).toMatchObject({
        status: 'failed',
        statusMessage: 'Quota exceeded',
        error: { code: -32050, message: 'Quota exceeded', data: { retryAfterMs: 1000 } },
      });
      expect(settled.result).toBeUndefined();
    });

    it('ignores an unknown task', async () => {
      const { manager } = setup();
      await expect(manager.settle('task_unknown', { type: 'result', result: OK_RESULT })).resolves.toBeUndefined();
      await expect(manager.get('task_unknown')).resolves.toBeUndefined();
    });
  });

  describe('terminal states are final', () => {
    it('ignores a second outcome', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      const completed = await manager.get(record.id);
      await manager.settle(record.id, { type: 'error', error: { code: -32603, message: 'late' } });
      await expect(manager.get(record.id)).resolves.toEqual(completed);
    });

    it('ignores an outcome after a cancellation', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      await manager.cancel(record.id);
      const cancelled = (await manager.get(record.id))!;
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      const after = (await manager.get(record.id))!;
      expect(after).toEqual(cancelled);
      expect(after.status).toBe('cancelled');
      expect(after.result).toBeUndefined();
    });

    it('answers a cancellation of a completed task with the completed task, unchanged, and does not abort', async () => {
      const { manager } = setup();
      const abort = jest.fn();
      const record = await manager.create(MODERN, abort);
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      const completed = await manager.get(record.id);
      await expect(manager.cancel(record.id)).resolves.toEqual(completed);
      await expect(manager.get(record.id)).resolves.toEqual(completed);
      expect(abort).not.toHaveBeenCalled();
    });

    it('answers a cancellation of an unknown task with undefined', async () => {
      const { manager } = setup();
      await expect(manager.cancel('task_unknown')).resolves.toBeUndefined();
    });
  });

  describe('cancel', () => {
    it('cancels the task and aborts its work once, with the reason', async () => {
      const { manager } = setup();
      const abort = jest.fn();
      const record = await manager.create(MODERN, abort);
      const cancelled = (await manager.cancel(record.id))!;
      expect(cancelled).toMatchObject({ id: record.id, status: 'cancelled', statusMessage: 'Cancelled by the client' });
      await expect(manager.get(record.id)).resolves.toEqual(cancelled);
      expect(abort).toHaveBeenCalledTimes(1);
      expect(abort.mock.calls[0][0]).toBeInstanceOf(McpError);
      expect(abort.mock.calls[0][0]).toMatchObject({ code: -32603, message: 'Cancelled by the client' });
      expect(manager.isLive(record.id)).toBe(false);

      // Cancelling again answers the cancelled task and aborts nothing more.
      await expect(manager.cancel(record.id)).resolves.toEqual(cancelled);
      expect(abort).toHaveBeenCalledTimes(1);
    });

    it('aborts once when cancelled several times at once', async () => {
      const { manager } = setup();
      const abort = jest.fn();
      const record = await manager.create(MODERN, abort);
      const answers = await Promise.all([
        manager.cancel(record.id),
        manager.cancel(record.id),
        manager.cancel(record.id),
      ]);
      answers.forEach((answer) => expect(answer).toMatchObject({ status: 'cancelled' }));
      expect(abort).toHaveBeenCalledTimes(1);
    });

    it('uses the given reason', async () => {
      const { manager } = setup();
      const abort = jest.fn();
      const record = await manager.create(LEGACY, abort);
      await expect(manager.cancel(record.id, 'Session closed')).resolves.toMatchObject({
        status: 'cancelled',
        statusMessage: 'Session closed',
      });
      expect(abort.mock.calls[0][0]).toMatchObject({ message: 'Session closed' });
    });

    it('rejects the questions the task waits on', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const asked = manager.ask(record.id, 'name', ELICIT);
      asked.catch(() => undefined);
      await flush();
      await manager.cancel(record.id);
      await expect(asked).rejects.toMatchObject({ code: -32603 });
      const cancelled = (await manager.get(record.id))!;
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.inputRequests).toBeUndefined();
    });

    it('cancelOwned cancels the live tasks of one owner only', async () => {
      const { manager } = setup();
      const aborts = [jest.fn(), jest.fn(), jest.fn()];
      const a = await manager.create(LEGACY, aborts[0]);
      const b = await manager.create(LEGACY, aborts[1]);
      const other = await manager.create({ ...LEGACY, owner: 'session:s2', sessionId: 's2' }, aborts[2]);
      await manager.settle(b.id, { type: 'result', result: OK_RESULT });
      await manager.cancelOwned('session:s1', 'Session ended');
      await expect(manager.get(a.id)).resolves.toMatchObject({ status: 'cancelled', statusMessage: 'Session ended' });
      await expect(manager.get(b.id)).resolves.toMatchObject({ status: 'completed' });
      await expect(manager.get(other.id)).resolves.toMatchObject({ status: 'working' });
      expect(aborts.map((abort) => abort.mock.calls.length)).toEqual([1, 0, 0]);
    });
  });

  describe('owned', () => {
    it("answers the owner's task", async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      await expect(manager.owned('principal:alice', record.id)).resolves.toEqual(record);
    });

    it.each([
      ['an empty string', ''],
      ['a number', 42],
      ['null', null],
      ['undefined', undefined],
      ['an object', { taskId: 'x' }],
    ])('refuses %s as a task id with -32602', async (_label, id) => {
      const { manager } = setup();
      const error = await rejection(manager.owned('principal:alice', id));
      expect(error.code).toBe(-32602);
    });

    it("answers an unknown id and another owner's task the same way: -32602", async () => {
      const { manager } = setup();
      const bobs = await manager.create({ ...MODERN, owner: 'principal:bob' }, () => undefined);
      const sessions = await manager.create(LEGACY, () => undefined);
      const unknown = await rejection(manager.owned('principal:alice', 'task_0123456789abcdef0123456789abcdef'));
      const foreign = await rejection(manager.owned('principal:alice', bobs.id));
      const otherKind = await rejection(manager.owned('principal:s1', sessions.id));
      for (const error of [unknown, foreign, otherKind]) {
        expect(error.code).toBe(-32602);
        expect(error.message).toMatch(/^Task not found: task_/);
      }
      expect(foreign.message).toBe(`Task not found: ${bobs.id}`);
      expect(foreign.data).toBeUndefined();
      await expect(manager.owned('principal:bob', bobs.id)).resolves.toMatchObject({ id: bobs.id });
    });
  });

  describe('ask and answer (modern era)', () => {
    it('moves the task to input_required with the question, and back to working once answered', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const asked = tracked(manager.ask(record.id, 'name', ELICIT));
      await flush();
      const waiting = (await manager.get(record.id))!;
      expect(waiting).toMatchObject({
        status: 'input_required',
        statusMessage: 'Waiting for input from the client',
        inputRequests: { name: { method: 'elicitation/create', params: ELICIT.params } },
      });
      expect(asked.settled).toBe(false);

      await manager.answer(record.id, { name: ACCEPT });
      await flush();
      expect(asked).toMatchObject({ settled: true, value: ACCEPT });
      const working = (await manager.get(record.id))!;
      expect(working.status).toBe('working');
      expect(working.inputRequests).toBeUndefined();
      expect(working.statusMessage).toBeUndefined();
    });

    it('takes partial answers: the task waits until every question is answered', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const first = tracked(manager.ask(record.id, 'first', ELICIT));
      const second = tracked(manager.ask(record.id, 'second', SAMPLE));
      await flush();
      expect(Object.keys((await manager.get(record.id))!.inputRequests!).sort()).toEqual(['first', 'second']);

      await manager.answer(record.id, { first: DECLINE });
      await flush();
      expect(first).toMatchObject({ settled: true, value: DECLINE });
      expect(second.settled).toBe(false);
      await expect(manager.get(record.id)).resolves.toMatchObject({
        status: 'input_required',
        inputRequests: { second: { method: 'sampling/createMessage', params: SAMPLE.params } },
      });
      expect((await manager.get(record.id))!.inputRequests).not.toHaveProperty('first');

      // An answer to a key answered already is ignored.
      await manager.answer(record.id, { first: ACCEPT });
      await flush();
      expect(first.value).toEqual(DECLINE);

      await manager.answer(record.id, { second: SAMPLED });
      await flush();
      expect(second).toMatchObject({ settled: true, value: SAMPLED });
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'working' });
    });

    it('ignores answers to keys the task does not wait for, whatever their shape', async () => {
      const { manager, bus, store } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const asked = tracked(manager.ask(record.id, 'name', ELICIT));
      await flush();
      const before = await manager.get(record.id);
      const { events } = watch(bus, store);
      await manager.answer(record.id, { unknown: ACCEPT, garbage: 'not an answer' });
      await flush();
      expect(asked.settled).toBe(false);
      await expect(manager.get(record.id)).resolves.toEqual(before);
      expect(events).toEqual([]);

      await manager.answer(record.id, { unknown: 'still garbage', name: ACCEPT });
      await flush();
      expect(asked).toMatchObject({ settled: true, value: ACCEPT });
    });

    it('refuses an answer of the wrong shape with -32602 before consuming any answer', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const first = tracked(manager.ask(record.id, 'first', ELICIT));
      const second = tracked(manager.ask(record.id, 'second', ELICIT));
      await flush();
      const before = await manager.get(record.id);

      const error = await rejection(manager.answer(record.id, { first: ACCEPT, second: { action: 'maybe' } }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('inputResponses.second');
      await flush();
      expect(first.settled).toBe(false);
      expect(second.settled).toBe(false);
      await expect(manager.get(record.id)).resolves.toEqual(before);

      // Both questions can still be answered.
      await manager.answer(record.id, { first: ACCEPT, second: DECLINE });
      await flush();
      expect(first).toMatchObject({ settled: true, value: ACCEPT });
      expect(second).toMatchObject({ settled: true, value: DECLINE });
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'working' });
    });

    it('refuses a sampling answer without a role', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const asked = tracked(manager.ask(record.id, 'sample', SAMPLE));
      await flush();
      await expect(
        manager.answer(record.id, { sample: { content: { type: 'text', text: 'x' } } }),
      ).rejects.toMatchObject({
        code: -32602,
      });
      expect(asked.settled).toBe(false);
    });

    it.each([
      ['a string', 'yes'],
      ['null', null],
      ['an array', [ACCEPT]],
      ['undefined', undefined],
    ])('refuses inputResponses that is %s with -32602', async (_label, responses) => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const asked = tracked(manager.ask(record.id, 'name', ELICIT));
      await flush();
      await expect(manager.answer(record.id, responses)).rejects.toMatchObject({ code: -32602 });
      expect(asked.settled).toBe(false);
    });

    it('never reuses a key, also once its question was answered', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const first = manager.ask(record.id, 'name', ELICIT);
      await flush();
      await expect(manager.ask(record.id, 'name', ELICIT)).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining('"name"'),
      });
      await manager.answer(record.id, { name: ACCEPT });
      await expect(first).resolves.toEqual(ACCEPT);
      await expect(manager.ask(record.id, 'name', ELICIT)).rejects.toMatchObject({ code: -32603 });
      // The refused questions left no trace in the task.
      const task = (await manager.get(record.id))!;
      expect(task.status).toBe('working');
      expect(task.inputRequests).toBeUndefined();
    });

    it('derives keys elicitation-1, elicitation-2... when none is given, never one in use', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      void manager.ask(record.id, undefined, ELICIT);
      void manager.ask(record.id, undefined, ELICIT);
      await flush();
      expect(Object.keys((await manager.get(record.id))!.inputRequests!)).toEqual(['elicitation-1', 'elicitation-2']);

      // A handler's own key that looks like a derived one is not derived again.
      void manager.ask(record.id, 'elicitation-4', ELICIT);
      void manager.ask(record.id, undefined, ELICIT);
      void manager.ask(record.id, undefined, ELICIT);
      void manager.ask(record.id, undefined, SAMPLE);
      await flush();
      const task = (await manager.get(record.id))!;
      const keys = Object.keys(task.inputRequests!);
      expect(keys).toHaveLength(6);
      expect(new Set(keys).size).toBe(6);
      // Ranked per method, as a multi round-trip round ranks them.
      expect(keys).toEqual([
        'elicitation-1',
        'elicitation-2',
        'elicitation-4',
        'elicitation-3',
        'elicitation-5',
        'sampling-1',
      ]);
      expect(task.inputRequests![keys[5]]).toEqual({ method: 'sampling/createMessage', params: SAMPLE.params });
    });

    it('refuses a question for a task that is over', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(manager.ask(record.id, 'name', ELICIT)).rejects.toMatchObject({ code: -32603 });
      await expect(manager.ask('task_unknown', 'name', ELICIT)).rejects.toMatchObject({ code: -32603 });
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'completed' });
    });

    it('rejects the pending questions when the task settles', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const asked = manager.ask(record.id, 'name', ELICIT);
      asked.catch(() => undefined);
      await flush();
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(asked).rejects.toMatchObject({ code: -32603 });
      const settled = (await manager.get(record.id))!;
      expect(settled.status).toBe('completed');
      expect(settled.inputRequests).toBeUndefined();
    });

    it('ignores answers for a task that is over', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      await manager.cancel(record.id);
      const cancelled = await manager.get(record.id);
      await expect(manager.answer(record.id, { name: ACCEPT })).resolves.toBeUndefined();
      await expect(manager.get(record.id)).resolves.toEqual(cancelled);
    });
  });

  describe('waitingOnClient (legacy era)', () => {
    it('is input_required while any request to the client is unanswered', async () => {
      const { manager, bus, store } = setup();
      const record = await manager.create(LEGACY, () => undefined);
      const { events } = watch(bus, store);

      await manager.waitingOnClient(record.id, true);
      await expect(manager.get(record.id)).resolves.toMatchObject({
        status: 'input_required',
        statusMessage: 'Waiting for input from the client',
      });
      await manager.waitingOnClient(record.id, true);
      await manager.waitingOnClient(record.id, false);
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'input_required' });
      await manager.waitingOnClient(record.id, false);
      const working = (await manager.get(record.id))!;
      expect(working.status).toBe('working');
      expect(working.statusMessage).toBeUndefined();
      expect(working.inputRequests).toBeUndefined();
      // One event per status change, none for the nested wait.
      expect(events.map((event) => event.status)).toEqual(['input_required', 'working']);
    });

    it('ignores a task that is not live', async () => {
      const { manager } = setup();
      const record = await manager.create(LEGACY, () => undefined);
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      await manager.waitingOnClient(record.id, true);
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'completed' });
      await expect(manager.waitingOnClient('task_unknown', true)).resolves.toBeUndefined();
    });
  });

  describe('describe', () => {
    it('sets the status message of a live task, once per change', async () => {
      const { manager, bus, store } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const { events } = watch(bus, store);
      await manager.describe(record.id, '1/3');
      await manager.describe(record.id, '1/3');
      await manager.describe(record.id, '2/3');
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'working', statusMessage: '2/3' });
      expect(events.map((event) => event.statusMessage)).toEqual(['1/3', '2/3']);
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      await manager.describe(record.id, '3/3');
      expect((await manager.get(record.id))!.statusMessage).toBeUndefined();
    });
  });

  describe('awaitTerminal', () => {
    it('resolves when the task completes, woken by the bus', async () => {
      const { manager } = listening();
      const record = await manager.create(MODERN, () => undefined);
      const waited = manager.awaitTerminal(record.id, 60_000);
      await delay(20);
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(waited).resolves.toMatchObject({ id: record.id, status: 'completed', result: OK_RESULT });
    });

    it('is woken by a change made by another instance sharing the store and the bus', async () => {
      const store = new MemoryTaskStore();
      const bus = new MemoryNotificationBus();
      const { manager: here } = listening({}, store, bus);
      const { manager: there } = listening({}, store, bus);
      const record = await there.create(MODERN, () => undefined);
      const waited = tracked(here.awaitTerminal(record.id, 60_000));
      await delay(20);
      expect(waited.settled).toBe(false);
      await there.cancel(record.id);
      await delay(20);
      expect(waited).toMatchObject({ settled: true, value: { id: record.id, status: 'cancelled' } });
    });

    it('stays asleep through changes that are not terminal', async () => {
      const { manager } = listening();
      const record = await manager.create(MODERN, () => undefined);
      const waited = tracked(manager.awaitTerminal(record.id, 60_000));
      await manager.describe(record.id, 'half way');
      void manager.ask(record.id, 'name', ELICIT);
      await delay(20);
      expect(waited.settled).toBe(false);
      await manager.answer(record.id, { name: ACCEPT });
      await manager.settle(record.id, { type: 'error', error: { code: -32050, message: 'Quota exceeded' } });
      await delay(20);
      expect(waited).toMatchObject({ settled: true, value: { status: 'failed' } });
    });

    it('answers a task that is terminal already at once', async () => {
      const { manager } = listening();
      const record = await manager.create(MODERN, () => undefined);
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(manager.awaitTerminal(record.id, 60_000)).resolves.toMatchObject({ status: 'completed' });
    });

    it('answers undefined for an unknown task', async () => {
      const { manager } = listening();
      await expect(manager.awaitTerminal('task_unknown', 60_000)).resolves.toBeUndefined();
    });

    it('gives up after the timeout with the task as it is', async () => {
      const { manager } = listening();
      const record = await manager.create(MODERN, () => undefined);
      await manager.describe(record.id, 'still going');
      await expect(manager.awaitTerminal(record.id, 30)).resolves.toMatchObject({
        id: record.id,
        status: 'working',
        statusMessage: 'still going',
      });
    });

    it('gives up when the signal aborts, with the task as it is', async () => {
      const { manager } = listening();
      const record = await manager.create(MODERN, () => undefined);
      const controller = new AbortController();
      const waited = tracked(manager.awaitTerminal(record.id, 60_000, controller.signal));
      await delay(20);
      expect(waited.settled).toBe(false);
      controller.abort(new Error('client went away'));
      await delay(10);
      expect(waited).toMatchObject({ settled: true, value: { id: record.id, status: 'working' } });

      const aborted = new AbortController();
      aborted.abort();
      await expect(manager.awaitTerminal(record.id, 60_000, aborted.signal)).resolves.toMatchObject({
        status: 'working',
      });
    });
  });

  describe('sweep', () => {
    it('fails a live task past its expiry, aborts its work, keeps it readable for the grace time, then deletes it', async () => {
      const { manager, store, settings } = setup();
      const abort = jest.fn();
      const record = await manager.create({ ...LEGACY, requestedTtlMs: 5_000 }, abort);
      const asked = manager.ask(record.id, 'name', ELICIT);
      asked.catch(() => undefined);
      await flush();
      const now = record.expiresAt;
      await expect(manager.sweep(now - 1)).resolves.toBe(0);
      expect(abort).not.toHaveBeenCalled();

      await expect(manager.sweep(now)).resolves.toBe(1);
      expect(abort).toHaveBeenCalledTimes(1);
      expect(abort.mock.calls[0][0]).toMatchObject({ code: -32603, message: 'Task expired' });
      await expect(asked).rejects.toMatchObject({ message: 'Task expired' });
      expect(manager.isLive(record.id)).toBe(false);
      const failed = (await manager.get(record.id))!;
      expect(failed).toMatchObject({
        status: 'failed',
        statusMessage: 'Task expired',
        error: { code: -32603, message: 'Task expired' },
        expiresAt: now + settings.expiredGraceMs,
        ttlMs: 5_000,
      });
      expect(failed.inputRequests).toBeUndefined();
      // The outcome that comes after the expiry is ignored.
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(manager.get(record.id)).resolves.toEqual(failed);

      await expect(manager.sweep(now + settings.expiredGraceMs - 1)).resolves.toBe(0);
      await expect(manager.get(record.id)).resolves.toEqual(failed);
      await expect(manager.sweep(now + settings.expiredGraceMs)).resolves.toBe(1);
      await expect(store.get(record.id)).resolves.toBeUndefined();
      expect(abort).toHaveBeenCalledTimes(1);
    });

    it('deletes a terminal task past its expiry, leaving the others', async () => {
      const { manager, store } = setup();
      const done = await manager.create({ ...MODERN, requestedTtlMs: 5_000 }, () => undefined);
      const cancelled = await manager.create({ ...MODERN, requestedTtlMs: 5_000 }, () => undefined);
      const longer = await manager.create({ ...MODERN, requestedTtlMs: 50_000 }, () => undefined);
      await manager.settle(done.id, { type: 'result', result: OK_RESULT });
      await manager.cancel(cancelled.id);
      await manager.settle(longer.id, { type: 'result', result: OK_RESULT });

      await expect(manager.sweep(done.createdAt + 10_000)).resolves.toBe(2);
      await expect(store.get(done.id)).resolves.toBeUndefined();
      await expect(store.get(cancelled.id)).resolves.toBeUndefined();
      await expect(store.get(longer.id)).resolves.toMatchObject({ status: 'completed' });
    });

    it('hides a terminal task past its expiry from get, list and owned before it is swept', async () => {
      const { manager, store } = setup();
      const expired = await manager.create(MODERN, () => undefined);
      const kept = await manager.create(MODERN, () => undefined);
      await manager.settle(expired.id, { type: 'result', result: OK_RESULT });
      await store.update(expired.id, (current) => ({ ...current, expiresAt: Date.now() - 1 }));

      await expect(manager.get(expired.id)).resolves.toBeUndefined();
      expect((await manager.list('principal:alice')).map((record) => record.id)).toEqual([kept.id]);
      await expect(manager.owned('principal:alice', expired.id)).rejects.toMatchObject({ code: -32602 });
      await expect(store.get(expired.id)).resolves.toMatchObject({ status: 'completed' });
    });

    it('fails a live task read past its expiry at once, without waiting for the sweep', async () => {
      const { manager, store } = setup();
      const record = await manager.create(MODERN, () => undefined);
      await store.update(record.id, (current) => ({ ...current, expiresAt: Date.now() - 1 }));
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'failed', statusMessage: 'Task expired' });
      await expect(manager.sweep()).resolves.toBe(0);
    });
  });

  describe('outcomes the store does not take at once', () => {
    beforeEach(() => {
      // Timers and Date are fake; the store and the bus still answer on the next turn.
      jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    });

    afterEach(() => {
      jest.useRealTimers();
    });

    it('keeps the outcome, answers get and awaitTerminal from it, retries until stored; the drain waits', async () => {
      const store = new FlakyTaskStore();
      const { manager, bus, logger } = listening({}, store);
      const { events } = watch(bus, store);
      const abort = jest.fn();
      const record = await manager.create(MODERN, abort);
      const waited = tracked(manager.awaitTerminal(record.id, 600_000));
      await flush();
      store.failing = true;

      await expect(manager.settle(record.id, { type: 'result', result: OK_RESULT })).resolves.toMatchObject({
        id: record.id,
        status: 'completed',
        result: OK_RESULT,
      });
      // Not stored, not announced, but answered here at once, and its work is not live any more.
      await expect(store.get(record.id)).resolves.toMatchObject({ status: 'working' });
      expect(events.map((event) => event.status)).toEqual([]);
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'completed', result: OK_RESULT });
      await expect(manager.owned(record.owner, record.id)).resolves.toMatchObject({ status: 'completed' });
      await expect(manager.list(record.owner)).resolves.toMatchObject([{ id: record.id, status: 'completed' }]);
      await flush();
      expect(waited).toMatchObject({ settled: true, value: { status: 'completed', result: OK_RESULT } });
      expect(manager.isLive(record.id)).toBe(false);
      expect(abort).not.toHaveBeenCalled();
      // The drain counts it until it is stored.
      expect(manager.liveCount).toBe(1);
      const idle = tracked(manager.whenIdle());

      // Retried with backoff (100 ms doubling, half of it jitter): three more failures within 0.7 s.
      await jest.advanceTimersByTimeAsync(700);
      expect(store.writes).toBe(4);
      expect(idle.settled).toBe(false);
      // One warning for the episode, the retries as debug lines.
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect(logger.warn.mock.calls[0][0]).toContain(`Could not store the outcome of task ${record.id}`);
      expect(logger.debug.mock.calls.filter(([line]) => line.includes(record.id))).toHaveLength(3);

      store.failing = false;
      await jest.advanceTimersByTimeAsync(5_000);
      await expect(store.get(record.id)).resolves.toMatchObject({ status: 'completed', result: OK_RESULT });
      expect(events.map((event) => event.status)).toEqual(['completed']);
      expect(idle.settled).toBe(true);
      expect(manager.liveCount).toBe(0);
      expect(logger.log).toHaveBeenCalledWith(expect.stringMatching(/outcome of task \S+ was stored after 5 attempts/));
      // Nothing more is written once it is stored.
      const writes = store.writes;
      await jest.advanceTimersByTimeAsync(60_000);
      expect(store.writes).toBe(writes);
    });

    it('announces an earlier write that the store applied after its caller gave up on it', async () => {
      const store = new FlakyTaskStore();
      const { manager, bus, logger } = setup({}, store);
      const { events } = watch(bus, store);
      const record = await manager.create(LEGACY, () => undefined);
      store.landing = true;
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      store.landing = false;
      expect(events).toEqual([]);
      await jest.advanceTimersByTimeAsync(1_000);
      expect(events).toMatchObject([{ id: record.id, status: 'completed', result: OK_RESULT }]);
      expect(manager.liveCount).toBe(0);
      expect(logger.log).toHaveBeenCalledWith(expect.stringContaining(`outcome of task ${record.id} was stored`));
    });

    it('drops the kept outcome of a task cancelled elsewhere meanwhile, heard of on the bus', async () => {
      const store = new FlakyTaskStore();
      const bus = new MemoryNotificationBus();
      const a = listening({}, store, bus);
      const b = listening({}, store, bus);
      const record = await a.manager.create(MODERN, () => undefined);
      store.failing = true;
      await a.manager.settle(record.id, { type: 'result', result: OK_RESULT });
      store.failing = false;
      await expect(b.manager.cancel(record.id)).resolves.toMatchObject({ status: 'cancelled' });
      await expect(a.manager.get(record.id)).resolves.toMatchObject({ status: 'cancelled' });
      expect(a.manager.liveCount).toBe(0);
      await jest.advanceTimersByTimeAsync(10_000);
      await expect(store.get(record.id)).resolves.toMatchObject({ status: 'cancelled' });
    });

    it('drops the kept outcome of a task that the retry finds ended, unheard of', async () => {
      const store = new FlakyTaskStore();
      const { manager, bus } = setup({}, store);
      const { events } = watch(bus, store);
      const record = await manager.create(MODERN, () => undefined);
      store.failing = true;
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      store.failing = false;
      await MemoryTaskStore.prototype.update.call(store, record.id, (current) => ({
        ...current,
        status: 'cancelled' as const,
      }));
      await jest.advanceTimersByTimeAsync(1_000);
      expect(manager.liveCount).toBe(0);
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'cancelled' });
      expect(events).toEqual([]);
    });

    it('drops the outcome once the TTL passed, with an error line; the task then reads expired', async () => {
      const store = new FlakyTaskStore();
      const { manager, logger } = setup({}, store);
      const record = await manager.create({ ...MODERN, requestedTtlMs: 5_000 }, () => undefined);
      store.failing = true;
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      const idle = tracked(manager.whenIdle());
      await jest.advanceTimersByTimeAsync(4_000);
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'completed' });
      expect(idle.settled).toBe(false);
      await jest.advanceTimersByTimeAsync(6_000);
      expect(idle.settled).toBe(true);
      expect(manager.liveCount).toBe(0);
      expect(logger.error).toHaveBeenCalledWith(
        expect.stringContaining(`The outcome of task ${record.id} was dropped: its TTL passed`),
      );
      const writes = store.writes;
      await jest.advanceTimersByTimeAsync(60_000);
      expect(store.writes).toBe(writes);
      store.failing = false;
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'failed', statusMessage: 'Task expired' });
    });

    it('gives the outcomes a last chance at shutdown, logs by id those the store still refuses, then stops', async () => {
      const answering = new FlakyTaskStore();
      const recovered = setup({}, answering).manager;
      const stored = await recovered.create(MODERN, () => undefined);
      answering.failing = true;
      await recovered.settle(stored.id, { type: 'result', result: OK_RESULT });
      answering.failing = false;
      await expect(recovered.storeOutcomes(500)).resolves.toEqual([]);
      await expect(answering.get(stored.id)).resolves.toMatchObject({ status: 'completed' });
      expect(recovered.liveCount).toBe(0);

      const store = new FlakyTaskStore();
      const { manager, logger } = setup({}, store);
      const lost = await manager.create(MODERN, () => undefined);
      store.failing = true;
      await manager.settle(lost.id, { type: 'result', result: OK_RESULT });
      await expect(manager.storeOutcomes(500)).resolves.toEqual([lost.id]);
      expect(logger.error).toHaveBeenCalledWith(
        expect.stringContaining(`The outcome of task ${lost.id} (completed) could not be stored before shutdown`),
      );
      expect(manager.liveCount).toBe(0);
      await expect(manager.whenIdle()).resolves.toBeUndefined();
      const writes = store.writes;
      await jest.advanceTimersByTimeAsync(60_000);
      expect(store.writes).toBe(writes);
    });
  });

  describe('the TTL', () => {
    beforeEach(() => {
      jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    });

    afterEach(() => {
      jest.useRealTimers();
    });

    it('a task polled past its TTL reads failed "Task expired" at once, everywhere, and its work stops', async () => {
      const { manager, bus, store, settings, logger } = setup();
      const { events } = watch(bus, store);
      const abort = jest.fn();
      const record = await manager.create({ ...LEGACY, requestedTtlMs: 5_000 }, abort);
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'working' });
      await jest.advanceTimersByTimeAsync(5_000);

      const expired = {
        status: 'failed',
        statusMessage: 'Task expired',
        error: { code: -32603, message: 'Task expired' },
      };
      const read = await manager.get(record.id);
      expect(read).toMatchObject({ ...expired, expiresAt: Date.now() + settings.expiredGraceMs });
      expect(abort).toHaveBeenCalledTimes(1);
      expect(abort.mock.calls[0][0]).toMatchObject({ message: 'Task expired' });
      expect(manager.isLive(record.id)).toBe(false);
      expect(events).toMatchObject([{ id: record.id, ...expired }]);
      await expect(manager.owned(record.owner, record.id)).resolves.toEqual(read);
      await expect(manager.list(record.owner)).resolves.toEqual([read]);
      await expect(manager.awaitTerminal(record.id, 1_000)).resolves.toEqual(read);
      // Said once, as a sweep would say it: the read found it before any sweep did.
      const said = logger.warn.mock.calls.map(([line]) => line).filter((line) => line.includes(record.id));
      expect(said).toEqual([expect.stringMatching(/^Failed 1 expired task \(past its TTL, found when read\): /)]);
    });

    it('lists a task past its TTL as failed "Task expired"', async () => {
      const { manager } = setup();
      const record = await manager.create({ ...MODERN, requestedTtlMs: 5_000 }, () => undefined);
      await jest.advanceTimersByTimeAsync(5_000);
      await expect(manager.list(record.owner)).resolves.toMatchObject([{ id: record.id, status: 'failed' }]);
    });

    it('a work that ends past its TTL does not complete the task, and nothing announces a completion', async () => {
      const { manager, bus, store } = setup();
      const { events } = watch(bus, store);
      const record = await manager.create({ ...MODERN, requestedTtlMs: 5_000 }, () => undefined);
      await jest.advanceTimersByTimeAsync(5_000);
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'failed', statusMessage: 'Task expired' });
      expect(events.map((event) => event.status)).toEqual(['failed']);
      expect(manager.liveCount).toBe(0);
    });
  });

  describe('shutdown', () => {
    it('whenIdle resolves once no task works here any more, whichever way each ended', async () => {
      const { manager } = setup();
      await expect(manager.whenIdle()).resolves.toBeUndefined();
      const a = await manager.create(MODERN, jest.fn());
      const b = await manager.create(LEGACY, jest.fn());
      expect(manager.liveCount).toBe(2);
      const idle = tracked(manager.whenIdle());
      await manager.settle(a.id, { type: 'result', result: OK_RESULT });
      await flush();
      expect(idle.settled).toBe(false);
      await manager.cancel(b.id);
      await flush();
      expect(idle.settled).toBe(true);
      expect(manager.liveCount).toBe(0);
    });

    it('failLive fails every task working here, stored before its work is aborted, and keeps it readable', async () => {
      const { manager, store, bus } = setup();
      const { events } = watch(bus, store);
      const order: string[] = [];
      const working = await manager.create(MODERN, (reason) => {
        order.push(`abort: ${(reason as Error).message}`);
      });
      const done = await manager.create(LEGACY, jest.fn());
      await manager.settle(done.id, { type: 'result', result: OK_RESULT });
      const originalUpdate = store.update.bind(store);
      jest.spyOn(store, 'update').mockImplementation(async (id, change) => {
        const stored = await originalUpdate(id, change);
        order.push(`stored: ${stored?.status}`);
        return stored;
      });

      await expect(manager.failLive('Server shutting down: stopped')).resolves.toBe(1);
      expect(order).toEqual(['stored: failed', 'abort: Server shutting down: stopped']);
      const failed = await manager.get(working.id);
      expect(failed).toMatchObject({
        status: 'failed',
        statusMessage: 'Server shutting down: stopped',
        error: { code: -32603, message: 'Server shutting down: stopped' },
        expiresAt: working.expiresAt,
      });
      expect(events.at(-1)).toMatchObject({ id: working.id, status: 'failed' });
      // A task that had ended is left as it was.
      await expect(manager.get(done.id)).resolves.toMatchObject({ status: 'completed' });
      expect(manager.liveCount).toBe(0);
      await expect(manager.failLive('again')).resolves.toBe(0);
    });
  });

  describe('bus events', () => {
    it('publishes exactly one task_status event per transition, with the stored task, after it is stored', async () => {
      const { manager, bus, store } = setup();
      const modern = await manager.create(MODERN, () => undefined);
      const legacy = await manager.create(LEGACY, () => undefined);
      const cancelled = await manager.create(MODERN, () => undefined);
      const expiring = await manager.create({ ...MODERN, requestedTtlMs: 1_000 }, () => undefined);
      const { events, storedThen } = watch(bus, store);

      await manager.describe(modern.id, 'started'); // 1
      const asked = manager.ask(modern.id, 'name', ELICIT); // 2
      await flush();
      await manager.answer(modern.id, { other: ACCEPT }); // none
      await manager.answer(modern.id, { name: ACCEPT }); // 3
      await asked;
      await manager.settle(modern.id, { type: 'result', result: OK_RESULT }); // 4
      await manager.settle(modern.id, { type: 'result', result: TOOL_ERROR }); // none: terminal
      await manager.cancel(modern.id); // none: terminal

      await manager.waitingOnClient(legacy.id, true); // 5
      await manager.waitingOnClient(legacy.id, false); // 6
      await manager.settle(legacy.id, { type: 'result', result: TOOL_ERROR }); // 7

      await manager.cancel(cancelled.id); // 8
      await manager.cancel(cancelled.id); // none
      await manager.sweep(expiring.expiresAt); // 9: failed; the cancelled one is not due yet
      await manager.sweep(expiring.expiresAt + 1); // none: the failed task is in its grace time

      expect(events.map((event) => [event.id, event.status])).toEqual([
        [modern.id, 'working'],
        [modern.id, 'input_required'],
        [modern.id, 'working'],
        [modern.id, 'completed'],
        [legacy.id, 'input_required'],
        [legacy.id, 'working'],
        [legacy.id, 'failed'],
        [cancelled.id, 'cancelled'],
        [expiring.id, 'failed'],
      ]);
      const stored = await Promise.all(storedThen);
      events.forEach((event, index) => expect(stored[index]).toEqual(event));
      expect(events[0].statusMessage).toBe('started');
      expect(events[1].inputRequests).toEqual({ name: { method: 'elicitation/create', params: ELICIT.params } });
      expect(events[3].result).toEqual(OK_RESULT);
      expect(events[8].error).toEqual({ code: -32603, message: 'Task expired' });
      // The final stored state is what the last event of each task carried.
      await expect(store.get(modern.id)).resolves.toEqual(events[3]);
      await expect(store.get(cancelled.id)).resolves.toEqual(events[7]);
    });

    it('publishes no event for a refused creation or a change to an unknown task', async () => {
      const { manager, bus, store } = setup({ maxLivePerOwner: 1 });
      const record = await manager.create(MODERN, () => undefined);
      const { events } = watch(bus, store);
      await expect(manager.create(MODERN, () => undefined)).rejects.toThrow(/Too many tasks/);
      await manager.settle('task_unknown', { type: 'result', result: OK_RESULT });
      await manager.cancel('task_unknown');
      await manager.describe('task_unknown', 'x');
      await manager.sweep(record.createdAt);
      expect(events).toEqual([]);
    });
  });

  describe('what its owner feeds it', () => {
    it('statusChanged stops the work of a task that ended elsewhere, with its status message', async () => {
      const { manager } = setup();
      const abort = jest.fn();
      const record = await manager.create(MODERN, abort);
      const asked = manager.ask(record.id, 'name', ELICIT);
      asked.catch(() => undefined);
      await flush();
      manager.statusChanged({ ...record, status: 'cancelled', statusMessage: 'Cancelled elsewhere' });
      expect(abort).toHaveBeenCalledTimes(1);
      expect(abort.mock.calls[0][0]).toMatchObject({ code: -32603, message: 'Cancelled elsewhere' });
      await expect(asked).rejects.toMatchObject({ message: 'Cancelled elsewhere' });
      expect(manager.isLive(record.id)).toBe(false);
    });

    it('statusChanged leaves the work of a task that goes on, and of a task that is not here', async () => {
      const { manager } = setup();
      const abort = jest.fn();
      const record = await manager.create(MODERN, abort);
      manager.statusChanged({ ...record, status: 'input_required' });
      manager.statusChanged({ ...record, id: 'task_elsewhere', status: 'failed' });
      expect(abort).not.toHaveBeenCalled();
      expect(manager.isLive(record.id)).toBe(true);
    });

    it('statusChanged without a message stops the work with "The task ended"', async () => {
      const { manager } = setup();
      const abort = jest.fn();
      const record = await manager.create(MODERN, abort);
      manager.statusChanged({ ...record, status: 'failed' });
      expect(abort.mock.calls[0][0]).toMatchObject({ message: 'The task ended' });
    });

    it('inputArrived answers the questions of a task working here', async () => {
      const { manager } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const asked = tracked(manager.ask(record.id, 'name', ELICIT));
      await flush();
      manager.inputArrived(record.id, { name: ACCEPT });
      await flush();
      expect(asked).toMatchObject({ settled: true, value: ACCEPT });
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'working' });
    });

    it('inputArrived ignores a task that does not work here, and logs answers it cannot use', async () => {
      const { manager, store, logger } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const asked = tracked(manager.ask(record.id, 'name', ELICIT));
      await flush();
      const update = jest.spyOn(store, 'update');
      manager.inputArrived('task_elsewhere', { name: ACCEPT });
      manager.inputArrived(record.id, { name: { action: 'maybe' } });
      await flush();
      expect(update).not.toHaveBeenCalled();
      expect(asked.settled).toBe(false);
      expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining(`Could not answer task ${record.id}`));
    });

    it('answers to a task working elsewhere are checked here, then relayed to the other instances', async () => {
      const link = new MemoryClusterLink();
      const broadcast = jest.spyOn(link, 'broadcast');
      const store = new MemoryTaskStore();
      const { manager: there } = setup({}, store);
      const { manager: here } = setup({}, store, new MemoryNotificationBus(), link);
      const record = await there.create(MODERN, () => undefined);
      void there.ask(record.id, 'name', ELICIT);
      await flush();

      await expect(here.answer(record.id, { name: { action: 'maybe' } })).rejects.toMatchObject({ code: -32602 });
      await here.answer(record.id, { other: ACCEPT });
      expect(broadcast).not.toHaveBeenCalled();
      await here.answer(record.id, { name: ACCEPT, other: ACCEPT });
      expect(broadcast).toHaveBeenCalledWith({ type: 'task_input', taskId: record.id, responses: { name: ACCEPT } });
    });

    it('abortAll aborts the work of every task here, stores nothing and leaves ended tasks alone', async () => {
      const { manager, bus, store } = setup();
      const aborts = [jest.fn(), jest.fn()];
      const a = await manager.create(MODERN, aborts[0]);
      const b = await manager.create(LEGACY, aborts[1]);
      await manager.settle(b.id, { type: 'result', result: OK_RESULT });
      const { events } = watch(bus, store);
      const idle = tracked(manager.whenIdle());
      manager.abortAll('Server shutting down');
      await flush();
      expect(aborts[0].mock.calls).toEqual([
        [expect.objectContaining({ code: -32603, message: 'Server shutting down' })],
      ]);
      expect(aborts[1]).not.toHaveBeenCalled();
      expect(manager.liveCount).toBe(0);
      expect(idle.settled).toBe(true);
      expect(events).toEqual([]);
      await expect(manager.get(a.id)).resolves.toMatchObject({ status: 'working' });
    });
  });

  describe('tasks of an instance that stopped', () => {
    const OTHER = 'feedfacefeedface';

    /** A link among several instances, told which other instances run. */
    class SharedLink extends MemoryClusterLink {
      override readonly shared = true;
      readonly running = new Set<string>([OTHER]);

      override async isAlive(instanceId: string): Promise<boolean> {
        return instanceId === this.instanceId || this.running.has(instanceId);
      }
    }

    /** A task stored as instance `OTHER` (running its work) would store it. */
    async function taskOfOther(store: MemoryTaskStore, status: McpTaskRecord['status'] = 'working') {
      const { manager } = setup({}, store);
      const record = await manager.create(MODERN, () => undefined);
      await store.update(record.id, (current) => ({ ...current, status, instanceId: OTHER }));
      return record.id;
    }

    it('names this instance in the tasks it creates when instances share the store', async () => {
      const link = new SharedLink();
      const { manager, store } = setup({}, undefined, undefined, link);
      const record = await manager.create(MODERN, () => undefined);
      expect(record.instanceId).toBe(link.instanceId);
      await expect(store.get(record.id)).resolves.toMatchObject({ instanceId: link.instanceId });
      // Alone (the memory link), a task names no instance.
      await expect(setup().manager.create(MODERN, () => undefined)).resolves.not.toHaveProperty('instanceId');
    });

    it('fails a live task when it is read once its instance stopped, saying so, and logs it', async () => {
      const store = new MemoryTaskStore();
      const id = await taskOfOther(store);
      const link = new SharedLink();
      const { manager, logger } = setup({}, store, undefined, link);
      await expect(manager.get(id)).resolves.toMatchObject({ status: 'working' });

      link.running.delete(OTHER);
      const failed = {
        status: 'failed',
        statusMessage: 'The instance running this task stopped',
        error: { code: -32603, message: 'The instance running this task stopped' },
      };
      await expect(manager.get(id)).resolves.toMatchObject(failed);
      await expect(store.get(id)).resolves.toMatchObject(failed);
      await expect(manager.list('principal:alice')).resolves.toMatchObject([failed]);
      expect(logger.warn).toHaveBeenCalledWith(`Task ${id} failed: the instance running it (${OTHER}) stopped`);
      expect(logger.warn).toHaveBeenCalledTimes(1);
    });

    it('leaves ended tasks, tasks of running instances and tasks that name no instance as they are', async () => {
      const store = new MemoryTaskStore();
      const ended = await taskOfOther(store, 'completed');
      const link = new SharedLink();
      link.running.delete(OTHER);
      const { manager } = setup({}, store, undefined, link);
      await expect(manager.get(ended)).resolves.toMatchObject({ status: 'completed' });
      const unnamed = await setup({}, store).manager.create(MODERN, () => undefined);
      await expect(manager.get(unnamed.id)).resolves.toMatchObject({ status: 'working' });
      link.running.add(OTHER);
      const running = await taskOfOther(store);
      await expect(manager.get(running)).resolves.toMatchObject({ status: 'working' });
    });

    it('wakes the waiters when an instance stopped: a task whose work ran there ends for them', async () => {
      const store = new MemoryTaskStore();
      const id = await taskOfOther(store);
      const link = new SharedLink();
      const { manager } = setup({}, store, undefined, link);
      const waited = tracked(manager.awaitTerminal(id, 60_000));
      await flush();
      expect(waited.settled).toBe(false);

      link.running.delete(OTHER);
      manager.instanceStopped();
      await delay(10);
      expect(waited).toMatchObject({ settled: true, value: { status: 'failed' } });
    });
  });

  describe('errors', () => {
    it('a creation the store refuses leaves nothing live and rejects with the store error', async () => {
      const { manager, store } = setup();
      jest.spyOn(store, 'createWithin').mockRejectedValueOnce(new Error('store away'));
      await expect(manager.create(MODERN, () => undefined)).rejects.toThrow('store away');
      expect(manager.liveCount).toBe(0);
      await expect(manager.list('principal:alice')).resolves.toEqual([]);
      // The owner's next creation is not held up by the failed one.
      await expect(manager.create(MODERN, () => undefined)).resolves.toMatchObject({ status: 'working' });
    });

    it('a question the store cannot record rejects with the store error and leaves no question behind', async () => {
      const { manager, store } = setup();
      const record = await manager.create(MODERN, () => undefined);
      jest.spyOn(store, 'update').mockRejectedValueOnce(new Error('store away'));
      await expect(manager.ask(record.id, 'name', ELICIT)).rejects.toThrow('store away');
      // The key was issued: it is never used again, even though the question was not asked.
      await expect(manager.ask(record.id, 'name', ELICIT)).rejects.toMatchObject({ code: -32603 });
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'completed' });
    });

    it('a change the bus cannot publish is stored, logged, and still wakes the waiters here', async () => {
      const { manager, bus, logger } = setup();
      const record = await manager.create(MODERN, () => undefined);
      const waited = tracked(manager.awaitTerminal(record.id, 60_000));
      await flush();
      jest.spyOn(bus, 'publish').mockRejectedValueOnce(new Error('bus away'));
      await manager.settle(record.id, { type: 'result', result: OK_RESULT });
      await delay(10);
      expect(waited).toMatchObject({ settled: true, value: { status: 'completed' } });
      expect(logger.warn).toHaveBeenCalledWith(`Could not publish the status of task ${record.id}: bus away`);
    });

    it('a publish the store did not confirm in time is logged as perhaps done, at debug once the store warned', async () => {
      const { manager, bus, logger } = setup();
      const first = await manager.create(MODERN, () => undefined);
      const second = await manager.create(MODERN, () => undefined);
      const timedOut = 'Redis did not answer in time (publish): Command timed out';
      const unconfirmed = () => new McpStoreUnavailableError(timedOut, undefined, { unconfirmed: true });
      jest
        .spyOn(bus, 'publish')
        .mockRejectedValueOnce(unconfirmed())
        // The Redis hub logs each outage itself, once a minute, and marks its errors so.
        .mockRejectedValueOnce(markReported(unconfirmed()));
      await manager.settle(first.id, { type: 'result', result: OK_RESULT });
      await manager.settle(second.id, { type: 'result', result: OK_RESULT });
      await delay(10);
      const perhaps = (id: string) =>
        `Could not confirm "publish the status of task ${id}" (the store did not answer in time, and may still carry it out): ${timedOut}`;
      expect(logger.warn.mock.calls).toEqual([[perhaps(first.id)]]);
      expect(logger.debug).toHaveBeenCalledWith(perhaps(second.id));
      expect(logger.error).not.toHaveBeenCalled();
    });

    it('a sweep the store fails is logged and counts what it did before', async () => {
      const { manager, store, logger } = setup();
      jest.spyOn(store, 'due').mockRejectedValueOnce(new Error('store away'));
      await expect(manager.sweep()).resolves.toBe(0);
      expect(logger.error).toHaveBeenCalledWith('Task sweep failed: store away');
    });

    it('failLive keeps a failure the store refuses, still stops the work, and stores it once it can', async () => {
      const { manager, store, logger } = setup();
      const abort = jest.fn();
      const record = await manager.create(MODERN, abort);
      jest.spyOn(store, 'update').mockRejectedValueOnce(new Error('store away'));
      await expect(manager.failLive('stopping')).resolves.toBe(1);
      expect(abort).toHaveBeenCalledTimes(1);
      expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining(`outcome of task ${record.id}: store away`));
      await expect(manager.get(record.id)).resolves.toMatchObject({ status: 'failed', statusMessage: 'stopping' });
      await expect(manager.storeOutcomes(1_000)).resolves.toEqual([]);
      await expect(store.get(record.id)).resolves.toMatchObject({ status: 'failed', statusMessage: 'stopping' });
    });
  });
});

describe('TaskManager: its clock', () => {
  /** A clock an hour behind this machine's: the system clock would expire every task of these tests. */
  function hourBehind(): { now(): number; at: number } {
    return {
      at: Date.now() - 3_600_000,
      now() {
        return this.at;
      },
    };
  }

  function withClock(clock: { now(): number }) {
    const logger = { warn: jest.fn<void, [string]>(), error: jest.fn<void, [string]>() };
    const manager = new TaskManager(
      new MemoryTaskStore(),
      new MemoryNotificationBus(),
      new MemoryClusterLink(),
      DEFAULTS,
      logger,
      clock,
    );
    return { manager, logger };
  }

  it('reads creation, update and expiry times, readability and the sweep from the clock it is given', async () => {
    const clock = hourBehind();
    const { manager } = withClock(clock);
    const created = clock.at;
    const live = await manager.create({ ...MODERN, requestedTtlMs: 5_000 }, () => undefined);
    const done = await manager.create({ ...MODERN, requestedTtlMs: 5_000 }, () => undefined);
    expect(live).toMatchObject({ createdAt: created, updatedAt: created, expiresAt: created + 5_000 });
    clock.at += 1_000;
    await expect(manager.settle(done.id, { type: 'result', result: OK_RESULT })).resolves.toMatchObject({
      updatedAt: created + 1_000,
    });

    clock.at = created + 4_999;
    await expect(manager.sweep()).resolves.toBe(0);
    await expect(manager.get(live.id)).resolves.toMatchObject({ status: 'working' });
    await expect(manager.get(done.id)).resolves.toMatchObject({ status: 'completed' });

    clock.at = created + 5_000;
    await expect(manager.get(done.id)).resolves.toBeUndefined();
    await expect(manager.sweep()).resolves.toBe(2);
    await expect(manager.get(live.id)).resolves.toMatchObject({
      status: 'failed',
      statusMessage: 'Task expired',
      updatedAt: created + 5_000,
      expiresAt: created + 5_000 + DEFAULTS.expiredGraceMs,
    });
  });

  it('a sweep that fails tasks says which in one line, naming five at most with their TTL and expiry', async () => {
    const clock = hourBehind();
    const { manager, logger } = withClock(clock);
    const ids: string[] = [];
    for (let index = 0; index < 7; index += 1) {
      ids.push((await manager.create({ ...MODERN, requestedTtlMs: 1_000 }, () => undefined)).id);
    }
    const ended = await manager.create({ ...MODERN, requestedTtlMs: 1_000 }, () => undefined);
    await manager.settle(ended.id, { type: 'result', result: OK_RESULT });
    ids.sort();
    const expiredAt = new Date(clock.at + 1_000).toISOString();
    clock.at += 1_000;

    await expect(manager.sweep()).resolves.toBe(8);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    const [line] = logger.warn.mock.calls[0];
    expect(line).toMatch(/^Failed 7 expired tasks \(past their TTL\): .* and 2 more$/);
    const named = ids.filter((id) => line.includes(`${id} (ttl 1000 ms, expired at ${expiredAt})`));
    expect(named).toHaveLength(5);
    expect(line).not.toContain(ended.id);

    // A sweep that only deletes ended tasks, or does nothing, says nothing.
    clock.at += DEFAULTS.expiredGraceMs;
    await expect(manager.sweep()).resolves.toBe(7);
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });
});
