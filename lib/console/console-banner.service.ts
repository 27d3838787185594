import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { MCP_CONSOLE_SETTINGS, MCP_HTTP_PATHS } from '../shared/mcp.constants';
import { CONSOLE_AT } from '../shared/mcp.messages';
import { HttpPlatform } from '../transports/http/http-platform.service';
import type { McpHttpPaths } from '../identity/http-paths';
import { McpLogger } from '../telemetry/mcp.logger';
import type { ConsoleSettings } from './console-settings';
import { consolePathBeside } from './console-paths';

/**
 * Once the application is up, one line per path a server's console is served at (global prefix
 * and version included), beside the endpoint lines of `EndpointBanner`. The console shares the
 * prefix and version of the server's Streamable HTTP endpoint, so its full paths follow from
 * that endpoint's mounted ones.
 */
@Injectable()
export class ConsoleBanner implements OnApplicationBootstrap {
  private readonly logger = new McpLogger('McpModule');

  constructor(
    @Inject(MCP_CONSOLE_SETTINGS) private readonly settings: ConsoleSettings,
    @Inject(MCP_HTTP_PATHS) private readonly paths: McpHttpPaths,
    private readonly platform: HttpPlatform,
  ) {}

  onApplicationBootstrap(): void {
    const full = new Set(
      this.platform
        .pathsOf('streamable')
        .map((mounted) => consolePathBeside(mounted, this.paths.streamable, this.settings.path))
        .filter((path): path is string => path !== undefined),
    );
    for (const path of full) {
      this.logger.log(CONSOLE_AT(path, this.platform.server));
    }
  }
}
