import { CallScope } from './call-scope';

describe('CallScope.abandon', () => {
  it('aborts a signal that was read before', () => {
    const scope = new CallScope();
    const { signal } = scope;
    const reason = new Error('handed off and cancelled');
    scope.abandon(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(scope.finished).toBe(true);
    expect(scope.aborted).toBe(false);
  });

  it('gives an aborted signal to a handler that reads it only afterwards', () => {
    const scope = new CallScope();
    const reason = new Error('cancelled');
    scope.abandon(reason);
    expect(scope.signal.aborted).toBe(true);
    expect(scope.signal.reason).toBe(reason);
  });

  it('aborts a finished scope (a call that left its request for a task)', () => {
    const scope = new CallScope();
    const { signal } = scope;
    scope.finish();
    scope.abort(new Error('ignored: the request is answered'));
    expect(signal.aborted).toBe(false);
    scope.abandon(new Error('the task was cancelled'));
    expect(signal.aborted).toBe(true);
  });

  it('keeps the first reason', () => {
    const scope = new CallScope();
    const first = new Error('first');
    scope.abandon(first);
    scope.abandon(new Error('second'));
    expect(scope.signal.reason).toBe(first);
  });
});

describe('CallScope.run', () => {
  it('returns what synchronous work returns, without a promise, and throws what it throws', () => {
    const scope = new CallScope();
    expect(scope.run(() => 42)).toBe(42);
    const failure = new Error('at once');
    expect(() =>
      new CallScope().run(() => {
        throw failure;
      }),
    ).toThrow(failure);
  });

  it('throws the reason of a stop during synchronous work, whatever the work returns', () => {
    const scope = new CallScope();
    const reason = new Error('input required');
    expect(() =>
      scope.run(() => {
        scope.interrupt(reason);
        scope.interrupt(new Error('second'));
        return 'dropped';
      }),
    ).toThrow(reason);
  });

  it('settles asynchronous work early, rejected with the reason, when the scope is aborted', async () => {
    const scope = new CallScope();
    const running = scope.run(() => new Promise<string>(() => undefined));
    expect(running).toBeInstanceOf(Promise);
    const reason = new Error('client went away');
    scope.abort(reason);
    await expect(running).rejects.toBe(reason);
  });

  it('never runs work for a scope aborted before', async () => {
    const scope = new CallScope();
    scope.abort(new Error('lost'));
    const work = jest.fn(() => 1);
    await expect(scope.run(work)).rejects.toThrow('lost');
    expect(work).not.toHaveBeenCalled();
  });
});
