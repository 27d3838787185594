import { Controller, Delete, Get, Options, Patch, Post, Put, Req, Res, type Type } from '@nestjs/common';
import { StreamableHttpService } from './streamable-http.service';

/**
 * Creates the controller of the Streamable HTTP endpoint at `path`. It is an ordinary Nest
 * route: the global prefix, versioning, middleware and guards of the application apply to it.
 */
export function createStreamableHttpController(path: string): Type<unknown> {
  @Controller(path)
  class McpStreamableHttpController {
    constructor(private readonly transport: StreamableHttpService) {}

    @Post()
    post(@Req() request: unknown, @Res() response: unknown): Promise<void> {
      return this.transport.post(request, response);
    }

    @Get()
    get(@Req() request: unknown, @Res() response: unknown): Promise<void> {
      return this.transport.get(request, response);
    }

    @Delete()
    delete(@Req() request: unknown, @Res() response: unknown): Promise<void> {
      return this.transport.delete(request, response);
    }

    // The other verbs one by one: Fastify refuses a catch-all route beside verb routes on one path
    // (and adds HEAD for GET itself).
    @Put()
    put(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response);
    }

    @Patch()
    patch(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response);
    }

    @Options()
    options(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response);
    }
  }
  return McpStreamableHttpController;
}
