import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { MCP_CLUSTER_LINK, MCP_REPLAY_STORE } from '../mcp.constants';
import type { ClusterLink, StreamClaim } from '../cluster/cluster-link.interface';
import type { JsonRpcMessage } from '../protocol/json-rpc';
import { messageOf } from '../protocol/mcp-error';
import { McpLogger } from '../telemetry/mcp.logger';
import { appendToStream, type ReplayStore } from './replay-store.interface';

/** A stream that carries server-initiated messages to one legacy session. */
export interface SessionChannel {
  send(message: JsonRpcMessage): void;
  close(): void;
}

/**
 * The standalone streams (legacy GET, or the 2024-11-05 SSE pair) of legacy sessions: one per
 * session at most over every instance, claimed through the cluster link. Those open on this
 * instance are kept here; a message for a stream held by another instance is routed to it.
 */
@Injectable()
export class SessionChannels implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new McpLogger('McpSessionChannels');
  private readonly channels = new Map<string, SessionChannel>();
  private stopListening: (() => void) | undefined;

  constructor(
    @Inject(MCP_CLUSTER_LINK) private readonly link: ClusterLink,
    @Inject(MCP_REPLAY_STORE) private readonly replay: ReplayStore,
  ) {}

  /** How many session streams are open on this instance. */
  get size(): number {
    return this.channels.size;
  }

  onModuleInit(): void {
    this.stopListening = this.link.onMessage((message) => {
      if (message.type === 'session_message') {
        this.send(message.sessionId, message.message);
      }
    });
  }

  onModuleDestroy(): void {
    this.stopListening?.();
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

  /** Sends on the session's stream; returns whether the session has one on this instance. */
  send(sessionId: string, message: JsonRpcMessage): boolean {
    const channel = this.channels.get(sessionId);
    channel?.send(message);
    return channel !== undefined;
  }

  /**
   * Sends on the session's stream wherever it is held: here, or through the instance that holds
   * it. A message for a resumable stream whose instance stopped is kept in the session's replay
   * buffer, on that stream: the client's resume (on any instance) replays it. Resolves whether
   * a stream took (or was sent) the message, or the buffer kept it: `false` when the session
   * has no stream, or its holder stopped and its stream cannot be resumed (an SSE pair).
   */
  async route(sessionId: string, message: JsonRpcMessage): Promise<boolean> {
    if (this.send(sessionId, message)) {
      return true;
    }
    const holder = await this.link.streamHolder(sessionId);
    if (holder === undefined || holder.instanceId === this.link.instanceId) {
      return false;
    }
    // A holder that runs got it (or is reconnecting, and nothing better can be done); in a Redis
    // Cluster, no subscriber seen by one node proves nothing by itself.
    if ((await this.sendVia(holder.instanceId, sessionId, message)) || (await this.link.isAlive(holder.instanceId))) {
      return true;
    }
    if (holder.streamId === undefined) {
      return false;
    }
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
  sendVia(instanceId: string, sessionId: string, message: JsonRpcMessage): Promise<boolean> {
    return this.link.send(instanceId, { type: 'session_message', sessionId, message });
  }

  /** Closes the session's stream, if it is open here, and gives up any claim this instance holds for it. */
  close(sessionId: string): void {
    const channel = this.channels.get(sessionId);
    this.channels.delete(sessionId);
    this.release(sessionId);
    channel?.close();
  }

  /** The sessions with a stream on this instance. */
  sessionIds(): string[] {
    return [...this.channels.keys()];
  }
}
