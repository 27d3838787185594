import { TaskRelay, type WorkOutcome } from './task-relay';

/** A relay following `work`, as `runEscalating` sets one up. */
function following<T, H>(work: Promise<T>): TaskRelay<T, H> {
  const relay = new TaskRelay<T, H>();
  relay.follow(work);
  return relay;
}

/** A promise settled from outside. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run. */
function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A sink that records what it was given. */
function recorder<T>() {
  const received: Array<WorkOutcome<T>> = [];
  return { received, sink: (outcome: WorkOutcome<T>) => void received.push(outcome) };
}

describe('TaskRelay', () => {
  describe('outcome within the window', () => {
    it('answers in place with the value when the work ends first', async () => {
      const work = deferred<string>();
      const relay = following<string, string>(work.promise);
      const window = relay.window(10_000);
      work.resolve('done');
      await expect(window).resolves.toEqual({ ok: true, value: 'done' });
      expect(relay.handedOff).toBe(false);
    });

    it('answers in place with the error when the work fails first', async () => {
      const work = deferred<string>();
      const relay = following<string, string>(work.promise);
      const window = relay.window(10_000);
      const failure = new Error('boom');
      work.reject(failure);
      await expect(window).resolves.toEqual({ ok: false, error: failure });
      expect(relay.handedOff).toBe(false);
    });

    it('answers at once with an outcome that came before the window was opened', async () => {
      const relay = following<string, string>(Promise.resolve('early'));
      await flush();
      await expect(relay.window(10_000)).resolves.toEqual({ ok: true, value: 'early' });
      expect(relay.handedOff).toBe(false);
    });

    it('does not hand off after an inline outcome: handOff gives nothing to the sink', async () => {
      const relay = following<string, string>(Promise.resolve('inline'));
      await expect(relay.window(1)).resolves.toEqual({ ok: true, value: 'inline' });
      await delay(10);
      const { received, sink } = recorder<string>();
      relay.handOff('task-1', sink);
      await flush();
      expect(received).toEqual([]);
      expect(relay.handedOff).toBe(false);
      expect(relay.claimInline()).toBe(true);
    });
  });

  describe('window closed first', () => {
    it('resolves the window with undefined and holds a later outcome until handOff, delivering it once', async () => {
      const work = deferred<string>();
      const relay = following<string, string>(work.promise);
      await expect(relay.window(1)).resolves.toBeUndefined();
      expect(relay.handedOff).toBe(true);

      work.resolve('late');
      await flush();
      const { received, sink } = recorder<string>();
      relay.handOff('task-1', sink);
      expect(received).toEqual([{ ok: true, value: 'late' }]);
      await expect(relay.task()).resolves.toBe('task-1');

      // A second hand-off neither re-delivers nor replaces the sink.
      const second = recorder<string>();
      relay.handOff('task-2', second.sink);
      await flush();
      expect(received).toHaveLength(1);
      expect(second.received).toEqual([]);
      await expect(relay.task()).resolves.toBe('task-1');
    });

    it('sends an outcome that comes after the hand-off straight to the sink', async () => {
      const work = deferred<string>();
      const relay = following<string, string>(work.promise);
      await expect(relay.window(1)).resolves.toBeUndefined();
      const { received, sink } = recorder<string>();
      relay.handOff('task-1', sink);
      expect(received).toEqual([]);

      const failure = new Error('failed in the task');
      work.reject(failure);
      await flush();
      expect(received).toEqual([{ ok: false, error: failure }]);
      expect(relay.handedOff).toBe(true);
    });

    it('keeps task() pending until the hand-off', async () => {
      const work = deferred<string>();
      const relay = following<string, string>(work.promise);
      await relay.window(1);
      const settled = jest.fn();
      void relay.task().then(settled, settled);
      await flush();
      expect(settled).not.toHaveBeenCalled();
      relay.handOff('task-1', () => undefined);
      await flush();
      expect(settled).toHaveBeenCalledWith('task-1');
    });
  });

  describe('claimInline', () => {
    it('keeps the call in its request when claimed within the window: the window never closes on time', async () => {
      const work = deferred<string>();
      const relay = following<string, string>(work.promise);
      const settled = jest.fn();
      const window = relay.window(5);
      void window.then(settled);
      expect(relay.claimInline()).toBe(true);
      await delay(30);
      expect(settled).not.toHaveBeenCalled();
      expect(relay.handedOff).toBe(false);
      // Claiming again is allowed and changes nothing.
      expect(relay.claimInline()).toBe(true);

      work.resolve('answered in place');
      await expect(window).resolves.toEqual({ ok: true, value: 'answered in place' });
      expect(relay.handedOff).toBe(false);
    });

    it('refuses once the window closed, and after the hand-off', async () => {
      const work = deferred<string>();
      const relay = following<string, string>(work.promise);
      await expect(relay.window(1)).resolves.toBeUndefined();
      expect(relay.claimInline()).toBe(false);
      expect(relay.handedOff).toBe(true);

      const { received, sink } = recorder<string>();
      relay.handOff('task-1', sink);
      expect(relay.claimInline()).toBe(false);
      work.resolve('to the task');
      await flush();
      // The refused claim did not divert the outcome from the task.
      expect(received).toEqual([{ ok: true, value: 'to the task' }]);
    });

    it('claimed before the window opens (a question asked before the first await), the window never closes', async () => {
      const work = deferred<string>();
      const relay = following<string, string>(work.promise);
      expect(relay.claimInline()).toBe(true);
      const settled = jest.fn();
      const window = relay.window(1);
      void window.then(settled);
      await delay(20);
      expect(settled).not.toHaveBeenCalled();
      expect(relay.handedOff).toBe(false);
      work.resolve('in place');
      await expect(window).resolves.toEqual({ ok: true, value: 'in place' });
    });

    it('makes a later hand-off a no-op', async () => {
      const work = deferred<string>();
      const relay = following<string, string>(work.promise);
      expect(relay.claimInline()).toBe(true);
      const { received, sink } = recorder<string>();
      relay.handOff('task-1', sink);
      work.resolve('inline');
      await flush();
      expect(received).toEqual([]);
      expect(relay.handedOff).toBe(false);
    });
  });

  describe('drop', () => {
    it('rejects task() with the reason and loses the held outcome', async () => {
      const work = deferred<string>();
      const relay = following<string, string>(work.promise);
      await expect(relay.window(1)).resolves.toBeUndefined();
      work.resolve('nobody hears this');
      await flush();
      const reason = new Error('Too many tasks');
      relay.drop(reason);
      await expect(relay.task()).rejects.toBe(reason);

      const { received, sink } = recorder<string>();
      relay.handOff('task-1', sink);
      await flush();
      expect(received).toEqual([]);
      expect(relay.handedOff).toBe(false);
    });

    it('sends an outcome that comes after the drop nowhere', async () => {
      const work = deferred<string>();
      const relay = following<string, string>(work.promise);
      await relay.window(1);
      relay.drop(new Error('client went away'));
      const { received, sink } = recorder<string>();
      relay.handOff('task-1', sink);
      work.reject(new Error('late failure'));
      await flush();
      expect(received).toEqual([]);
      await expect(relay.task()).rejects.toThrow('client went away');
    });
  });

  describe('race at the window edge', () => {
    type Settle = (settle: () => void) => void;
    /** Ways the work can end: timers around the 2 ms window, and event-loop orderings. */
    const settlers: Settle[] = [
      (settle) => settle(),
      (settle) => queueMicrotask(settle),
      (settle) => setImmediate(settle),
      (settle) => process.nextTick(settle),
      (settle) => setTimeout(settle, 0),
      (settle) => setTimeout(settle, 1),
      (settle) => setTimeout(settle, 2),
      (settle) => setTimeout(settle, 2),
      (settle) => setTimeout(settle, 3),
      (settle) => setTimeout(() => setImmediate(settle), 1),
      (settle) => setTimeout(() => queueMicrotask(settle), 2),
    ];
    /** Ways the task can take time to be made before the hand-off. */
    const makers: Settle[] = [
      (done) => done(),
      (done) => queueMicrotask(done),
      (done) => setImmediate(done),
      (done) => setTimeout(done, Math.floor(Math.random() * 3)),
    ];
    const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];

    it('delivers each of 2000 outcomes to exactly one of the inline answer or the task, never both, never neither', async () => {
      const RELAYS = 2000;
      const inline: number[] = new Array<number>(RELAYS).fill(0);
      const toTask: number[] = new Array<number>(RELAYS).fill(0);
      const wrong: string[] = [];
      const works: Array<Promise<unknown>> = [];
      const flows: Array<Promise<void>> = [];

      for (let i = 0; i < RELAYS; i += 1) {
        const fails = i % 5 === 0;
        const work = new Promise<number>((resolve, reject) =>
          pick(settlers)(() => (fails ? reject(new Error(String(i))) : resolve(i))),
        );
        works.push(work.catch(() => undefined));
        const check = (outcome: WorkOutcome<number>) => {
          const ok = fails
            ? !outcome.ok && (outcome.error as Error).message === String(i)
            : outcome.ok && outcome.value === i;
          if (!ok) {
            wrong.push(`relay ${i} got ${JSON.stringify(outcome)}`);
          }
        };
        const relay = following<number, string>(work);
        flows.push(
          relay.window(2).then(async (outcome) => {
            if (outcome !== undefined) {
              inline[i] += 1;
              check(outcome);
              return;
            }
            await new Promise<void>((done) => pick(makers)(done));
            relay.handOff(`task-${i}`, (late) => {
              toTask[i] += 1;
              check(late);
            });
          }),
        );
      }

      await Promise.all(flows);
      await Promise.all(works);
      await flush();

      const problems: string[] = [...wrong];
      for (let i = 0; i < RELAYS; i += 1) {
        if (inline[i] + toTask[i] !== 1) {
          problems.push(`relay ${i}: inline ${inline[i]}, task ${toTask[i]}`);
        }
      }
      expect(problems).toEqual([]);
      // Both sides of the edge were exercised (with margins: the split depends on the machine's load).
      const inlineCount = inline.reduce((sum, n) => sum + n, 0);
      const taskCount = toTask.reduce((sum, n) => sum + n, 0);
      expect(inlineCount).toBeGreaterThan(0);
      expect(taskCount).toBeGreaterThan(0);
      expect(inlineCount + taskCount).toBe(RELAYS);
    });
  });
});
