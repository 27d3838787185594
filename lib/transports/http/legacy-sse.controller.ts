import { Controller, Delete, Get, Options, Patch, Post, Put, Req, Res, type Type } from '@nestjs/common';
import { EVENTS_ALLOW, LegacySseService, MESSAGES_ALLOW } from './legacy-sse.service';

/**
 * Creates the two controllers of the 2024-11-05 HTTP+SSE pair: the event stream at
 * `eventsPath` and the messages endpoint at `messagesPath`. Ordinary Nest routes: the global
 * prefix, versioning, middleware and guards of the application apply to them.
 */
export function createLegacySseControllers(eventsPath: string, messagesPath: string): Type<unknown>[] {
  @Controller(eventsPath)
  class McpSseEventsController {
    constructor(private readonly transport: LegacySseService) {}

    @Get()
    open(@Req() request: unknown, @Res() response: unknown): Promise<void> {
      return this.transport.open(request, response);
    }

    // The other verbs one by one: Fastify refuses a catch-all route beside verb routes on one path.
    @Post()
    post(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response, EVENTS_ALLOW);
    }

    @Delete()
    delete(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response, EVENTS_ALLOW);
    }

    @Put()
    put(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response, EVENTS_ALLOW);
    }

    @Patch()
    patch(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response, EVENTS_ALLOW);
    }

    @Options()
    options(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response, EVENTS_ALLOW);
    }
  }

  @Controller(messagesPath)
  class McpSseMessagesController {
    constructor(private readonly transport: LegacySseService) {}

    @Post()
    post(@Req() request: unknown, @Res() response: unknown): Promise<void> {
      return this.transport.message(request, response);
    }

    @Get()
    get(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response, MESSAGES_ALLOW);
    }

    @Delete()
    delete(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response, MESSAGES_ALLOW);
    }

    @Put()
    put(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response, MESSAGES_ALLOW);
    }

    @Patch()
    patch(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response, MESSAGES_ALLOW);
    }

    @Options()
    options(@Req() request: unknown, @Res() response: unknown): void {
      this.transport.other(request, response, MESSAGES_ALLOW);
    }
  }

  return [McpSseEventsController, McpSseMessagesController];
}
