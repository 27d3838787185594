/**
 * The controllers of one server's HTTP endpoints, made for the paths it was mounted at: the module
 * definition knows only `createMcpControllers`, not the transports behind it. Each controller has
 * one method per verb its endpoint serves, which hands the request to the transport's method of
 * that verb; `McpHttpGuard` has checked it first.
 */
import { Controller, Delete, Get, Inject, Options, Post, Req, Res, type Type } from '@nestjs/common';
import type { McpHttpPaths } from '../../identity/http-paths';
import { endpointMarker } from './endpoint-marker';
import { McpEndpoint, McpEndpointController, McpEndpointRoute } from './endpoint.controller';
import { StreamableHttpService } from './streamable-http.service';
import { SimpleHttpService } from './simple-http.service';
import { LegacySseService } from './legacy-sse.service';
import type { Awaitable } from '../../protocol/messages/thenables';
import type { HttpExchange } from './http-exchange';

/** Streamable HTTP: POST a message, GET a session's stream, DELETE a session. */
function streamableHttpController(
  path: string,
  server: string,
  decorators: readonly ClassDecorator[],
): Type<McpEndpointController> {
  const STREAMABLE = endpointMarker('streamable', server);
  @Controller(path)
  @McpEndpoint(STREAMABLE, decorators)
  class McpStreamableHttpController extends McpEndpointController {
    constructor(@Inject(StreamableHttpService) private readonly transport: StreamableHttpService) {
      super();
    }

    // The transport's verbs, made once for the controller rather than once per request.
    private readonly getOn = (exchange: HttpExchange): Awaitable<void> => this.transport.get(exchange);
    private readonly postOn = (exchange: HttpExchange): Awaitable<void> => this.transport.post(exchange);
    private readonly deleteOn = (exchange: HttpExchange): Awaitable<void> => this.transport.delete(exchange);

    @McpEndpointRoute(Get, STREAMABLE)
    get(@Req() request: unknown, @Res() response: unknown): Awaitable<void> {
      return this.serve(request, response, this.getOn);
    }

    @McpEndpointRoute(Post, STREAMABLE)
    post(@Req() request: unknown, @Res() response: unknown): Awaitable<void> {
      return this.serve(request, response, this.postOn);
    }

    @McpEndpointRoute(Delete, STREAMABLE)
    delete(@Req() request: unknown, @Res() response: unknown): Awaitable<void> {
      return this.serve(request, response, this.deleteOn);
    }

    @McpEndpointRoute(Options, STREAMABLE)
    options(@Req() request: unknown, @Res() response: unknown): void {
      this.preflight(request, response, STREAMABLE.allow);
    }
  }
  return McpStreamableHttpController;
}

/** The simple endpoint: POST a message, one JSON answer. */
function simpleHttpController(
  path: string,
  server: string,
  decorators: readonly ClassDecorator[],
): Type<McpEndpointController> {
  const SIMPLE = endpointMarker('simple', server);
  @Controller(path)
  @McpEndpoint(SIMPLE, decorators)
  class McpSimpleHttpController extends McpEndpointController {
    constructor(@Inject(SimpleHttpService) private readonly transport: SimpleHttpService) {
      super();
    }

    // The transport's verbs, made once for the controller rather than once per request.
    private readonly postOn = (exchange: HttpExchange): Awaitable<void> => this.transport.post(exchange);

    @McpEndpointRoute(Post, SIMPLE)
    post(@Req() request: unknown, @Res() response: unknown): Awaitable<void> {
      return this.serve(request, response, this.postOn);
    }

    @McpEndpointRoute(Options, SIMPLE)
    options(@Req() request: unknown, @Res() response: unknown): void {
      this.preflight(request, response, SIMPLE.allow);
    }
  }
  return McpSimpleHttpController;
}

/** The events path of the 2024-11-05 SSE pair: GET opens a session and its stream. */
function sseEventsController(
  path: string,
  server: string,
  decorators: readonly ClassDecorator[],
): Type<McpEndpointController> {
  const SSE_EVENTS = endpointMarker('sse-events', server);
  @Controller(path)
  @McpEndpoint(SSE_EVENTS, decorators)
  class McpSseEventsController extends McpEndpointController {
    constructor(@Inject(LegacySseService) private readonly transport: LegacySseService) {
      super();
    }

    // The transport's verbs, made once for the controller rather than once per request.
    private readonly eventsOn = (exchange: HttpExchange): Awaitable<void> => this.transport.events(exchange);

    @McpEndpointRoute(Get, SSE_EVENTS)
    get(@Req() request: unknown, @Res() response: unknown): Awaitable<void> {
      return this.serve(request, response, this.eventsOn);
    }

    @McpEndpointRoute(Options, SSE_EVENTS)
    options(@Req() request: unknown, @Res() response: unknown): void {
      this.preflight(request, response, SSE_EVENTS.allow);
    }
  }
  return McpSseEventsController;
}

/** The messages path of the SSE pair: POST a message, answered on the pair's stream. */
function sseMessagesController(
  path: string,
  server: string,
  decorators: readonly ClassDecorator[],
): Type<McpEndpointController> {
  const SSE_MESSAGES = endpointMarker('sse-messages', server);
  @Controller(path)
  @McpEndpoint(SSE_MESSAGES, decorators)
  class McpSseMessagesController extends McpEndpointController {
    constructor(@Inject(LegacySseService) private readonly transport: LegacySseService) {
      super();
    }

    // The transport's verbs, made once for the controller rather than once per request.
    private readonly messagesOn = (exchange: HttpExchange): Awaitable<void> => this.transport.messages(exchange);

    @McpEndpointRoute(Post, SSE_MESSAGES)
    post(@Req() request: unknown, @Res() response: unknown): Awaitable<void> {
      return this.serve(request, response, this.messagesOn);
    }

    @McpEndpointRoute(Options, SSE_MESSAGES)
    options(@Req() request: unknown, @Res() response: unknown): void {
      this.preflight(request, response, SSE_MESSAGES.allow);
    }
  }
  return McpSseMessagesController;
}

/**
 * One controller per endpoint the paths name: Streamable HTTP always, simple POST and the SSE
 * pair when configured.
 *
 * @param server the name of the server the endpoints belong to (on their marker).
 * @param decorators class decorators applied to every controller (the `endpointDecorators` extra).
 */
export function createMcpControllers(
  paths: McpHttpPaths,
  server: string,
  decorators: readonly ClassDecorator[],
): Type<unknown>[] {
  const controllers: Type<unknown>[] = [streamableHttpController(paths.streamable, server, decorators)];
  if (paths.simple !== undefined) {
    controllers.push(simpleHttpController(paths.simple, server, decorators));
  }
  if (paths.sse !== undefined) {
    controllers.push(
      sseEventsController(paths.sse.events, server, decorators),
      sseMessagesController(paths.sse.messages, server, decorators),
    );
  }
  return controllers;
}
