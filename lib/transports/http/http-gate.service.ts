import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpAdapterHost } from '@nestjs/core';
import { MCP_PRINCIPAL_PROPERTY, MCP_RESOLVED_OPTIONS } from '../../mcp.constants';
import type { ResolvedMcpOptions } from '../../mcp-options.factory';
import { ErrorCode, failure } from '../../protocol/json-rpc';
import { ANONYMOUS_PRINCIPAL, type McpPrincipal } from '../../protocol/call-context';
import { FORBIDDEN, firstHeader, sendEmpty, sendJson, toExchange, type HttpExchange } from './http-exchange';
import { hostOriginRefusal, type HostOriginRefusal } from './host-origin';
import { McpStoreUnavailableError } from '../../errors/mcp-store-unavailable.error';
import { STORE_UNAVAILABLE } from '../../mcp.messages';
import { McpAuthService, type PlatformRequest } from '../../auth/mcp-auth.service';
import type { BodyOutcome } from './request-body';
import { RefusalLog } from './refusal-log';
import type { Era } from '../../protocol/revisions';
import { httpStatusForError } from '../../protocol/error-status';
import { isJsonObject, type ClassifiedMessage, type JsonRpcResponse } from '../../protocol/json-rpc';
import { HttpDrain } from '../../shutdown/http-drain';

/** The request headers a browser client may send to MCP endpoints (besides `Mcp-Param-*`). */
const ALLOWED_HEADERS = [
  'accept',
  'authorization',
  'content-type',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
];
const ALLOWED_HEADER_SET = new Set(ALLOWED_HEADERS);

const OK = Object.freeze({ status: 200 });

/** The answer headers a browser client may read. */
const EXPOSED_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate';

/**
 * What every MCP HTTP endpoint does before its own work: the platform's request and response
 * unwrapped, the Host and Origin checks (DNS rebinding), CORS, the caller's principal, and the
 * answer to failures nobody else answered.
 */
@Injectable()
export class HttpGate implements OnModuleInit {
  private readonly logger = new Logger('McpHttp');
  private readonly refusals = new RefusalLog(this.logger);
  /** Whether the platform wraps Node's request and response (Fastify) or hands them over (Express). */
  private wrapped = true;
  /** Host/Origin verdicts per (local address, Host, Origin): clients repeat the same values. */
  private readonly admissions = new Map<string, HostOriginRefusal | 'admitted'>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly adapterHost: HttpAdapterHost,
    private readonly auth: McpAuthService,
    private readonly drain: HttpDrain,
  ) {}

  onModuleInit(): void {
    this.wrapped = this.adapterHost?.httpAdapter?.getType() !== 'express';
  }

  /**
   * Serves one request: the raw request and response are handed to `serve`, and a failure it
   * did not answer gets a generic 500.
   */
  async serve(
    request: unknown,
    response: unknown,
    serve: (exchange: HttpExchange) => Promise<void> | void,
  ): Promise<void> {
    const exchange = this.exchange(request, response);
    if (!this.drain.admit(exchange)) {
      // Shutting down: the Host/Origin check comes first, as for every refusal.
      if (this.admit(exchange)) {
        this.drain.refuse(exchange);
      }
      return;
    }
    try {
      await serve(exchange);
    } catch (error) {
      this.failed(exchange, error);
    } finally {
      this.drain.done();
    }
  }

  /**
   * While the server shuts down, a POSTed request (or a batch holding one) is refused with 503
   * and `Retry-After`; returns whether it was (see `HttpDrain`).
   */
  refusesWork(exchange: HttpExchange, messages: ClassifiedMessage | readonly ClassifiedMessage[]): boolean {
    return this.drain.refusesWork(exchange, messages);
  }

  /**
   * A method the endpoint does not serve: `OPTIONS` gets the CORS preflight, any other (HEAD,
   * which the platforms route to GET, included) 405 with `Allow`.
   */
  other(exchange: HttpExchange, allow: string): void {
    if (exchange.req.method === 'OPTIONS') {
      this.preflight(exchange, allow);
    } else {
      this.methodNotAllowed(exchange, allow);
    }
  }

  /** The raw request and response behind the platform's objects. */
  exchange(request: unknown, response: unknown): HttpExchange {
    return toExchange(request, response, this.wrapped);
  }

  /** The principal authentication left on the request; anonymous without authentication. */
  principalOf(request: unknown): McpPrincipal {
    const principal = (request as Record<string, unknown>)[MCP_PRINCIPAL_PROPERTY] as McpPrincipal | undefined;
    return principal ?? ANONYMOUS_PRINCIPAL;
  }

  /**
   * What every request to an MCP endpoint passes first: the Host and Origin checks, then the
   * configured authentication, which leaves the caller's principal on the request. A refused
   * request is answered here (403, or the provider's 401 with its challenge) and gets `false`.
   */
  enter(exchange: HttpExchange): boolean | Promise<boolean> {
    if (!this.admit(exchange)) {
      return false;
    }
    // Without authentication the request is left as it is: a principal the application's own
    // middleware put there is kept.
    return this.auth.kind === 'none' ? true : this.authenticate(exchange);
  }

  private async authenticate(exchange: HttpExchange): Promise<boolean> {
    const outcome = await this.auth.authenticateRequest(exchange.request as PlatformRequest);
    if (outcome.ok) {
      return true;
    }
    this.refusals.debug(
      `Refused ${describe(exchange.req)}: ${outcome.status} ${outcome.error}${outcome.description === undefined ? '' : ` (${outcome.description})`}`,
    );
    sendJson(
      exchange.res,
      outcome.status,
      { error: outcome.error, error_description: outcome.description },
      outcome.challenge === undefined ? {} : { 'www-authenticate': outcome.challenge },
    );
    return false;
  }

  /**
   * The HTTP status and headers of a JSON-RPC answer: a call that lacks scopes gets, with bearer
   * tokens, the step-up challenge naming them (SEP-835).
   */
  statusOf(response: JsonRpcResponse, era: Era): { status: number; headers?: Record<string, string> } {
    if (!('error' in response)) {
      return OK;
    }
    const { code, data } = response.error;
    const status = httpStatusForError(code, era);
    if (code !== ErrorCode.InsufficientScope) {
      return { status };
    }
    const scopes = isJsonObject(data) && Array.isArray(data.requiredScopes) ? (data.requiredScopes as string[]) : [];
    this.refusals.debug(
      `Refused request ${String(response.id)}: 403, the caller lacks the scope(s) ${scopes.join(', ')}`,
    );
    const challenge = this.auth.insufficientScopeChallenge(scopes);
    return { status, headers: challenge === undefined ? undefined : { 'www-authenticate': challenge } };
  }

  /**
   * Host and Origin checks; answers 403 and returns false on failure. An admitted request with
   * an Origin gets the CORS answer headers.
   */
  admit(exchange: HttpExchange): boolean {
    if (this.check(exchange.req, exchange.res)) {
      return true;
    }
    this.refusedOrigin(exchange.req);
    sendJson(exchange.res, 403, FORBIDDEN);
    return false;
  }

  /**
   * The Host and Origin checks without the answer: whether the request passes; if it does and
   * has an Origin, the CORS headers are set on `res` (unless the application set its own).
   */
  check(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.verdictOf(req) !== 'admitted') {
      return false;
    }
    const { headers } = req;
    const origin = firstHeader(headers, 'origin');
    if (origin !== undefined && this.options.http.cors && !res.hasHeader('access-control-allow-origin')) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
      const vary = res.getHeader('vary');
      res.setHeader('vary', vary === undefined ? 'Origin' : `${String(vary)}, Origin`);
    }
    return true;
  }

  private verdictOf(req: IncomingMessage): HostOriginRefusal | 'admitted' {
    const { headers } = req;
    const localAddress = req.socket?.localAddress;
    const key = `${localAddress}\n${String(headers.host)}\n${String(headers.origin)}`;
    let verdict = this.admissions.get(key);
    if (verdict === undefined) {
      verdict = hostOriginRefusal(headers, localAddress, this.options.http) ?? 'admitted';
      if (this.admissions.size >= 256) {
        this.admissions.clear();
      }
      this.admissions.set(key, verdict);
    }
    return verdict;
  }

  /**
   * The log line of a request refused by the Host or Origin check: a warning naming the option
   * that would admit it, since it is most often a deployment the configuration does not list.
   */
  refusedOrigin(req: IncomingMessage): void {
    const verdict = this.verdictOf(req);
    if (verdict === 'admitted') {
      return;
    }
    const { host, origin } = req.headers;
    const detail =
      verdict === 'host'
        ? `its Host ${JSON.stringify(String(host ?? ''))} is not allowed (list it in the McpModule option http.allowedHosts)`
        : `its Origin ${JSON.stringify(String(origin ?? ''))} is not allowed (list it in the McpModule option http.allowedOrigins)`;
    this.refusals.warn(`forbidden-${verdict}`, `Refused ${describe(req)} with 403: ${detail}`);
  }

  /** Answers a body the endpoint cannot take (413, 400), closing the connection when part of it is unread. */
  refuseBody(exchange: HttpExchange, outcome: BodyOutcome & { ok: false }): void {
    this.logBodyRefusal(exchange.req, outcome);
    sendJson(exchange.res, outcome.status, outcome.error, outcome.unread === true ? { connection: 'close' } : {});
  }

  /** The log line of a refused body: a warning for bodies over the limit (once a minute), debug otherwise. */
  logBodyRefusal(req: IncomingMessage, outcome: BodyOutcome & { ok: false }): void {
    const line = `Refused ${describe(req)} with ${outcome.status}: ${outcome.error.error.message}`;
    if (outcome.reason === 'too-large') {
      this.refusals.warn('too-large', line);
    } else if (outcome.reason === 'aborted') {
      this.refusals.debug(`${describe(req)}: the client went away while sending its body`);
    } else {
      this.refusals.debug(line);
    }
  }

  /**
   * `OPTIONS`: 204 with `Allow`, and for a CORS preflight from an admitted origin the methods
   * and headers a browser client may use (the `Mcp-*` headers, and any `Mcp-Param-*` it asks for).
   */
  preflight(exchange: HttpExchange, allow: string): void {
    if (!this.admit(exchange)) {
      return;
    }
    const headers: Record<string, string> = { allow };
    const { res } = exchange;
    if (
      firstHeader(exchange.headers, 'origin') !== undefined &&
      this.options.http.cors &&
      !res.hasHeader('access-control-allow-methods')
    ) {
      const requested = (firstHeader(exchange.headers, 'access-control-request-headers') ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name.startsWith('mcp-param-') && !ALLOWED_HEADER_SET.has(name));
      headers['access-control-allow-methods'] = allow;
      headers['access-control-allow-headers'] = [
        ...new Set([...ALLOWED_HEADERS, ...this.auth.credentialHeaders, ...requested]),
      ].join(', ');
      headers['access-control-max-age'] = '600';
    }
    sendEmpty(res, 204, headers);
  }

  /** 405 with `Allow`, after the Host and Origin checks. */
  methodNotAllowed(exchange: HttpExchange, allow: string): void {
    if (!this.admit(exchange)) {
      return;
    }
    sendJson(exchange.res, 405, failure(null, ErrorCode.InvalidRequest, 'Method Not Allowed'), { allow });
  }

  /**
   * Logs a failure nobody answered and answers it with a generic 500, or 503 with `Retry-After`
   * when the shared store is away; never with its details.
   */
  failed(exchange: HttpExchange, error: unknown): void {
    const where = `${exchange.req.method ?? 'request'} ${exchange.req.url ?? ''}`;
    // A shared store that is away is not a bug: the client may retry; the details stay in the log.
    const unavailable = error instanceof McpStoreUnavailableError;
    if (unavailable) {
      this.logger.warn(`${where}: ${error.message}`);
    } else {
      this.logger.error(
        `${where} failed: ${error instanceof Error ? error.message : String(error)}`,
        error instanceof Error ? error.stack : undefined,
      );
    }
    if (exchange.res.headersSent) {
      if (!exchange.res.writableEnded) {
        exchange.res.end();
      }
    } else if (unavailable) {
      sendJson(exchange.res, 503, failure(null, ErrorCode.InternalError, STORE_UNAVAILABLE), { 'retry-after': '1' });
    } else {
      sendJson(exchange.res, 500, failure(null, ErrorCode.InternalError, 'Internal error'));
    }
  }
}

/** A request as log lines name it: method, path, and the client's address. */
function describe(req: IncomingMessage): string {
  const address = req.socket?.remoteAddress;
  return `${req.method ?? 'request'} ${(req.url ?? '').split('?')[0]}${address === undefined ? '' : ` from ${address}`}`;
}
