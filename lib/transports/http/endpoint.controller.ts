import {
  applyDecorators,
  Controller,
  Delete,
  type ExecutionContext,
  Get,
  Inject,
  Options,
  Post,
  Req,
  Res,
  SetMetadata,
  type Type,
} from '@nestjs/common';
import { MCP_ENDPOINT_METADATA } from '../../mcp.constants';

/** Serves every request to one endpoint; it dispatches on the HTTP method itself. */
export type EndpointHandler = (request: unknown, response: unknown) => Promise<void>;

/** The HTTP endpoints of a server. */
export type McpEndpointKind = 'streamable' | 'simple' | 'sse-events' | 'sse-messages';

/**
 * What the generated controllers and their route handlers carry under `MCP_ENDPOINT_METADATA`:
 * the platform hooks find the module's routes by it (own body reading, the answers to verbs the
 * endpoint does not serve), and `isMcpEndpoint()` tells guards about them.
 */
export interface McpEndpointMarker {
  readonly kind: McpEndpointKind;
  /** The methods the endpoint serves, as the `Allow` header lists them. */
  readonly allow: string;
}

type Verb = 'POST' | 'GET' | 'DELETE' | 'OPTIONS';

const VERB_DECORATORS: Readonly<Record<Verb, () => MethodDecorator>> = {
  POST: Post,
  GET: Get,
  DELETE: Delete,
  OPTIONS: Options,
};

/** The verbs each endpoint serves; other verbs are answered 405 by the platform hooks, without a route. */
const SERVED: Readonly<Record<McpEndpointKind, readonly Verb[]>> = {
  streamable: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  simple: ['POST', 'OPTIONS'],
  'sse-events': ['GET', 'OPTIONS'],
  'sse-messages': ['POST', 'OPTIONS'],
};

/** The marker of an endpoint kind. */
export function endpointMarker(kind: McpEndpointKind): McpEndpointMarker {
  return { kind, allow: SERVED[kind].join(', ') };
}

/** The marker a class or a route handler carries, if it is one of the module's endpoints. */
export function markerOf(target: unknown): McpEndpointMarker | undefined {
  return typeof target === 'function'
    ? (Reflect.getMetadata(MCP_ENDPOINT_METADATA, target) as McpEndpointMarker | undefined)
    : undefined;
}

/**
 * Creates the controller of an MCP endpoint at `path`, whose requests go to the handler that
 * `handlerOf` picks on the transport service. It is an ordinary Nest route: the global prefix,
 * versioning, middleware and guards of the application apply to it; `decorators` (the
 * `endpointDecorators` extra, such as an application's `@Public()`) are applied to the class.
 *
 * Only the verbs the endpoint serves are routes (one route line each in Nest's log); the handler
 * answers `OPTIONS` (CORS preflight) itself.
 */
export function createEndpointController<T>(
  name: string,
  path: string,
  kind: McpEndpointKind,
  transport: Type<T>,
  handlerOf: (transport: T) => EndpointHandler,
  decorators: readonly ClassDecorator[] = [],
): Type<unknown> {
  const marker = endpointMarker(kind);

  @Controller(path)
  class McpEndpointController {
    readonly handle: EndpointHandler;

    constructor(@Inject(transport) service: T) {
      this.handle = handlerOf(service);
    }
  }

  for (const verb of SERVED[kind]) {
    const methodName = verb.toLowerCase();
    // One method per verb, so that each route is a plain Nest route of its own.
    const method = function (this: McpEndpointController, request: unknown, response: unknown): Promise<void> {
      return this.handle(request, response);
    };
    Object.defineProperty(method, 'name', { value: methodName });
    const descriptor: PropertyDescriptor = { value: method, writable: true, configurable: true, enumerable: false };
    Object.defineProperty(McpEndpointController.prototype, methodName, descriptor);
    Req()(McpEndpointController.prototype, methodName, 0);
    Res()(McpEndpointController.prototype, methodName, 1);
    // The marker on the method travels to the route handler Nest registers with the platform.
    applyDecorators(VERB_DECORATORS[verb](), SetMetadata(MCP_ENDPOINT_METADATA, marker))(
      McpEndpointController.prototype,
      methodName,
      descriptor,
    );
  }
  SetMetadata(MCP_ENDPOINT_METADATA, marker)(McpEndpointController);
  if (decorators.length > 0) {
    applyDecorators(...decorators)(McpEndpointController);
  }
  // The name Nest shows in its route logs.
  Object.defineProperty(McpEndpointController, 'name', { value: name });
  return McpEndpointController;
}

/**
 * Whether a guard (or interceptor) runs for an HTTP request to one of the module's endpoints,
 * rather than for an application route or an MCP tool call (context type `'mcp'`). For global
 * guards that must let the endpoints through to the module's own authentication:
 *
 * @example
 * ```ts
 * canActivate(context: ExecutionContext) {
 *   if (isMcpEndpoint(context)) return true; // McpModule's `auth` decides
 *   ...
 * }
 * ```
 * @publicApi
 */
export function isMcpEndpoint(context: ExecutionContext): boolean {
  return context.getType() === 'http' && markerOf(context.getClass()) !== undefined;
}
