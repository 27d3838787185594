import { batchRefusedByHeader, planBatch, runBatch } from './batch';
import type { EngineOutcome, McpEngine, RequestFacts } from './engine';
import { McpErrorCode, success, type JSONRPCNotification, type JSONRPCRequest } from './messages/json-rpc';
import type { McpRevision } from './messages/revisions';

const ping = (id: number | string): JSONRPCRequest => ({ jsonrpc: '2.0', id, method: 'ping' });
const note: JSONRPCNotification = { jsonrpc: '2.0', method: 'notifications/initialized' };
const answer = (id: number) => ({ jsonrpc: '2.0', id, result: {} });

describe('planBatch', () => {
  it.each<[McpRevision | undefined, boolean]>([
    ['2024-11-05', true],
    ['2025-03-26', true],
    ['2025-06-18', false],
    ['2025-11-25', false],
    ['2026-07-28', false],
    [undefined, false],
  ])('at %s accepts batches: %s', (revision, accepted) => {
    const plan = planBatch([ping(1)], revision);
    if (accepted) {
      expect(plan.type).toBe('run');
    } else {
      expect(plan).toEqual({
        type: 'reject',
        error: {
          jsonrpc: '2.0',
          id: null,
          error: { code: McpErrorCode.InvalidRequest, message: 'Batch requests are not supported' },
        },
      });
    }
  });

  it.each([
    ['2026-07-28', true],
    ['2025-11-25', false],
    ['2025-03-26', false],
    [undefined, false],
  ] as const)('refuses at once a batch whose version header is %s: %s', (header, refused) => {
    expect(batchRefusedByHeader(header)).toEqual(
      refused
        ? {
            jsonrpc: '2.0',
            id: null,
            error: { code: McpErrorCode.InvalidRequest, message: 'Batch requests are not supported' },
          }
        : undefined,
    );
  });

  it('refuses an empty batch', () => {
    expect(planBatch([], '2025-03-26')).toMatchObject({
      type: 'reject',
      error: { error: { code: McpErrorCode.InvalidRequest, message: 'Invalid Request: empty batch' } },
    });
  });

  it('refuses a batch mixing requests and responses', () => {
    expect(planBatch([ping(1), answer(7)], '2025-03-26')).toMatchObject({
      type: 'reject',
      error: { error: { code: McpErrorCode.InvalidRequest } },
    });
  });

  it('hands a batch of responses over for delivery', () => {
    expect(planBatch([answer(1), answer(2)], '2024-11-05')).toEqual({
      type: 'responses',
      responses: [answer(1), answer(2)],
    });
  });

  it('never batches initialize', () => {
    const plan = planBatch([{ jsonrpc: '2.0', id: 3, method: 'initialize', params: {} }], '2025-03-26');
    expect(plan).toMatchObject({ type: 'run', items: [{ kind: 'invalid', id: 3, isNotification: false }] });
  });
});

describe('runBatch', () => {
  /** An engine that answers every request with its own id, and records what it was handed. */
  function echoEngine(): { engine: McpEngine; handled: string[] } {
    const handled: string[] = [];
    const engine = {
      handle: async (_facts: RequestFacts, message: JSONRPCRequest | JSONRPCNotification): Promise<EngineOutcome> => {
        handled.push(message.method);
        return 'id' in message
          ? { type: 'response', response: success(message.id, { echoed: message.id }) }
          : { type: 'none' };
      },
    } as unknown as McpEngine;
    return { engine, handled };
  }
  const facts = { era: 'legacy', transport: 'stdio', channel: { notify: () => undefined } } as RequestFacts;

  it('answers every request in order, notifications with nothing, invalid elements with their own error', async () => {
    const { engine, handled } = echoEngine();
    const plan = planBatch([ping('a'), note, { jsonrpc: '2.0', id: 9, method: 42 }, ping(2)], '2025-03-26');
    if (plan.type !== 'run') {
      throw new Error(`expected a run plan, got ${plan.type}`);
    }
    const answers = await runBatch(engine, facts, plan.items);
    expect(answers).toEqual([
      success('a', { echoed: 'a' }),
      { jsonrpc: '2.0', id: 9, error: expect.objectContaining({ code: McpErrorCode.InvalidRequest }) },
      success(2, { echoed: 2 }),
    ]);
    expect(handled).toEqual(['ping', 'notifications/initialized', 'ping']);
  });

  it('answers nothing for a batch of notifications', async () => {
    const { engine } = echoEngine();
    const plan = planBatch([note, note], '2024-11-05');
    expect(plan.type === 'run' ? await runBatch(engine, facts, plan.items) : plan).toEqual([]);
  });
});
