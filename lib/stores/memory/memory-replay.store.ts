import {
  replayWindow,
  type ReplayEvent,
  type ReplayStore,
  type ReplayWindow,
} from '../../sessions/replay-store.interface';

/** A fixed-size ring of one session's events, oldest first from `start`. */
class EventRing {
  private readonly slots: Array<ReplayEvent | undefined>;
  private start = 0;
  private size = 0;

  constructor(capacity: number) {
    this.slots = new Array<ReplayEvent | undefined>(capacity);
  }

  push(event: ReplayEvent): void {
    const capacity = this.slots.length;
    if (this.size < capacity) {
      this.slots[(this.start + this.size) % capacity] = event;
      this.size += 1;
    } else {
      this.slots[this.start] = event;
      this.start = (this.start + 1) % capacity;
    }
  }

  /** The events, oldest first. */
  *events(): Generator<ReplayEvent> {
    for (let index = 0; index < this.size; index += 1) {
      yield this.slots[(this.start + index) % this.slots.length]!;
    }
  }
}

/**
 * The default replay store: one ring of the last `capacity` events per session, in this
 * process. Buffers do not survive a restart and are not shared between instances.
 */
export class MemoryReplayStore implements ReplayStore {
  private readonly rings = new Map<string, EventRing>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`A replay buffer holds at least one event (got ${capacity})`);
    }
  }

  async append(sessionId: string, event: ReplayEvent): Promise<void> {
    let ring = this.rings.get(sessionId);
    if (ring === undefined) {
      ring = new EventRing(this.capacity);
      this.rings.set(sessionId, ring);
    }
    ring.push(event);
  }

  async after(sessionId: string, streamId: string, seq: number): Promise<ReplayWindow> {
    const ring = this.rings.get(sessionId);
    return ring === undefined ? { events: [], found: false } : replayWindow(ring.events(), streamId, seq);
  }

  async clear(sessionId: string): Promise<void> {
    this.rings.delete(sessionId);
  }

  /** How many sessions hold a buffer (for tests and diagnostics). */
  get sessionCount(): number {
    return this.rings.size;
  }
}
