import { type ConfigurableModuleAsyncOptions, ConfigurableModuleBuilder } from '@nestjs/common';
import { consoleModuleParts } from './console/console.parts';
import { resolveConsoleSettings } from './console/console-settings';
import type { McpModuleExtras, McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { MCP_HTTP_PATHS } from './shared/mcp.constants';
import { callSite } from './identity/mcp-servers';
import { resolveServerIdentity } from './identity/server-identity';
import { serverModuleParts } from './servers/server.providers';
import { resolveEndpointDecorators, resolveHttpPaths } from './identity/http-paths';
import { createMcpControllers } from './transports/http/mcp-http.controllers';

const DEFAULT_EXTRAS: McpModuleExtras = { isGlobal: true, path: 'mcp' };

const built = new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createMcpOptions')
  .setExtras<McpModuleExtras>(DEFAULT_EXTRAS, (definition, extras) => {
    // Extras are known synchronously even in forRootAsync, so the routes are mounted and the
    // server is named either way. Each call is a module of its own: one server.
    const paths = resolveHttpPaths(extras, DEFAULT_EXTRAS.path!);
    const global = extras.isGlobal ?? DEFAULT_EXTRAS.isGlobal!;
    const consoleSettings = resolveConsoleSettings(extras, paths);
    const identity = resolveServerIdentity(extras, paths, global, callSite(), consoleSettings?.path);
    const decorators = resolveEndpointDecorators(extras.endpointDecorators);
    const controllers = createMcpControllers(paths, identity.name, decorators);
    const consoleParts = consoleModuleParts(consoleSettings, identity.name, decorators);
    const server = serverModuleParts(identity);
    return {
      ...definition,
      global,
      imports: [...(definition.imports ?? []), ...server.imports],
      controllers: [...(definition.controllers ?? []), ...controllers, ...consoleParts.controllers],
      providers: [
        ...(definition.providers ?? []),
        { provide: MCP_HTTP_PATHS, useValue: paths },
        ...server.providers,
        ...consoleParts.providers,
      ],
      exports: [...(definition.exports ?? []), ...server.exports],
    };
  })
  .build();

/**
 * The base of `McpModule`, made by Nest's `ConfigurableModuleBuilder`: its static `forRoot()` and
 * `forRootAsync()`.
 *
 * @publicApi
 */
export const McpConfigurableModuleClass = built.ConfigurableModuleClass;
export const MODULE_OPTIONS_TOKEN = built.MODULE_OPTIONS_TOKEN;
export const OPTIONS_TYPE = built.OPTIONS_TYPE;

/**
 * The argument of `McpModule.forRootAsync()`: `useFactory` / `useClass` / `useExisting` with
 * `imports` and `inject`, beside the extras (`name`, `path`, `isGlobal`...).
 *
 * @publicApi
 */
export type McpModuleAsyncOptions = ConfigurableModuleAsyncOptions<McpModuleOptions, 'createMcpOptions'> &
  Partial<McpModuleExtras>;

/**
 * The injection token of the module options, as passed to `forRoot` / resolved by `forRootAsync`.
 *
 * @publicApi
 */
export const MCP_MODULE_OPTIONS = MODULE_OPTIONS_TOKEN;
