import type { RequestChannel } from '../../protocol/engine';
import type { InboundResult } from '../../protocol/inbound';
import { McpErrorCode, failure, type JSONRPCResponse } from '../../protocol/messages/json-rpc';
import type { AnswerStatus } from './http-reply';
import { simpleReply } from './simple-http.status-table';

const channel: RequestChannel = { notify: () => undefined };
const error = failure(1, McpErrorCode.InvalidRequest, 'no');
const ok: JSONRPCResponse = { jsonrpc: '2.0', id: 1, result: {} };
const outage = failure(7, McpErrorCode.InternalError, 'Service unavailable');
const RETRY = { 'retry-after': '1' };
const statusOf: AnswerStatus = (response) =>
  'error' in response ? { status: 403, headers: { 'www-authenticate': 'Bearer' } } : { status: 200 };

describe('simpleReply', () => {
  it.each<[string, InboundResult, unknown]>([
    ['invalid request', { kind: 'invalid', error, notification: false }, { type: 'json', status: 400, body: error }],
    ['invalid notification', { kind: 'invalid', error, notification: true }, { type: 'empty', status: 204 }],
    ['delivered', { kind: 'delivered', session: undefined }, { type: 'empty', status: 202 }],
    ['accepted', { kind: 'accepted', era: 'legacy', session: undefined }, { type: 'empty', status: 204 }],
    [
      'answered',
      { kind: 'answered', era: 'modern', outcome: { type: 'response', response: ok }, channel, session: undefined },
      { type: 'json', status: 200, body: ok },
    ],
    [
      'answered with an error',
      { kind: 'answered', era: 'modern', outcome: { type: 'response', response: error }, channel, session: undefined },
      { type: 'json', status: 403, body: error, headers: { 'www-authenticate': 'Bearer' } },
    ],
    [
      'a store outage (modern): 503 with Retry-After',
      {
        kind: 'answered',
        era: 'modern',
        outcome: { type: 'response', response: outage, storeUnavailable: true },
        channel,
        session: undefined,
      },
      { type: 'json', status: 503, body: outage, headers: RETRY },
    ],
    [
      'a store outage (legacy)',
      {
        kind: 'answered',
        era: 'legacy',
        outcome: { type: 'response', response: outage, storeUnavailable: true },
        channel,
        session: undefined,
      },
      { type: 'json', status: 503, body: outage, headers: RETRY },
    ],
    [
      'cancelled',
      { kind: 'answered', era: 'legacy', outcome: { type: 'none' }, channel, session: undefined },
      { type: 'empty', status: 204 },
    ],
    ['an empty batch answer', { kind: 'batch', answers: [], session: undefined }, { type: 'empty', status: 204 }],
    ['a batch', { kind: 'batch', answers: [ok], session: undefined }, { type: 'json', status: 200, body: [ok] }],
    [
      'a batch with a store outage: 200, each answer its own',
      { kind: 'batch', answers: [ok, outage], session: undefined },
      { type: 'json', status: 200, body: [ok, outage] },
    ],
    [
      'bad version',
      { kind: 'refused', reason: 'bad-version', error },
      { type: 'json', status: 400, body: error, headers: {} },
    ],
    [
      'batch not supported',
      { kind: 'refused', reason: 'batch-not-supported', error },
      { type: 'json', status: 400, body: error, headers: {} },
    ],
    ['not admitted', { kind: 'refused', reason: 'not-admitted' }, { type: 'none' }],
  ])('%s', (_name, result, reply) => {
    expect(simpleReply(result, statusOf)).toEqual(reply);
  });
});
