import type { RequestChannel } from '../../protocol/engine';
import type { InboundResult } from '../../protocol/inbound';
import { McpErrorCode, failure, type JSONRPCResponse } from '../../protocol/messages/json-rpc';
import { stdioFrame } from './stdio.status-table';

const channel: RequestChannel = { notify: () => undefined };
const error = failure(1, McpErrorCode.InvalidRequest, 'Invalid Request: bad');
const outage = failure(7, McpErrorCode.InternalError, 'Service unavailable');
const ok: JSONRPCResponse = { jsonrpc: '2.0', id: 1, result: {} };

describe('stdioFrame', () => {
  it.each<[string, InboundResult, unknown]>([
    ['invalid request', { kind: 'invalid', error, notification: false }, { send: error }],
    [
      'invalid notification',
      { kind: 'invalid', error, notification: true },
      { debug: 'Dropped an invalid notification: Invalid Request: bad' },
    ],
    ['delivered', { kind: 'delivered', session: undefined }, {}],
    ['accepted', { kind: 'accepted', era: 'modern', session: undefined }, {}],
    [
      'answered',
      { kind: 'answered', era: 'legacy', outcome: { type: 'response', response: ok }, channel, session: undefined },
      { send: ok },
    ],
    [
      'a store outage: its JSON-RPC error',
      {
        kind: 'answered',
        era: 'modern',
        outcome: { type: 'response', response: outage, storeUnavailable: true },
        channel,
        session: undefined,
      },
      { send: outage },
    ],
    [
      'the session store away before the engine',
      { kind: 'refused', reason: 'store-unavailable', error: outage },
      { send: outage },
    ],
    ['cancelled', { kind: 'answered', era: 'modern', outcome: { type: 'none' }, channel, session: undefined }, {}],
    ['a batch', { kind: 'batch', answers: [ok], session: undefined }, { send: [ok] }],
    ['a batch of notifications', { kind: 'batch', answers: [], session: undefined }, {}],
    ['session limit', { kind: 'refused', reason: 'session-limit', error }, { send: error }],
    ['withdrawn', { kind: 'refused', reason: 'withdrawn' }, {}],
  ])('%s', (_name, result, frame) => {
    expect(stdioFrame(result)).toEqual(frame);
  });
});
