/**
 * The status table of Streamable HTTP: each closed inbound result and the HTTP answer it gets.
 * Answers within a session carry its `Mcp-Session-Id`.
 */
import type { InboundResult } from '../../protocol/inbound';
import type { SessionHandle } from '../../protocol/messages/session-handle';
import type { HttpRequestChannel } from './http-request-channel';
import { refusalReply, STORE_UNAVAILABLE_STATUS, type AnswerStatus, type HttpReply } from './http-reply';

export const SESSION_HEADER = 'mcp-session-id';

/** The headers that name a session, if there is one. */
export function sessionHeaders(session: SessionHandle | undefined): Record<string, string> {
  return session === undefined ? {} : { [SESSION_HEADER]: session.id };
}

/** The answer to a POST of the Streamable HTTP endpoint. */
export function streamableReply(result: InboundResult<HttpRequestChannel>, statusOf: AnswerStatus): HttpReply {
  switch (result.kind) {
    case 'invalid':
      return { type: 'json', status: 400, body: result.error, headers: sessionHeaders(result.session) };
    case 'delivered':
    case 'accepted':
      // An answer for an unknown question, or from a principal that does not own the session,
      // is dropped without telling the sender anything it could probe with.
      return { type: 'empty', status: 202, headers: sessionHeaders(result.session) };
    case 'answered': {
      if (result.outcome.type === 'none') {
        return { type: 'end' };
      }
      const { response } = result.outcome;
      // A store outage is 503 in both eras; an answer that is streaming already keeps its 200.
      const { status, headers } = result.outcome.storeUnavailable
        ? STORE_UNAVAILABLE_STATUS
        : statusOf(response, result.era);
      return { type: 'respond', response, status, headers };
    }
    case 'batch':
      return result.answers.length === 0
        ? { type: 'empty', status: 202, headers: sessionHeaders(result.session) }
        : { type: 'json', status: 200, body: result.answers, headers: sessionHeaders(result.session) };
    case 'refused':
      return refusalReply(result.reason, result.error, sessionHeaders(result.session));
  }
}
