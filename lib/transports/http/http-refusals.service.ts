import { Inject, Injectable } from '@nestjs/common';
import { MCP_OWN_AUTH } from '../../shared/mcp.constants';
import type { IncomingMessage } from 'node:http';
import { McpErrorCode, isJsonObject, type JSONRPCResponse } from '../../protocol/messages/json-rpc';
import type { McpEra } from '../../protocol/messages/revisions';
import { httpStatusForError } from '../../protocol/messages/error-status';
import type { AuthRefusal } from '../../auth/authenticator';
import { McpAuthService } from '../../auth/mcp-auth.service';
import { sendJson, type HttpExchange } from './http-exchange';
import type { HostOriginRefusal } from './host-origin';
import type { BodyOutcome } from './request-body';
import { closeUnread } from './lingering-close';
import { RefusalLog } from '../../protocol/bounds/refusal-log';
import { logText } from '../../protocol/bounds/log-text';
import { McpLogger } from '../../telemetry/mcp.logger';

const OK = Object.freeze({ status: 200 });

/** A request as log lines name it: method, path, and the client's address (escaped: see `logText`). */
export function describeRequest(req: IncomingMessage): string {
  const address = req.socket?.remoteAddress;
  return `${logText(req.method ?? 'request')} ${logText((req.url ?? '').split('?')[0])}${address === undefined ? '' : ` from ${address}`}`;
}

/**
 * The log lines of the MCP endpoints' refusals, in one `RefusalLog` (so that a warning's
 * once-a-minute limit holds across the guard, the transports and the platform hooks), and the
 * answers that go with them: bodies the endpoint cannot take, and the HTTP status of a JSON-RPC
 * error answer (with the step-up challenge of a call that lacks scopes).
 */
@Injectable()
export class HttpRefusals {
  private readonly log = new RefusalLog(new McpLogger('McpHttp'));

  constructor(@Inject(MCP_OWN_AUTH) private readonly auth: McpAuthService) {}

  /**
   * A request refused by the Host or Origin check: a warning naming the option that would admit
   * it, since it is most often a deployment the configuration does not list.
   */
  forbidden(req: IncomingMessage, verdict: HostOriginRefusal): void {
    const { host, origin } = req.headers;
    const detail =
      verdict === 'host'
        ? `its Host "${logText(host ?? '')}" is not allowed (list it in the McpModule option http.allowedHosts)`
        : `its Origin "${logText(origin ?? '')}" is not allowed (list it in the McpModule option http.allowedOrigins)`;
    this.log.warn(`forbidden-${verdict}`, `Refused ${describeRequest(req)} with 403: ${detail}`);
  }

  /** A request the configured authentication refused: the client's business, a debug line. */
  unauthenticated(req: IncomingMessage, refusal: AuthRefusal): void {
    this.log.debug(
      `Refused ${describeRequest(req)}: ${refusal.status} ${refusal.error}${refusal.description === undefined ? '' : ` (${refusal.description})`}`,
    );
  }

  /**
   * A request refused because a bound was reached (`message` names it and its option): a
   * warning, at most once a minute per `reason`, naming whose bound it is.
   */
  boundReached(req: IncomingMessage, reason: string, status: number, message: string, whose: string): void {
    this.log.warn(reason, `Refused ${describeRequest(req)} with ${status} (${whose}): ${message}`);
  }

  /**
   * A stream closed because a bound was reached (`message` names it and its option): a warning,
   * at most once a minute per `reason`.
   */
  letGo(req: IncomingMessage, reason: string, message: string): void {
    this.log.warn(reason, `Closed the stream of ${describeRequest(req)}: ${message}`);
  }

  /** Answers a body the endpoint cannot take (413, 400), closing the connection when part of it is unread. */
  refuseBody(exchange: HttpExchange, outcome: BodyOutcome & { ok: false }): void {
    this.body(exchange.req, outcome);
    sendJson(exchange.res, outcome.status, outcome.error, outcome.unread === true ? closeUnread(exchange.req) : {});
  }

  /** The log line of a refused body: a warning for bodies over the limit (once a minute), debug otherwise. */
  body(req: IncomingMessage, outcome: BodyOutcome & { ok: false }): void {
    const line = `Refused ${describeRequest(req)} with ${outcome.status}: ${outcome.error.error.message}`;
    if (outcome.reason === 'too-large') {
      this.log.warn('too-large', line);
    } else if (outcome.reason === 'aborted') {
      this.log.debug(`${describeRequest(req)}: the client went away while sending its body`);
    } else {
      this.log.debug(line);
    }
  }

  /**
   * The HTTP status and headers of a JSON-RPC answer: a call that lacks scopes gets, with bearer
   * tokens, the step-up challenge naming them (SEP-835).
   */
  statusOf(response: JSONRPCResponse, era: McpEra): { status: number; headers?: Record<string, string> } {
    if (!('error' in response)) {
      return OK;
    }
    const { code, data } = response.error;
    const status = httpStatusForError(code, era);
    if (code !== McpErrorCode.InsufficientScope) {
      return { status };
    }
    const scopes = isJsonObject(data) && Array.isArray(data.requiredScopes) ? (data.requiredScopes as string[]) : [];
    this.log.debug(
      `Refused request ${logText(response.id)}: 403, the caller lacks the scope(s) ${logText(scopes.join(', '))}`,
    );
    const challenge = this.auth.insufficientScopeChallenge(scopes);
    return { status, headers: challenge === undefined ? undefined : { 'www-authenticate': challenge } };
  }
}
