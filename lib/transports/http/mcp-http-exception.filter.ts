import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Injectable } from '@nestjs/common';
import { McpErrorCode, failure } from '../../protocol/messages/json-rpc';
import { STORE_UNAVAILABLE } from '../../shared/mcp.messages';
import { isStoreUnavailable, logStoreUnavailable } from '../../protocol/bounds/store-unavailable';
import { RefusalLog } from '../../protocol/bounds/refusal-log';
import { guardRefusalError } from '../../auth/guard.authenticator';
import { sendJson } from './http-exchange';
import { STORE_UNAVAILABLE_STATUS } from './http-reply';
import { HttpExchanges } from './http-exchanges.service';
import { McpHttpRefusal } from './mcp-http-refusal.error';
import { McpLogger } from '../../telemetry/mcp.logger';
import { logMessage, logStack, logText } from '../../protocol/bounds/log-text';

/**
 * Every error but an `HttpException`. Nest picks a filter by `instanceof` against the classes of
 * its `@Catch()`; this one leaves the HTTP exceptions of the application's own guards, pipes
 * and interceptors (a global guard's 403, a throttler's 429) to the application's filters, as
 * on any route.
 */
class UnexpectedError {
  static [Symbol.hasInstance](value: unknown): boolean {
    return !(value instanceof HttpException);
  }
}

/** The JSON-RPC answer to an `HttpException` a guard of `endpointDecorators` threw. */
function httpRefusalBody(error: HttpException): object {
  const status = error.getStatus();
  const { code, message } = guardRefusalError(status, error.message);
  return failure(null, code, message, { status });
}

/**
 * How an MCP endpoint answers what escaped its guard or handler:
 *
 * | what                         | answer                                                        |
 * | ---------------------------- | ------------------------------------------------------------- |
 * | `McpHttpRefusal` (the guard) | its status, body and headers (403, 401 + challenge, 503, 405) |
 * | an `HttpException`           | its status, JSON-RPC -32004 below 500 (`guardRefusalError`)    |
 * | `McpStoreUnavailableError`   | 503, `Retry-After: 1`, JSON-RPC -32603 (one warning a minute) |
 * | any other error              | 500, JSON-RPC -32603 `Internal error` (an error logged)       |
 * | after the answer began       | the response is ended                                         |
 *
 * Never with an error's details: they go to the log. Scoped to the module's endpoint
 * controllers (`@UseFilters`), and called by the module's own route handlers (`EndpointRoutes`),
 * which also hand it the `HttpException`s of the guards of `endpointDecorators`.
 */
@Catch(McpHttpRefusal, UnexpectedError)
@Injectable()
export class McpHttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new McpLogger('McpHttp');
  private readonly outages = new RefusalLog(this.logger);

  constructor(private readonly exchanges: HttpExchanges) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const { req, res } = this.exchanges.of(http.getRequest(), http.getResponse());
    if (error instanceof McpHttpRefusal) {
      error.send(res);
      return;
    }
    if (error instanceof HttpException && !res.headersSent) {
      // Only where the module serves the route itself: a guard of `endpointDecorators` refused.
      sendJson(res, error.getStatus(), httpRefusalBody(error));
      return;
    }
    const where = `${logText(req.method ?? 'request')} ${logText(req.url ?? '')}`;
    // A shared store that is away is not a bug: the client may retry; the details stay in the log.
    const unavailable = isStoreUnavailable(error);
    if (unavailable) {
      logStoreUnavailable(this.outages, where, error);
    } else {
      this.logger.error(`${where} failed: ${logMessage(error)}`, logStack(error));
    }
    if (res.headersSent) {
      if (!res.writableEnded) {
        res.end();
      }
    } else if (unavailable) {
      const { status, headers } = STORE_UNAVAILABLE_STATUS;
      sendJson(res, status, failure(null, McpErrorCode.InternalError, STORE_UNAVAILABLE), headers);
    } else {
      sendJson(res, 500, failure(null, McpErrorCode.InternalError, 'Internal error'));
    }
  }
}
