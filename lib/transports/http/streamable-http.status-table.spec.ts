import type { InboundResult } from '../../protocol/inbound';
import { McpErrorCode, failure, type JSONRPCResponse } from '../../protocol/messages/json-rpc';
import type { SessionHandle } from '../../protocol/messages/session-handle';
import type { HttpRequestChannel } from './http-request-channel';
import type { AnswerStatus } from './http-reply';
import { streamableReply } from './streamable-http.status-table';

const session = { id: 'mcp_s' } as SessionHandle;
const channel = {} as HttpRequestChannel;
const error = failure(1, McpErrorCode.InvalidRequest, 'no');
const ok: JSONRPCResponse = { jsonrpc: '2.0', id: 1, result: {} };
const statusOf: AnswerStatus = (response) => ('error' in response ? { status: 404 } : { status: 200 });
const SID = { 'mcp-session-id': 'mcp_s' };
const outage = failure(7, McpErrorCode.InternalError, 'Service unavailable');
const RETRY = { 'retry-after': '1' };

describe('streamableReply', () => {
  it.each<[string, InboundResult<HttpRequestChannel>, unknown]>([
    [
      'invalid',
      { kind: 'invalid', error, notification: true },
      { type: 'json', status: 400, body: error, headers: {} },
    ],
    ['delivered in a session', { kind: 'delivered', session }, { type: 'empty', status: 202, headers: SID }],
    ['delivered to no session', { kind: 'delivered', session: undefined }, { type: 'empty', status: 202, headers: {} }],
    [
      'accepted (modern)',
      { kind: 'accepted', era: 'modern', session: undefined },
      { type: 'empty', status: 202, headers: {} },
    ],
    ['accepted (legacy)', { kind: 'accepted', era: 'legacy', session }, { type: 'empty', status: 202, headers: SID }],
    [
      'answered',
      { kind: 'answered', era: 'legacy', outcome: { type: 'response', response: ok }, channel, session },
      { type: 'respond', status: 200, response: ok },
    ],
    [
      'answered with an error',
      { kind: 'answered', era: 'modern', outcome: { type: 'response', response: error }, channel, session: undefined },
      { type: 'respond', status: 404, response: error },
    ],
    [
      'a store outage (legacy): 503 with Retry-After, whatever the error code says',
      {
        kind: 'answered',
        era: 'legacy',
        outcome: { type: 'response', response: outage, storeUnavailable: true },
        channel,
        session,
      },
      { type: 'respond', status: 503, response: outage, headers: RETRY },
    ],
    [
      'a store outage (modern)',
      {
        kind: 'answered',
        era: 'modern',
        outcome: { type: 'response', response: outage, storeUnavailable: true },
        channel,
        session: undefined,
      },
      { type: 'respond', status: 503, response: outage, headers: RETRY },
    ],
    [
      'cancelled',
      { kind: 'answered', era: 'modern', outcome: { type: 'none' }, channel, session: undefined },
      { type: 'end' },
    ],
    ['an empty batch answer', { kind: 'batch', answers: [], session }, { type: 'empty', status: 202, headers: SID }],
    ['a batch', { kind: 'batch', answers: [ok], session }, { type: 'json', status: 200, body: [ok], headers: SID }],
    [
      'a batch with a store outage: 200, each answer its own',
      { kind: 'batch', answers: [ok, outage], session },
      { type: 'json', status: 200, body: [ok, outage], headers: SID },
    ],
    [
      'session required',
      { kind: 'refused', reason: 'session-required', error },
      { type: 'json', status: 400, body: error, headers: {} },
    ],
    [
      'unknown session',
      { kind: 'refused', reason: 'unknown-session', error },
      { type: 'json', status: 404, body: error, headers: {} },
    ],
    [
      'session limit',
      { kind: 'refused', reason: 'session-limit', error },
      { type: 'json', status: 503, body: error, headers: { 'retry-after': '5' } },
    ],
    [
      'the session store away before the engine: 503 with the message id',
      { kind: 'refused', reason: 'store-unavailable', error: outage, session },
      { type: 'json', status: 503, body: outage, headers: { ...SID, ...RETRY } },
    ],
    [
      'bad version',
      { kind: 'refused', reason: 'bad-version', error },
      { type: 'json', status: 400, body: error, headers: {} },
    ],
    [
      'batch not supported in a session',
      { kind: 'refused', reason: 'batch-not-supported', error, session },
      { type: 'json', status: 400, body: error, headers: SID },
    ],
    ['not admitted', { kind: 'refused', reason: 'not-admitted' }, { type: 'none' }],
  ])('%s', (_name, result, reply) => {
    expect(streamableReply(result, statusOf)).toEqual(reply);
  });
});
