/**
 * The event stream of an SSE pair's session, where every answer and message of the session
 * goes: open on this instance (`PairStream`), or on another one (`RemotePair`).
 */
import type { RequestChannel } from '../../protocol/engine';
import type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest } from '../../protocol/messages/json-rpc';
import type { SessionChannel } from '../../sessions/session-channels';
import type { SseStream } from './http-exchange';

/** Where the answers and messages of an SSE pair's session go. */
export interface PairChannel extends RequestChannel {
  send(message: JSONRPCMessage | readonly JSONRPCMessage[]): boolean;
}

/** One open SSE pair: the session's event stream, which carries every answer and message of the session. */
export class PairStream implements SessionChannel, PairChannel {
  constructor(private readonly stream: SseStream) {}

  send(message: JSONRPCMessage | readonly JSONRPCMessage[]): boolean {
    return this.stream.send(message);
  }

  notify(message: JSONRPCNotification): void {
    this.stream.send(message);
  }

  request(message: JSONRPCRequest): boolean {
    return this.stream.send(message);
  }

  close(): void {
    this.stream.end();
  }
}

/**
 * The event stream of a pair open on another instance: messages are sent there, in order, and
 * written by the instance that holds the stream. A batch's answers go one by one.
 */
export class RemotePair implements PairChannel {
  constructor(private readonly forward: (message: JSONRPCMessage) => Promise<unknown>) {}

  send(message: JSONRPCMessage | readonly JSONRPCMessage[]): boolean {
    const messages: readonly JSONRPCMessage[] = Array.isArray(message) ? message : [message as JSONRPCMessage];
    for (const each of messages) {
      // The holder's stream may be gone (the session then ends everywhere): nothing to tell.
      this.forward(each).catch(() => undefined);
    }
    return true;
  }

  notify(message: JSONRPCNotification): void {
    this.send(message);
  }

  request(message: JSONRPCRequest): boolean {
    return this.send(message);
  }
}
