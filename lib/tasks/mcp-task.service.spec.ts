import { resolveMcpOptions } from '../mcp-options.factory';
import type { McpEvent } from '../notifications/notification-bus.interface';
import type { InputRequest } from '../protocol/client-requests';
import { McpError } from '../protocol/mcp-error';
import { MemoryNotificationBus } from '../stores/memory/memory-notification.bus';
import { MemoryTaskStore } from '../stores/memory/memory-task.store';
import { McpTaskService, type NewTask, type TaskSettings } from './mcp-task.service';
import type { McpTaskRecord } from './task-store.interface';

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

const DEFAULTS = resolveMcpOptions({ name: 'tasks-spec', version: '1.0.0' }).tasks;

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

  override async create(record: McpTaskRecord): Promise<void> {
    await SlowTaskStore.pause();
    await super.create(record);
    await SlowTaskStore.pause();
  }
}

/** A store that stores a new task at once but acknowledges the creation only when released. */
class LateAckTaskStore extends MemoryTaskStore {
  release!: () => void;

  override async create(record: McpTaskRecord): Promise<void> {
    await super.create(record);
    await new Promise<void>((resolve) => (this.release = resolve));
  }
}

const started: McpTaskService[] = [];

function setup(
  overrides: Partial<TaskSettings> = {},
  store = new MemoryTaskStore(),
  bus = new MemoryNotificationBus(),
) {
  const settings: TaskSettings = { ...DEFAULTS, ...overrides };
  const service = new McpTaskService(store, bus, { tasks: settings });
  return { store, bus, service, settings };
}

/** A service with its bus subscription and sweeper running (stopped after the test). */
function running(overrides: Partial<TaskSettings> = {}, store?: MemoryTaskStore, bus?: MemoryNotificationBus) {
  const made = setup(overrides, store, bus);
  made.service.onModuleInit();
  started.push(made.service);
  return made;
}

afterEach(() => {
  started.splice(0).forEach((service) => service.onModuleDestroy());
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

function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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

describe('McpTaskService', () => {
  describe('create', () => {
    it('creates a working task with the default retention and stores it before resolving', async () => {
      const { service, store } = setup();
      const before = Date.now();
      const record = await service.create(MODERN, () => undefined);
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
      await expect(service.get(record.id)).resolves.toEqual(record);
      expect(service.isLive(record.id)).toBe(true);
    });

    it('keeps the legacy session of the task', async () => {
      const { service } = setup();
      const record = await service.create(LEGACY, () => undefined);
      expect(record).toMatchObject({ owner: 'session:s1', era: 'legacy', revision: '2025-11-25', sessionId: 's1' });
    });

    it('makes a distinct id for every task', async () => {
      const { service } = setup({ maxLivePerOwner: 1_000 });
      const records = await Promise.all(Array.from({ length: 200 }, () => service.create(MODERN, () => undefined)));
      const ids = new Set(records.map((record) => record.id));
      expect(ids.size).toBe(200);
      records.forEach((record) => expect(record.id).toMatch(/^task_[0-9a-f]{32}$/));
    });

    it('takes the retention the client asked for, capped by maxTtlMs', async () => {
      const { service } = setup({ defaultTtlMs: 10_000, maxTtlMs: 60_000, pollIntervalMs: 250 });
      expect((await service.create({ ...MODERN }, () => undefined)).ttlMs).toBe(10_000);
      expect((await service.create({ ...LEGACY, requestedTtlMs: 5_000 }, () => undefined)).ttlMs).toBe(5_000);
      expect((await service.create({ ...LEGACY, requestedTtlMs: 60_000 }, () => undefined)).ttlMs).toBe(60_000);
      const capped = await service.create({ ...LEGACY, requestedTtlMs: 3_600_000 }, () => undefined);
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
      const { service } = setup({ defaultTtlMs: 10_000, maxTtlMs: 60_000 });
      expect((await service.create({ ...LEGACY, requestedTtlMs }, () => undefined)).ttlMs).toBe(10_000);
    });
  });

  describe('the per-owner cap', () => {
    it('refuses a task beyond maxLivePerOwner with -32603, per owner', async () => {
      const { service, store } = setup({ maxLivePerOwner: 2 });
      await service.create(MODERN, () => undefined);
      await service.create(MODERN, () => undefined);
      const error = await rejection(service.create(MODERN, () => undefined));
      expect(error.code).toBe(-32603);
      expect(error.message).toMatch(/^Too many tasks in progress/);
      expect(error.message).toContain('2');
      await expect(store.countLive('principal:alice')).resolves.toBe(2);
      // Another owner has a cap of its own.
      await expect(service.create({ ...MODERN, owner: 'principal:bob' }, () => undefined)).resolves.toMatchObject({
        owner: 'principal:bob',
      });
      await expect(service.create(LEGACY, () => undefined)).resolves.toMatchObject({ owner: 'session:s1' });
    });

    it('does not count terminal tasks: completed, failed and cancelled tasks free their place', async () => {
      const { service } = setup({ maxLivePerOwner: 1 });
      const first = await service.create(MODERN, () => undefined);
      await expect(service.create(MODERN, () => undefined)).rejects.toThrow(/Too many tasks/);
      await service.settle(first.id, { type: 'result', result: OK_RESULT });
      const second = await service.create(MODERN, () => undefined);
      await service.settle(second.id, { type: 'error', error: { code: -32050, message: 'Quota exceeded' } });
      const third = await service.create(MODERN, () => undefined);
      await service.cancel(third.id);
      const fourth = await service.create(MODERN, () => undefined);
      expect(fourth.status).toBe('working');
      expect((await service.list('principal:alice')).map((record) => record.status).sort()).toEqual([
        'cancelled',
        'completed',
        'failed',
        'working',
      ]);
    });

    it('cannot be overshot by creations made at once', async () => {
      const CAP = 5;
      const { service, store } = setup({ maxLivePerOwner: CAP });
      const outcomes = await Promise.allSettled(
        Array.from({ length: CAP + 3 }, () => service.create(MODERN, () => undefined)),
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
      const { service } = setup({ maxLivePerOwner: CAP }, store);
      for (let round = 0; round < 20; round += 1) {
        const owner = `principal:burst-${round}`;
        const outcomes = await Promise.allSettled(
          Array.from({ length: CAP + 3 }, () => service.create({ ...MODERN, owner }, () => undefined)),
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
      const { service, store } = setup({ maxLivePerOwner: CAP });
      const existing = await service.create(MODERN, () => undefined);
      const burst = await Promise.allSettled(
        Array.from({ length: CAP + 3 }, () => service.create(MODERN, () => undefined)),
      );
      expect(burst.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(CAP - 1);
      await expect(store.countLive('principal:alice')).resolves.toBe(CAP);

      // Once every task ended, a full cap of creations at once succeeds: nothing stayed reserved.
      await service.cancel(existing.id);
      for (const record of await service.list('principal:alice')) {
        await service.settle(record.id, { type: 'result', result: OK_RESULT });
      }
      const again = await Promise.allSettled(
        Array.from({ length: CAP }, () => service.create(MODERN, () => undefined)),
      );
      expect(again.every((outcome) => outcome.status === 'fulfilled')).toBe(true);
    });

    it('does not refuse a creation under the cap while another one is being stored', async () => {
      const store = new LateAckTaskStore();
      const { service } = setup({ maxLivePerOwner: 2 }, store);
      const first = service.create(MODERN, () => undefined);
      // Wait until the first task is stored (its creation is not acknowledged yet).
      while ((await store.countLive('principal:alice')) === 0) {
        await flush();
      }
      const releaseFirst = store.release;
      // One task exists, the cap is 2: the second creation must succeed.
      const second = service.create(MODERN, () => undefined);
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
      const { service } = setup({ maxLivePerOwner: 1 }, store);
      const first = service.create(MODERN, () => undefined);
      while ((await store.countLive('principal:alice')) === 0) {
        await flush();
      }
      // The second creation waits for the first one to be acknowledged, then counts it.
      const second = service.create(MODERN, () => undefined);
      store.release();
      await expect(first).resolves.toMatchObject({ status: 'working' });
      await expect(second).rejects.toMatchObject({ code: -32603 });
      await expect(store.countLive('principal:alice')).resolves.toBe(1);
    });
  });

  describe('settle', () => {
    it('completes a task with its result', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      const settled = (await service.get(record.id))!;
      expect(settled).toMatchObject({ status: 'completed', result: OK_RESULT });
      expect(settled.error).toBeUndefined();
      expect(settled.statusMessage).toBeUndefined();
      expect(settled.updatedAt).toBeGreaterThanOrEqual(record.updatedAt);
      expect(service.isLive(record.id)).toBe(false);
    });

    it('completes a modern task whose tool reported an error (the result says isError)', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      await service.settle(record.id, { type: 'result', result: TOOL_ERROR });
      const settled = (await service.get(record.id))!;
      expect(settled).toMatchObject({ status: 'completed', result: TOOL_ERROR });
      expect(settled.error).toBeUndefined();
    });

    it('fails a legacy task whose tool reported an error, keeping the result for tasks/result', async () => {
      const { service } = setup();
      const record = await service.create(LEGACY, () => undefined);
      await service.settle(record.id, { type: 'result', result: TOOL_ERROR });
      const settled = (await service.get(record.id))!;
      expect(settled).toMatchObject({ status: 'failed', result: TOOL_ERROR });
      expect(settled.error).toBeUndefined();
    });

    it('completes a legacy task with a plain result', async () => {
      const { service } = setup();
      const record = await service.create(LEGACY, () => undefined);
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(service.get(record.id)).resolves.toMatchObject({ status: 'completed', result: OK_RESULT });
    });

    it.each([
      ['modern', MODERN],
      ['legacy', LEGACY],
    ])('fails a %s task whose work threw a protocol error, with that error', async (_era, init) => {
      const { service } = setup();
      const record = await service.create(init, () => undefined);
      const thrown = new McpError(-32050, 'Quota exceeded', { retryAfterMs: 1000 });
      await service.settle(record.id, {
        type: 'error',
        error: { code: thrown.code, message: thrown.message, data: thrown.data },
      });
      const settled = (await service.get(record.id))!;
      expect(settled).toMatchObject({
        status: 'failed',
        statusMessage: 'Quota exceeded',
        error: { code: -32050, message: 'Quota exceeded', data: { retryAfterMs: 1000 } },
      });
      expect(settled.result).toBeUndefined();
    });

    it('ignores an unknown task', async () => {
      const { service } = setup();
      await expect(service.settle('task_unknown', { type: 'result', result: OK_RESULT })).resolves.toBeUndefined();
      await expect(service.get('task_unknown')).resolves.toBeUndefined();
    });
  });

  describe('terminal states are final', () => {
    it('ignores a second outcome', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      const completed = await service.get(record.id);
      await service.settle(record.id, { type: 'error', error: { code: -32603, message: 'late' } });
      await expect(service.get(record.id)).resolves.toEqual(completed);
    });

    it('ignores an outcome after a cancellation', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      await service.cancel(record.id);
      const cancelled = (await service.get(record.id))!;
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      const after = (await service.get(record.id))!;
      expect(after).toEqual(cancelled);
      expect(after.status).toBe('cancelled');
      expect(after.result).toBeUndefined();
    });

    it('answers a cancellation of a completed task with the completed task, unchanged, and does not abort', async () => {
      const { service } = setup();
      const abort = jest.fn();
      const record = await service.create(MODERN, abort);
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      const completed = await service.get(record.id);
      await expect(service.cancel(record.id)).resolves.toEqual(completed);
      await expect(service.get(record.id)).resolves.toEqual(completed);
      expect(abort).not.toHaveBeenCalled();
    });

    it('answers a cancellation of an unknown task with undefined', async () => {
      const { service } = setup();
      await expect(service.cancel('task_unknown')).resolves.toBeUndefined();
    });
  });

  describe('cancel', () => {
    it('cancels the task and aborts its work once, with the reason', async () => {
      const { service } = setup();
      const abort = jest.fn();
      const record = await service.create(MODERN, abort);
      const cancelled = (await service.cancel(record.id))!;
      expect(cancelled).toMatchObject({ id: record.id, status: 'cancelled', statusMessage: 'Cancelled by the client' });
      await expect(service.get(record.id)).resolves.toEqual(cancelled);
      expect(abort).toHaveBeenCalledTimes(1);
      expect(abort.mock.calls[0][0]).toBeInstanceOf(McpError);
      expect(abort.mock.calls[0][0]).toMatchObject({ code: -32603, message: 'Cancelled by the client' });
      expect(service.isLive(record.id)).toBe(false);

      // Cancelling again answers the cancelled task and aborts nothing more.
      await expect(service.cancel(record.id)).resolves.toEqual(cancelled);
      expect(abort).toHaveBeenCalledTimes(1);
    });

    it('aborts once when cancelled several times at once', async () => {
      const { service } = setup();
      const abort = jest.fn();
      const record = await service.create(MODERN, abort);
      const answers = await Promise.all([
        service.cancel(record.id),
        service.cancel(record.id),
        service.cancel(record.id),
      ]);
      answers.forEach((answer) => expect(answer).toMatchObject({ status: 'cancelled' }));
      expect(abort).toHaveBeenCalledTimes(1);
    });

    it('uses the given reason', async () => {
      const { service } = setup();
      const abort = jest.fn();
      const record = await service.create(LEGACY, abort);
      await expect(service.cancel(record.id, 'Session closed')).resolves.toMatchObject({
        status: 'cancelled',
        statusMessage: 'Session closed',
      });
      expect(abort.mock.calls[0][0]).toMatchObject({ message: 'Session closed' });
    });

    it('rejects the questions the task waits on', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      const asked = service.ask(record.id, 'name', ELICIT);
      asked.catch(() => undefined);
      await flush();
      await service.cancel(record.id);
      await expect(asked).rejects.toMatchObject({ code: -32603 });
      const cancelled = (await service.get(record.id))!;
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.inputRequests).toBeUndefined();
    });

    it('cancelOwned cancels the live tasks of one owner only', async () => {
      const { service } = setup();
      const aborts = [jest.fn(), jest.fn(), jest.fn()];
      const a = await service.create(LEGACY, aborts[0]);
      const b = await service.create(LEGACY, aborts[1]);
      const other = await service.create({ ...LEGACY, owner: 'session:s2', sessionId: 's2' }, aborts[2]);
      await service.settle(b.id, { type: 'result', result: OK_RESULT });
      await service.cancelOwned('session:s1', 'Session ended');
      await expect(service.get(a.id)).resolves.toMatchObject({ status: 'cancelled', statusMessage: 'Session ended' });
      await expect(service.get(b.id)).resolves.toMatchObject({ status: 'completed' });
      await expect(service.get(other.id)).resolves.toMatchObject({ status: 'working' });
      expect(aborts.map((abort) => abort.mock.calls.length)).toEqual([1, 0, 0]);
    });
  });

  describe('owned', () => {
    it("answers the owner's task", async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      await expect(service.owned('principal:alice', record.id)).resolves.toEqual(record);
    });

    it.each([
      ['an empty string', ''],
      ['a number', 42],
      ['null', null],
      ['undefined', undefined],
      ['an object', { taskId: 'x' }],
    ])('refuses %s as a task id with -32602', async (_label, id) => {
      const { service } = setup();
      const error = await rejection(service.owned('principal:alice', id));
      expect(error.code).toBe(-32602);
    });

    it("answers an unknown id and another owner's task the same way: -32602", async () => {
      const { service } = setup();
      const bobs = await service.create({ ...MODERN, owner: 'principal:bob' }, () => undefined);
      const sessions = await service.create(LEGACY, () => undefined);
      const unknown = await rejection(service.owned('principal:alice', 'task_0123456789abcdef0123456789abcdef'));
      const foreign = await rejection(service.owned('principal:alice', bobs.id));
      const otherKind = await rejection(service.owned('principal:s1', sessions.id));
      for (const error of [unknown, foreign, otherKind]) {
        expect(error.code).toBe(-32602);
        expect(error.message).toMatch(/^Task not found: task_/);
      }
      expect(foreign.message).toBe(`Task not found: ${bobs.id}`);
      expect(foreign.data).toBeUndefined();
      await expect(service.owned('principal:bob', bobs.id)).resolves.toMatchObject({ id: bobs.id });
    });
  });

  describe('ask and answer (modern era)', () => {
    it('moves the task to input_required with the question, and back to working once answered', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      const asked = tracked(service.ask(record.id, 'name', ELICIT));
      await flush();
      const waiting = (await service.get(record.id))!;
      expect(waiting).toMatchObject({
        status: 'input_required',
        statusMessage: 'Waiting for input from the client',
        inputRequests: { name: { method: 'elicitation/create', params: ELICIT.params } },
      });
      expect(asked.settled).toBe(false);

      await service.answer(record.id, { name: ACCEPT });
      await flush();
      expect(asked).toMatchObject({ settled: true, value: ACCEPT });
      const working = (await service.get(record.id))!;
      expect(working.status).toBe('working');
      expect(working.inputRequests).toBeUndefined();
      expect(working.statusMessage).toBeUndefined();
    });

    it('takes partial answers: the task waits until every question is answered', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      const first = tracked(service.ask(record.id, 'first', ELICIT));
      const second = tracked(service.ask(record.id, 'second', SAMPLE));
      await flush();
      expect(Object.keys((await service.get(record.id))!.inputRequests!).sort()).toEqual(['first', 'second']);

      await service.answer(record.id, { first: DECLINE });
      await flush();
      expect(first).toMatchObject({ settled: true, value: DECLINE });
      expect(second.settled).toBe(false);
      await expect(service.get(record.id)).resolves.toMatchObject({
        status: 'input_required',
        inputRequests: { second: { method: 'sampling/createMessage', params: SAMPLE.params } },
      });
      expect((await service.get(record.id))!.inputRequests).not.toHaveProperty('first');

      // An answer to a key answered already is ignored.
      await service.answer(record.id, { first: ACCEPT });
      await flush();
      expect(first.value).toEqual(DECLINE);

      await service.answer(record.id, { second: SAMPLED });
      await flush();
      expect(second).toMatchObject({ settled: true, value: SAMPLED });
      await expect(service.get(record.id)).resolves.toMatchObject({ status: 'working' });
    });

    it('ignores answers to keys the task does not wait for, whatever their shape', async () => {
      const { service, bus, store } = setup();
      const record = await service.create(MODERN, () => undefined);
      const asked = tracked(service.ask(record.id, 'name', ELICIT));
      await flush();
      const before = await service.get(record.id);
      const { events } = watch(bus, store);
      await service.answer(record.id, { unknown: ACCEPT, garbage: 'not an answer' });
      await flush();
      expect(asked.settled).toBe(false);
      await expect(service.get(record.id)).resolves.toEqual(before);
      expect(events).toEqual([]);

      await service.answer(record.id, { unknown: 'still garbage', name: ACCEPT });
      await flush();
      expect(asked).toMatchObject({ settled: true, value: ACCEPT });
    });

    it('refuses an answer of the wrong shape with -32602 before consuming any answer', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      const first = tracked(service.ask(record.id, 'first', ELICIT));
      const second = tracked(service.ask(record.id, 'second', ELICIT));
      await flush();
      const before = await service.get(record.id);

      const error = await rejection(service.answer(record.id, { first: ACCEPT, second: { action: 'maybe' } }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('inputResponses.second');
      await flush();
      expect(first.settled).toBe(false);
      expect(second.settled).toBe(false);
      await expect(service.get(record.id)).resolves.toEqual(before);

      // Both questions can still be answered.
      await service.answer(record.id, { first: ACCEPT, second: DECLINE });
      await flush();
      expect(first).toMatchObject({ settled: true, value: ACCEPT });
      expect(second).toMatchObject({ settled: true, value: DECLINE });
      await expect(service.get(record.id)).resolves.toMatchObject({ status: 'working' });
    });

    it('refuses a sampling answer without a role', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      const asked = tracked(service.ask(record.id, 'sample', SAMPLE));
      await flush();
      await expect(
        service.answer(record.id, { sample: { content: { type: 'text', text: 'x' } } }),
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
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      const asked = tracked(service.ask(record.id, 'name', ELICIT));
      await flush();
      await expect(service.answer(record.id, responses)).rejects.toMatchObject({ code: -32602 });
      expect(asked.settled).toBe(false);
    });

    it('never reuses a key, also once its question was answered', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      const first = service.ask(record.id, 'name', ELICIT);
      await flush();
      await expect(service.ask(record.id, 'name', ELICIT)).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining('"name"'),
      });
      await service.answer(record.id, { name: ACCEPT });
      await expect(first).resolves.toEqual(ACCEPT);
      await expect(service.ask(record.id, 'name', ELICIT)).rejects.toMatchObject({ code: -32603 });
      // The refused questions left no trace in the task.
      const task = (await service.get(record.id))!;
      expect(task.status).toBe('working');
      expect(task.inputRequests).toBeUndefined();
    });

    it('derives keys elicitation-1, elicitation-2... when none is given, never one in use', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      void service.ask(record.id, undefined, ELICIT);
      void service.ask(record.id, undefined, ELICIT);
      await flush();
      expect(Object.keys((await service.get(record.id))!.inputRequests!)).toEqual(['elicitation-1', 'elicitation-2']);

      // A handler's own key that looks like a derived one is not derived again.
      void service.ask(record.id, 'elicitation-4', ELICIT);
      void service.ask(record.id, undefined, ELICIT);
      void service.ask(record.id, undefined, ELICIT);
      void service.ask(record.id, undefined, SAMPLE);
      await flush();
      const task = (await service.get(record.id))!;
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
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(service.ask(record.id, 'name', ELICIT)).rejects.toMatchObject({ code: -32603 });
      await expect(service.ask('task_unknown', 'name', ELICIT)).rejects.toMatchObject({ code: -32603 });
      await expect(service.get(record.id)).resolves.toMatchObject({ status: 'completed' });
    });

    it('rejects the pending questions when the task settles', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      const asked = service.ask(record.id, 'name', ELICIT);
      asked.catch(() => undefined);
      await flush();
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(asked).rejects.toMatchObject({ code: -32603 });
      const settled = (await service.get(record.id))!;
      expect(settled.status).toBe('completed');
      expect(settled.inputRequests).toBeUndefined();
    });

    it('ignores answers for a task that is over', async () => {
      const { service } = setup();
      const record = await service.create(MODERN, () => undefined);
      await service.cancel(record.id);
      const cancelled = await service.get(record.id);
      await expect(service.answer(record.id, { name: ACCEPT })).resolves.toBeUndefined();
      await expect(service.get(record.id)).resolves.toEqual(cancelled);
    });
  });

  describe('waitingOnClient (legacy era)', () => {
    it('is input_required while any request to the client is unanswered', async () => {
      const { service, bus, store } = setup();
      const record = await service.create(LEGACY, () => undefined);
      const { events } = watch(bus, store);

      await service.waitingOnClient(record.id, true);
      await expect(service.get(record.id)).resolves.toMatchObject({
        status: 'input_required',
        statusMessage: 'Waiting for input from the client',
      });
      await service.waitingOnClient(record.id, true);
      await service.waitingOnClient(record.id, false);
      await expect(service.get(record.id)).resolves.toMatchObject({ status: 'input_required' });
      await service.waitingOnClient(record.id, false);
      const working = (await service.get(record.id))!;
      expect(working.status).toBe('working');
      expect(working.statusMessage).toBeUndefined();
      expect(working.inputRequests).toBeUndefined();
      // One event per status change, none for the nested wait.
      expect(events.map((event) => event.status)).toEqual(['input_required', 'working']);
    });

    it('ignores a task that is not live', async () => {
      const { service } = setup();
      const record = await service.create(LEGACY, () => undefined);
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      await service.waitingOnClient(record.id, true);
      await expect(service.get(record.id)).resolves.toMatchObject({ status: 'completed' });
      await expect(service.waitingOnClient('task_unknown', true)).resolves.toBeUndefined();
    });
  });

  describe('describe', () => {
    it('sets the status message of a live task, once per change', async () => {
      const { service, bus, store } = setup();
      const record = await service.create(MODERN, () => undefined);
      const { events } = watch(bus, store);
      await service.describe(record.id, '1/3');
      await service.describe(record.id, '1/3');
      await service.describe(record.id, '2/3');
      await expect(service.get(record.id)).resolves.toMatchObject({ status: 'working', statusMessage: '2/3' });
      expect(events.map((event) => event.statusMessage)).toEqual(['1/3', '2/3']);
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      await service.describe(record.id, '3/3');
      expect((await service.get(record.id))!.statusMessage).toBeUndefined();
    });
  });

  describe('awaitTerminal', () => {
    it('resolves when the task completes, woken by the bus', async () => {
      const { service } = running();
      const record = await service.create(MODERN, () => undefined);
      const waited = service.awaitTerminal(record.id, 60_000);
      await delay(20);
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(waited).resolves.toMatchObject({ id: record.id, status: 'completed', result: OK_RESULT });
    });

    it('is woken by a change made by another instance sharing the store and the bus', async () => {
      const store = new MemoryTaskStore();
      const bus = new MemoryNotificationBus();
      const { service: here } = running({}, store, bus);
      const { service: there } = running({}, store, bus);
      const record = await there.create(MODERN, () => undefined);
      const waited = tracked(here.awaitTerminal(record.id, 60_000));
      await delay(20);
      expect(waited.settled).toBe(false);
      await there.cancel(record.id);
      await delay(20);
      expect(waited).toMatchObject({ settled: true, value: { id: record.id, status: 'cancelled' } });
    });

    it('stays asleep through changes that are not terminal', async () => {
      const { service } = running();
      const record = await service.create(MODERN, () => undefined);
      const waited = tracked(service.awaitTerminal(record.id, 60_000));
      await service.describe(record.id, 'half way');
      void service.ask(record.id, 'name', ELICIT);
      await delay(20);
      expect(waited.settled).toBe(false);
      await service.answer(record.id, { name: ACCEPT });
      await service.settle(record.id, { type: 'error', error: { code: -32050, message: 'Quota exceeded' } });
      await delay(20);
      expect(waited).toMatchObject({ settled: true, value: { status: 'failed' } });
    });

    it('answers a task that is terminal already at once', async () => {
      const { service } = running();
      const record = await service.create(MODERN, () => undefined);
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(service.awaitTerminal(record.id, 60_000)).resolves.toMatchObject({ status: 'completed' });
    });

    it('answers undefined for an unknown task', async () => {
      const { service } = running();
      await expect(service.awaitTerminal('task_unknown', 60_000)).resolves.toBeUndefined();
    });

    it('gives up after the timeout with the task as it is', async () => {
      const { service } = running();
      const record = await service.create(MODERN, () => undefined);
      await service.describe(record.id, 'still going');
      await expect(service.awaitTerminal(record.id, 30)).resolves.toMatchObject({
        id: record.id,
        status: 'working',
        statusMessage: 'still going',
      });
    });

    it('gives up when the signal aborts, with the task as it is', async () => {
      const { service } = running();
      const record = await service.create(MODERN, () => undefined);
      const controller = new AbortController();
      const waited = tracked(service.awaitTerminal(record.id, 60_000, controller.signal));
      await delay(20);
      expect(waited.settled).toBe(false);
      controller.abort(new Error('client went away'));
      await delay(10);
      expect(waited).toMatchObject({ settled: true, value: { id: record.id, status: 'working' } });

      const aborted = new AbortController();
      aborted.abort();
      await expect(service.awaitTerminal(record.id, 60_000, aborted.signal)).resolves.toMatchObject({
        status: 'working',
      });
    });
  });

  describe('sweep', () => {
    it('fails a live task past its expiry, aborts its work, keeps it readable for the grace time, then deletes it', async () => {
      const { service, store, settings } = setup();
      const abort = jest.fn();
      const record = await service.create({ ...LEGACY, requestedTtlMs: 5_000 }, abort);
      const asked = service.ask(record.id, 'name', ELICIT);
      asked.catch(() => undefined);
      await flush();
      const now = record.expiresAt;
      await expect(service.sweep(now - 1)).resolves.toBe(0);
      expect(abort).not.toHaveBeenCalled();

      await expect(service.sweep(now)).resolves.toBe(1);
      expect(abort).toHaveBeenCalledTimes(1);
      expect(abort.mock.calls[0][0]).toMatchObject({ code: -32603, message: 'Task expired' });
      await expect(asked).rejects.toMatchObject({ message: 'Task expired' });
      expect(service.isLive(record.id)).toBe(false);
      const failed = (await service.get(record.id))!;
      expect(failed).toMatchObject({
        status: 'failed',
        statusMessage: 'Task expired',
        error: { code: -32603, message: 'Task expired' },
        expiresAt: now + settings.expiredGraceMs,
        ttlMs: 5_000,
      });
      expect(failed.inputRequests).toBeUndefined();
      // The outcome that comes after the expiry is ignored.
      await service.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(service.get(record.id)).resolves.toEqual(failed);

      await expect(service.sweep(now + settings.expiredGraceMs - 1)).resolves.toBe(0);
      await expect(service.get(record.id)).resolves.toEqual(failed);
      await expect(service.sweep(now + settings.expiredGraceMs)).resolves.toBe(1);
      await expect(store.get(record.id)).resolves.toBeUndefined();
      expect(abort).toHaveBeenCalledTimes(1);
    });

    it('deletes a terminal task past its expiry, leaving the others', async () => {
      const { service, store } = setup();
      const done = await service.create({ ...MODERN, requestedTtlMs: 5_000 }, () => undefined);
      const cancelled = await service.create({ ...MODERN, requestedTtlMs: 5_000 }, () => undefined);
      const longer = await service.create({ ...MODERN, requestedTtlMs: 50_000 }, () => undefined);
      await service.settle(done.id, { type: 'result', result: OK_RESULT });
      await service.cancel(cancelled.id);
      await service.settle(longer.id, { type: 'result', result: OK_RESULT });

      await expect(service.sweep(done.createdAt + 10_000)).resolves.toBe(2);
      await expect(store.get(done.id)).resolves.toBeUndefined();
      await expect(store.get(cancelled.id)).resolves.toBeUndefined();
      await expect(store.get(longer.id)).resolves.toMatchObject({ status: 'completed' });
    });

    it('hides a terminal task past its expiry from get, list and owned before it is swept', async () => {
      const { service, store } = setup();
      const expired = await service.create(MODERN, () => undefined);
      const kept = await service.create(MODERN, () => undefined);
      await service.settle(expired.id, { type: 'result', result: OK_RESULT });
      await store.update(expired.id, (current) => ({ ...current, expiresAt: Date.now() - 1 }));

      await expect(service.get(expired.id)).resolves.toBeUndefined();
      expect((await service.list('principal:alice')).map((record) => record.id)).toEqual([kept.id]);
      await expect(service.owned('principal:alice', expired.id)).rejects.toMatchObject({ code: -32602 });
      await expect(store.get(expired.id)).resolves.toMatchObject({ status: 'completed' });
    });

    it('keeps a live task past its expiry readable until the sweep fails it', async () => {
      const { service, store } = setup();
      const record = await service.create(MODERN, () => undefined);
      await store.update(record.id, (current) => ({ ...current, expiresAt: Date.now() - 1 }));
      await expect(service.get(record.id)).resolves.toMatchObject({ status: 'working' });
      await service.sweep();
      await expect(service.get(record.id)).resolves.toMatchObject({ status: 'failed', statusMessage: 'Task expired' });
    });

    it('runs by itself every sweepIntervalMs once started', async () => {
      const { service } = running({ sweepIntervalMs: 10 });
      const abort = jest.fn();
      const record = await service.create({ ...MODERN, requestedTtlMs: 30 }, abort);
      const ended = await service.awaitTerminal(record.id, 4_000);
      expect(ended).toMatchObject({ status: 'failed', statusMessage: 'Task expired' });
      expect(abort).toHaveBeenCalledTimes(1);
    });
  });

  describe('shutdown', () => {
    it('aborts the work of every live task and stops the sweeper', async () => {
      const { service } = setup({ sweepIntervalMs: 10 });
      service.onModuleInit();
      const aborts = [jest.fn(), jest.fn()];
      const a = await service.create({ ...MODERN, requestedTtlMs: 30 }, aborts[0]);
      const b = await service.create(MODERN, aborts[1]);
      await service.settle(b.id, { type: 'result', result: OK_RESULT });
      service.onModuleDestroy();
      expect(aborts[0]).toHaveBeenCalledTimes(1);
      expect(aborts[0].mock.calls[0][0]).toMatchObject({ code: -32603, message: 'Server shutting down' });
      expect(aborts[1]).not.toHaveBeenCalled();
      expect(service.isLive(a.id)).toBe(false);
      // No sweep ran after the shutdown: the expired task stays as it was.
      await delay(80);
      await expect(service.get(a.id)).resolves.toMatchObject({ status: 'working' });
    });

    it('whenIdle resolves once no task works here any more, whichever way each ended', async () => {
      const { service } = setup();
      await expect(service.whenIdle()).resolves.toBeUndefined();
      const a = await service.create(MODERN, jest.fn());
      const b = await service.create(LEGACY, jest.fn());
      expect(service.liveCount).toBe(2);
      const idle = tracked(service.whenIdle());
      await service.settle(a.id, { type: 'result', result: OK_RESULT });
      await flush();
      expect(idle.settled).toBe(false);
      await service.cancel(b.id);
      await flush();
      expect(idle.settled).toBe(true);
      expect(service.liveCount).toBe(0);
    });

    it('failLive fails every task working here, stored before its work is aborted, and keeps it readable', async () => {
      const { service, store, bus } = setup();
      const { events } = watch(bus, store);
      const order: string[] = [];
      const working = await service.create(MODERN, (reason) => {
        order.push(`abort: ${(reason as Error).message}`);
      });
      const done = await service.create(LEGACY, jest.fn());
      await service.settle(done.id, { type: 'result', result: OK_RESULT });
      const originalUpdate = store.update.bind(store);
      jest.spyOn(store, 'update').mockImplementation(async (id, change) => {
        const stored = await originalUpdate(id, change);
        order.push(`stored: ${stored?.status}`);
        return stored;
      });

      await expect(service.failLive('Server shutting down: stopped')).resolves.toBe(1);
      expect(order).toEqual(['stored: failed', 'abort: Server shutting down: stopped']);
      const failed = await service.get(working.id);
      expect(failed).toMatchObject({
        status: 'failed',
        statusMessage: 'Server shutting down: stopped',
        error: { code: -32603, message: 'Server shutting down: stopped' },
        expiresAt: working.expiresAt,
      });
      expect(events.at(-1)).toMatchObject({ id: working.id, status: 'failed' });
      // A task that had ended is left as it was.
      await expect(service.get(done.id)).resolves.toMatchObject({ status: 'completed' });
      expect(service.liveCount).toBe(0);
      await expect(service.failLive('again')).resolves.toBe(0);
    });
  });

  describe('bus events', () => {
    it('publishes exactly one task_status event per transition, with the stored task, after it is stored', async () => {
      const { service, bus, store } = setup();
      const modern = await service.create(MODERN, () => undefined);
      const legacy = await service.create(LEGACY, () => undefined);
      const cancelled = await service.create(MODERN, () => undefined);
      const expiring = await service.create({ ...MODERN, requestedTtlMs: 1_000 }, () => undefined);
      const { events, storedThen } = watch(bus, store);

      await service.describe(modern.id, 'started'); // 1
      const asked = service.ask(modern.id, 'name', ELICIT); // 2
      await flush();
      await service.answer(modern.id, { other: ACCEPT }); // none
      await service.answer(modern.id, { name: ACCEPT }); // 3
      await asked;
      await service.settle(modern.id, { type: 'result', result: OK_RESULT }); // 4
      await service.settle(modern.id, { type: 'result', result: TOOL_ERROR }); // none: terminal
      await service.cancel(modern.id); // none: terminal

      await service.waitingOnClient(legacy.id, true); // 5
      await service.waitingOnClient(legacy.id, false); // 6
      await service.settle(legacy.id, { type: 'result', result: TOOL_ERROR }); // 7

      await service.cancel(cancelled.id); // 8
      await service.cancel(cancelled.id); // none
      await service.sweep(expiring.expiresAt); // 9: failed; the cancelled one is not due yet
      await service.sweep(expiring.expiresAt + 1); // none: the failed task is in its grace time

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
      const { service, bus, store } = setup({ maxLivePerOwner: 1 });
      const record = await service.create(MODERN, () => undefined);
      const { events } = watch(bus, store);
      await expect(service.create(MODERN, () => undefined)).rejects.toThrow(/Too many tasks/);
      await service.settle('task_unknown', { type: 'result', result: OK_RESULT });
      await service.cancel('task_unknown');
      await service.describe('task_unknown', 'x');
      await service.sweep(record.createdAt);
      expect(events).toEqual([]);
    });
  });
});
