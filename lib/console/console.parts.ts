/**
 * What a server's module adds when its console is on: the module definition knows only
 * `consoleModuleParts`, not what serves the console.
 */
import type { Provider, Type } from '@nestjs/common';
import { MCP_CONSOLE_SETTINGS } from '../shared/mcp.constants';
import type * as ConsoleAssetsModule from './console-assets';
import type * as ConsoleBannerModule from './console-banner.service';
import type { ConsoleSettings } from './console-settings';
import type * as ConsoleControllerModule from './console.controller';

/**
 * The controller and providers of one server's console; none when it is off.
 *
 * @param server the name of the server.
 * @param decorators the `endpointDecorators` extra, applied to the console's controller too.
 */
export function consoleModuleParts(
  settings: ConsoleSettings | undefined,
  server: string,
  decorators: readonly ClassDecorator[],
): { controllers: Type<unknown>[]; providers: Provider[] } {
  if (settings === undefined) {
    return { controllers: [], providers: [] };
  }
  // Loaded when a console is on (it is off by default): an application without one does not
  // load the console's code at startup.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { ConsoleAssets, consoleAssets } = require('./console-assets') as typeof ConsoleAssetsModule;
  const { ConsoleBanner } = require('./console-banner.service') as typeof ConsoleBannerModule;
  const { createConsoleController } = require('./console.controller') as typeof ConsoleControllerModule;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return {
    controllers: [createConsoleController(settings.path, server, decorators)],
    providers: [
      { provide: MCP_CONSOLE_SETTINGS, useValue: settings },
      // Read at startup, once per process: every server's console serves the same files.
      { provide: ConsoleAssets, useFactory: consoleAssets },
      ConsoleBanner,
    ],
  };
}
