import { Inject, Logger, Module, type NestModule } from '@nestjs/common';
import { DiscoveryModule, ModulesContainer } from '@nestjs/core';
import { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN } from './mcp.module-definition';
import {
  MCP_AUTH_SETTINGS,
  MCP_CLUSTER_LINK,
  MCP_HTTP_SETTINGS,
  MCP_IMPORT_SITE,
  MCP_REDIS_SETTINGS,
  MCP_RESOLVED_OPTIONS,
  MCP_SERVER_SETTINGS,
  MCP_SESSION_SETTINGS,
  MCP_STDIO_SETTINGS,
  MCP_TASK_SETTINGS,
} from './mcp.constants';
import { resolveMcpOptions, type ResolvedMcpOptions } from './mcp-options.factory';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { McpSchemaCompiler } from './schema/mcp-schema.compiler';
import { McpRegistry } from './registry/mcp-registry.service';
import { McpEngine } from './protocol/engine';
import { hasFeature } from './protocol/revisions';
import { McpExplorer } from './discovery/mcp.explorer';
import { McpSessionService } from './sessions/mcp-session.service';
import { SessionChannels } from './sessions/session-channels';
import { STORE_PROVIDERS } from './stores/store.providers';
import type { ClusterLink } from './cluster/cluster-link.interface';
import { bindEngineToCluster } from './cluster/engine-cluster';
import { McpTaskService } from './tasks/mcp-task.service';
import { McpNotifier } from './notifications/mcp-notifier.service';
import { StreamableHttpService } from './transports/http/streamable-http.service';
import { ResumableStreams } from './transports/http/resumable-streams.service';
import { HttpAdmission } from './transports/http/http-admission.service';
import { HttpExchanges } from './transports/http/http-exchanges.service';
import { HttpRefusals } from './transports/http/http-refusals.service';
import { HttpPlatform } from './transports/http/http-platform.service';
import { EndpointBanner } from './transports/http/endpoint-banner.service';
import { assertSingleImport } from './mcp-single-import';
import { SimpleHttpService } from './transports/http/simple-http.service';
import { LegacySseService } from './transports/http/legacy-sse.service';
import { McpStdioServer } from './transports/stdio/mcp-stdio.server';
import { McpAuthService } from './auth/mcp-auth.service';
import { ProtectedResourceRoutes } from './auth/protected-resource.routes';
import { McpHealthIndicator } from './health/mcp.health';
import { HttpDrain } from './shutdown/http-drain';
import { McpShutdown } from './shutdown/mcp-shutdown.service';

/** One provider per section of the resolved options, so that services inject only theirs. */
const SETTINGS_PROVIDERS = (
  [
    [MCP_SERVER_SETTINGS, (options) => options],
    [MCP_HTTP_SETTINGS, (options) => options.http],
    [MCP_STDIO_SETTINGS, (options) => options.stdio],
    [MCP_SESSION_SETTINGS, (options) => options.sessions],
    [MCP_AUTH_SETTINGS, (options) => options.auth],
    [MCP_TASK_SETTINGS, (options) => options.tasks],
    [MCP_REDIS_SETTINGS, (options) => options.redis],
  ] as const satisfies readonly (readonly [symbol, (options: ResolvedMcpOptions) => unknown])[]
).map(([provide, pick]) => ({ provide, useFactory: pick, inject: [MCP_RESOLVED_OPTIONS] }));

/**
 * Turns the application into an MCP server: discovers `@McpTool`, `@McpResource`,
 * `@McpResourceTemplate` and `@McpPrompt` methods and serves them over Streamable HTTP at
 * `path` (default `mcp`), for every protocol revision from 2024-11-05 to 2026-07-28.
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
  providers: [
    {
      provide: MCP_RESOLVED_OPTIONS,
      useFactory: (options: McpModuleOptions) => resolveMcpOptions(options),
      inject: [MODULE_OPTIONS_TOKEN],
    },
    ...SETTINGS_PROVIDERS,
    McpSchemaCompiler,
    {
      provide: McpRegistry,
      useFactory: (compiler: McpSchemaCompiler, options: ResolvedMcpOptions) =>
        new McpRegistry(compiler, {
          outputSchemaAnyRoot: options.revisions.some((revision) => hasFeature(revision, 'outputSchemaAnyRoot')),
        }),
      inject: [McpSchemaCompiler, MCP_RESOLVED_OPTIONS],
    },
    ...STORE_PROVIDERS,
    McpTaskService,
    SessionChannels,
    McpSessionService,
    {
      provide: McpEngine,
      useFactory: (
        options: ResolvedMcpOptions,
        registry: McpRegistry,
        sessions: McpSessionService,
        tasks: McpTaskService,
        channels: SessionChannels,
        link: ClusterLink,
      ) => {
        const logger = new Logger('McpEngine');
        const cluster = bindEngineToCluster(link, (what, error) => logger.warn(`Could not ${what}: ${String(error)}`));
        const engine = new McpEngine(
          {
            serverInfo: options.serverInfo,
            instructions: options.instructions,
            revisions: options.revisions,
            pageSize: options.pageSize,
            cacheHints: options.cacheHints,
            discoverCacheHints: options.discoverCacheHints,
            callTimeoutMs: options.callTimeoutMs,
            defaultLogLevel: options.defaultLogLevel,
            clientRequestTimeoutMs: options.clientRequestTimeoutMs,
            requestState: options.requestState,
            logger: {
              error: (message, trace) => logger.error(message, trace),
              warn: (message) => logger.warn(message),
              debug: (message) => logger.debug(message),
            },
          },
          registry,
          {
            tasks,
            sendToSession: (sessionId, message) => channels.route(sessionId, message),
            cluster: cluster.hooks,
          },
        );
        cluster.listen(engine);
        // Calls and tasks of an ended session stop with it: no one can reach them any more.
        sessions.onEnd((sessionId, _reason, here) => {
          engine.abortScope(sessionId);
          if (!here) {
            // The instance that ended the session cancels its tasks.
            return;
          }
          void tasks.cancelOwned(`session:${sessionId}`, 'Session ended').catch((error: unknown) => {
            logger.error(`Could not cancel the tasks of session ${sessionId}: ${String(error)}`);
          });
        });
        return engine;
      },
      inject: [MCP_RESOLVED_OPTIONS, McpRegistry, McpSessionService, McpTaskService, SessionChannels, MCP_CLUSTER_LINK],
    },
    McpExplorer,
    McpNotifier,
    ResumableStreams,
    HttpExchanges,
    HttpRefusals,
    HttpAdmission,
    HttpPlatform,
    EndpointBanner,
    StreamableHttpService,
    SimpleHttpService,
    LegacySseService,
    McpStdioServer,
    McpAuthService,
    ProtectedResourceRoutes,
    McpHealthIndicator,
    HttpDrain,
    McpShutdown,
  ],
  exports: [
    McpRegistry,
    McpSessionService,
    McpTaskService,
    McpNotifier,
    McpEngine,
    McpStdioServer,
    McpAuthService,
    McpHealthIndicator,
    MCP_RESOLVED_OPTIONS,
  ],
})
export class McpModule extends ConfigurableModuleClass implements NestModule {
  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) _options: ResolvedMcpOptions,
    modules: ModulesContainer,
    private readonly platform: HttpPlatform,
  ) {
    // Injecting the resolved options makes a bad configuration fail while the module is created.
    super();
    assertSingleImport(modules, McpModule, MCP_IMPORT_SITE);
  }

  /**
   * Runs after Nest registered the platform's body parsers and before it registers the routes:
   * the one moment Fastify takes route options from a hook.
   */
  configure(): void {
    this.platform.beforeRoutes();
  }
}
