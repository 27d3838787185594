import {
  applyDecorators,
  type ExecutionContext,
  Inject,
  type OnModuleInit,
  SetMetadata,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { MCP_CONSOLE_METADATA, MCP_ENDPOINT_METADATA } from '../../shared/mcp.constants';
import { HttpDrain } from './http-drain';
import { sendEmpty, type HttpExchange } from './http-exchange';
import { HttpAdmission } from './http-admission.service';
import { HttpExchanges } from './http-exchanges.service';
import { EndpointRoutes } from './endpoint-routes.service';
import { McpHttpGuard } from './mcp-http.guard';
import { McpHttpExceptionFilter } from './mcp-http-exception.filter';
import { markerOf, type McpEndpointMarker } from './endpoint-marker';
import type { Awaitable } from '../../protocol/messages/thenables';

/**
 * Marks a class as one of the module's endpoint controllers: the application's decorators for
 * it first (the `endpointDecorators` extra, such as an application's `@Public()`), then the
 * marker, `McpHttpGuard` and `McpHttpExceptionFilter`. So a guard the application adds there
 * runs where the application's global guards do, before the module's own checks.
 */
export function McpEndpoint(marker: McpEndpointMarker, decorators: readonly ClassDecorator[] = []): ClassDecorator {
  return applyDecorators(
    ...decorators,
    SetMetadata(MCP_ENDPOINT_METADATA, marker),
    UseGuards(McpHttpGuard),
    UseFilters(McpHttpExceptionFilter),
  );
}

/**
 * A route of an endpoint: the verb's decorator (`Post`, `Get`...), and the marker, which Nest
 * copies onto the handler it registers with the platform, where the platform hooks find it.
 */
export function McpEndpointRoute(verb: () => MethodDecorator, marker: McpEndpointMarker): MethodDecorator {
  return applyDecorators(verb(), SetMetadata(MCP_ENDPOINT_METADATA, marker));
}

/**
 * What the verb methods of the endpoint controllers share. A controller is mounted by Nest like
 * any other (the global prefix, versioning and middleware of the application apply to its
 * routes), and the module serves its routes itself (`EndpointRoutes`): the application's global
 * guards, interceptors, pipes and filters run around each MCP call, not on the route. Its verb
 * methods hand the request to the transport's method of that verb, which answers it.
 */
export abstract class McpEndpointController implements OnModuleInit {
  // Property injection keeps the subclasses' constructors to their transport.
  @Inject(HttpExchanges) private readonly exchanges!: HttpExchanges;
  @Inject(HttpDrain) private readonly drain!: HttpDrain;
  @Inject(HttpAdmission) private readonly admission!: HttpAdmission;
  @Inject(EndpointRoutes) private readonly routes!: EndpointRoutes;

  onModuleInit(): void {
    this.routes.register(this);
  }

  /**
   * Serves a request the guard let through: `serve` answers it on the raw response, and counts
   * as being served (for the drain) until it returns (or its promise settles). What it throws
   * goes to the filter. `serve` is made once per controller (see the subclasses), not per request.
   */
  protected serve(
    request: unknown,
    response: unknown,
    serve: (exchange: HttpExchange) => Awaitable<void>,
  ): Awaitable<void> {
    return this.drain.track(serve, this.exchanges.of(request, response));
  }

  /** `OPTIONS`: 204 with `Allow`, and the CORS preflight answer for an admitted origin. */
  protected preflight(request: unknown, response: unknown, allow: string): void {
    const { req, res } = this.exchanges.of(request, response);
    sendEmpty(res, 204, this.admission.preflightHeaders(req, res, allow));
  }
}

/**
 * Whether a guard (or interceptor) runs for an HTTP request to one of the module's endpoints or
 * to its console (the `console` extra: the page and its files, which need no credentials),
 * rather than for an application route or an MCP tool call (context type `'mcp'`). The module
 * serves its endpoint routes itself, so the application's global guards never see them: this is
 * true there only for the guards of `endpointDecorators`. The console is an ordinary route, which
 * global guards do wrap:
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
  if (context.getType() !== 'http') {
    return false;
  }
  const controller = context.getClass();
  // The console has a mark of its own: the platform hooks read the endpoint marker for bodies.
  return markerOf(controller) !== undefined || Reflect.getMetadata(MCP_CONSOLE_METADATA, controller) !== undefined;
}
