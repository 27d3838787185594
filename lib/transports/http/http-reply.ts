/**
 * What an HTTP transport writes for one inbound result, as its status table decides it, and
 * the statuses of the refusals every HTTP transport shares.
 */
import type { ServerResponse } from 'node:http';
import type { JSONRPCResponse } from '../../protocol/messages/json-rpc';
import type { RefusalReason } from '../../protocol/inbound';
import { sendEmpty, sendJson } from './http-exchange';
import { merged } from '../../protocol/messages/object-copies';

/** An HTTP answer: a JSON body, a bare status, or an answer written by the request's channel. */
export type HttpReply =
  | {
      readonly type: 'json';
      readonly status: number;
      readonly body: unknown;
      readonly headers?: Record<string, string>;
    }
  | { readonly type: 'empty'; readonly status: number; readonly headers?: Record<string, string> }
  /** The channel answers the request (JSON, or the end of the stream it opened). */
  | {
      readonly type: 'respond';
      readonly status: number;
      readonly response: JSONRPCResponse;
      readonly headers?: Record<string, string>;
    }
  /** The channel ends the exchange without a response (a cancelled request). */
  | { readonly type: 'end' }
  /** Nothing to write: the transport answered already. */
  | { readonly type: 'none' };

/** The HTTP status and headers of a JSON-RPC answer (the gate's: error codes, step-up challenges). */
export type AnswerStatus = (
  response: JSONRPCResponse,
  era: 'legacy' | 'modern',
) => { status: number; headers?: Record<string, string> };

/** How long a client is asked to wait before it retries a refused `initialize` (either cap). */
const SESSION_LIMIT_RETRY_AFTER = { 'retry-after': '5' };

/**
 * A request that failed because the shared store cannot serve (an outage, not the request's
 * fault), whether refused before the engine or failed inside it: 503, so that a balancer
 * retries it on another instance, with `Retry-After`.
 */
export const STORE_UNAVAILABLE_STATUS: { readonly status: number; readonly headers: Record<string, string> } =
  Object.freeze({ status: 503, headers: Object.freeze({ 'retry-after': '1' }) });

/** The HTTP status of each refusal that carries an error, and its extra headers. */
export const REFUSAL_STATUS: Readonly<
  Record<Exclude<RefusalReason, 'not-admitted' | 'withdrawn'>, { status: number; headers?: Record<string, string> }>
> = {
  'session-required': { status: 400 },
  'unknown-session': { status: 404 },
  'session-limit': { status: 503, headers: SESSION_LIMIT_RETRY_AFTER },
  'session-quota': { status: 429, headers: SESSION_LIMIT_RETRY_AFTER },
  'store-unavailable': STORE_UNAVAILABLE_STATUS,
  'bad-version': { status: 400 },
  'batch-not-supported': { status: 400 },
};

/** The reply of a refusal: its error with its status, or nothing when the transport answered already. */
export function refusalReply(reason: RefusalReason, error: unknown, headers: Record<string, string> = {}): HttpReply {
  if (reason === 'not-admitted' || reason === 'withdrawn' || error === undefined) {
    return { type: 'none' };
  }
  const entry = REFUSAL_STATUS[reason];
  return { type: 'json', status: entry.status, body: error, headers: merged(headers, entry.headers ?? {}) };
}

/** Writes a `json` or `empty` reply; the channel writes the others. */
export function writeReply(res: ServerResponse, reply: HttpReply): void {
  if (reply.type === 'json') {
    sendJson(res, reply.status, reply.body, reply.headers);
  } else if (reply.type === 'empty') {
    sendEmpty(res, reply.status, reply.headers);
  }
}
