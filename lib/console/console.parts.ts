/**
 * What a server's module adds when its console is on: the module definition knows only
 * `consoleModuleParts`, not what serves the console.
 */
import type { Provider, Type } from '@nestjs/common';
import { MCP_CONSOLE_SETTINGS } from '../mcp.constants';
import { ConsoleAssets, consoleAssets } from './console-assets';
import { ConsoleBanner } from './console-banner.service';
import type { ConsoleSettings } from './console-settings';
import { createConsoleController } from './console.controller';

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
