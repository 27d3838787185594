import type { RequestChannel } from '../../protocol/engine';
import type { InboundResult } from '../../protocol/inbound';
import { McpErrorCode, failure, type JSONRPCResponse } from '../../protocol/messages/json-rpc';
import type { SessionHandle } from '../../protocol/messages/session-handle';
import { pairReply } from './legacy-sse.status-table';

const session = { id: 'mcp_s' } as SessionHandle;
const channel: RequestChannel = { notify: () => undefined };
const error = failure(1, McpErrorCode.InvalidRequest, 'no');
const ok: JSONRPCResponse = { jsonrpc: '2.0', id: 1, result: {} };
const NONE = { type: 'none' };
const outage = failure(7, McpErrorCode.InternalError, 'Service unavailable');

describe('pairReply', () => {
  it.each<[string, InboundResult, unknown]>([
    [
      'invalid request',
      { kind: 'invalid', error, notification: false },
      { reply: { type: 'json', status: 400, body: error } },
    ],
    ['invalid notification', { kind: 'invalid', error, notification: true }, { reply: { type: 'empty', status: 202 } }],
    ['delivered (answered 202 before)', { kind: 'delivered', session }, { reply: NONE }],
    ['accepted (answered 202 before)', { kind: 'accepted', era: 'legacy', session }, { reply: NONE }],
    [
      'answered: on the stream',
      { kind: 'answered', era: 'legacy', outcome: { type: 'response', response: ok }, channel, session },
      { reply: NONE, stream: ok },
    ],
    [
      'a store outage: on the stream (the POST was answered 202 before)',
      {
        kind: 'answered',
        era: 'legacy',
        outcome: { type: 'response', response: outage, storeUnavailable: true },
        channel,
        session,
      },
      { reply: NONE, stream: outage },
    ],
    [
      'the session store away before the engine: 503 with the message id',
      { kind: 'refused', reason: 'store-unavailable', error: outage },
      { reply: { type: 'json', status: 503, body: outage, headers: { 'retry-after': '1' } } },
    ],
    ['cancelled', { kind: 'answered', era: 'legacy', outcome: { type: 'none' }, channel, session }, { reply: NONE }],
    ['a batch: on the stream', { kind: 'batch', answers: [ok], session }, { reply: NONE, stream: [ok] }],
    ['a batch of notifications', { kind: 'batch', answers: [], session }, { reply: NONE }],
    [
      'batch not supported',
      { kind: 'refused', reason: 'batch-not-supported', error, session },
      { reply: { type: 'json', status: 400, body: error, headers: {} } },
    ],
    ['not admitted', { kind: 'refused', reason: 'not-admitted' }, { reply: NONE }],
  ])('%s', (_name, result, expected) => {
    expect(pairReply(result)).toEqual(expected);
  });
});
