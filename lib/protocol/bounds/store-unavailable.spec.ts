import { RefusalLog } from './refusal-log';
import {
  isStoreUnavailable,
  logFailedSend,
  logStoreUnavailable,
  markReported,
  McpStoreUnavailableError,
  STORE_UNAVAILABLE_MESSAGE,
} from './store-unavailable';

function recording() {
  return { warn: jest.fn<void, [string]>(), debug: jest.fn<void, [string]>() };
}

describe('store unavailable', () => {
  it('is recognised by its brand, whatever builds on it', () => {
    class LayerError extends McpStoreUnavailableError {}
    expect(isStoreUnavailable(new McpStoreUnavailableError('down'))).toBe(true);
    expect(isStoreUnavailable(new LayerError('down'))).toBe(true);
  });

  it('is recognised across copies of the module (the brand is a registered symbol)', () => {
    const copy = Object.assign(new Error('down'), { [Symbol.for('nest-mcp:store-unavailable')]: true });
    expect(isStoreUnavailable(copy)).toBe(true);
  });

  it.each([new Error('down'), 'down', undefined, null, { message: 'down' }])('%p is not', (value) => {
    expect(isStoreUnavailable(value)).toBe(false);
  });

  it('keeps its cause and tells clients to retry', () => {
    const cause = new Error('ECONNREFUSED');
    expect(new McpStoreUnavailableError('down', cause).cause).toBe(cause);
    expect(STORE_UNAVAILABLE_MESSAGE).toMatch(/retry/);
  });

  it('is logged once a minute, and at debug level only when the store logged it already', () => {
    const logger = recording();
    const log = new RefusalLog(logger);
    logStoreUnavailable(log, 'tools/call (request 1)', new McpStoreUnavailableError('away'));
    logStoreUnavailable(log, 'tools/call (request 2)', new McpStoreUnavailableError('away'));
    logStoreUnavailable(log, 'tools/call (request 3)', markReported(new McpStoreUnavailableError('reported')));
    expect(logger.warn.mock.calls).toEqual([['tools/call (request 1): away']]);
    expect(logger.debug.mock.calls).toEqual([['tools/call (request 2): away'], ['tools/call (request 3): reported']]);
  });

  it.each<[string, unknown, 'warn' | 'debug', string]>([
    ['a plain failure', new Error('bus away'), 'warn', 'Could not publish x: bus away'],
    [
      'a store away',
      new McpStoreUnavailableError('Redis is unreachable'),
      'warn',
      'Could not publish x: Redis is unreachable',
    ],
    [
      'a store outage the store logged',
      markReported(new McpStoreUnavailableError('Redis cannot serve now: OOM')),
      'debug',
      'Could not publish x: Redis cannot serve now: OOM',
    ],
    [
      'a send the store did not confirm in time',
      markReported(new McpStoreUnavailableError('Command timed out', undefined, { unconfirmed: true })),
      'debug',
      'Could not confirm "publish x" (the store did not answer in time, and may still carry it out): Command timed out',
    ],
  ])('a failed send, %s, says what happened', (_name, error, level, line) => {
    const logger = recording();
    logFailedSend(logger, 'publish x', error);
    expect(logger[level].mock.calls).toEqual([[line]]);
    expect(logger[level === 'warn' ? 'debug' : 'warn']).not.toHaveBeenCalled();
  });
});
