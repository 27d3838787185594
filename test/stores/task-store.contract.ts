import type { McpTaskRecord, McpTaskStatus, McpTaskStore } from '../../lib/interfaces/task-store.interface';

/**
 * A working task created at `now`, kept for a minute. Times are near the real clock: a shared
 * store may let a task's key expire some time after its `expiresAt`.
 */
export function taskRecord(id: string, now: number, overrides: Partial<McpTaskRecord> = {}): McpTaskRecord {
  return {
    id,
    owner: 'principal:alice',
    era: 'modern',
    revision: '2026-07-28',
    method: 'tools/call',
    name: 'sleepy',
    status: 'working',
    createdAt: now,
    updatedAt: now,
    ttlMs: 60_000,
    expiresAt: now + 60_000,
    pollIntervalMs: 1_000,
    ...overrides,
  };
}

function ids(records: McpTaskRecord[]): string[] {
  return records.map((record) => record.id);
}

/** What a store's suite gives the contract beside the store. */
export interface TaskStoreProbes {
  /**
   * How much work `run` made the store do (Redis commands, map reads...), so that a case can
   * tell constant work from a walk over many tasks.
   */
  work(run: () => Promise<unknown>): Promise<number>;
}

/**
 * The behaviour every {@link McpTaskStore} shares, copies included: what goes in or comes out never
 * aliases what is stored.
 *
 * @param makeStore an empty store, made before each test.
 */
export function describeTaskStoreContract(
  name: string,
  makeStore: () => Promise<McpTaskStore>,
  probes: TaskStoreProbes,
): void {
  describe(`${name} (McpTaskStore contract)`, () => {
    let store: McpTaskStore;
    let now: number;
    const task = (id: string, overrides: Partial<McpTaskRecord> = {}): McpTaskRecord => taskRecord(id, now, overrides);

    beforeEach(async () => {
      store = await makeStore();
      now = Date.now();
    });

    it('stores a task and reads it back by id; an unknown id reads as undefined', async () => {
      const record = task('task_a', {
        sessionId: 's1',
        owner: 'session:s1',
        era: 'legacy',
        revision: '2025-11-25',
        statusMessage: 'step ü',
        result: { content: [{ type: 'text', text: 'done' }], structuredContent: { n: 2.5, flag: false, none: null } },
        inputRequests: { q1: { method: 'elicitation/create', params: { message: '?' } } },
        error: { code: -32603, message: 'boom', data: { detail: [1, 2] } },
      });
      await store.create(record);
      await expect(store.get('task_a')).resolves.toEqual(record);
      await expect(store.get('task_missing')).resolves.toBeUndefined();
    });

    it('keeps its own copy: changing the created object or a read one does not change the store', async () => {
      const record = task('task_a', { result: { content: [] } });
      await store.create(record);
      record.status = 'failed';
      record.statusMessage = 'changed by the caller';
      (record.result!.content as unknown[]).push('changed');

      const read = (await store.get('task_a'))!;
      expect(read.status).toBe('working');
      expect(read.statusMessage).toBeUndefined();
      expect(read.result).toEqual({ content: [] });
      read.status = 'completed';
      read.expiresAt = 0;
      (read.result!.content as unknown[]).push('changed');

      await expect(store.get('task_a')).resolves.toMatchObject({
        status: 'working',
        expiresAt: now + 60_000,
        result: { content: [] },
      });
      const listed = await store.list('principal:alice');
      listed[0].status = 'cancelled';
      await expect(store.get('task_a')).resolves.toMatchObject({ status: 'working' });
      const [due] = await store.due(now + 100_000);
      due.status = 'cancelled';
      await expect(store.get('task_a')).resolves.toMatchObject({ status: 'working' });
    });

    describe('update', () => {
      it('stores what the change returns and resolves with it', async () => {
        await store.create(task('task_a'));
        const updated = await store.update('task_a', (current) => ({
          ...current,
          status: 'completed',
          updatedAt: now + 2_000,
          result: { content: [{ type: 'text', text: 'ok' }] },
        }));
        expect(updated).toEqual(
          task('task_a', {
            status: 'completed',
            updatedAt: now + 2_000,
            result: { content: [{ type: 'text', text: 'ok' }] },
          }),
        );
        await expect(store.get('task_a')).resolves.toEqual(updated);
      });

      it('passes the current task to the change', async () => {
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
        expect(seen[0]).toEqual(task('task_a', { statusMessage: 'step 1' }));
      });

      it('removes a field the change deletes', async () => {
        await store.create(task('task_a', { status: 'input_required', inputRequests: { q: { a: 1 } } }));
        await store.update('task_a', (current) => {
          const next = { ...current, status: 'working' as const };
          delete next.inputRequests;
          return next;
        });
        const read = (await store.get('task_a'))!;
        expect(read.status).toBe('working');
        expect('inputRequests' in read).toBe(false);
      });

      it('leaves the task as it is when the change returns undefined, resolving undefined', async () => {
        const record = task('task_a');
        await store.create(record);
        await expect(store.update('task_a', () => undefined)).resolves.toBeUndefined();
        await expect(store.get('task_a')).resolves.toEqual(record);
      });

      it('does not let the change mutate the stored task in place', async () => {
        await store.create(task('task_a', { result: { content: [] } }));
        await store.update('task_a', (current) => {
          current.status = 'failed';
          (current.result!.content as unknown[]).push('changed');
          return undefined;
        });
        await expect(store.get('task_a')).resolves.toMatchObject({ status: 'working', result: { content: [] } });
      });

      it('returns a deep copy: changing what update resolved with does not change the store', async () => {
        await store.create(task('task_a'));
        const returned = task('task_a', { status: 'input_required', inputRequests: { q: { n: 1 } } });
        const updated = (await store.update('task_a', () => returned))!;
        expect(updated).not.toBe(returned);
        updated.status = 'cancelled';
        (updated.inputRequests!.q as { n: number }).n = 2;
        returned.status = 'failed';
        (returned.inputRequests!.q as { n: number }).n = 3;
        await expect(store.get('task_a')).resolves.toMatchObject({
          status: 'input_required',
          inputRequests: { q: { n: 1 } },
        });
      });

      it('resolves undefined for an unknown task without calling the change', async () => {
        const change = jest.fn((current: McpTaskRecord) => current);
        await expect(store.update('task_missing', change)).resolves.toBeUndefined();
        expect(change).not.toHaveBeenCalled();
        await expect(store.get('task_missing')).resolves.toBeUndefined();
      });

      it('applies concurrent changes one after the other, none lost', async () => {
        await store.create(task('task_a', { statusMessage: '0' }));
        await Promise.all(
          Array.from({ length: 10 }, () =>
            store.update('task_a', (current) => ({
              ...current,
              statusMessage: String(Number(current.statusMessage) + 1),
            })),
          ),
        );
        await expect(store.get('task_a')).resolves.toMatchObject({ statusMessage: '10' });
      });
    });

    describe('delete', () => {
      it('removes the task from reads, its owner list, the live count and the due list', async () => {
        await store.create(task('task_a'));
        await store.create(task('task_b'));
        await store.delete('task_a');
        await expect(store.get('task_a')).resolves.toBeUndefined();
        expect(ids(await store.list('principal:alice'))).toEqual(['task_b']);
        await expect(store.countLive('principal:alice')).resolves.toBe(1);
        expect(ids(await store.due(now + 100_000))).toEqual(['task_b']);
        await expect(store.update('task_a', (current) => current)).resolves.toBeUndefined();
      });

      it('ignores an unknown id and leaves an owner with no task empty', async () => {
        await expect(store.delete('task_missing')).resolves.toBeUndefined();
        await store.create(task('task_a'));
        await store.delete('task_a');
        await store.delete('task_a');
        await expect(store.list('principal:alice')).resolves.toEqual([]);
        await expect(store.countLive('principal:alice')).resolves.toBe(0);
        await expect(store.due(now + 100_000)).resolves.toEqual([]);
        // The owner can have tasks again.
        await store.create(task('task_c'));
        expect(ids(await store.list('principal:alice'))).toEqual(['task_c']);
      });
    });

    describe('list', () => {
      it('lists only the tasks of the owner, sorted by id whatever the creation order', async () => {
        for (const id of ['task_c', 'task_a', 'task_e', 'task_b']) {
          await store.create(task(id));
        }
        await store.create(task('task_d', { owner: 'session:s1', era: 'legacy', revision: '2025-11-25' }));
        expect(ids(await store.list('principal:alice'))).toEqual(['task_a', 'task_b', 'task_c', 'task_e']);
        const [legacy] = await store.list('session:s1');
        expect(legacy).toEqual(task('task_d', { owner: 'session:s1', era: 'legacy', revision: '2025-11-25' }));
        await expect(store.list('principal:nobody')).resolves.toEqual([]);
      });

      it('lists tasks as they are now, terminal ones included', async () => {
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
        const statuses: McpTaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled', 'working'];
        for (const [index, status] of statuses.entries()) {
          await store.create(task(`task_${index}`, { status }));
        }
        await store.create(task('task_other', { owner: 'principal:bob' }));
        await expect(store.countLive('principal:alice')).resolves.toBe(3);
        await expect(store.countLive('principal:bob')).resolves.toBe(1);
        await expect(store.countLive('principal:nobody')).resolves.toBe(0);
      });

      it('follows updates to and between statuses', async () => {
        await store.create(task('task_a'));
        await store.create(task('task_b'));
        await expect(store.countLive('principal:alice')).resolves.toBe(2);
        await store.update('task_a', (current) => ({ ...current, status: 'input_required' }));
        await expect(store.countLive('principal:alice')).resolves.toBe(2);
        await store.update('task_a', (current) => ({ ...current, status: 'cancelled' }));
        await expect(store.countLive('principal:alice')).resolves.toBe(1);
        await store.delete('task_b');
        await expect(store.countLive('principal:alice')).resolves.toBe(0);
      });
    });

    describe('due', () => {
      it('returns the tasks whose expiry is at or before now, of every owner', async () => {
        await store.create(task('task_early', { expiresAt: now + 5_000 }));
        await store.create(task('task_exact', { expiresAt: now + 10_000, owner: 'session:s1', status: 'completed' }));
        await store.create(task('task_late', { expiresAt: now + 10_001 }));
        const due = await store.due(now + 10_000);
        expect(ids(due).sort()).toEqual(['task_early', 'task_exact']);
        expect(due.find((record) => record.id === 'task_exact')).toEqual(
          task('task_exact', { expiresAt: now + 10_000, owner: 'session:s1', status: 'completed' }),
        );
        await expect(store.due(now + 4_999)).resolves.toEqual([]);
      });

      it('returns a task already past its expiry', async () => {
        await store.create(task('task_old', { expiresAt: now - 1_000 }));
        expect(ids(await store.due(now))).toEqual(['task_old']);
      });

      it('follows an expiry moved by an update', async () => {
        await store.create(task('task_a', { expiresAt: now + 5_000 }));
        await store.update('task_a', (current) => ({ ...current, expiresAt: now + 50_000 }));
        await expect(store.due(now + 10_000)).resolves.toEqual([]);
        expect(ids(await store.due(now + 50_000))).toEqual(['task_a']);
        await store.update('task_a', (current) => ({ ...current, expiresAt: now - 1 }));
        expect(ids(await store.due(now))).toEqual(['task_a']);
      });
    });

    describe('createWithin (the live cap per quota key)', () => {
      const quota = (id: string, quotaKey: string, overrides: Partial<McpTaskRecord> = {}) =>
        task(id, { owner: 'principal:anonymous', quotaKey, ...overrides });

      it('creates up to the cap of live tasks of a quota key, then refuses without storing', async () => {
        await expect(store.createWithin!(quota('task_a', 'principal:anonymous@10.0.0.1'), 2)).resolves.toBe(true);
        await expect(store.createWithin!(quota('task_b', 'principal:anonymous@10.0.0.1'), 2)).resolves.toBe(true);
        await expect(store.createWithin!(quota('task_c', 'principal:anonymous@10.0.0.1'), 2)).resolves.toBe(false);
        await expect(store.get('task_c')).resolves.toBeUndefined();
        await expect(store.get('task_a')).resolves.toEqual(quota('task_a', 'principal:anonymous@10.0.0.1'));
        // The owner is shared, the quota is not: another address has its own.
        await expect(store.createWithin!(quota('task_d', 'principal:anonymous@10.0.0.2'), 2)).resolves.toBe(true);
        expect(ids(await store.list('principal:anonymous'))).toEqual(['task_a', 'task_b', 'task_d']);
      });

      it('counts a task without a quota key under its owner', async () => {
        await store.createWithin!(task('task_a'), 1);
        await expect(store.createWithin!(task('task_b'), 1)).resolves.toBe(false);
        await expect(store.createWithin!(task('task_c', { owner: 'principal:bob' }), 1)).resolves.toBe(true);
      });

      it('frees a place when a task ends or is deleted; ended tasks never count', async () => {
        await store.createWithin!(quota('task_a', 'k'), 2);
        await store.createWithin!(quota('task_b', 'k'), 2);
        await store.update('task_a', (current) => ({ ...current, status: 'completed' }));
        await expect(store.createWithin!(quota('task_c', 'k'), 2)).resolves.toBe(true);
        await expect(store.createWithin!(quota('task_d', 'k'), 2)).resolves.toBe(false);
        await store.delete('task_b');
        await expect(store.createWithin!(quota('task_d', 'k'), 2)).resolves.toBe(true);
        await expect(store.createWithin!(quota('task_e', 'k', { status: 'failed' }), 2)).resolves.toBe(true);
      });

      it('lets no more than the cap through when many create at once', async () => {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, index) => store.createWithin!(quota(`task_${index}`, 'k'), 4)),
        );
        expect(answers.filter(Boolean)).toHaveLength(4);
      });

      it("does work that does not grow with the quota key's ended tasks", async () => {
        const work = async (ended: number): Promise<number> => {
          for (let first = 0; first < ended; first += 500) {
            await Promise.all(
              Array.from({ length: Math.min(500, ended - first) }, (_, index) =>
                store.create(quota(`task_old_${ended}_${first + index}`, 'k', { status: 'completed' })),
              ),
            );
          }
          return probes.work(() => store.createWithin!(quota(`task_new_${ended}`, 'k'), 100));
        };
        const few = await work(1);
        const many = await work(5_000);
        // A walk over the key's tasks would do thousands more; allow a little noise.
        expect(many).toBeLessThanOrEqual(few + 5);
      });
    });

    describe('trimEnded (the kept cap per quota key)', () => {
      const quota = (id: string, quotaKey: string, overrides: Partial<McpTaskRecord> = {}) =>
        task(id, { owner: 'principal:anonymous', quotaKey, ...overrides });
      const end = (id: string, at: number) =>
        store.update(id, (current) => ({ ...current, status: 'completed', updatedAt: at }));

      it('deletes the tasks that ended first beyond the cap, and leaves live tasks and other keys alone', async () => {
        for (const id of ['task_a', 'task_b', 'task_c', 'task_d', 'task_live']) {
          await store.create(quota(id, 'k'));
        }
        await store.create(quota('task_other', 'other', { status: 'cancelled' }));
        await end('task_c', now + 1);
        await end('task_a', now + 2);
        await end('task_d', now + 3);
        await end('task_b', now + 4);
        await expect(store.trimEnded!('k', 2)).resolves.toBe(2);
        expect(ids(await store.list('principal:anonymous'))).toEqual(['task_b', 'task_d', 'task_live', 'task_other']);
        await expect(store.get('task_c')).resolves.toBeUndefined();
        expect(ids(await store.due(now + 100_000)).sort()).toEqual(['task_b', 'task_d', 'task_live', 'task_other']);
        await expect(store.trimEnded!('k', 2)).resolves.toBe(0);
        await expect(store.trimEnded!('nobody', 2)).resolves.toBe(0);
      });

      it('counts a task stored as ended, and forgets a deleted one', async () => {
        await store.create(quota('task_a', 'k', { status: 'failed' }));
        await store.create(quota('task_b', 'k', { status: 'failed' }));
        await store.delete('task_a');
        await expect(store.trimEnded!('k', 1)).resolves.toBe(0);
        await expect(store.get('task_b')).resolves.toMatchObject({ status: 'failed' });
      });
    });
  });
}
