import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { McpModuleExtras, McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { MCP_HTTP_PATH } from './mcp.constants';
import { createStreamableHttpController } from './transports/http/streamable-http.controller';

const DEFAULT_EXTRAS: Required<McpModuleExtras> = { isGlobal: true, path: 'mcp' };

export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN, OPTIONS_TYPE, ASYNC_OPTIONS_TYPE } =
  new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createMcpOptions')
    .setExtras<McpModuleExtras>(DEFAULT_EXTRAS, (definition, extras) => {
      // Extras are known synchronously even in forRootAsync, so the route is mounted either way.
      const path = extras.path ?? DEFAULT_EXTRAS.path;
      return {
        ...definition,
        global: extras.isGlobal ?? DEFAULT_EXTRAS.isGlobal,
        controllers: [...(definition.controllers ?? []), createStreamableHttpController(path)],
        providers: [...(definition.providers ?? []), { provide: MCP_HTTP_PATH, useValue: path }],
      };
    })
    .build();

/**
 * The injection token of the module options, as passed to `forRoot` / resolved by `forRootAsync`.
 *
 * @publicApi
 */
export const MCP_MODULE_OPTIONS = MODULE_OPTIONS_TOKEN;
