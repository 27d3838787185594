/**
 * What the module asks of the application's HTTP platform (Express or Fastify) for its own
 * routes, and nothing for the others:
 *
 * - its bodies are read by the module up to `http.maxBodyBytes` (the platform's parser and its
 *   limit stay in force on every other route);
 * - a body the platform's parser refused anyway is answered as JSON-RPC, after the same Host,
 *   Origin and header checks as any other request;
 * - a verb an endpoint does not serve gets 405 with `Allow`, without a route of its own;
 * - the module serves the routes itself (`EndpointRoutes`): the handler Nest registered for each
 *   is replaced, so the application's global enhancers run around MCP calls, not on the routes;
 * - the full paths the platform mounted each endpoint at (global prefix and version included).
 *
 * The module's routes are recognised by the marker their handlers carry (`McpEndpointMarker`),
 * which Nest copies onto the handler it registers with the platform: Express lists it in its
 * router stack, Fastify hands it to `onRoute` hooks. What reads a platform's internal structures
 * is in `platform-express.ts` and `platform-fastify.ts`.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpAdapterHost } from '@nestjs/core';
import { MCP_HTTP_SETTINGS, MCP_SERVER_IDENTITY } from '../../shared/mcp.constants';
import type { McpServerIdentity } from '../../identity/server-identity';
import type { HttpSettings } from './http-settings';
import { McpErrorCode, failure } from '../../protocol/messages/json-rpc';
import type { McpEndpointKind, McpEndpointMarker, McpEndpointVerb } from './endpoint-marker';
import { EndpointRoutes } from './endpoint-routes.service';
import { postHeadersRefusal, type HttpRefusal, type PostAnswer } from './content-negotiation';
import { DISCARD_FACTOR, dropBody, parseError, tooLarge, type BodyOutcome } from './request-body';
import { HttpAdmission } from './http-admission.service';
import { FORBIDDEN } from './host-origin';
import { HttpExchanges } from './http-exchanges.service';
import { HttpRefusals } from './http-refusals.service';
import { McpHttpRefusal } from './mcp-http-refusal.error';
import type { BodyErrorAnswer, EndpointRouteHandler, PlatformBodyError, PlatformEndpoints } from './platform-hooks';
import { installOnExpress, type ExpressApp } from './platform-express';
import { hookFastifyRoutes, installOnFastify, type FastifyInstance } from './platform-fastify';
import { McpLogger } from '../../telemetry/mcp.logger';

/** How each endpoint answers a POST (for the header checks of a refused body). */
const POST_ANSWER: Readonly<Record<McpEndpointKind, PostAnswer>> = {
  streamable: 'json-and-sse',
  simple: 'json',
  'sse-events': 'status',
  'sse-messages': 'status',
};

/**
 * The platform side of the module's HTTP endpoints (see the file comment). `beforeRoutes()` runs
 * from `McpModule.configure()`, after Nest registered its body parsers and before it registers
 * routes; `onModuleInit()` runs once every route is registered.
 */
@Injectable()
export class HttpPlatform implements OnModuleInit, PlatformEndpoints {
  private readonly logger = new McpLogger('McpHttp');
  /** The full paths of each endpoint, as the platform mounted them. */
  private readonly mounted = new Map<McpEndpointKind, Set<string>>();
  /** Fastify: the endpoint of each mounted path. */
  private byPath: ReadonlyMap<string, McpEndpointMarker> = new Map();

  readonly server: string;

  constructor(
    @Inject(MCP_SERVER_IDENTITY) identity: McpServerIdentity,
    @Inject(MCP_HTTP_SETTINGS) private readonly http: HttpSettings,
    private readonly adapterHost: HttpAdapterHost,
    private readonly admission: HttpAdmission,
    private readonly exchanges: HttpExchanges,
    private readonly refusals: HttpRefusals,
    private readonly routes: EndpointRoutes,
  ) {
    this.server = identity.name;
  }

  routeHandler(marker: McpEndpointMarker, verb: McpEndpointVerb): EndpointRouteHandler {
    return this.routes.handlerOf(marker, verb);
  }

  /** The full paths (global prefix and version included) each endpoint is served at. */
  pathsOf(kind: McpEndpointKind): string[] {
    return [...(this.mounted.get(kind) ?? [])];
  }

  /** Before the routes are registered: Fastify gives route options to `onRoute` hooks only. */
  beforeRoutes(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (adapter?.getType() === 'fastify') {
      this.byPath = hookFastifyRoutes(adapter.getInstance<FastifyInstance>(), this, this.http.maxBodyBytes);
    }
  }

  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    // An application context (stdio) has no HTTP platform: its adapter is null.
    if (adapter === undefined || adapter === null) {
      return;
    }
    if (adapter.getType() === 'express') {
      installOnExpress(adapter.getInstance<ExpressApp>(), this, this.logger);
    } else if (adapter.getType() === 'fastify') {
      installOnFastify(adapter.getInstance<FastifyInstance>(), this.byPath, this);
    }
  }

  mount(marker: McpEndpointMarker, path: string): void {
    let paths = this.mounted.get(marker.kind);
    if (paths === undefined) {
      paths = new Set();
      this.mounted.set(marker.kind, paths);
    }
    paths.add(path);
  }

  /** 405 with `Allow`, after the Host and Origin checks (403). */
  methodNotAllowed(request: unknown, response: unknown, marker: McpEndpointMarker): void {
    const { req, res } = this.exchanges.of(request, response);
    const refused = this.admission.refusalOf(req, res);
    const refusal =
      refused === undefined ? McpHttpRefusal.methodNotAllowed(marker.allow) : McpHttpRefusal.forbidden(refused);
    refusal.send(res);
  }

  /**
   * The answer to a body the platform refused, after the checks every request passes first:
   * Host and Origin (403), then the endpoint's header checks (406, 415), then the platform's
   * verdict itself. The refusal is logged like the module's own. What the platform left of the
   * body is dropped first, up to a bound, so that the client can read the answer (`dropBody`).
   */
  bodyErrorAnswer(
    req: IncomingMessage,
    res: ServerResponse,
    marker: McpEndpointMarker,
    kind: PlatformBodyError,
  ): BodyErrorAnswer | Promise<BodyErrorAnswer> {
    const answer = this.refusedBodyAnswer(req, res, marker, kind);
    if (!answer.unread) {
      return answer;
    }
    const ended = dropBody(req, DISCARD_FACTOR * this.http.maxBodyBytes);
    return typeof ended === 'boolean' ? closing(answer, ended) : ended.then((done) => closing(answer, done));
  }

  private refusedBodyAnswer(
    req: IncomingMessage,
    res: ServerResponse,
    marker: McpEndpointMarker,
    kind: PlatformBodyError,
  ): BodyErrorAnswer {
    const forbidden = this.admission.refusalOf(req, res);
    if (forbidden !== undefined) {
      return { status: 403, body: FORBIDDEN[forbidden], unread: true };
    }
    const refused: HttpRefusal | undefined =
      postHeadersRefusal(req.headers, POST_ANSWER[marker.kind]) ??
      (kind === 'media-type'
        ? {
            status: 415,
            error: failure(null, McpErrorCode.InvalidRequest, 'Unsupported Media Type: send application/json in UTF-8'),
          }
        : undefined);
    const outcome: BodyOutcome & { ok: false } =
      refused !== undefined
        ? { ok: false, ...refused, reason: 'media-type', unread: true }
        : kind === 'too-large'
          ? tooLarge(this.http.maxBodyBytes, true)
          : parseError();
    this.refusals.body(req, outcome);
    return { status: outcome.status, body: outcome.error, unread: outcome.unread === true };
  }
}

/**
 * The answer once what could be dropped of the body was: when the body did not end within
 * that, part of it is unread, and the adapter closes the connection (`closeUnread`).
 */
function closing(answer: BodyErrorAnswer, ended: boolean): BodyErrorAnswer {
  return { ...answer, unread: !ended };
}
