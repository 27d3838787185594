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
