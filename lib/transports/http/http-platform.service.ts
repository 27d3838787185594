/**
 * What the module asks of the application's HTTP platform (Express or Fastify) for its own
 * routes, and nothing for the others:
 *
 * - its bodies are read by the module up to `http.maxBodyBytes` (the platform's parser and its
 *   limit stay in force on every other route);
 * - a body the platform's parser refused anyway is answered as JSON-RPC, after the same Host,
 *   Origin and header checks as any other request;
 * - a verb an endpoint does not serve gets 405 with `Allow`, without a route of its own;
 * - the full paths the platform mounted each endpoint at (global prefix and version included).
 *
 * The module's routes are recognised by the marker their handlers carry (`McpEndpointMarker`),
 * which Nest copies onto the handler it registers with the platform: Express lists it in its
 * router stack, Fastify hands it to `onRoute` hooks. Everything that reads a platform's internal
 * structures is in this file.
 */
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpAdapterHost } from '@nestjs/core';
import { MCP_RESOLVED_OPTIONS } from '../../mcp.constants';
import type { ResolvedMcpOptions } from '../../mcp-options.factory';
import { ErrorCode, failure } from '../../protocol/json-rpc';
import { HttpGate } from './http-gate.service';
import { FORBIDDEN, sendJson } from './http-exchange';
import { markerOf, type McpEndpointKind, type McpEndpointMarker } from './endpoint.controller';
import { postHeadersRefusal, type HttpRefusal, type PostAnswer } from './content-negotiation';
import { parseError, tooLarge, type BodyOutcome } from './request-body';

/** A refusal of the platform's body parser, as the module answers it. */
type PlatformBodyError = 'parse' | 'too-large' | 'media-type';

/** body-parser's error types (Express), by what they mean. */
const EXPRESS_ERRORS: Readonly<Record<string, PlatformBodyError>> = {
  'entity.parse.failed': 'parse',
  'entity.verify.failed': 'parse',
  'request.aborted': 'parse',
  'request.size.invalid': 'parse',
  'stream.encoding.set': 'parse',
  'stream.not.readable': 'parse',
  'entity.too.large': 'too-large',
  'charset.unsupported': 'media-type',
  'encoding.unsupported': 'media-type',
};

/** The names body-parser gives its middleware (Nest's own parsers and `useBodyParser()` ones). */
const EXPRESS_PARSERS = new Set(['jsonParser', 'urlencodedParser', 'textParser', 'rawParser']);

/** How each endpoint answers a POST (for the header checks of a refused body). */
const POST_ANSWER: Readonly<Record<McpEndpointKind, PostAnswer>> = {
  streamable: 'json-and-sse',
  simple: 'json',
  'sse-events': 'status',
  'sse-messages': 'status',
};

/** Where a Fastify request keeps the body error its route's `onError` hook saw. */
const MCP_BODY_ERROR = Symbol('nest-mcp:body-error');

interface ExpressLayer {
  handle: ((...args: unknown[]) => unknown) & { name: string };
  route?: { path?: unknown; stack?: Array<{ handle?: unknown }> };
  match?(path: string): unknown;
}

interface ExpressApp {
  router?: { stack?: ExpressLayer[] };
  _router?: { stack?: ExpressLayer[] };
  use(handler: unknown): void;
}

interface FastifyRoute {
  url: string;
  method: string | string[];
  handler: unknown;
  bodyLimit?: number;
  onError?: unknown;
  onSend?: unknown;
}

interface FastifyRequest {
  url: string;
  raw: IncomingMessage;
  is404?: boolean;
  [MCP_BODY_ERROR]?: PlatformBodyError;
}

interface FastifyReply {
  raw: ServerResponse;
  code(status: number): FastifyReply;
  header(name: string, value: string): FastifyReply;
}

interface FastifyInstance {
  addHook(name: 'onRoute', hook: (route: FastifyRoute) => void): void;
  addHook(name: 'onRequest', hook: (request: FastifyRequest, reply: FastifyReply) => Promise<void>): void;
}

/** The path of a request URL, without its query. */
function pathOf(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}

function asArray(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * The platform side of the module's HTTP endpoints (see the file comment). `beforeRoutes()` runs
 * from `McpModule.configure()`, after Nest registered its body parsers and before it registers
 * routes; `onModuleInit()` runs once every route is registered.
 */
@Injectable()
export class HttpPlatform implements OnModuleInit {
  private readonly logger = new Logger('McpHttp');
  /** The full paths of each endpoint, as the platform mounted them. */
  private readonly mounted = new Map<McpEndpointKind, Set<string>>();
  /** Fastify: the endpoint of each mounted path. */
  private readonly byPath = new Map<string, McpEndpointMarker>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly adapterHost: HttpAdapterHost,
    private readonly gate: HttpGate,
  ) {}

  /** The full paths (global prefix and version included) each endpoint is served at. */
  pathsOf(kind: McpEndpointKind): string[] {
    return [...(this.mounted.get(kind) ?? [])];
  }

  /** Before the routes are registered: Fastify gives route options to `onRoute` hooks only. */
  beforeRoutes(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (adapter?.getType() !== 'fastify') {
      return;
    }
    const fastify = adapter.getInstance<FastifyInstance>();
    fastify.addHook('onRoute', (route) => {
      const marker = markerOf(route.handler);
      if (marker === undefined) {
        return;
      }
      // The module's limit on its own routes, whatever the application's `bodyLimit`.
      route.bodyLimit = this.options.http.maxBodyBytes;
      // Route-level hooks: the rest of the application pays nothing for them.
      route.onError = [...asArray(route.onError), this.fastifyOnError];
      route.onSend = [...asArray(route.onSend), this.fastifyOnSend(marker)];
      this.mount(marker, route.url);
      this.byPath.set(route.url, marker);
    });
  }

  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    // An application context (stdio) has no HTTP platform: its adapter is null.
    if (adapter === undefined || adapter === null) {
      return;
    }
    if (adapter.getType() === 'express') {
      this.installOnExpress(adapter.getInstance<ExpressApp>());
    } else if (adapter.getType() === 'fastify') {
      this.installOnFastify(adapter.getInstance<FastifyInstance>());
    }
  }

  private mount(marker: McpEndpointMarker, path: string): void {
    let paths = this.mounted.get(marker.kind);
    if (paths === undefined) {
      paths = new Set();
      this.mounted.set(marker.kind, paths);
    }
    paths.add(path);
  }

  /**
   * Express: the module's route layers are found in the router stack; the body parsers in front
   * of them skip requests those layers match (with Express's own matching), and two handlers go
   * after the routes: 405 for a verb an endpoint does not serve, and the JSON-RPC answer to a
   * body error of a parser the module did not exempt (one the application added elsewhere).
   */
  private installOnExpress(app: ExpressApp): void {
    const stack = (app.router ?? app._router)?.stack;
    if (!Array.isArray(stack)) {
      this.logger.warn(
        'Could not find the Express router: MCP request bodies are read by the application body parser and its limit',
      );
      return;
    }
    const endpoints: Array<{ layer: ExpressLayer; marker: McpEndpointMarker }> = [];
    for (const layer of stack) {
      const handlers = layer.route?.stack ?? [];
      const marker = handlers.map((handler) => markerOf(handler.handle)).find((found) => found !== undefined);
      if (marker !== undefined) {
        endpoints.push({ layer, marker });
        if (typeof layer.route?.path === 'string') {
          this.mount(marker, layer.route.path);
        }
      }
    }
    if (endpoints.length === 0) {
      return;
    }
    const endpointOf = (req: IncomingMessage): McpEndpointMarker | undefined => {
      const path = pathOf((req as { originalUrl?: string }).originalUrl ?? req.url);
      return endpoints.find(({ layer }) => (layer.match ? Boolean(layer.match(path)) : false))?.marker;
    };

    const firstEndpoint = stack.indexOf(endpoints[0].layer);
    for (const layer of stack.slice(0, firstEndpoint)) {
      if (layer.route === undefined && EXPRESS_PARSERS.has(layer.handle?.name)) {
        layer.handle = exemptingEndpoints(layer.handle, endpointOf);
      }
    }

    app.use((req: IncomingMessage, res: ServerResponse, next: () => void) => {
      const marker = endpointOf(req);
      if (marker === undefined) {
        next();
        return;
      }
      this.gate.methodNotAllowed(this.gate.exchange(req, res), marker.allow);
    });
    app.use(
      (error: { type?: string }, req: IncomingMessage, res: ServerResponse, next: (error: unknown) => void): void => {
        const kind = EXPRESS_ERRORS[error?.type ?? ''];
        const marker = kind === undefined ? undefined : endpointOf(req);
        if (kind === undefined || marker === undefined) {
          next(error);
          return;
        }
        this.answerBodyError(req, res, marker, kind);
      },
    );
  }

  /**
   * Fastify: the `onRoute` hook set the module's limit and its error hooks on its routes; here,
   * a request to one of its paths that matched no route (a verb the endpoint does not serve)
   * gets 405 instead of the application's 404.
   */
  private installOnFastify(fastify: FastifyInstance): void {
    if (this.byPath.size === 0) {
      return;
    }
    fastify.addHook('onRequest', async (request, reply) => {
      if (request.is404 !== true) {
        return;
      }
      const marker = this.byPath.get(pathOf(request.url));
      if (marker !== undefined) {
        this.gate.methodNotAllowed(this.gate.exchange(request, reply), marker.allow);
      }
    });
  }

  /** Fastify's parser refused the body: noted here, answered when Fastify sends its error. */
  private readonly fastifyOnError = async (
    request: FastifyRequest,
    _reply: FastifyReply,
    error: { code?: string },
  ): Promise<void> => {
    const kind = fastifyBodyError(error?.code);
    if (kind !== undefined) {
      request[MCP_BODY_ERROR] = kind;
    }
  };

  private fastifyOnSend(marker: McpEndpointMarker) {
    return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
      const kind = request[MCP_BODY_ERROR];
      if (kind === undefined) {
        return payload;
      }
      const { status, body, unread } = this.bodyErrorAnswer(request.raw, reply.raw, marker, kind);
      reply.code(status).header('content-type', 'application/json');
      if (unread) {
        reply.header('connection', 'close');
      }
      return JSON.stringify(body);
    };
  }

  /** Express: the answer to a body error, written on the response. */
  private answerBodyError(
    req: IncomingMessage,
    res: ServerResponse,
    marker: McpEndpointMarker,
    kind: PlatformBodyError,
  ): void {
    const { status, body, unread } = this.bodyErrorAnswer(req, res, marker, kind);
    sendJson(res, status, body, unread ? { connection: 'close' } : {});
  }

  /**
   * The answer to a body the platform refused, after the checks every request passes first:
   * Host and Origin (403), then the endpoint's header checks (406, 415), then the platform's
   * verdict itself. The refusal is logged like the module's own.
   */
  private bodyErrorAnswer(
    req: IncomingMessage,
    res: ServerResponse,
    marker: McpEndpointMarker,
    kind: PlatformBodyError,
  ): { status: number; body: unknown; unread: boolean } {
    if (!this.gate.check(req, res)) {
      this.gate.refusedOrigin(req);
      return { status: 403, body: FORBIDDEN, unread: true };
    }
    const refused: HttpRefusal | undefined =
      postHeadersRefusal(req.headers, POST_ANSWER[marker.kind]) ??
      (kind === 'media-type'
        ? {
            status: 415,
            error: failure(null, ErrorCode.InvalidRequest, 'Unsupported Media Type: send application/json in UTF-8'),
          }
        : undefined);
    const outcome: BodyOutcome & { ok: false } =
      refused !== undefined
        ? { ok: false, ...refused, reason: 'media-type', unread: true }
        : kind === 'too-large'
          ? tooLarge(this.options.http.maxBodyBytes, true)
          : parseError();
    this.gate.logBodyRefusal(req, outcome);
    return { status: outcome.status, body: outcome.error, unread: outcome.unread === true };
  }
}

function fastifyBodyError(code: string | undefined): PlatformBodyError | undefined {
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'too-large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return 'media-type';
    case undefined:
      return undefined;
    default:
      // Every other parser error (invalid or empty JSON, a bad Content-Length...).
      return code.startsWith('FST_ERR_CTP_') ? 'parse' : undefined;
  }
}

/**
 * A body parser that leaves the module's routes alone: their bodies are read by the module with
 * its own limits. Keeps the parser's name, which Nest reads to tell whether a parser is applied.
 */
function exemptingEndpoints(
  parser: ExpressLayer['handle'],
  endpointOf: (req: IncomingMessage) => McpEndpointMarker | undefined,
): ExpressLayer['handle'] {
  const exempting = function (req: IncomingMessage, res: unknown, next: () => void): unknown {
    if (req.method === 'GET' || req.method === 'HEAD' || endpointOf(req) === undefined) {
      return parser(req, res, next);
    }
    next();
    return undefined;
  };
  Object.defineProperty(exempting, 'name', { value: parser.name });
  return exempting as ExpressLayer['handle'];
}
