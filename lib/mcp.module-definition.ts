import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { McpModuleExtras, McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { MCP_HTTP_PATHS, MCP_IMPORT_SITE } from './mcp.constants';
import { callSite, type McpImportSite } from './mcp-single-import';
import { resolveEndpointDecorators, resolveHttpPaths } from './transports/http/http-paths';
import { createMcpControllers } from './transports/http/mcp-http.controllers';

const DEFAULT_EXTRAS: McpModuleExtras = { isGlobal: true, path: 'mcp' };

export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN, OPTIONS_TYPE, ASYNC_OPTIONS_TYPE } =
  new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createMcpOptions')
    .setExtras<McpModuleExtras>(DEFAULT_EXTRAS, (definition, extras) => {
      // Extras are known synchronously even in forRootAsync, so the routes are mounted either way.
      const paths = resolveHttpPaths(extras, DEFAULT_EXTRAS.path!);
      const controllers = createMcpControllers(paths, resolveEndpointDecorators(extras.endpointDecorators));
      return {
        ...definition,
        global: extras.isGlobal ?? DEFAULT_EXTRAS.isGlobal,
        controllers: [...(definition.controllers ?? []), ...controllers],
        providers: [
          ...(definition.providers ?? []),
          { provide: MCP_HTTP_PATHS, useValue: paths },
          // Where this import was made, for the error of a second import.
          { provide: MCP_IMPORT_SITE, useValue: { path: paths.streamable, site: callSite() } satisfies McpImportSite },
        ],
      };
    })
    .build();

/**
 * The injection token of the module options, as passed to `forRoot` / resolved by `forRootAsync`.
 *
 * @publicApi
 */
export const MCP_MODULE_OPTIONS = MODULE_OPTIONS_TOKEN;
