import { type ArgumentsHost, ForbiddenException, HttpException, Logger } from '@nestjs/common';
import { FILTER_CATCH_EXCEPTIONS } from '@nestjs/common/constants';
import { McpStoreUnavailableError } from '../../errors/mcp-store-unavailable.error';
import { markReported } from '../../protocol/bounds/store-unavailable';
import { HttpExchanges } from './http-exchanges.service';
import { McpHttpExceptionFilter } from './mcp-http-exception.filter';
import { McpHttpRefusal } from './mcp-http-refusal.error';
import { fakeRequest, fakeResponse, type RecordedResponse } from '../../../test/support/raw-http';

function hostOf(res: RecordedResponse): ArgumentsHost {
  const request = fakeRequest('POST', {}, '/mcp?x=1');
  return {
    getArgs: () => [request, res.res],
    getArgByIndex: (index: number) => [request, res.res][index],
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => res.res, getNext: () => undefined }),
  } as unknown as ArgumentsHost;
}

function filter(): McpHttpExceptionFilter {
  const exchanges = new HttpExchanges({ httpAdapter: { getType: () => 'express' } } as never);
  exchanges.onModuleInit();
  return new McpHttpExceptionFilter(exchanges);
}

const INTERNAL = { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } };

describe('McpHttpExceptionFilter', () => {
  let error: jest.SpyInstance;
  let warn: jest.SpyInstance;

  beforeEach(() => {
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  it.each<[string, unknown, number, unknown, Record<string, string>]>([
    [
      'a Host refusal',
      McpHttpRefusal.forbidden('host'),
      403,
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Forbidden: Host not allowed (McpModule option http.allowedHosts)' },
      },
      {},
    ],
    [
      'an Origin refusal',
      McpHttpRefusal.forbidden('origin'),
      403,
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Forbidden: Origin not allowed (McpModule option http.allowedOrigins)' },
      },
      {},
    ],
    [
      'a verb the endpoint does not serve',
      McpHttpRefusal.methodNotAllowed('POST, OPTIONS'),
      405,
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Method Not Allowed' } },
      { allow: 'POST, OPTIONS' },
    ],
    [
      'a refused credential',
      new McpHttpRefusal(401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer realm="mcp"' }),
      401,
      { error: 'invalid_token' },
      { 'www-authenticate': 'Bearer realm="mcp"' },
    ],
    [
      'the drain',
      new McpHttpRefusal(
        503,
        { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'x' } },
        { 'retry-after': '1' },
      ),
      503,
      { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'x' } },
      { 'retry-after': '1' },
    ],
    [
      'a shared store that is away',
      new McpStoreUnavailableError('redis: connection refused'),
      503,
      {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32603,
          message: 'Service unavailable: the server state store cannot serve now; retry shortly',
        },
      },
      { 'retry-after': '1' },
    ],
    ['an unexpected error', new Error('secret detail'), 500, INTERNAL, {}],
    ['something thrown that is no error', 'a string', 500, INTERNAL, {}],
  ])('answers %s', (_label, thrown, status, body, headers) => {
    const res = fakeResponse();
    filter().catch(thrown, hostOf(res));
    expect(res.status()).toBe(status);
    expect(res.body()).toEqual(body);
    expect(res.headers).toEqual({
      ...headers,
      'content-type': 'application/json',
      'content-length': expect.any(Number),
    });
  });

  it('logs an unexpected error with its stack, and a store away as a warning, never in the answer', () => {
    const boom = new Error('secret detail');
    filter().catch(boom, hostOf(fakeResponse()));
    expect(error).toHaveBeenCalledWith('POST /mcp?x=1 failed: secret detail', boom.stack);
    filter().catch(new McpStoreUnavailableError('redis: connection refused'), hostOf(fakeResponse()));
    expect(warn).toHaveBeenCalledWith('POST /mcp?x=1: redis: connection refused');
  });

  it('logs a store away once a minute, and only at debug level when the store logged it already', () => {
    const debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    const filtering = filter();
    filtering.catch(new McpStoreUnavailableError('redis: connection refused'), hostOf(fakeResponse()));
    filtering.catch(new McpStoreUnavailableError('redis: connection refused'), hostOf(fakeResponse()));
    filtering.catch(markReported(new McpStoreUnavailableError('redis: OOM')), hostOf(fakeResponse()));
    expect(warn.mock.calls).toEqual([['POST /mcp?x=1: redis: connection refused']]);
    expect(debug.mock.calls).toEqual([['POST /mcp?x=1: redis: connection refused'], ['POST /mcp?x=1: redis: OOM']]);
    expect(error).not.toHaveBeenCalled();
  });

  it('ends a response whose answer had begun', () => {
    const res = fakeResponse();
    res.res.writeHead(200, { 'content-type': 'text/event-stream' });
    filter().catch(new Error('late'), hostOf(res));
    expect(res.status()).toBe(200);
    expect(res.ended()).toBe(true);
  });

  it("catches its refusals and every error but the application's HTTP exceptions", () => {
    const caught = Reflect.getMetadata(FILTER_CATCH_EXCEPTIONS, McpHttpExceptionFilter) as Array<new () => unknown>;
    const catches = (value: unknown) => caught.some((type) => value instanceof type);
    expect(catches(McpHttpRefusal.forbidden('host'))).toBe(true);
    expect(catches(new Error('boom'))).toBe(true);
    expect(catches(new McpStoreUnavailableError('away'))).toBe(true);
    expect(catches(new ForbiddenException())).toBe(false);
    expect(catches(new HttpException('Too Many Requests', 429))).toBe(false);
  });
});
