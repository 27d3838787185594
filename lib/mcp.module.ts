import { Inject, Module, type NestModule } from '@nestjs/common';
import { DiscoveryModule, ModulesContainer } from '@nestjs/core';
import { McpConfigurableModuleClass } from './mcp.module-definition';
import { MCP_RESOLVED_OPTIONS } from './shared/mcp.constants';
import { MCP_PROVIDERS } from './mcp.providers';
import { assertDistinctServers, serverIdentities } from './identity/mcp-servers';
import { HttpPlatform } from './transports/http/http-platform.service';

/**
 * Turns the application into an MCP server: discovers `@McpTool`, `@McpResource`,
 * `@McpResourceTemplate` and `@McpPrompt` methods and serves them over Streamable HTTP at
 * `path` (default `mcp`), for every protocol revision from 2024-11-05 to 2026-07-28. Import it
 * once per server: several servers in one application each have a `name`, a `path` and the
 * modules they discover (`include`).
 *
 * @example
 * ```ts
 * @Module({ imports: [McpModule.forRoot({ name: 'inventory', version: '1.0.0' })] })
 * export class AppModule {}
 * ```
 * @publicApi
 */
@Module({
  imports: [DiscoveryModule],
  providers: MCP_PROVIDERS,
})
export class McpModule extends McpConfigurableModuleClass implements NestModule {
  /** @internal */
  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) _options: unknown,
    modules: ModulesContainer,
    private readonly platform: HttpPlatform,
  ) {
    // Injecting the resolved options makes a bad configuration fail while the module is created.
    super();
    // Each server's module checks the lot: the first one created stops a clash.
    assertDistinctServers(serverIdentities(modules));
  }

  /**
   * Runs after Nest registered the platform's body parsers and before it registers the routes:
   * the one moment Fastify takes route options from a hook.
   */
  configure(): void {
    this.platform.beforeRoutes();
  }
}
