/**
 * The controllers of one server's HTTP endpoints, made for the paths it was mounted at: the module
 * definition knows only this function, not the transports behind it.
 */
import type { Type } from '@nestjs/common';
import type { McpHttpPaths } from './http-paths';
import { createEndpointController } from './endpoint.controller';
import { StreamableHttpService } from './streamable-http.service';
import { SimpleHttpService } from './simple-http.service';
import { LegacySseService } from './legacy-sse.service';

/**
 * One controller per endpoint the paths name: Streamable HTTP always, simple POST and the SSE
 * pair when configured.
 *
 * @param decorators class decorators applied to every controller (the `endpointDecorators` extra).
 */
export function createMcpControllers(paths: McpHttpPaths, decorators: readonly ClassDecorator[]): Type<unknown>[] {
  const controllers: Type<unknown>[] = [
    createEndpointController(
      'McpStreamableHttpController',
      paths.streamable,
      'streamable',
      StreamableHttpService,
      (t) => t.handle.bind(t),
      decorators,
    ),
  ];
  if (paths.simple !== undefined) {
    controllers.push(
      createEndpointController(
        'McpSimpleHttpController',
        paths.simple,
        'simple',
        SimpleHttpService,
        (t) => t.handle.bind(t),
        decorators,
      ),
    );
  }
  if (paths.sse !== undefined) {
    controllers.push(
      createEndpointController(
        'McpSseEventsController',
        paths.sse.events,
        'sse-events',
        LegacySseService,
        (t) => t.handleEvents.bind(t),
        decorators,
      ),
      createEndpointController(
        'McpSseMessagesController',
        paths.sse.messages,
        'sse-messages',
        LegacySseService,
        (t) => t.handleMessages.bind(t),
        decorators,
      ),
    );
  }
  return controllers;
}
