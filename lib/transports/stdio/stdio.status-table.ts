/**
 * The status table of stdio: what each closed inbound result writes on the output. Answers are
 * written; what has no answer (a notification, a delivered response, a request withdrawn before
 * the engine saw it) writes nothing.
 */
import type { InboundResult } from '../../protocol/inbound';
import type { JSONRPCMessage } from '../../protocol/messages/json-rpc';

/** What one result writes: a frame to send, or a line for the debug log. */
export interface StdioFrame {
  readonly send?: JSONRPCMessage | readonly JSONRPCMessage[];
  readonly debug?: string;
}

const NOTHING: StdioFrame = Object.freeze({});

export function stdioFrame(result: InboundResult): StdioFrame {
  switch (result.kind) {
    case 'invalid':
      return result.notification
        ? { debug: `Dropped an invalid notification: ${result.error.error.message}` }
        : { send: result.error };
    case 'delivered':
    case 'accepted':
      return NOTHING;
    case 'answered':
      return result.outcome.type === 'response' ? { send: result.outcome.response } : NOTHING;
    case 'batch':
      return result.answers.length > 0 ? { send: result.answers } : NOTHING;
    case 'refused':
      return result.error === undefined ? NOTHING : { send: result.error };
  }
}
