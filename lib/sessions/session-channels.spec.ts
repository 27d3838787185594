import type { ClaimWatcher, ClusterLink, ClusterMessage, StreamClaim } from '../cluster/cluster-link.interface';
import type { JSONRPCMessage } from '../protocol/messages/json-rpc';
import { MemoryReplayStore } from '../stores/memory/memory-replay.store';
import { SessionChannels } from './session-channels';

const SESSION = 's1';
const STREAM = 'stream1';

/** A link to two other instances: `holder`, which holds the session's stream, and `other`. */
class FakeLink implements ClusterLink {
  readonly instanceId = 'here';
  readonly shared = true;
  /** Whether the holder's channel still takes messages (a stalled process's socket does). */
  listening = true;
  alive = new Set(['holder', 'other']);
  claim: StreamClaim | undefined = { instanceId: 'holder', kind: 'get', streamId: STREAM };
  readonly delivered: Array<{ instanceId: string; message: ClusterMessage }> = [];
  private readonly handlers = new Set<(message: ClusterMessage) => void>();
  private adopted = false;

  async send(instanceId: string, message: ClusterMessage): Promise<boolean> {
    const received = instanceId === 'holder' ? this.listening : this.alive.has(instanceId);
    if (received) {
      this.delivered.push({ instanceId, message });
    }
    return received;
  }

  async broadcast(): Promise<void> {}

  onMessage(handler: (message: ClusterMessage) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** The holder was killed: its channel is gone, and the link tells of it. */
  kill(): void {
    this.listening = false;
    this.alive.delete('holder');
    this.handlers.forEach((handler) => handler({ type: 'instance_stopped', instanceId: 'holder' }));
  }

  async claimStream(): Promise<boolean> {
    return false;
  }

  async releaseStream(): Promise<void> {}

  async streamHolder(): Promise<StreamClaim | undefined> {
    return this.claim;
  }

  async isAlive(instanceId: string): Promise<boolean> {
    return instanceId === this.instanceId || this.alive.has(instanceId);
  }

  async streamsOf(instanceId: string): Promise<Array<{ sessionId: string; streamId: string }>> {
    if (instanceId !== 'holder' || this.adopted) {
      return [];
    }
    this.adopted = true;
    return [{ sessionId: SESSION, streamId: STREAM }];
  }

  watchClaims(_watcher: ClaimWatcher): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {}
}

function tick(n: number): JSONRPCMessage {
  return { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `tick ${n}` } };
}

/** What the replay buffer holds of the stream: `seq=data` of each event. */
async function buffered(store: MemoryReplayStore): Promise<string[]> {
  const { events } = await store.after(SESSION, STREAM, -1);
  return events.map((event) => {
    const params = (event.message as { params?: { data?: string } } | undefined)?.params;
    return `${event.seq}=${params?.data ?? ''}`;
  });
}

/** Lets the appends under way (chained promises, no timers) settle. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('SessionChannels: a message whose stream holder stopped', () => {
  let link: FakeLink;
  let store: MemoryReplayStore;
  let channels: SessionChannels;

  beforeEach(async () => {
    link = new FakeLink();
    store = new MemoryReplayStore(100);
    channels = new SessionChannels(link, store);
    channels.onModuleInit();
    // The holder primed its stream and sent tick 1: both in the buffer.
    await store.append(SESSION, { streamId: STREAM, seq: 0 });
    await store.append(SESSION, { streamId: STREAM, seq: 1, message: tick(1) });
  });

  afterEach(() => channels.onModuleDestroy());

  it('keeps, before what follows, a message its holder took but was killed before keeping', async () => {
    // The holder stalls (a busy machine): its channel still takes tick 2, it never runs it.
    await expect(channels.route(SESSION, tick(2))).resolves.toBe(true);
    link.listening = false;
    link.alive.delete('holder');
    await expect(channels.route(SESSION, tick(3))).resolves.toBe(true);

    expect(await buffered(store)).toEqual(['0=', '1=tick 1', '2=tick 2', '3=tick 3']);
  });

  it('remembers at most the last 64 messages a holder took', async () => {
    // 70 ticks taken by a stalled holder: only the last 64 can be kept for the resume.
    for (let n = 2; n <= 71; n += 1) {
      await channels.route(SESSION, tick(n));
    }
    link.listening = false;
    link.alive.delete('holder');
    await channels.route(SESSION, tick(72));
    const kept = await buffered(store);
    expect(kept.slice(0, 3)).toEqual(['0=', '1=tick 1', '2=tick 8']);
    expect(kept.at(-1)).toBe('66=tick 72');
    expect(kept).toHaveLength(67);
  });

  it('forgets what a holder took more than 10 s before it stopped', async () => {
    const now = jest.spyOn(Date, 'now');
    try {
      now.mockReturnValue(1_000_000);
      await channels.route(SESSION, tick(2));
      now.mockReturnValue(1_000_000 + 10_001);
      await channels.route(SESSION, tick(3));
      link.listening = false;
      link.alive.delete('holder');
      await channels.route(SESSION, tick(4));
    } finally {
      now.mockRestore();
    }
    // Tick 2 was forgotten when tick 3 was remembered; tick 3 was not, and goes first.
    expect(await buffered(store)).toEqual(['0=', '1=tick 1', '2=tick 3', '3=tick 4']);
  });

  it('keeps what the holder took when the link tells it stopped, then what comes next after it', async () => {
    await channels.route(SESSION, tick(2));
    await channels.route(SESSION, tick(3));
    link.kill();
    await settle();
    // Taken in by this instance (the first to ask): tick 4 goes to the buffer, after the others.
    expect(channels.send(SESSION, tick(4))).toBe(true);
    await settle();

    expect(await buffered(store)).toEqual(['0=', '1=tick 1', '2=tick 2', '3=tick 3', '4=tick 4']);
  });

  it('does not keep twice what the holder kept itself', async () => {
    await channels.route(SESSION, tick(2));
    await store.append(SESSION, { streamId: STREAM, seq: 2, message: tick(2) });
    await channels.route(SESSION, tick(3));
    link.kill();
    await settle();
    await channels.route(SESSION, tick(4));
    await settle();

    expect(await buffered(store)).toEqual(['0=', '1=tick 1', '2=tick 2', '3=tick 3', '4=tick 4']);
  });

  it('sends to the new holder what the old one lost, once the client resumed there', async () => {
    await channels.route(SESSION, tick(2));
    link.claim = { instanceId: 'other', kind: 'get', streamId: STREAM };
    link.kill();
    await settle();

    expect(link.delivered.filter(({ instanceId }) => instanceId === 'other').map(({ message }) => message)).toEqual([
      { type: 'session_message', sessionId: SESSION, message: tick(2) },
    ]);
    expect(await buffered(store)).toEqual(['0=', '1=tick 1']);
  });

  it('sends a message for a stream it took in to the stream, once resumed on another instance', async () => {
    link.kill();
    await settle();
    link.claim = { instanceId: 'other', kind: 'get', streamId: STREAM };
    expect(channels.send(SESSION, tick(2))).toBe(true);
    await settle();

    expect(link.delivered.map(({ instanceId, message }) => [instanceId, message])).toEqual([
      ['other', { type: 'session_message', sessionId: SESSION, message: tick(2) }],
    ]);
  });
});
