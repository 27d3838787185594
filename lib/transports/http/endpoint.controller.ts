import { Controller, Delete, Get, Inject, Options, Patch, Post, Put, Req, Res, type Type } from '@nestjs/common';

/** Serves every request to one endpoint; it dispatches on the HTTP method itself. */
export type EndpointHandler = (request: unknown, response: unknown) => Promise<void>;

/**
 * Routes every HTTP method of one path to one handler. The methods are declared one by one:
 * Fastify refuses a catch-all route beside method routes on one path (and adds HEAD for GET
 * itself), and the handler answers the methods it does not serve (405, or the CORS preflight).
 */
abstract class EndpointController {
  constructor(private readonly handle: EndpointHandler) {}

  @Post()
  post(@Req() request: unknown, @Res() response: unknown): Promise<void> {
    return this.handle(request, response);
  }

  @Get()
  get(@Req() request: unknown, @Res() response: unknown): Promise<void> {
    return this.handle(request, response);
  }

  @Delete()
  delete(@Req() request: unknown, @Res() response: unknown): Promise<void> {
    return this.handle(request, response);
  }

  @Put()
  put(@Req() request: unknown, @Res() response: unknown): Promise<void> {
    return this.handle(request, response);
  }

  @Patch()
  patch(@Req() request: unknown, @Res() response: unknown): Promise<void> {
    return this.handle(request, response);
  }

  @Options()
  options(@Req() request: unknown, @Res() response: unknown): Promise<void> {
    return this.handle(request, response);
  }
}

/**
 * Creates the controller of an MCP endpoint at `path`, whose requests go to the handler that
 * `handlerOf` picks on the transport service. It is an ordinary Nest route: the global prefix,
 * versioning, middleware and guards of the application apply to it.
 */
export function createEndpointController<T>(
  name: string,
  path: string,
  transport: Type<T>,
  handlerOf: (transport: T) => EndpointHandler,
): Type<unknown> {
  @Controller(path)
  class McpEndpointController extends EndpointController {
    constructor(@Inject(transport) service: T) {
      super(handlerOf(service));
    }
  }
  // The name Nest shows in its route logs.
  Object.defineProperty(McpEndpointController, 'name', { value: name });
  return McpEndpointController;
}
