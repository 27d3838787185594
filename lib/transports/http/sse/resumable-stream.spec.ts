import type { JSONRPCMessage } from '../../../protocol/messages/json-rpc';
import type { McpReplayEvent } from '../../../interfaces/replay-store.interface';
import type { SseStream } from '../http-exchange';
import { ResumableStream } from './resumable-stream';
import { flush } from '../../../../test/support/waiting';

/** What a connection was asked to write, in order. */
interface Written {
  id: string;
  message?: JSONRPCMessage;
  retryMs?: number;
}

/**
 * A stand-in for an SSE connection: records writes, and closes like the real one; `full` makes
 * its writes wait for `drain()`, as a client that does not read.
 */
function fakeConnection(full = false): {
  connection: SseStream;
  written: Written[];
  ended: () => boolean;
  drain: () => void;
} {
  const written: Written[] = [];
  const listeners: Array<() => void> = [];
  const waiting: Array<(drained: boolean) => void> = [];
  let closed = false;
  const settle = (drained: boolean): void => waiting.splice(0).forEach((resolve) => resolve(drained));
  const connection = {
    send: (message: JSONRPCMessage, id: string) => !closed && written.push({ id, message }) > 0 && !full,
    prime: (id: string, retryMs: number) => !closed && written.push({ id, retryMs }) > 0 && !full,
    drained: () =>
      closed || !full ? Promise.resolve(!closed) : new Promise<boolean>((resolve) => waiting.push(resolve)),
    onClose: (listener: () => void) => listeners.push(listener),
    end: () => {
      if (!closed) {
        closed = true;
        settle(false);
        listeners.splice(0).forEach((listener) => listener());
      }
    },
  };
  return {
    connection: connection as unknown as SseStream,
    written,
    ended: () => closed,
    drain: () => settle(true),
  };
}

function host() {
  const recorded: McpReplayEvent[] = [];
  return {
    recorded,
    record: jest.fn((_sessionId: string, event: McpReplayEvent, _data: string) => void recorded.push(event)),
    forget: jest.fn(),
    lost: jest.fn(),
  };
}

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { n },
});

describe('ResumableStream', () => {
  it('numbers its events, buffers each one and writes it to the attached connection', () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'request', 0);
    const { connection, written } = fakeConnection();
    stream.connect(connection);
    stream.prime(500);
    stream.send(note(1));
    expect(written).toEqual([
      { id: 'aaaa:0', retryMs: 500 },
      { id: 'aaaa:1', message: note(1) },
    ]);
    expect(owner.recorded).toEqual([
      { streamId: 'aaaa', seq: 0 },
      { streamId: 'aaaa', seq: 1, message: note(1) },
    ]);
  });

  it('serializes a message once: the buffer and the connection are given the same JSON', () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'request', 0);
    const sent: Array<string | undefined> = [];
    const { connection } = fakeConnection();
    stream.connect({
      ...connection,
      send: (_message: JSONRPCMessage, _id: string, data?: string) => sent.push(data) > 0,
    } as unknown as SseStream);
    stream.prime(0);
    stream.send(note(1));
    expect(owner.record.mock.calls.map(([, , data]) => data)).toEqual(['', JSON.stringify(note(1))]);
    expect(sent).toEqual([JSON.stringify(note(1))]);
  });

  it('keeps buffering after disconnect(), without telling the host the client left', () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'request', 0);
    const { connection, written, ended } = fakeConnection();
    stream.connect(connection);
    stream.disconnect();
    expect(ended()).toBe(true);
    expect(owner.lost).not.toHaveBeenCalled();
    expect(stream.send(note(1))).toBe(false);
    expect(written).toEqual([]);
    expect(owner.recorded).toHaveLength(1);
  });

  it('tells the host when the client closes the connection', () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'session', 0);
    const { connection } = fakeConnection();
    stream.connect(connection);
    connection.end();
    expect(owner.lost).toHaveBeenCalledWith(stream);
  });

  it('on resume, writes the replayed events, then those sent while the buffer was read, each once', async () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'request', 3);
    stream.hold();
    stream.send(note(3)); // seq 3: sent while the buffer is read, and also found there
    stream.send(note(4)); // seq 4: sent after the buffer was read
    const replayed: McpReplayEvent[] = [
      { streamId: 'aaaa', seq: 2, message: note(2) },
      { streamId: 'aaaa', seq: 3, message: note(3) },
    ];
    const { connection, written } = fakeConnection();
    stream.resume(connection, replayed, 1);
    stream.send(note(5)); // seq 5: sent while the replay is written
    await flush();
    stream.send(note(6));
    expect(written.map((entry) => entry.id)).toEqual(['aaaa:2', 'aaaa:3', 'aaaa:4', 'aaaa:5', 'aaaa:6']);
  });

  it('skips what the client already has, and ends a resumed connection once the stream has ended', async () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'request', 5);
    stream.hold();
    stream.send(note(5));
    stream.end();
    expect(owner.forget).toHaveBeenCalledWith(stream);
    const { connection, written, ended } = fakeConnection();
    stream.resume(connection, [{ streamId: 'aaaa', seq: 4, message: note(4) }], 4);
    await flush();
    expect(written.map((entry) => entry.id)).toEqual(['aaaa:5']);
    expect(ended()).toBe(true);
    expect(stream.ended).toBe(true);
  });

  it('lets go of the previous connection on hold, and sends nothing after the end', () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'session', 0);
    const first = fakeConnection();
    stream.connect(first.connection);
    stream.hold();
    expect(first.ended()).toBe(true);
    expect(owner.lost).not.toHaveBeenCalled();
    stream.release();
    stream.end();
    expect(stream.send(note(1))).toBe(false);
    expect(owner.recorded).toEqual([]);
  });

  it('replays at the pace the client reads: the next event once the connection drained', async () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'request', 4);
    stream.hold();
    const { connection, written, drain } = fakeConnection(true);
    stream.resume(
      connection,
      [1, 2, 3].map((seq) => ({ streamId: 'aaaa', seq, message: note(seq) })),
      0,
    );
    stream.send(note(4));
    await flush();
    expect(written.map((entry) => entry.id)).toEqual(['aaaa:1']);
    drain();
    await flush();
    expect(written.map((entry) => entry.id)).toEqual(['aaaa:1', 'aaaa:2']);
    drain();
    await flush();
    drain();
    await flush();
    // The replay is written: held events follow, then the connection carries the stream.
    expect(written.map((entry) => entry.id)).toEqual(['aaaa:1', 'aaaa:2', 'aaaa:3', 'aaaa:4']);
    drain();
    await flush();
    stream.send(note(5));
    expect(written.map((entry) => entry.id)).toEqual(['aaaa:1', 'aaaa:2', 'aaaa:3', 'aaaa:4', 'aaaa:5']);
  });

  it('stops a replay whose client left, as when a connected client leaves', async () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'session', 3);
    const { connection, written } = fakeConnection(true);
    stream.resume(
      connection,
      [1, 2].map((seq) => ({ streamId: 'aaaa', seq, message: note(seq) })),
      0,
    );
    await flush();
    connection.end();
    await flush();
    expect(written.map((entry) => entry.id)).toEqual(['aaaa:1']);
    expect(owner.lost).toHaveBeenCalledWith(stream);
    // Events go on to the buffer only.
    expect(stream.send(note(3))).toBe(false);
    expect(owner.recorded.map((event) => event.seq)).toEqual([3]);
  });

  it('lets a second resume take over a replay still being written', async () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'request', 3);
    const replayed = [1, 2].map((seq) => ({
      streamId: 'aaaa',
      seq,
      message: note(seq),
    }));
    const first = fakeConnection(true);
    stream.resume(first.connection, replayed, 0);
    await flush();
    stream.hold();
    expect(first.ended()).toBe(true);
    stream.send(note(3));
    const second = fakeConnection();
    stream.resume(second.connection, replayed, 1);
    await flush();
    expect(first.written.map((entry) => entry.id)).toEqual(['aaaa:1']);
    expect(second.written.map((entry) => entry.id)).toEqual(['aaaa:2', 'aaaa:3']);
    expect(owner.lost).not.toHaveBeenCalled();
    stream.send(note(4));
    expect(second.written.map((entry) => entry.id)).toEqual(['aaaa:2', 'aaaa:3', 'aaaa:4']);
  });

  it('lets a replay write the answer of a stream that ends meanwhile, but not outlive a disconnect or its session', async () => {
    const owner = host();
    const answered = new ResumableStream(owner, 's1', 'aaaa', 'request', 2);
    const first = fakeConnection(true);
    answered.resume(first.connection, [{ streamId: 'aaaa', seq: 1, message: note(1) }], 0);
    answered.send(note(2));
    answered.end();
    await flush();
    expect(first.written.map((entry) => entry.id)).toEqual(['aaaa:1']);
    first.drain();
    await flush();
    expect(first.written.map((entry) => entry.id)).toEqual(['aaaa:1', 'aaaa:2']);
    first.drain();
    await flush();
    expect(first.ended()).toBe(true);

    for (const stop of ['disconnect', 'close'] as const) {
      const stream = new ResumableStream(owner, 's1', 'bbbb', 'session', 2);
      const { connection, written, ended } = fakeConnection(true);
      stream.resume(connection, [{ streamId: 'bbbb', seq: 1, message: note(1) }], 0);
      await flush();
      stream[stop]();
      expect(ended()).toBe(true);
      stream.send(note(2));
      await flush();
      expect(written.map((entry) => entry.id)).toEqual(['bbbb:1']);
      expect(stream.ended).toBe(stop === 'close');
    }
    expect(owner.lost).not.toHaveBeenCalled();
  });
});
