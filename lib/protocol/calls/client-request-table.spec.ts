import { ClientRequestAbandoned, ClientRequestTable } from './client-request-table';
import { failure, success } from '../messages/json-rpc';

function signal() {
  return new AbortController();
}

describe('ClientRequestTable', () => {
  it('resolves the request of the right session with the client answer', async () => {
    const table = new ClientRequestTable();
    const id = table.newId();
    const waiting = table.wait('s1', id, 'roots/list', 0, signal().signal);
    expect(table.deliver('s2', success(id, { roots: [] }))).toBe(false);
    expect(table.deliver('s1', success((id as number) + 1, { roots: [] }))).toBe(false);
    expect(table.deliver('s1', success(id, { roots: [{ uri: 'file:///a' }] }))).toBe(true);
    await expect(waiting).resolves.toEqual({ roots: [{ uri: 'file:///a' }] });
    expect(table.size).toBe(0);
    // Answered once: a second answer is dropped.
    expect(table.deliver('s1', success(id, { roots: [] }))).toBe(false);
  });

  it('rejects with the error the client answered', async () => {
    const table = new ClientRequestTable();
    const waiting = table.wait('s1', 7, 'elicitation/create', 0, signal().signal);
    table.deliver('s1', failure(7, -32600, 'User rejected', { why: 'no' }));
    await expect(waiting).rejects.toMatchObject({ code: -32600, message: 'User rejected', data: { why: 'no' } });
  });

  it('rejects after the timeout', async () => {
    jest.useFakeTimers();
    try {
      const table = new ClientRequestTable();
      const waiting = table.wait('s1', 1, 'sampling/createMessage', 500, signal().signal);
      jest.advanceTimersByTime(500);
      await expect(waiting).rejects.toThrow('did not answer sampling/createMessage within 500 ms');
      await expect(waiting).rejects.toBeInstanceOf(ClientRequestAbandoned);
      expect(table.size).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('rejects when the call is aborted, and when its session ends', async () => {
    const table = new ClientRequestTable();
    const call = signal();
    const aborted = table.wait('s1', 1, 'roots/list', 0, call.signal);
    const ended = table.wait('s2', 2, 'roots/list', 0, signal().signal);
    const other = table.wait('s3', 3, 'roots/list', 0, signal().signal);
    call.abort(new Error('cancelled by the client'));
    table.failScope('s2', 'Session ended');
    await expect(aborted).rejects.toThrow('cancelled by the client');
    await expect(aborted).rejects.toBeInstanceOf(ClientRequestAbandoned);
    await expect(ended).rejects.toThrow('Session ended');
    // The session is gone: nobody is left to tell.
    await expect(ended).rejects.not.toBeInstanceOf(ClientRequestAbandoned);
    expect(table.size).toBe(1);
    table.deliver('s3', success(3, { roots: [] }));
    await expect(other).resolves.toEqual({ roots: [] });
  });

  it('rejects at once when the call is already aborted', async () => {
    const table = new ClientRequestTable();
    const call = signal();
    call.abort(new Error('gone'));
    await expect(table.wait('s1', 1, 'roots/list', 0, call.signal)).rejects.toThrow('gone');
    expect(table.size).toBe(0);
  });

  it('makes string ids under a prefix when given one (several instances), still matched on session and id', async () => {
    const table = new ClientRequestTable('0123456789abcdef.');
    const first = table.newId();
    const second = table.newId();
    expect(first).toBe('0123456789abcdef.1');
    expect(second).toBe('0123456789abcdef.2');
    const waiting = table.wait('s1', second, 'roots/list', 0, signal().signal);
    expect(table.deliver('s1', success(2, { roots: [] }))).toBe(false);
    expect(table.deliver('s2', success(second, { roots: [] }))).toBe(false);
    expect(table.deliver('s1', success(second, { roots: [] }))).toBe(true);
    await expect(waiting).resolves.toEqual({ roots: [] });
  });
});
