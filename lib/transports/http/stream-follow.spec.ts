import type { ClusterLink, ClusterMessage } from '../../cluster/cluster-link.interface';
import type { JSONRPCMessage } from '../../protocol/messages/json-rpc';
import type { McpReplayEvent, McpReplayStore, McpReplayWindow } from '../../interfaces/replay-store.interface';
import type { SseStream } from './http-exchange';
import { ResumableStream } from './sse/resumable-stream';
import { StreamFollows } from './stream-follow';
import { flush } from '../../../test/support/waiting';

const HERE = 'aaaaaaaaaaaaaaaa';
const THERE = 'bbbbbbbbbbbbbbbb';

/** A shared link whose sent messages the test reads. */
function fakeLink(shared = true) {
  const sent: Array<{ to: string; message: ClusterMessage }> = [];
  const link = {
    instanceId: HERE,
    shared,
    send: jest.fn(async (to: string, message: ClusterMessage) => void sent.push({ to, message })),
  };
  return { link: link as unknown as ClusterLink, sent, send: link.send };
}

/** What a connection was asked to write, in order. */
interface Written {
  id?: string;
  message?: JSONRPCMessage;
  retryMs?: number;
}

/** A stand-in for an SSE connection; `full` makes its writes wait for `drain()`, as a client that does not read. */
function fakeConnection(full = false) {
  const written: Written[] = [];
  const listeners: Array<() => void> = [];
  const waiting: Array<(drained: boolean) => void> = [];
  let closed = false;
  const settle = (drained: boolean): void => waiting.splice(0).forEach((resolve) => resolve(drained));
  const connection = {
    get open() {
      return !closed;
    },
    send: (message: JSONRPCMessage, id?: string) => !closed && written.push({ id, message }) > 0 && !full,
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

function store(window: McpReplayWindow): McpReplayStore {
  return { after: jest.fn(async () => window) } as unknown as McpReplayStore;
}

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });
const event = (streamId: string, seq: number, n: number): McpReplayEvent => ({ streamId, seq, message: note(n) });

describe('StreamFollows', () => {
  const logger = { warn: jest.fn() };

  it('finds the instance a request stream of another instance runs on, never this one', () => {
    const { link } = fakeLink();
    const follows = new StreamFollows(link, store({ events: [], found: true }), () => undefined, logger);
    expect(follows.runningElsewhere(`${THERE}01234567`)).toBe(THERE);
    expect(follows.runningElsewhere(`${HERE}01234567`)).toBeUndefined();
    expect(follows.runningElsewhere('0123456789abcdef')).toBeUndefined();
    expect(follows.runningElsewhere(undefined)).toBeUndefined();
    const alone = new StreamFollows(fakeLink(false).link, store({ events: [], found: true }), () => undefined, logger);
    expect(alone.runningElsewhere(`${THERE}01234567`)).toBeUndefined();
  });

  it('follows a stream on its instance: asks for it, writes its events, ends with it', async () => {
    const { link, sent } = fakeLink();
    const follows = new StreamFollows(link, store({ events: [], found: true }), () => undefined, logger);
    const { connection, written, ended } = fakeConnection();
    const streamId = `${THERE}01234567`;
    follows.follow(THERE, 's1', { streamId, seq: 3 }, connection, []);
    await flush();
    expect(sent).toEqual([
      {
        to: THERE,
        message: {
          type: 'stream_follow',
          followId: expect.stringMatching(/^[0-9a-f]{16}$/),
          instanceId: HERE,
          sessionId: 's1',
          streamId,
          afterSeq: 3,
        },
      },
    ]);
    const followId = (sent[0].message as { followId: string }).followId;
    follows.onMessage({ type: 'stream_ack', followId });
    follows.onMessage({ type: 'stream_event', followId, id: `${streamId}:4`, message: note(4) });
    follows.onMessage({ type: 'stream_event', followId, id: `${streamId}:5`, retryMs: 500 });
    follows.onMessage({ type: 'stream_event', followId: 'someone-else', id: `${streamId}:6`, message: note(6) });
    expect(written).toEqual([
      { id: `${streamId}:4`, message: note(4) },
      { id: `${streamId}:5`, retryMs: 500 },
    ]);
    follows.onMessage({ type: 'stream_end', followId });
    expect(ended()).toBe(true);
    // Ended by its owner: nothing to unfollow.
    expect(sent).toHaveLength(1);
    expect(follows.endFollowers()).toBe(0);
  });

  it('tells the owner when the client here goes away, and counts the followers shutdown ends', async () => {
    const { link, sent } = fakeLink();
    const follows = new StreamFollows(link, store({ events: [], found: true }), () => undefined, logger);
    const first = fakeConnection();
    const second = fakeConnection();
    follows.follow(THERE, 's1', { streamId: `${THERE}01234567`, seq: 0 }, first.connection, []);
    follows.follow(THERE, 's1', { streamId: `${THERE}89abcdef`, seq: 0 }, second.connection, []);
    await flush();
    first.connection.end();
    await flush();
    const followId = (sent[0].message as { followId: string }).followId;
    expect(sent[2]).toEqual({ to: THERE, message: { type: 'stream_unfollow', followId } });
    expect(follows.endFollowers()).toBe(1);
    expect(second.ended()).toBe(true);
  });

  it('gives up a follow the owner does not answer', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      const { link } = fakeLink();
      const follows = new StreamFollows(link, store({ events: [], found: true }), () => undefined, logger);
      const { connection, ended } = fakeConnection();
      follows.follow(THERE, 's1', { streamId: `${THERE}01234567`, seq: 0 }, connection, []);
      await flush();
      jest.advanceTimersByTime(4_999);
      expect(ended()).toBe(false);
      jest.advanceTimersByTime(1);
      expect(ended()).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('writes what it read of the stream at the pace the client reads, then follows it from there', async () => {
    const { link, sent } = fakeLink();
    const follows = new StreamFollows(link, store({ events: [], found: true }), () => undefined, logger);
    const { connection, written, drain } = fakeConnection(true);
    const streamId = `${THERE}01234567`;
    follows.follow(THERE, 's1', { streamId, seq: 3 }, connection, [event(streamId, 4, 4), event(streamId, 5, 5)]);
    await flush();
    // The client has not read the first event: the second waits, and so does the follow.
    expect(written).toEqual([{ id: `${streamId}:4`, message: note(4) }]);
    expect(sent).toEqual([]);
    drain();
    await flush();
    expect(written.map((entry) => entry.id)).toEqual([`${streamId}:4`, `${streamId}:5`]);
    expect(sent).toEqual([]);
    drain();
    await flush();
    expect(sent).toEqual([{ to: THERE, message: expect.objectContaining({ type: 'stream_follow', afterSeq: 5 }) }]);
  });

  it('follows nothing for a client that left while what was read is written', async () => {
    const { link, sent } = fakeLink();
    const follows = new StreamFollows(link, store({ events: [], found: true }), () => undefined, logger);
    const { connection } = fakeConnection(true);
    const streamId = `${THERE}01234567`;
    follows.follow(THERE, 's1', { streamId, seq: 3 }, connection, [event(streamId, 4, 4), event(streamId, 5, 5)]);
    await flush();
    connection.end();
    await flush();
    expect(sent).toEqual([]);
    expect(follows.endFollowers()).toBe(0);
  });

  it('serves a follow of a stream that runs here: the buffer after the position, then the live events', async () => {
    const { link, sent } = fakeLink();
    const streamId = `${HERE}01234567`;
    const host = { record: jest.fn(), forget: jest.fn(), lost: jest.fn() };
    const stream = new ResumableStream(host, 's1', streamId, 'request', 3);
    const follows = new StreamFollows(
      link,
      store({ events: [event(streamId, 1, 1), event(streamId, 2, 2)], found: true }),
      (sessionId, id) => (sessionId === 's1' && id === streamId ? stream : undefined),
      logger,
    );
    follows.onMessage({
      type: 'stream_follow',
      followId: 'f1',
      instanceId: THERE,
      sessionId: 's1',
      streamId,
      afterSeq: 1,
    });
    await flush();
    stream.send(note(3));
    stream.end();
    await flush();
    expect(sent.map(({ to, message }) => [to, message])).toEqual([
      [THERE, { type: 'stream_ack', followId: 'f1' }],
      [THERE, { type: 'stream_event', followId: 'f1', id: `${streamId}:2`, message: note(2) }],
      [THERE, { type: 'stream_event', followId: 'f1', id: `${streamId}:3`, message: note(3) }],
      [THERE, { type: 'stream_end', followId: 'f1' }],
    ]);
  });

  it('serves what the buffer holds, then the end, for a stream that no longer runs here', async () => {
    const { link, sent } = fakeLink();
    const streamId = `${HERE}01234567`;
    const follows = new StreamFollows(
      link,
      store({ events: [event(streamId, 2, 2)], found: true }),
      () => undefined,
      logger,
    );
    follows.onMessage({
      type: 'stream_follow',
      followId: 'f2',
      instanceId: THERE,
      sessionId: 's1',
      streamId,
      afterSeq: 1,
    });
    await flush();
    expect(sent.map(({ message }) => message.type)).toEqual(['stream_ack', 'stream_event', 'stream_end']);
  });

  it('stops sending to a follower that went away on its instance', async () => {
    const { link, sent } = fakeLink();
    const streamId = `${HERE}01234567`;
    const host = { record: jest.fn(), forget: jest.fn(), lost: jest.fn() };
    const stream = new ResumableStream(host, 's1', streamId, 'request', 0);
    const follows = new StreamFollows(link, store({ events: [], found: true }), () => stream, logger);
    follows.onMessage({
      type: 'stream_follow',
      followId: 'f3',
      instanceId: THERE,
      sessionId: 's1',
      streamId,
      afterSeq: 0,
    });
    await flush();
    follows.onMessage({ type: 'stream_unfollow', followId: 'f3' });
    stream.send(note(1));
    await flush();
    expect(sent.map(({ message }) => message.type)).toEqual(['stream_ack']);
    // The stream goes on without a connection, for a resume later.
    expect(host.lost).toHaveBeenCalledWith(stream);
    expect(host.record).toHaveBeenCalledTimes(1);
  });
});
