import type { JsonRpcMessage } from '../../../protocol/json-rpc';
import type { ReplayEvent } from '../../../sessions/replay-store.interface';
import type { SseStream } from '../http-exchange';
import { ResumableStream } from './resumable-stream';

/** What a connection was asked to write, in order. */
interface Written {
  id: string;
  message?: JsonRpcMessage;
  retryMs?: number;
}

/** A stand-in for an SSE connection: records writes, and closes like the real one. */
function fakeConnection(): { connection: SseStream; written: Written[]; ended: () => boolean } {
  const written: Written[] = [];
  const listeners: Array<() => void> = [];
  let closed = false;
  const connection = {
    send: (message: JsonRpcMessage, id: string) => written.push({ id, message }) > 0,
    prime: (id: string, retryMs: number) => written.push({ id, retryMs }) > 0,
    onClose: (listener: () => void) => listeners.push(listener),
    end: () => {
      if (!closed) {
        closed = true;
        listeners.splice(0).forEach((listener) => listener());
      }
    },
  };
  return { connection: connection as unknown as SseStream, written, ended: () => closed };
}

function host() {
  const recorded: ReplayEvent[] = [];
  return {
    recorded,
    record: jest.fn((_sessionId: string, event: ReplayEvent, _data: string) => void recorded.push(event)),
    forget: jest.fn(),
    lost: jest.fn(),
  };
}

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

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
      send: (_message: JsonRpcMessage, _id: string, data?: string) => sent.push(data) > 0,
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

  it('on resume, writes the replayed events, then those sent while the buffer was read, each once', () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'request', 3);
    stream.hold();
    stream.send(note(3)); // seq 3: sent while the buffer is read, and also found there
    stream.send(note(4)); // seq 4: sent after the buffer was read
    const replayed: ReplayEvent[] = [
      { streamId: 'aaaa', seq: 2, message: note(2) },
      { streamId: 'aaaa', seq: 3, message: note(3) },
    ];
    const { connection, written } = fakeConnection();
    stream.resume(connection, replayed, 1);
    stream.send(note(5));
    expect(written.map((entry) => entry.id)).toEqual(['aaaa:2', 'aaaa:3', 'aaaa:4', 'aaaa:5']);
  });

  it('skips what the client already has, and ends a resumed connection once the stream has ended', () => {
    const owner = host();
    const stream = new ResumableStream(owner, 's1', 'aaaa', 'request', 5);
    stream.hold();
    stream.send(note(5));
    stream.end();
    expect(owner.forget).toHaveBeenCalledWith(stream);
    const { connection, written, ended } = fakeConnection();
    stream.resume(connection, [{ streamId: 'aaaa', seq: 4, message: note(4) }], 4);
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
});
