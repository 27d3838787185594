/**
 * The module's hooks on Express (see `HttpPlatform`). Its route layers are found in the router
 * stack by the marker their handlers carry; the body parsers in front of them skip the requests
 * those layers match (with Express's own matching), and two handlers go after the routes: 405 for
 * a verb an endpoint does not serve, and the JSON-RPC answer to a body error of a parser the
 * module did not exempt (one the application added elsewhere). Everything that reads Express's
 * internal structures is in this file.
 */
import type { Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { servesVerb, markerOf, type McpEndpointMarker } from './endpoint-marker';
import { isThenable } from '../../protocol/messages/thenables';
import { sendJson } from './http-exchange';
import { closeUnread } from './lingering-close';
import { pathOf, type BodyErrorAnswer, type PlatformBodyError, type PlatformEndpoints } from './platform-hooks';

/** body-parser's error types, by what they mean. */
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

interface ExpressLayer {
  handle: ((...args: unknown[]) => unknown) & { name: string };
  route?: { path?: unknown; stack?: Array<{ handle?: unknown; method?: string }> };
  match?(path: string): unknown;
}

/** The Express application, as far as the hooks read it. */
export interface ExpressApp {
  router?: { stack?: ExpressLayer[] };
  _router?: { stack?: ExpressLayer[] };
  use(handler: unknown): void;
}

/** Installs the hooks once every route is registered (see the file comment). */
export function installOnExpress(app: ExpressApp, endpoints: PlatformEndpoints, logger: Logger): void {
  const stack = (app.router ?? app._router)?.stack;
  if (!Array.isArray(stack)) {
    logger.warn(
      'Could not find the Express router: MCP request bodies are read by the application body parser and its limit',
    );
    return;
  }
  const routes: Array<{ layer: ExpressLayer; marker: McpEndpointMarker }> = [];
  for (const layer of stack) {
    const handlers = layer.route?.stack ?? [];
    // Each server installs its own hooks, for its own routes.
    const marker = handlers
      .map((handler) => markerOf(handler.handle))
      .find((found) => found !== undefined && found.server === endpoints.server);
    if (marker !== undefined) {
      routes.push({ layer, marker });
      if (typeof layer.route?.path === 'string') {
        endpoints.mount(marker, layer.route.path);
      }
      serveOwnRoutes(handlers, marker, endpoints);
    }
  }
  if (routes.length === 0) {
    return;
  }
  const endpointOf = (req: IncomingMessage): McpEndpointMarker | undefined => {
    const path = pathOf((req as { originalUrl?: string }).originalUrl ?? req.url);
    return routes.find(({ layer }) => (layer.match ? Boolean(layer.match(path)) : false))?.marker;
  };

  const firstEndpoint = stack.indexOf(routes[0].layer);
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
    endpoints.methodNotAllowed(req, res, marker);
  });
  app.use((error: { type?: string }, req: IncomingMessage, res: ServerResponse, next: (error: unknown) => void) => {
    const kind = EXPRESS_ERRORS[error?.type ?? ''];
    const marker = kind === undefined ? undefined : endpointOf(req);
    if (kind === undefined || marker === undefined) {
      next(error);
      return;
    }
    const send = ({ status, body, unread }: BodyErrorAnswer): void =>
      sendJson(res, status, body, unread ? closeUnread(req) : {});
    const answer = endpoints.bodyErrorAnswer(req, res, marker, kind);
    if (isThenable(answer)) {
      void answer.then(send);
    } else {
      send(answer);
    }
  });
}

/**
 * Puts the module's own handler in place of each handler Nest registered for an endpoint's
 * route (see `EndpointRoutes`). Express routes `HEAD` to the `GET` handler, whose guard refuses it.
 */
function serveOwnRoutes(
  handlers: Array<{ handle?: unknown; method?: string }>,
  marker: McpEndpointMarker,
  endpoints: PlatformEndpoints,
): void {
  for (const handler of handlers) {
    const verb = handler.method?.toUpperCase();
    if (markerOf(handler.handle) !== undefined && servesVerb(marker, verb)) {
      const serve = endpoints.routeHandler(marker, verb);
      handler.handle = (req: unknown, res: unknown) => {
        serve(req, res);
      };
    }
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
