import type { ClusterMessage } from '../cluster/cluster-link.interface';
import type { McpSessionService, McpSessionEndListener } from '../sessions/mcp-session.service';
import { MemoryClusterLink } from '../stores/memory/memory-cluster.link';
import { MemoryNotificationBus } from '../stores/memory/memory-notification.bus';
import { MemoryTaskStore } from '../stores/memory/memory-task.store';
import { McpTaskService, type NewTask } from './mcp-task.service';
import { resolveTaskOptions, type TaskSettings } from './task-settings';
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
const ELICIT = {
  method: 'elicitation/create' as const,
  params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
};
const ACCEPT = { action: 'accept', content: { name: 'Ada' } };
const OK_RESULT = { content: [{ type: 'text', text: 'slept' }] };

const DEFAULTS = resolveTaskOptions({});

/** A link whose messages from "other instances" the test sends itself. */
class ScriptedLink extends MemoryClusterLink {
  private readonly handlers = new Set<(message: ClusterMessage) => void>();

  override onMessage(handler: (message: ClusterMessage) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  deliver(message: ClusterMessage): void {
    this.handlers.forEach((handler) => handler(message));
  }

  get listeners(): number {
    return this.handlers.size;
  }
}

/** The little of the session service the task service uses: its end listeners. */
class SessionEnds {
  readonly listeners = new Set<McpSessionEndListener>();

  onEnd(listener: McpSessionEndListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  end(sessionId: string, here: boolean): void {
    this.listeners.forEach((listener) => listener(sessionId, 'deleted', here));
  }
}

const started: McpTaskService[] = [];

function setup(
  overrides: Partial<TaskSettings> = {},
  store = new MemoryTaskStore(),
  bus = new MemoryNotificationBus(),
) {
  const settings: TaskSettings = { ...DEFAULTS, ...overrides };
  const link = new ScriptedLink();
  const sessions = new SessionEnds();
  const service = new McpTaskService(store, bus, settings, link, sessions as unknown as McpSessionService);
  return { store, bus, link, sessions, service, settings };
}

/** A service with its subscriptions and sweeper running (stopped after the test). */
function running(overrides: Partial<TaskSettings> = {}, store?: MemoryTaskStore, bus?: MemoryNotificationBus) {
  const made = setup(overrides, store, bus);
  made.service.onModuleInit();
  started.push(made.service);
  return made;
}

afterEach(() => {
  started.splice(0).forEach((service) => {
    service.onModuleDestroy();
    service.onApplicationShutdown();
  });
});

describe('McpTaskService', () => {
  it('runs the manager it exposes, with the settings it was given', async () => {
    const { service, settings } = setup({ pollIntervalMs: 250 });
    expect(service.options).toBe(settings);
    expect(service.manager.options).toBe(settings);
    const record = await service.create(MODERN, () => undefined);
    await expect(service.manager.get(record.id)).resolves.toEqual(record);
    expect(service.manager.isLive(record.id)).toBe(true);
    expect(service.liveCount).toBe(1);
    await service.cancel(record.id, 'Stopped by an operator');
    await expect(service.get(record.id)).resolves.toMatchObject({
      status: 'cancelled',
      statusMessage: 'Stopped by an operator',
    });
    await expect(service.list('principal:alice')).resolves.toHaveLength(1);
  });

  describe('once started', () => {
    it('hears the bus: awaitTerminal is woken by a change made by another instance', async () => {
      const store = new MemoryTaskStore();
      const bus = new MemoryNotificationBus();
      const { service: here } = running({}, store, bus);
      const { service: there } = running({}, store, bus);
      const record = await there.create(MODERN, () => undefined);
      const waited = here.awaitTerminal(record.id, 60_000);
      await delay(20);
      await there.settle(record.id, { type: 'result', result: OK_RESULT });
      await expect(waited).resolves.toMatchObject({ id: record.id, status: 'completed', result: OK_RESULT });
    });

    it('hears the bus: the work of a task ended by another instance stops here', async () => {
      const store = new MemoryTaskStore();
      const bus = new MemoryNotificationBus();
      const { service: here } = running({}, store, bus);
      const { service: there } = running({}, store, bus);
      const abort = jest.fn();
      const record = await here.create(MODERN, abort);
      await there.cancel(record.id, 'Cancelled over there');
      await flush();
      expect(abort.mock.calls).toEqual([[expect.objectContaining({ message: 'Cancelled over there' })]]);
      expect(here.isLive(record.id)).toBe(false);
    });

    it('hears the cluster: answers relayed by another instance reach the task working here', async () => {
      const { service, link } = running();
      const record = await service.create(MODERN, () => undefined);
      const asked = service.ask(record.id, 'name', ELICIT);
      await flush();
      link.deliver({ type: 'task_input', taskId: record.id, responses: { name: ACCEPT } });
      await expect(asked).resolves.toEqual(ACCEPT);
    });

    it('cancels the tasks of a legacy session that ended here, not of one that ended elsewhere', async () => {
      const { service, sessions } = running();
      const aborts = [jest.fn(), jest.fn()];
      const mine = await service.create(LEGACY, aborts[0]);
      const theirs = await service.create({ ...LEGACY, owner: 'session:s2', sessionId: 's2' }, aborts[1]);
      sessions.end('s2', false);
      sessions.end('s1', true);
      await delay(10);
      await expect(service.get(mine.id)).resolves.toMatchObject({
        status: 'cancelled',
        statusMessage: 'Session ended',
      });
      await expect(service.get(theirs.id)).resolves.toMatchObject({ status: 'working' });
      expect(aborts.map((abort) => abort.mock.calls.length)).toEqual([1, 0]);
    });

    it('runs the sweeper by itself every sweepIntervalMs', async () => {
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
      const { service, store } = setup({ sweepIntervalMs: 10 });
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
      // No sweep ran after the shutdown: the expired task stays stored as it was.
      await delay(80);
      await expect(store.get(a.id)).resolves.toMatchObject({ status: 'working' });
    });

    it('stops hearing the bus and the cluster at module destroy, the session ends at the very end', async () => {
      const { service, bus, link, sessions } = setup();
      service.onModuleInit();
      expect(link.listeners).toBe(1);
      expect(sessions.listeners.size).toBe(1);
      service.onModuleDestroy();
      expect(link.listeners).toBe(0);

      // The bus is not heard any more: a task ended elsewhere keeps its work (all of it stops at destroy).
      const abort = jest.fn();
      const record = await service.create(LEGACY, abort);
      await bus.publish({ type: 'task_status', task: { ...record, status: 'cancelled' } });
      expect(abort).not.toHaveBeenCalled();
      // The SSE pairs close in their own onModuleDestroy: their sessions' tasks are still cancelled.
      sessions.end('s1', true);
      await delay(10);
      await expect(service.get(record.id)).resolves.toMatchObject({ status: 'cancelled' });
      expect(abort).toHaveBeenCalledTimes(1);

      service.onApplicationShutdown();
      expect(sessions.listeners.size).toBe(0);
    });
  });
});
