import { HttpException } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { McpErrorCode, failure } from '../../protocol/messages/json-rpc';
import type { AuthRefusal } from '../../auth/authenticator';
import { sendJson } from './http-exchange';
import { FORBIDDEN, type HostOriginRefusal } from './host-origin';

/**
 * A request an MCP endpoint refuses before its handler runs (Host/Origin, drain, verb,
 * authentication), with the exact answer: status, body (JSON-RPC, or OAuth's for credentials)
 * and headers (`WWW-Authenticate`, `Allow`, `Retry-After`). `McpHttpGuard` throws it and
 * `McpHttpExceptionFilter` writes it; as an `HttpException` it keeps its status and body even
 * where another filter answers it.
 */
export class McpHttpRefusal extends HttpException {
  constructor(
    status: number,
    readonly body: object,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(body, status);
  }

  /** A Host or Origin that is not allowed (DNS rebinding): 403, naming the option that admits it. */
  static forbidden(verdict: HostOriginRefusal): McpHttpRefusal {
    return new McpHttpRefusal(403, FORBIDDEN[verdict]);
  }

  /**
   * A request the configured authentication refused: its status with the OAuth error body and
   * the challenge, or with a JSON-RPC error when the refusal has a code (an app guard's); a bound of the provider (basic failures per address, checks waiting), as any
   * bound: a JSON-RPC error naming the option, with `Retry-After`.
   */
  static unauthenticated(refusal: AuthRefusal): McpHttpRefusal {
    if (refusal.code !== undefined) {
      // An application guard's refusal (auth.guard): a JSON-RPC error that names its status.
      return new McpHttpRefusal(
        refusal.status,
        failure(null, refusal.code, refusal.description, { status: refusal.status }),
        refusal.challenge === undefined ? {} : { 'www-authenticate': refusal.challenge },
      );
    }
    if (refusal.retryAfterSec !== undefined) {
      return new McpHttpRefusal(refusal.status, failure(null, McpErrorCode.InternalError, refusal.description), {
        'retry-after': String(refusal.retryAfterSec),
      });
    }
    return new McpHttpRefusal(
      refusal.status,
      { error: refusal.error, error_description: refusal.description },
      refusal.challenge === undefined ? {} : { 'www-authenticate': refusal.challenge },
    );
  }

  /**
   * A guard of the endpoints (`endpointDecorators`) said no: 403, as Nest answers a guard that
   * returns `false`, with a JSON-RPC body.
   */
  static guardRefused(): McpHttpRefusal {
    return new McpHttpRefusal(403, failure(null, McpErrorCode.AccessDenied, 'Forbidden resource', { status: 403 }));
  }

  /** A request that came before the application finished starting: 503, to be retried. */
  static starting(): McpHttpRefusal {
    return new McpHttpRefusal(503, failure(null, McpErrorCode.InternalError, 'Server is starting'), {
      'retry-after': '1',
    });
  }

  /** A verb the endpoint does not serve: 405 with `Allow`. */
  static methodNotAllowed(allow: string): McpHttpRefusal {
    return new McpHttpRefusal(405, failure(null, McpErrorCode.InvalidRequest, 'Method Not Allowed'), { allow });
  }

  /** Writes the refusal on a raw response (nothing is written if an answer already started). */
  send(res: ServerResponse): void {
    sendJson(res, this.getStatus(), this.body, { ...this.headers });
  }
}
