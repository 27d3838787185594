import { CallScope } from './calls/call-scope';
import type { EngineOptions } from './calls/engine-options';
import type { ResolvedRequest } from './calls/resolved-request';
import { ResultFinisher } from './result-finisher';
import { markReported, McpStoreUnavailableError, STORE_UNAVAILABLE_MESSAGE } from './bounds/store-unavailable';
import { MethodTable } from './methods';

function makeFinisher() {
  const logger = { error: jest.fn(), warn: jest.fn(), debug: jest.fn() };
  return { finisher: new ResultFinisher({ logger } as unknown as EngineOptions, new MethodTable()), logger };
}

function request(id: number, era: 'legacy' | 'modern' = 'modern'): ResolvedRequest {
  return {
    id,
    era,
    method: 'tasks/get',
    params: {},
    principal: { id: 'alice' },
    scope: new CallScope(),
  } as unknown as ResolvedRequest;
}

describe('ResultFinisher.failure', () => {
  it.each(['legacy', 'modern'] as const)(
    'answers a store outage (%s) with its id and -32603, marked for the status tables, without a stack',
    (era) => {
      const { finisher, logger } = makeFinisher();
      const outcome = finisher.failure(request(4, era), new McpStoreUnavailableError('Redis cannot serve now: OOM'));
      expect(outcome).toEqual({
        type: 'response',
        response: { jsonrpc: '2.0', id: 4, error: { code: -32603, message: STORE_UNAVAILABLE_MESSAGE } },
        storeUnavailable: true,
      });
      expect(logger.warn).toHaveBeenCalledWith('tasks/get (request 4): Redis cannot serve now: OOM');
      expect(logger.error).not.toHaveBeenCalled();
    },
  );

  it('logs store outages once a minute, and only at debug level when the store logged them already', () => {
    const { finisher, logger } = makeFinisher();
    finisher.failure(request(1), new McpStoreUnavailableError('away'));
    finisher.failure(request(2), new McpStoreUnavailableError('away'));
    finisher.failure(request(3), markReported(new McpStoreUnavailableError('reported')));
    expect(logger.warn.mock.calls).toEqual([['tasks/get (request 1): away']]);
    expect(logger.debug.mock.calls).toEqual([['tasks/get (request 2): away'], ['tasks/get (request 3): reported']]);
  });

  it('leaves other failures unmarked: a generic error, logged with its stack', () => {
    const { finisher, logger } = makeFinisher();
    const outcome = finisher.failure(request(5), new Error('bug'));
    expect(outcome).toEqual({
      type: 'response',
      response: { jsonrpc: '2.0', id: 5, error: { code: -32603, message: 'Internal error' } },
    });
    expect(logger.error).toHaveBeenCalledTimes(1);
  });
});
