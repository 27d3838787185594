import { MemoryTaskStore } from './memory-task.store';
import type { McpTaskRecord, McpTaskStatus } from '../../tasks/task-store.interface';

function task(id: string, overrides: Partial<McpTaskRecord> = {}): McpTaskRecord {
  return {
    id,
    owner: 'principal:alice',
    era: 'modern',
    revision: '2026-07-28',
    method: 'tools/call',
    name: 'sleepy',
    status: 'working',
    createdAt: 1_000,
    updatedAt: 1_000,
    ttlMs: 60_000,
    expiresAt: 61_000,
    pollIntervalMs: 1_000,
    ...overrides,
  };
}

describe('MemoryTaskStore', () => {
  it('stores a task and reads it back by id; an unknown id reads as undefined', async () => {
    const store = new MemoryTaskStore();
    const record = task('task_a', { result: { content: [] } });
    await store.create(record);
    await expect(store.get('task_a')).resolves.toEqual(record);
    await expect(store.get('task_missing')).resolves.toBeUndefined();
  });

  it('keeps its own copy: changing the created object or a read one does not change the store', async () => {
    const store = new MemoryTaskStore();
    const record = task('task_a');
    await store.create(record);
    record.status = 'failed';
    record.statusMessage = 'changed by the caller';

    const read = (await store.get('task_a'))!;
    expect(read.status).toBe('working');
    expect(read.statusMessage).toBeUndefined();
    read.status = 'completed';
    read.expiresAt = 0;

    await expect(store.get('task_a')).resolves.toMatchObject({ status: 'working', expiresAt: 61_000 });
    const listed = await store.list('principal:alice');
    listed[0].status = 'cancelled';
    await expect(store.get('task_a')).resolves.toMatchObject({ status: 'working' });
    const [due] = await store.due(100_000);
    due.status = 'cancelled';
    await expect(store.get('task_a')).resolves.toMatchObject({ status: 'working' });
  });

  describe('update', () => {
    it('stores what the change returns and resolves with it', async () => {
      const store = new MemoryTaskStore();
      await store.create(task('task_a'));
      const updated = await store.update('task_a', (current) => ({
        ...current,
        status: 'completed',
        updatedAt: 2_000,
      }));
      expect(updated).toMatchObject({ id: 'task_a', status: 'completed', updatedAt: 2_000 });
      await expect(store.get('task_a')).resolves.toEqual(updated);
    });

    it('passes the current task to the change', async () => {
      const store = new MemoryTaskStore();
      await store.create(task('task_a', { statusMessage: 'step 1' }));
      const seen: McpTaskRecord[] = [];
      await store.update('task_a', (current) => {
        seen.push({ ...current });
        return { ...current, statusMessage: 'step 2' };
      });
      await store.update('task_a', (current) => {
        seen.push({ ...current });
        return undefined;
      });
      expect(seen.map((record) => record.statusMessage)).toEqual(['step 1', 'step 2']);
    });

    it('leaves the task as it is when the change returns undefined, resolving undefined', async () => {
      const store = new MemoryTaskStore();
      const record = task('task_a');
      await store.create(record);
      await expect(store.update('task_a', () => undefined)).resolves.toBeUndefined();
      await expect(store.get('task_a')).resolves.toEqual(record);
    });

    it('does not let the change mutate the stored task in place', async () => {
      const store = new MemoryTaskStore();
      await store.create(task('task_a'));
      await store.update('task_a', (current) => {
        current.status = 'failed';
        return undefined;
      });
      await expect(store.get('task_a')).resolves.toMatchObject({ status: 'working' });
    });

    it('returns a copy: changing what update resolved with does not change the store', async () => {
      const store = new MemoryTaskStore();
      await store.create(task('task_a'));
      const updated = (await store.update('task_a', (current) => ({ ...current, status: 'input_required' })))!;
      updated.status = 'cancelled';
      await expect(store.get('task_a')).resolves.toMatchObject({ status: 'input_required' });
    });

    it('resolves undefined for an unknown task without calling the change', async () => {
      const store = new MemoryTaskStore();
      const change = jest.fn((current: McpTaskRecord) => current);
      await expect(store.update('task_missing', change)).resolves.toBeUndefined();
      expect(change).not.toHaveBeenCalled();
      await expect(store.get('task_missing')).resolves.toBeUndefined();
    });
  });

  describe('delete', () => {
    it('removes the task from reads, its owner list, the live count and the due list', async () => {
      const store = new MemoryTaskStore();
      await store.create(task('task_a'));
      await store.create(task('task_b'));
      await store.delete('task_a');
      await expect(store.get('task_a')).resolves.toBeUndefined();
      expect((await store.list('principal:alice')).map((record) => record.id)).toEqual(['task_b']);
      await expect(store.countLive('principal:alice')).resolves.toBe(1);
      expect((await store.due(100_000)).map((record) => record.id)).toEqual(['task_b']);
      await expect(store.update('task_a', (current) => current)).resolves.toBeUndefined();
    });

    it('ignores an unknown id and leaves an owner with no task empty', async () => {
      const store = new MemoryTaskStore();
      await expect(store.delete('task_missing')).resolves.toBeUndefined();
      await store.create(task('task_a'));
      await store.delete('task_a');
      await store.delete('task_a');
      await expect(store.list('principal:alice')).resolves.toEqual([]);
      await expect(store.countLive('principal:alice')).resolves.toBe(0);
      // The owner can have tasks again.
      await store.create(task('task_c'));
      expect((await store.list('principal:alice')).map((record) => record.id)).toEqual(['task_c']);
    });
  });

  describe('list', () => {
    it('lists only the tasks of the owner, sorted by id whatever the creation order', async () => {
      const store = new MemoryTaskStore();
      for (const id of ['task_c', 'task_a', 'task_e', 'task_b']) {
        await store.create(task(id));
      }
      await store.create(task('task_d', { owner: 'session:s1', era: 'legacy', revision: '2025-11-25' }));
      expect((await store.list('principal:alice')).map((record) => record.id)).toEqual([
        'task_a',
        'task_b',
        'task_c',
        'task_e',
      ]);
      expect((await store.list('session:s1')).map((record) => record.id)).toEqual(['task_d']);
      await expect(store.list('principal:nobody')).resolves.toEqual([]);
    });

    it('lists tasks as they are now, terminal ones included', async () => {
      const store = new MemoryTaskStore();
      await store.create(task('task_a'));
      await store.create(task('task_b'));
      await store.update('task_b', (current) => ({ ...current, status: 'completed' }));
      const listed = await store.list('principal:alice');
      expect(listed.map((record) => [record.id, record.status])).toEqual([
        ['task_a', 'working'],
        ['task_b', 'completed'],
      ]);
    });
  });

  describe('countLive', () => {
    it('counts the tasks of the owner that are not terminal', async () => {
      const store = new MemoryTaskStore();
      const statuses: McpTaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled', 'working'];
      for (const [index, status] of statuses.entries()) {
        await store.create(task(`task_${index}`, { status }));
      }
      await store.create(task('task_other', { owner: 'principal:bob' }));
      await expect(store.countLive('principal:alice')).resolves.toBe(3);
      await expect(store.countLive('principal:bob')).resolves.toBe(1);
      await expect(store.countLive('principal:nobody')).resolves.toBe(0);
    });

    it('follows updates to a terminal status', async () => {
      const store = new MemoryTaskStore();
      await store.create(task('task_a'));
      await store.create(task('task_b'));
      await expect(store.countLive('principal:alice')).resolves.toBe(2);
      await store.update('task_a', (current) => ({ ...current, status: 'cancelled' }));
      await expect(store.countLive('principal:alice')).resolves.toBe(1);
    });
  });

  describe('due', () => {
    it('returns the tasks whose expiry is at or before now, of every owner', async () => {
      const store = new MemoryTaskStore();
      await store.create(task('task_early', { expiresAt: 5_000 }));
      await store.create(task('task_exact', { expiresAt: 10_000, owner: 'session:s1', status: 'completed' }));
      await store.create(task('task_late', { expiresAt: 10_001 }));
      const due = await store.due(10_000);
      expect(due.map((record) => record.id).sort()).toEqual(['task_early', 'task_exact']);
      expect(due.find((record) => record.id === 'task_exact')).toMatchObject({
        owner: 'session:s1',
        status: 'completed',
      });
      await expect(store.due(4_999)).resolves.toEqual([]);
    });

    it('follows an expiry moved by an update', async () => {
      const store = new MemoryTaskStore();
      await store.create(task('task_a', { expiresAt: 5_000 }));
      await store.update('task_a', (current) => ({ ...current, expiresAt: 50_000 }));
      await expect(store.due(10_000)).resolves.toEqual([]);
      expect((await store.due(50_000)).map((record) => record.id)).toEqual(['task_a']);
    });
  });
});
