/**
 * The status table of the SSE pair's messages path. A POST that passes every check is answered
 * 202 before its message runs (`accept`); its answer then goes on the session's event stream.
 */
import type { JSONRPCMessage } from '../../protocol/messages/json-rpc';
import type { InboundResult } from '../../protocol/inbound';
import type { RequestChannel } from '../../protocol/engine';
import { refusalReply, type HttpReply } from './http-reply';

/** The answer a POST gets once its body passed every check, before the engine runs. */
export const ACCEPTED: HttpReply = Object.freeze<HttpReply>({ type: 'empty', status: 202 });

/** What the SSE pair does with a result: the POST's answer, and what goes on the event stream. */
export interface PairReply {
  /** The POST's own answer; `none` when it was answered 202 already. */
  readonly reply: HttpReply;
  /** The message, or batch of answers, to send on the stream. */
  readonly stream?: JSONRPCMessage | readonly JSONRPCMessage[];
}

const ANSWERED: PairReply = Object.freeze<PairReply>({ reply: { type: 'none' } });

/** The reply of a POSTed message or batch. */
export function pairReply(result: InboundResult<RequestChannel>): PairReply {
  switch (result.kind) {
    case 'invalid':
      return {
        reply: result.notification ? ACCEPTED : { type: 'json', status: 400, body: result.error },
      };
    case 'delivered':
    case 'accepted':
      return ANSWERED;
    case 'answered':
      return result.outcome.type === 'response' ? { ...ANSWERED, stream: result.outcome.response } : ANSWERED;
    case 'batch':
      return result.answers.length > 0 ? { ...ANSWERED, stream: result.answers } : ANSWERED;
    case 'refused':
      return { reply: refusalReply(result.reason, result.error) };
  }
}
