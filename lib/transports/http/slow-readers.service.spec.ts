import { Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { McpAuthService } from '../../auth/mcp-auth.service';
import type { ResolvedMcpOptions } from '../../mcp-options.factory';
import { fakeRequest } from '../../../test/support/raw-http';
import { HttpRefusals } from './http-refusals.service';
import { SlowReaders } from './slow-readers.service';

describe('SlowReaders', () => {
  let warn: jest.SpyInstance;
  let debug: jest.SpyInstance;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  it('holds streams to http.maxUnreadBytes, and warns once a minute naming the option', () => {
    const http = { maxUnreadBytes: 8 * 1024 * 1024 } as ResolvedMcpOptions['http'];
    const slowReaders = new SlowReaders(http, new HttpRefusals({} as McpAuthService));
    const res = { req: fakeRequest('GET') } as unknown as ServerResponse;
    expect(slowReaders.maxUnreadBytes).toBe(8 * 1024 * 1024);

    slowReaders.exceeded(res);
    slowReaders.exceeded(res);

    const line =
      'Closed the stream of GET /mcp from 127.0.0.1: its client left more than 8388608 bytes unread ' +
      '(McpModule option http.maxUnreadBytes)';
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toBe(line);
    expect(debug).toHaveBeenCalledWith(line);
  });
});
