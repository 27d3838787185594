import { CallScope } from './calls/call-scope';
import { InflightRequests } from './inflight-requests';
import type { ResolvedRequest } from './calls/resolved-request';
import { MethodTable } from './methods';

/** The parts of a request the running list reads. */
function request(method: string, id: number, cancelScope?: string): ResolvedRequest {
  return { id, method, scope: new CallScope(), facts: { cancelScope } } as unknown as ResolvedRequest;
}

describe('InflightRequests', () => {
  it('counts what runs, and forgets each request once it ends, in any order', () => {
    const running = new InflightRequests(0, new MethodTable());
    const [a, b, c] = [request('tools/call', 1), request('tools/call', 2), request('prompts/get', 3)];
    [a, b, c].forEach((each) => running.track(each));
    expect(running.size).toBe(3);
    running.untrack(b);
    expect(running.size).toBe(2);
    running.untrack(a);
    running.untrack(c);
    expect(running.size).toBe(0);
  });

  it('counts a request tracked twice once, and a second untrack does nothing', () => {
    const running = new InflightRequests(0, new MethodTable());
    const call = request('tools/call', 1);
    running.track(call);
    running.track(call);
    expect(running.size).toBe(1);
    running.untrack(call);
    running.untrack(call);
    expect(running.size).toBe(0);
  });

  it('tells the long-lived requests (subscriptions/listen) apart', () => {
    const running = new InflightRequests(0, new MethodTable());
    running.track(request('subscriptions/listen', 1));
    running.track(request('tools/call', 2));
    const listen = request('subscriptions/listen', 3);
    running.track(listen);
    expect(running.longLived).toBe(2);
    running.untrack(listen);
    expect(running.longLived).toBe(1);
  });

  it('aborts every running request, the ones between others included, and says how many', () => {
    const running = new InflightRequests(0, new MethodTable());
    const calls = [1, 2, 3].map((id) => request('tools/call', id));
    calls.forEach((call) => running.track(call));
    running.untrack(calls[1]);
    const reason = new Error('stopping');
    expect(running.abortAll(reason)).toBe(2);
    expect(calls.map((call) => call.scope.aborted)).toEqual([true, false, true]);
    expect(calls[0].scope.reason).toBe(reason);
  });

  it('resolves whenIdle once the last request ends, at once when none runs', async () => {
    const running = new InflightRequests(0, new MethodTable());
    await running.whenIdle();
    const calls = [request('tools/call', 1), request('tools/call', 2)];
    calls.forEach((call) => running.track(call));
    let idle = false;
    const waiting = running.whenIdle().then(() => (idle = true));
    running.untrack(calls[0]);
    await Promise.resolve();
    expect(idle).toBe(false);
    running.untrack(calls[1]);
    await waiting;
    expect(idle).toBe(true);
  });

  it('finds a request of a cancel scope while it runs, and not after', () => {
    const running = new InflightRequests(0, new MethodTable());
    const call = request('tools/call', 7, 'session-1');
    running.track(call);
    expect(running.find('session-1', 7)).toBe(call.scope);
    expect(running.runningIn('session-1')).toBe(1);
    running.untrack(call);
    expect(running.find('session-1', 7)).toBeUndefined();
    expect(running.runningIn('session-1')).toBe(0);
  });

  it('untracks a request of a cancel scope without touching another request of the same id', () => {
    const running = new InflightRequests(0, new MethodTable());
    const first = request('tools/call', 7, 'session-1');
    const again = request('tools/call', 7, 'session-1');
    running.track(first);
    // The same id again in the same scope (a client reusing an id) takes its place in the scope.
    running.track(again);
    running.untrack(first);
    expect(running.find('session-1', 7)).toBe(again.scope);
    running.untrack(again);
    expect(running.runningIn('session-1')).toBe(0);
  });
});
