/**
 * The composition root: every provider of one MCP server, built by named factories. The module
 * lists these; nothing else decides how the parts are wired together.
 */
import { type Provider } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { MODULE_OPTIONS_TOKEN } from './mcp.module-definition';
import {
  MCP_AUTH_SETTINGS,
  MCP_CLUSTER_LINK,
  MCP_EXTENSION_PROVIDERS,
  MCP_HTTP_SETTINGS,
  MCP_OWN_AUTH,
  MCP_OWN_HEALTH,
  MCP_OWN_NOTIFIER,
  MCP_OWN_REGISTRY,
  MCP_OWN_SESSIONS,
  MCP_OWN_STDIO,
  MCP_OWN_TASKS,
  MCP_REDIS_SETTINGS,
  MCP_RESOLVED_OPTIONS,
  MCP_SERVER_IDENTITY,
  MCP_SERVER_SETTINGS,
  MCP_SESSION_SETTINGS,
  MCP_STDIO_SETTINGS,
  MCP_STORE_SETTINGS,
  MCP_TASK_SETTINGS,
  MCP_APPS_SETTINGS,
  MCP_TELEMETRY,
  MCP_TELEMETRY_SETTINGS,
  MCP_SKILL_SETTINGS,
  MCP_ROUTE_SETTINGS,
  MCP_TOOL_SEARCH_SETTINGS,
  MCP_SKILL_LIBRARY,
} from './shared/mcp.constants';
import { resolveMcpOptions, serverSettingsOf, type ResolvedMcpOptions } from './mcp-options.factory';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import type { McpServerSettings } from './shared/server-settings';
import { McpSchemaCompiler } from './schema/mcp-schema.compiler';
import { McpRegistry } from './registry/mcp-registry.service';
import { registerAppViews, type AppsSettings } from './registry/app-views';
import type { ToolSearchSettings } from './registry/tool-search-settings';
import { McpEngine, type EngineHooks, type EngineOptions } from './protocol/engine';
import { hasFeature } from './protocol/messages/revisions';
import { McpExplorer } from './explorers/mcp.explorer';
import { findExtensionProviders, type McpExtensionProviders } from './explorers/mcp-extension-providers';
import { McpSessionService } from './sessions/mcp-session.service';
import { SessionChannels } from './sessions/session-channels';
import { LegacySessionResolver } from './sessions/legacy-session.resolver';
import { STORE_PROVIDERS } from './stores/store.providers';
import type { McpServerIdentity } from './identity/server-identity';
import { defaultServerOf, serverIdentities } from './identity/mcp-servers';
import { claimKeyPrefix, defaultKeyPrefix } from './servers/redis-prefixes';
import type { ClusterLink } from './cluster/cluster-link.interface';
import { bindEngineToCluster } from './cluster/engine-cluster';
import { McpTaskService } from './tasks/mcp-task.service';
import { McpNotifier } from './notifications/mcp-notifier.service';
import { StreamableHttpService } from './transports/http/streamable-http.service';
import { ResumableStreams } from './transports/http/resumable-streams.service';
import { HttpAdmission } from './transports/http/http-admission.service';
import { HttpExchanges } from './transports/http/http-exchanges.service';
import { EndpointRoutes } from './transports/http/endpoint-routes.service';
import { HttpRefusals } from './transports/http/http-refusals.service';
import { HeldStreams } from './transports/http/held-streams.service';
import { SlowReaders } from './transports/http/slow-readers.service';
import { HttpPlatform } from './transports/http/http-platform.service';
import { EndpointBanner } from './transports/http/endpoint-banner.service';
import { SimpleHttpService } from './transports/http/simple-http.service';
import { LegacySseService } from './transports/http/legacy-sse.service';
import { McpStdioServer } from './transports/stdio/mcp-stdio.server';
import { McpAuthService } from './auth/mcp-auth.service';
import { ProtectedResourceRoutes } from './auth/protected-resource.routes';
import { McpHealthIndicator } from './health/mcp.health';
import { HttpDrain } from './transports/http/http-drain';
import { McpShutdown } from './shutdown/mcp-shutdown.service';
import type { McpTelemetry } from './telemetry/mcp-telemetry';
import { createMcpTelemetry } from './telemetry/telemetry.factory';
import type { TelemetrySettings } from './telemetry/telemetry-settings';
import { McpLogger } from './telemetry/mcp.logger';
import { createSkillLibrary } from './skills/skill-library.factory';
import { McpSkillExplorer } from './skills/mcp-skill.explorer';
import { McpRouteExplorer } from './routes/mcp-route.explorer';
import type { SkillLibrary } from './protocol/skills/skill-library';
import { logFailedSend } from './protocol/bounds/store-unavailable';

/**
 * The resolved options, then one provider per section of them, so that services inject only
 * theirs. Resolving is the first thing the module does: a bad option fails the startup.
 */
export const SETTINGS_PROVIDERS: Provider[] = [
  {
    provide: MCP_RESOLVED_OPTIONS,
    useFactory: (options: McpModuleOptions, identity: McpServerIdentity, modules: ModulesContainer) => {
      const resolved = resolveMcpOptions(options, {
        keyPrefix: defaultKeyPrefix(identity, defaultServerOf(serverIdentities(modules))),
      });
      claimKeyPrefix(modules, identity, resolved.redis);
      return resolved;
    },
    inject: [MODULE_OPTIONS_TOKEN, MCP_SERVER_IDENTITY, ModulesContainer],
  },
  ...(
    [
      [MCP_SERVER_SETTINGS, serverSettingsOf],
      [MCP_HTTP_SETTINGS, (options) => options.http],
      [MCP_STDIO_SETTINGS, (options) => options.stdio],
      [MCP_SESSION_SETTINGS, (options) => options.sessions],
      [MCP_AUTH_SETTINGS, (options) => options.auth],
      [MCP_TASK_SETTINGS, (options) => options.tasks],
      [MCP_APPS_SETTINGS, (options) => options.apps],
      [MCP_REDIS_SETTINGS, (options) => options.redis],
      [MCP_STORE_SETTINGS, (options) => options.stores],
      [MCP_TELEMETRY_SETTINGS, (options) => options.telemetry],
      [MCP_SKILL_SETTINGS, (options) => options.skills],
      [MCP_ROUTE_SETTINGS, (options) => options.routes],
      [MCP_TOOL_SEARCH_SETTINGS, (options) => options.toolSearch],
    ] as const satisfies readonly (readonly [symbol, (options: ResolvedMcpOptions) => unknown])[]
  ).map(([provide, pick]) => ({ provide, useFactory: pick, inject: [MCP_RESOLVED_OPTIONS] })),
];

/** The registry, with the checks the served revisions call for and the views of `apps.views`. */
export function createMcpRegistry(
  compiler: McpSchemaCompiler,
  settings: McpServerSettings,
  apps: AppsSettings,
  toolSearch: ToolSearchSettings | undefined,
): McpRegistry {
  const registry = new McpRegistry(compiler, {
    outputSchemaAnyRoot: settings.revisions.some((revision) => hasFeature(revision, 'outputSchemaAnyRoot')),
    searchToolName: toolSearch?.name,
  });
  registerAppViews(registry, apps);
  return registry;
}

/**
 * The server's telemetry, or `null` when it records nothing (no SDK, or `telemetry: false`).
 * With several servers in the application, its spans and metric points carry its name; with
 * one, nothing is added (the name would tell nothing apart).
 */
export function createTelemetry(
  settings: TelemetrySettings,
  identity: McpServerIdentity,
  modules: ModulesContainer,
): McpTelemetry | null {
  const logger = new McpLogger('McpTelemetry');
  const several = serverIdentities(modules).length > 1;
  return createMcpTelemetry(
    settings,
    (line) => logger.log(`${line} (server "${identity.name}")`),
    several ? identity.name : undefined,
  );
}

/**
 * The engine of the server: its protocol settings, its catalog (the registry), and the hooks
 * into the Nest side (tasks, the session channels, the cluster link, the telemetry).
 */
export function createMcpEngine(
  settings: McpServerSettings,
  registry: McpRegistry,
  sessions: McpSessionService,
  tasks: McpTaskService,
  channels: SessionChannels,
  link: ClusterLink,
  telemetry: McpTelemetry | null,
  extensions: McpExtensionProviders,
  skills: SkillLibrary | null,
  toolSearch: ToolSearchSettings | undefined,
): McpEngine {
  const logger = new McpLogger('McpEngine');
  const cluster = bindEngineToCluster(link, (what, error) => logFailedSend(logger, what, error));
  const options: EngineOptions = {
    serverInfo: settings.serverInfo,
    instructions: settings.instructions,
    revisions: settings.revisions,
    pageSize: settings.pageSize,
    maxUriLength: settings.maxUriLength,
    toolSearch,
    cacheHints: settings.cacheHints,
    discoverCacheHints: settings.discoverCacheHints,
    callTimeoutMs: settings.callTimeoutMs,
    defaultLogLevel: settings.defaultLogLevel,
    clientRequestTimeoutMs: settings.clientRequestTimeoutMs,
    maxPendingQuestions: settings.maxPendingQuestions,
    requestState: settings.requestState,
    extensions: extensions.extensions,
    extensionMethods: extensions.methods,
    logger: {
      error: (message, trace) => logger.error(message, trace),
      warn: (message) => logger.warn(message),
      debug: (message) => logger.debug(message),
    },
  };
  const hooks: EngineHooks = {
    // The framework-free manager itself: the engine has no use for the Nest facade around it.
    tasks: tasks.manager,
    sendToSession: (sessionId, message) => channels.route(sessionId, message),
    cluster: cluster.hooks,
    skills: skills ?? undefined,
  };
  const engine = new McpEngine(options, registry, hooks, telemetry ?? undefined);
  cluster.listen(engine);
  if (telemetry !== null) {
    telemetry.watch({
      listenStreams: () => engine.subscriptions.size,
      standaloneStreams: () => channels.size,
      knows: (method, name) =>
        method === 'tools/call'
          ? name === toolSearch?.name || registry.getTool(name) !== undefined
          : registry.getPrompt(name) !== undefined,
      knowsMethod: (method) => engine.methods.isKnown(method),
    });
    sessions.onEnd((sessionId) => telemetry.sessionEnded(sessionId));
  }
  // Calls of an ended session stop with it: no one can reach them any more (McpTaskService
  // cancels its tasks).
  sessions.onEnd((sessionId) => engine.abortScope(sessionId));
  // A session whose calls run here is not ended to make room for another of its caller.
  sessions.spareWhile((sessionId) => engine.runningIn(sessionId) > 0);
  return engine;
}

/**
 * Every provider of one MCP server. Its public services go by the `MCP_OWN_*` tokens inside it;
 * `serverModuleParts()` adds the tokens the application reaches them by.
 */
export const MCP_PROVIDERS: Provider[] = [
  ...SETTINGS_PROVIDERS,
  McpSchemaCompiler,
  {
    provide: MCP_OWN_REGISTRY,
    useFactory: createMcpRegistry,
    inject: [McpSchemaCompiler, MCP_SERVER_SETTINGS, MCP_APPS_SETTINGS, MCP_TOOL_SEARCH_SETTINGS],
  },
  ...STORE_PROVIDERS,
  { provide: MCP_OWN_TASKS, useClass: McpTaskService },
  SessionChannels,
  { provide: MCP_OWN_SESSIONS, useClass: McpSessionService },
  LegacySessionResolver,
  {
    provide: MCP_TELEMETRY,
    useFactory: createTelemetry,
    inject: [MCP_TELEMETRY_SETTINGS, MCP_SERVER_IDENTITY, ModulesContainer],
  },
  {
    provide: MCP_EXTENSION_PROVIDERS,
    useFactory: (settings: McpServerSettings, identity: McpServerIdentity, modules: ModulesContainer) =>
      findExtensionProviders(settings.extensions, identity, modules),
    inject: [MCP_SERVER_SETTINGS, MCP_SERVER_IDENTITY, ModulesContainer],
  },
  {
    provide: McpEngine,
    useFactory: createMcpEngine,
    inject: [
      MCP_SERVER_SETTINGS,
      MCP_OWN_REGISTRY,
      MCP_OWN_SESSIONS,
      MCP_OWN_TASKS,
      SessionChannels,
      MCP_CLUSTER_LINK,
      MCP_TELEMETRY,
      MCP_EXTENSION_PROVIDERS,
      MCP_SKILL_LIBRARY,
      MCP_TOOL_SEARCH_SETTINGS,
    ],
  },
  { provide: MCP_SKILL_LIBRARY, useFactory: createSkillLibrary, inject: [MCP_SKILL_SETTINGS] },
  McpSkillExplorer,
  McpExplorer,
  McpRouteExplorer,
  { provide: MCP_OWN_NOTIFIER, useClass: McpNotifier },
  ResumableStreams,
  HttpExchanges,
  EndpointRoutes,
  HttpRefusals,
  HeldStreams,
  SlowReaders,
  HttpAdmission,
  HttpPlatform,
  EndpointBanner,
  StreamableHttpService,
  SimpleHttpService,
  LegacySseService,
  { provide: MCP_OWN_STDIO, useClass: McpStdioServer },
  { provide: MCP_OWN_AUTH, useClass: McpAuthService },
  ProtectedResourceRoutes,
  { provide: MCP_OWN_HEALTH, useClass: McpHealthIndicator },
  HttpDrain,
  McpShutdown,
];
