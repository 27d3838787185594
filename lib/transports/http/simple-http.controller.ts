import { Controller, Delete, Get, Options, Patch, Post, Put, Req, Res, type Type } from '@nestjs/common';
import { SimpleHttpService } from './simple-http.service';

/**
 * Creates the controller of the simple POST-only endpoint at `path`: an ordinary Nest route, so
 * the global prefix, versioning, middleware and guards of the application apply to it.
 */
export function createSimpleHttpController(path: string): Type<unknown> {
  @Controller(path)
  class McpSimpleHttpController {
    constructor(private readonly transport: SimpleHttpService) {}

    @Post()
    post(@Req() request: unknown, @Res() response: unknown): Promise<void> {
      return this.transport.post(request, response);
    }

    // The other verbs one by one: Fastify refuses a catch-all route beside verb routes on one path.
    @Get()
    get(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response);
    }

    @Delete()
    delete(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response);
    }

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
  return McpSimpleHttpController;
}
