import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { MCP_HTTP_SETTINGS } from '../../shared/mcp.constants';
import type { HttpSettings } from './http-settings';
import type { UnreadBound } from './http-exchange';
import { HttpRefusals } from './http-refusals.service';

/**
 * The bound every SSE stream of the HTTP transports holds its client to (`http.maxUnreadBytes`):
 * a stream whose client leaves more than this unread is let go by the stream itself
 * (`SseStream`); this tells the operator, once a minute at most, which option sets it.
 */
@Injectable()
export class SlowReaders implements UnreadBound {
  readonly maxUnreadBytes: number;

  constructor(
    @Inject(MCP_HTTP_SETTINGS) http: HttpSettings,
    private readonly refusals: HttpRefusals,
  ) {
    this.maxUnreadBytes = http.maxUnreadBytes;
  }

  exceeded(res: ServerResponse): void {
    this.refusals.letGo(
      res.req,
      'unread-bytes',
      `its client left more than ${this.maxUnreadBytes} bytes unread (McpModule option http.maxUnreadBytes)`,
    );
  }
}
