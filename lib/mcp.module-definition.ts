import { ConfigurableModuleBuilder, type Type } from '@nestjs/common';
import type { McpModuleExtras, McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { MCP_HTTP_PATHS } from './mcp.constants';
import { resolveHttpPaths } from './transports/http/http-paths';
import { createEndpointController } from './transports/http/endpoint.controller';
import { StreamableHttpService } from './transports/http/streamable-http.service';
import { SimpleHttpService } from './transports/http/simple-http.service';
import { LegacySseService } from './transports/http/legacy-sse.service';

const DEFAULT_EXTRAS: McpModuleExtras = { isGlobal: true, path: 'mcp' };

export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN, OPTIONS_TYPE, ASYNC_OPTIONS_TYPE } =
  new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createMcpOptions')
    .setExtras<McpModuleExtras>(DEFAULT_EXTRAS, (definition, extras) => {
      // Extras are known synchronously even in forRootAsync, so the routes are mounted either way.
      const paths = resolveHttpPaths(extras, DEFAULT_EXTRAS.path!);
      const controllers: Type<unknown>[] = [
        createEndpointController('McpStreamableHttpController', paths.streamable, StreamableHttpService, (t) =>
          t.handle.bind(t),
        ),
      ];
      if (paths.simple !== undefined) {
        controllers.push(
          createEndpointController('McpSimpleHttpController', paths.simple, SimpleHttpService, (t) => t.handle.bind(t)),
        );
      }
      if (paths.sse !== undefined) {
        controllers.push(
          createEndpointController('McpSseEventsController', paths.sse.events, LegacySseService, (t) =>
            t.handleEvents.bind(t),
          ),
          createEndpointController('McpSseMessagesController', paths.sse.messages, LegacySseService, (t) =>
            t.handleMessages.bind(t),
          ),
        );
      }
      return {
        ...definition,
        global: extras.isGlobal ?? DEFAULT_EXTRAS.isGlobal,
        controllers: [...(definition.controllers ?? []), ...controllers],
        providers: [...(definition.providers ?? []), { provide: MCP_HTTP_PATHS, useValue: paths }],
      };
    })
    .build();

/**
 * The injection token of the module options, as passed to `forRoot` / resolved by `forRootAsync`.
 *
 * @publicApi
 */
export const MCP_MODULE_OPTIONS = MODULE_OPTIONS_TOKEN;
