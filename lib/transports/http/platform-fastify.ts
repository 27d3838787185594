/**
 * The module's hooks on Fastify (see `HttpPlatform`). Fastify gives route options to `onRoute`
 * hooks only, so the module's routes are found, given the module's body limit and their error
 * hooks, as Nest registers them; once every route is registered, a request to one of their paths
 * that matched no route (a verb the endpoint does not serve) gets 405 instead of the
 * application's 404. Everything that reads Fastify's structures is in this file.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { servesVerb, markerOf, type McpEndpointMarker } from './endpoint-marker';
import { pathOf, type PlatformBodyError, type PlatformEndpoints } from './platform-hooks';
import { closeUnread } from './lingering-close';

/** Where a Fastify request keeps the body error its route's `onError` hook saw. */
const MCP_BODY_ERROR = Symbol('nest-mcp:body-error');

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
  removeHeader(name: string): FastifyReply;
}

/** The Fastify instance, as far as the hooks use it. */
export interface FastifyInstance {
  addHook(name: 'onRoute', hook: (route: FastifyRoute) => void): void;
  addHook(name: 'onRequest', hook: (request: FastifyRequest, reply: FastifyReply, done: () => void) => void): void;
}

/** Where a Fastify reply keeps the headers set on it; looked up on the first reply read (`null`: not found). */
let replyHeadersKey: symbol | null | undefined;

/**
 * The headers set on a Fastify reply (by a guard such as ThrottlerGuard, a hook, a CORS plugin),
 * for an answer written on its raw response. Read where the reply keeps them: `getHeaders()`
 * would also copy the raw response's own headers, which are on it already, and merge the two
 * into a new object, on every request. A Fastify that keeps them elsewhere gets `getHeaders()`.
 */
export function fastifyReplyHeaders(reply: { getHeaders(): Record<string, unknown> }): Record<string, unknown> {
  replyHeadersKey ??=
    Object.getOwnPropertySymbols(reply).find((key) => key.description === 'fastify.reply.headers') ?? null;
  const own = replyHeadersKey === null ? undefined : (reply as Record<symbol, unknown>)[replyHeadersKey];
  return typeof own === 'object' && own !== null ? (own as Record<string, unknown>) : reply.getHeaders();
}

function asArray(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * Before the routes are registered: each of the module's routes gets the module's body limit,
 * whatever the application's `bodyLimit`, and route-level error hooks (the rest of the
 * application pays nothing for them). Returns the endpoint of each mounted path.
 */
export function hookFastifyRoutes(
  fastify: FastifyInstance,
  endpoints: PlatformEndpoints,
  bodyLimit: number,
): ReadonlyMap<string, McpEndpointMarker> {
  const byPath = new Map<string, McpEndpointMarker>();
  fastify.addHook('onRoute', (route) => {
    const marker = markerOf(route.handler);
    // Every server adds this hook: each takes its own routes, with its own limit and checks.
    if (marker === undefined || marker.server !== endpoints.server) {
      return;
    }
    // Fastify adds a HEAD route for each GET, with the GET's options: it goes to the GET's
    // handler, whose guard answers it 405.
    const verb = route.method === 'HEAD' ? 'GET' : typeof route.method === 'string' ? route.method : undefined;
    if (servesVerb(marker, verb)) {
      // The module serves its routes itself (see `EndpointRoutes`).
      route.handler = endpoints.routeHandler(marker, verb);
    }
    route.bodyLimit = bodyLimit;
    route.onError = [...asArray(route.onError), onError];
    route.onSend = [...asArray(route.onSend), onSend(endpoints, marker)];
    endpoints.mount(marker, route.url);
    byPath.set(route.url, marker);
  });
  return byPath;
}

/** Once every route is registered: 405 for a verb an endpoint does not serve. */
export function installOnFastify(
  fastify: FastifyInstance,
  byPath: ReadonlyMap<string, McpEndpointMarker>,
  endpoints: PlatformEndpoints,
): void {
  if (byPath.size === 0) {
    return;
  }
  // A callback hook, not an async one: it runs for every request of the application, and an
  // async hook costs each of them a promise and a turn of the microtask queue.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.is404 === true) {
      const marker = byPath.get(pathOf(request.url));
      if (marker !== undefined) {
        endpoints.methodNotAllowed(request, reply, marker);
      }
    }
    done();
  });
}

/** Fastify's parser refused the body: noted here, answered when Fastify sends its error. */
async function onError(request: FastifyRequest, _reply: FastifyReply, error: { code?: string }): Promise<void> {
  const kind = fastifyBodyError(error?.code);
  if (kind !== undefined) {
    request[MCP_BODY_ERROR] = kind;
  }
}

function onSend(endpoints: PlatformEndpoints, marker: McpEndpointMarker) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const kind = request[MCP_BODY_ERROR];
    if (kind === undefined) {
      return payload;
    }
    const { status, body, unread } = await endpoints.bodyErrorAnswer(request.raw, reply.raw, marker, kind);
    reply.code(status).header('content-type', 'application/json');
    if (unread) {
      reply.header('connection', closeUnread(request.raw).connection);
    } else {
      // Fastify closes the connection of any body its parser refused, for the rest of the body;
      // the rest was read and dropped, so the connection may serve the next request.
      reply.removeHeader('connection');
    }
    return JSON.stringify(body);
  };
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
