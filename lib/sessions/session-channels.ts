import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { MCP_CLUSTER_LINK, MCP_REPLAY_STORE } from '../shared/mcp.constants';
import type { ClusterLink, StreamClaim } from '../cluster/cluster-link.interface';
import type { JSONRPCMessage } from '../protocol/messages/json-rpc';
import { messageOf } from '../protocol/messages/mcp-error';
import { McpLogger } from '../telemetry/mcp.logger';
import { appendToStream, type McpReplayStore } from '../interfaces/replay-store.interface';

/** How long the messages of a stopped instance's stream are kept for its client's resume: a claim's TTL. */
const ORPHAN_MS = 30_000;

/**
 * How long a message sent to another instance's stream is remembered: long enough for this
 * instance to learn that the holder stopped (at once on a single Redis, within a heartbeat's
 * TTL in a Redis Cluster), should it have taken the message and died before keeping it.
 */
const SENT_MS = 10_000;
/** At most this many remembered messages per session, the oldest forgotten first. */
const SENT_MAX = 64;

/** A message handed to the instance that holds the session's resumable stream. */
interface Sent {
  readonly instanceId: string;
  readonly streamId: string;
  readonly message: JSONRPCMessage;
  readonly at: number;
}

/** A stream whose instance stopped, whose messages this instance keeps in the replay buffer. */
interface Orphan {
  readonly instanceId: string;
  readonly streamId: string;
  /** The last append under way: the next one follows it, so they keep their order. */
  kept: Promise<void>;
}

/** A stream that carries server-initiated messages to one legacy session. */
export interface SessionChannel {
  send(message: JSONRPCMessage): void;
  close(): void;
}

/**
 * The standalone streams (legacy GET, or the 2024-11-05 SSE pair) of legacy sessions: one per
 * session at most over every instance, claimed through the cluster link. Those open on this
 * instance are kept here; a message for a stream held by another instance is routed to it.
 *
 * When an instance stops, one other instance (the first to ask the link) takes in the sessions
 * of its GET streams until their clients resume elsewhere: the messages it would have delivered
 * there go to the session's replay buffer, on the stream the client resumes.
 */
@Injectable()
export class SessionChannels implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new McpLogger('McpSessionChannels');
  private readonly channels = new Map<string, SessionChannel>();
  private readonly orphans = new Map<string, Orphan>();
  /** What this instance sent lately to the streams other instances hold, by session. */
  private readonly sent = new Map<string, Sent[]>();
  /** The recoveries under way (see `recover`), by session: what is kept next waits for them. */
  private readonly recovering = new Map<string, Promise<void>>();
  private stopListening: (() => void) | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    @Inject(MCP_CLUSTER_LINK) private readonly link: ClusterLink,
    @Inject(MCP_REPLAY_STORE) private readonly replay: McpReplayStore,
  ) {}

  /** How many session streams are open on this instance. */
  get size(): number {
    return this.channels.size;
  }

  onModuleInit(): void {
    this.stopListening = this.link.onMessage((message) => {
      if (message.type === 'session_message') {
        this.send(message.sessionId, message.message);
      } else if (message.type === 'instance_stopped') {
        this.recoverAll(message.instanceId);
        this.adopt(message.instanceId).catch((error: unknown) => {
          this.logger.warn(`Could not take in the streams of instance ${message.instanceId}: ${messageOf(error)}`);
        });
      }
    });
    this.sweeper = setInterval(() => this.forgetSent(Date.now() - SENT_MS), SENT_MS);
    this.sweeper.unref();
  }

  /** Keeps the messages of the GET streams of a stopped instance until their clients resume. */
  private async adopt(instanceId: string): Promise<void> {
    const streams = await this.link.streamsOf(instanceId);
    for (const { sessionId, streamId } of streams) {
      const orphan: Orphan = { instanceId, streamId, kept: Promise.resolve() };
      this.orphans.set(sessionId, orphan);
      setTimeout(() => {
        if (this.orphans.get(sessionId) === orphan) {
          this.orphans.delete(sessionId);
        }
      }, ORPHAN_MS).unref();
    }
    if (streams.length > 0) {
      this.logger.log(
        `Keeping the messages of ${streams.length} stream(s) of instance ${instanceId}, which stopped, for their resumes`,
      );
    }
  }

  /** Appends a message for an orphaned stream, while its claim still names the stopped instance. */
  private async keep(sessionId: string, orphan: Orphan, message: JSONRPCMessage): Promise<void> {
    await this.recover(sessionId, orphan.instanceId);
    const holder = await this.link.streamHolder(sessionId);
    if (holder?.instanceId !== orphan.instanceId || holder.streamId !== orphan.streamId) {
      // Resumed (on any instance), or gone: the stream's holder delivers from now on, this
      // message included.
      if (this.orphans.get(sessionId) === orphan) {
        this.orphans.delete(sessionId);
      }
      await this.route(sessionId, message);
      return;
    }
    await appendToStream(this.replay, sessionId, orphan.streamId, message);
  }

  onModuleDestroy(): void {
    this.stopListening?.();
    clearInterval(this.sweeper);
  }

  /**
   * Reserves the session's stream (the resumable stream `streamId`, if named) for this
   * instance, before `attach`. Resolves `false` when the session has a stream already, here or
   * on another instance that runs.
   */
  async reserve(sessionId: string, kind: StreamClaim['kind'], streamId?: string): Promise<boolean> {
    return !this.channels.has(sessionId) && (await this.link.claimStream(sessionId, kind, streamId));
  }

  /** Attaches the stream of a session reserved by `reserve`. */
  attach(sessionId: string, channel: SessionChannel): void {
    this.channels.set(sessionId, channel);
  }

  /** Detaches a stream, if it is still the session's stream, and gives up its claim. */
  detach(sessionId: string, channel: SessionChannel): void {
    if (this.channels.get(sessionId) === channel) {
      this.channels.delete(sessionId);
      this.release(sessionId);
    }
  }

  /** Gives up a reservation that was not attached (the client left meanwhile). */
  release(sessionId: string): void {
    // Not awaited here: the link's `close()` awaits every release under way.
    this.link.releaseStream(sessionId).catch((error: unknown) => {
      this.logger.warn(`Could not release the stream claim of session ${sessionId}: ${messageOf(error)}`);
    });
  }

  /** Whether the session's stream is open on this instance. */
  has(sessionId: string): boolean {
    return this.channels.has(sessionId);
  }

  /** Where the session's stream is held, on any instance. */
  holder(sessionId: string): Promise<StreamClaim | undefined> {
    return this.link.streamHolder(sessionId);
  }

  /**
   * Sends on the session's stream; returns whether the session has one on this instance (or
   * this instance keeps the messages of its stream, whose instance stopped).
   */
  send(sessionId: string, message: JSONRPCMessage): boolean {
    const channel = this.channels.get(sessionId);
    if (channel !== undefined) {
      channel.send(message);
      return true;
    }
    const orphan = this.orphans.get(sessionId);
    if (orphan === undefined) {
      return false;
    }
    orphan.kept = orphan.kept
      .then(() => this.keep(sessionId, orphan, message))
      .catch((error: unknown) => {
        this.logger.warn(`Could not keep a message of session ${sessionId} for its resume: ${messageOf(error)}`);
      });
    return true;
  }

  /**
   * Sends on the session's stream wherever it is held: here, or through the instance that holds
   * it. A message for a resumable stream whose instance stopped is kept in the session's replay
   * buffer, on that stream: the client's resume (on any instance) replays it. Resolves whether
   * a stream took (or was sent) the message, or the buffer kept it: `false` when the session
   * has no stream, or its holder stopped and its stream cannot be resumed (an SSE pair).
   */
  async route(sessionId: string, message: JSONRPCMessage): Promise<boolean> {
    if (this.send(sessionId, message)) {
      return true;
    }
    const holder = await this.link.streamHolder(sessionId);
    if (holder === undefined || holder.instanceId === this.link.instanceId) {
      return false;
    }
    // A holder that runs got it (or is reconnecting, and nothing better can be done); in a Redis
    // Cluster, no subscriber seen by one node proves nothing by itself.
    if (await this.sendVia(holder.instanceId, sessionId, message)) {
      if (holder.streamId !== undefined) {
        this.remember(sessionId, holder.instanceId, holder.streamId, message);
      }
      return true;
    }
    if (await this.link.isAlive(holder.instanceId)) {
      return true;
    }
    if (holder.streamId === undefined) {
      return false;
    }
    // What the holder took just before it stopped goes first, in the order it was sent.
    await this.recover(sessionId, holder.instanceId);
    const seq = await appendToStream(this.replay, sessionId, holder.streamId, message);
    this.logger.debug(
      `Kept a message for session ${sessionId}, whose stream's instance ${holder.instanceId} stopped, ` +
        `for its resume (${holder.streamId}:${seq})`,
    );
    return true;
  }

  /**
   * Routes a message to one instance's stream of the session (a stream found by `holder`);
   * resolves `false` when no instance received it.
   */
  sendVia(instanceId: string, sessionId: string, message: JSONRPCMessage): Promise<boolean> {
    return this.link.send(instanceId, { type: 'session_message', sessionId, message });
  }

  /** Closes the session's stream, if it is open here, and gives up any claim this instance holds for it. */
  close(sessionId: string): void {
    const channel = this.channels.get(sessionId);
    this.channels.delete(sessionId);
    this.orphans.delete(sessionId);
    this.sent.delete(sessionId);
    this.release(sessionId);
    channel?.close();
  }

  /** The sessions with a stream on this instance, and those whose messages it keeps (see `send`). */
  sessionIds(): string[] {
    return [...this.channels.keys(), ...this.orphans.keys()];
  }

  /**
   * Remembers a message the holder of the session's stream received: a holder killed before it
   * ran (or before its replay buffer took the event) loses it, and Redis's pub/sub keeps no copy.
   */
  private remember(sessionId: string, instanceId: string, streamId: string, message: JSONRPCMessage): void {
    const now = Date.now();
    let sent = this.sent.get(sessionId);
    // One list per session, all for one stream: another holder's stream starts it again.
    if (
      sent === undefined ||
      (sent.length > 0 && (sent[0].instanceId !== instanceId || sent[0].streamId !== streamId))
    ) {
      sent = [];
      this.sent.set(sessionId, sent);
    }
    // Oldest first, changed in place (this runs for every message sent to a remote holder): what
    // expired, and what is over the count, goes from the front.
    let drop = 0;
    while (drop < sent.length && sent[drop].at <= now - SENT_MS) {
      drop += 1;
    }
    drop = Math.max(drop, sent.length - SENT_MAX + 1);
    if (drop > 0) {
      sent.splice(0, drop);
    }
    sent.push({ instanceId, streamId, message, at: now });
  }

  private forgetSent(before: number): void {
    for (const [sessionId, sent] of this.sent) {
      const recent = sent.filter((entry) => entry.at > before);
      if (recent.length === 0) {
        this.sent.delete(sessionId);
      } else {
        this.sent.set(sessionId, recent);
      }
    }
  }

  /** Recovers what every session's stream held by a stopped instance took from this one. */
  private recoverAll(instanceId: string): void {
    for (const [sessionId, sent] of [...this.sent]) {
      if (sent.some((entry) => entry.instanceId === instanceId)) {
        this.recover(sessionId, instanceId).catch((error: unknown) => {
          this.logger.warn(`Could not keep the messages of session ${sessionId} for its resume: ${messageOf(error)}`);
        });
      }
    }
  }

  /**
   * Keeps in the replay buffer, in order, the messages this instance sent lately to the
   * session's stream on instance `instanceId`, which stopped, that the holder did not keep
   * there; resolves once they are kept (or once a recovery under way is done). Once another
   * instance holds the stream (the client resumed), they are sent there instead.
   */
  private recover(sessionId: string, instanceId: string): Promise<void> {
    const sent = this.sent.get(sessionId) ?? [];
    const lost = sent.filter((entry) => entry.instanceId === instanceId);
    const before = this.recovering.get(sessionId) ?? Promise.resolve();
    if (lost.length === 0) {
      return before;
    }
    this.sent.delete(sessionId);
    const run = before
      .then(() => this.keepLost(sessionId, instanceId, lost))
      .finally(() => {
        if (this.recovering.get(sessionId) === run) {
          this.recovering.delete(sessionId);
        }
      });
    this.recovering.set(sessionId, run);
    return run;
  }

  private async keepLost(sessionId: string, instanceId: string, lost: readonly Sent[]): Promise<void> {
    const { streamId } = lost[0];
    const { events } = await this.replay.after(sessionId, streamId, -1);
    const kept = keptPrefix(
      lost.map((entry) => JSON.stringify(entry.message)),
      events.map((event) => (event.message === undefined ? '' : JSON.stringify(event.message))),
    );
    for (const { message } of lost.slice(kept)) {
      const holder = await this.link.streamHolder(sessionId);
      if (holder?.instanceId !== instanceId || holder.streamId !== streamId) {
        // Resumed meanwhile: its new holder sends it, after what the client already got (not
        // through `route`, whose next recovery of the session would wait for this one).
        await this.handOver(sessionId, holder, message);
        continue;
      }
      const seq = await appendToStream(this.replay, sessionId, streamId, message);
      this.logger.debug(
        `Kept a message for session ${sessionId} that instance ${instanceId} took but did not keep before it ` +
          `stopped, for its resume (${streamId}:${seq})`,
      );
    }
  }

  /** Sends a message to the session's stream where `holder` says it is now, if anywhere. */
  private async handOver(sessionId: string, holder: StreamClaim | undefined, message: JSONRPCMessage): Promise<void> {
    const channel = this.channels.get(sessionId);
    if (channel !== undefined) {
      channel.send(message);
    } else if (holder !== undefined && (await this.sendVia(holder.instanceId, sessionId, message))) {
      if (holder.streamId !== undefined) {
        this.remember(sessionId, holder.instanceId, holder.streamId, message);
      }
    }
  }
}

/**
 * How many of `sent` (in the order sent) the holder kept among `buffered` (the stream's events,
 * as JSON). It ran them in order and its buffer took them in order, so those it kept are a
 * prefix of `sent`, found in order among the buffered events: the longest such prefix. A
 * message equal to one the stream carried earlier may be taken for kept (a repeated
 * notification), never one that differs.
 */
function keptPrefix(sent: readonly string[], buffered: readonly string[]): number {
  // Matching each in turn at its first place is as far as any matching gets.
  let kept = 0;
  for (const data of buffered) {
    if (kept < sent.length && data === sent[kept]) {
      kept += 1;
    }
  }
  return kept;
}
