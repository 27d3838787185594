/**
 * What the Express and Fastify hooks of the module's routes share (see `HttpPlatform`): the
 * answers they hand back to it, and how they name a request's path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpEndpointMarker, McpEndpointVerb } from './endpoint-marker';

/** A refusal of the platform's body parser, as the module answers it. */
export type PlatformBodyError = 'parse' | 'too-large' | 'media-type';

/** The answer to a body the platform refused, once every check before it passed. */
export interface BodyErrorAnswer {
  readonly status: number;
  readonly body: unknown;
  /** Whether part of the body is unread: the adapter then closes the connection with `closeUnread`. */
  readonly unread: boolean;
}

/** A route handler as the platform calls it: Express `(req, res, next)`, Fastify `(request, reply)`. */
export type EndpointRouteHandler = (request: unknown, response: unknown) => unknown;

/** What the platform hooks ask of `HttpPlatform`. */
export interface PlatformEndpoints {
  /** The server whose routes these are: the hooks leave the routes of other servers alone. */
  readonly server: string;
  /** An endpoint's route, mounted at its full path (global prefix and version included). */
  mount(marker: McpEndpointMarker, path: string): void;
  /** The module's own handler of an endpoint's route, in place of the one Nest registered. */
  routeHandler(marker: McpEndpointMarker, verb: McpEndpointVerb): EndpointRouteHandler;
  /** A verb the endpoint does not serve (no route): 405 with `Allow`, after the Host/Origin check. */
  methodNotAllowed(request: unknown, response: unknown, marker: McpEndpointMarker): void;
  /** The answer to a body the platform's parser refused, once what is left of the body is dropped. */
  bodyErrorAnswer(
    req: IncomingMessage,
    res: ServerResponse,
    marker: McpEndpointMarker,
    kind: PlatformBodyError,
  ): BodyErrorAnswer | Promise<BodyErrorAnswer>;
}

/** The path of a request URL, without its query. */
export function pathOf(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}
