import { Injectable } from '@nestjs/common';
import type { JsonRpcMessage } from '../protocol/json-rpc';

/** A stream that carries server-initiated messages to one legacy session. */
export interface SessionChannel {
  send(message: JsonRpcMessage): void;
  close(): void;
}

/**
 * The standalone streams (legacy GET, or the 2024-11-05 SSE pair) open on this instance, one
 * per session at most.
 */
@Injectable()
export class SessionChannels {
  private readonly channels = new Map<string, SessionChannel>();

  /** Attaches a stream; returns `false` when the session already has one. */
  attach(sessionId: string, channel: SessionChannel): boolean {
    if (this.channels.has(sessionId)) {
      return false;
    }
    this.channels.set(sessionId, channel);
    return true;
  }

  /** Detaches a stream, if it is still the session's stream. */
  detach(sessionId: string, channel: SessionChannel): void {
    if (this.channels.get(sessionId) === channel) {
      this.channels.delete(sessionId);
    }
  }

  has(sessionId: string): boolean {
    return this.channels.has(sessionId);
  }

  /** Sends on the session's stream; returns whether the session has one here. */
  send(sessionId: string, message: JsonRpcMessage): boolean {
    const channel = this.channels.get(sessionId);
    channel?.send(message);
    return channel !== undefined;
  }

  /** Closes the session's stream, if any. */
  close(sessionId: string): void {
    const channel = this.channels.get(sessionId);
    if (channel !== undefined) {
      this.channels.delete(sessionId);
      channel.close();
    }
  }

  /** The sessions with a stream on this instance. */
  sessionIds(): string[] {
    return [...this.channels.keys()];
  }
}
