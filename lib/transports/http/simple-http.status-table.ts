/**
 * The status table of the simple HTTP endpoint: each closed inbound result and the HTTP answer
 * it gets. Nothing is streamed, so every answer is one JSON body or a bare status.
 */
import type { InboundResult } from '../../protocol/inbound';
import type { RequestChannel } from '../../protocol/engine';
import { refusalReply, STORE_UNAVAILABLE_STATUS, type AnswerStatus, type HttpReply } from './http-reply';

/** The answer to a POST of the simple endpoint. */
export function simpleReply(result: InboundResult<RequestChannel>, statusOf: AnswerStatus): HttpReply {
  switch (result.kind) {
    case 'invalid':
      return result.notification ? { type: 'empty', status: 204 } : { type: 'json', status: 400, body: result.error };
    case 'delivered':
      // No session, so no request of this server waits for it.
      return { type: 'empty', status: 202 };
    case 'accepted':
      return { type: 'empty', status: 204 };
    case 'answered': {
      if (result.outcome.type === 'none') {
        // Cancelled: the client went away, or the server is shutting the call down.
        return { type: 'empty', status: 204 };
      }
      const { response } = result.outcome;
      // A store outage is 503 in both eras.
      const { status, headers } = result.outcome.storeUnavailable
        ? STORE_UNAVAILABLE_STATUS
        : statusOf(response, result.era);
      return { type: 'json', status, body: response, headers };
    }
    case 'batch':
      return result.answers.length === 0
        ? { type: 'empty', status: 204 }
        : { type: 'json', status: 200, body: result.answers };
    case 'refused':
      return refusalReply(result.reason, result.error);
  }
}
