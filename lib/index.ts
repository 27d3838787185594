/**
 * nest-mcp: the public API. Anything not exported here is internal.
 */
export { McpModule } from './mcp.module';
export { MCP_MODULE_OPTIONS, McpConfigurableModuleClass } from './mcp.module-definition';
export type { McpModuleAsyncOptions } from './mcp.module-definition';
export type {
  McpModuleOptions,
  McpModuleExtras,
  McpConsoleOptions,
  McpCacheHintOptions,
  McpSessionOptions,
  McpTaskOptions,
  McpHttpOptions,
  McpModuleOptionsFactory,
  McpRequestStateOptions,
  McpStdioOptions,
  McpRedisOptions,
  McpRedisClient,
  McpRedisClusterOptions,
  McpRedisNode,
  McpRedisSentinelOptions,
  McpStoreOptions,
  McpToolSearchOptions,
  McpAppsOptions,
  McpAppViewOptions,
} from './interfaces/mcp-module-options.interface';
export type {
  McpTelemetryOptions,
  McpTracerProviderLike,
  McpMeterProviderLike,
  McpTextMapPropagatorLike,
} from './interfaces/mcp-telemetry-options.interface';
export { getMcpStoreToken, InjectMcpStore } from './stores/store-tokens';
export type { McpStoreKind } from './stores/store-tokens';
export { getMcpToken, InjectMcp } from './servers/server-tokens';
export type { McpServiceClass } from './servers/server-tokens';
export { McpStoreUnavailableError } from './errors/mcp-store-unavailable.error';
export type {
  McpServersOption,
  McpToolOptions,
  McpResourceOptions,
  McpUiResourceOptions,
  McpResourceTemplateOptions,
  McpPromptOptions,
  McpPromptArgument,
  McpCompletionSource,
  McpToolDefinition,
  McpResourceDefinition,
  McpUiResourceDefinition,
  McpResourceTemplateDefinition,
  McpPromptDefinition,
  McpAccessDefinition,
} from './interfaces/mcp-definitions.interface';
export type {
  McpSchema,
  McpJsonSchemaObject,
  McpDtoClass,
  McpStandardSchemaLike,
  McpSchemaOutput,
  McpValidatorOptions,
} from './interfaces/mcp-schema.interface';

export { McpTool } from './decorators/mcp-tool.decorator';
export { McpTypedTool } from './decorators/mcp-typed-tool.decorator';
export type { McpTypedToolOptions, McpTypedToolHandler } from './decorators/mcp-typed-tool.decorator';
export { McpResource, McpResourceTemplate } from './decorators/mcp-resource.decorator';
export { McpUiResource } from './decorators/mcp-ui-resource.decorator';
export { McpPrompt } from './decorators/mcp-prompt.decorator';
export { McpExtensionMethod, McpExtensionProvider } from './decorators/mcp-extension.decorator';
export type {
  McpEntryOf,
  McpExtensionHooks,
  McpExtensionMethodOptions,
  McpExtensionProviderOptions,
} from './interfaces/mcp-extension-options.interface';
export { McpArgs, McpRequest } from './decorators/mcp-params.decorator';
export { McpCtx } from './decorators/mcp-ctx.decorator';
export { McpExecutionContext } from './context/mcp-execution-context';
export { isMcpEndpoint } from './transports/http/endpoint.controller';
export { getMcpEndpointPath } from './transports/http/endpoint-path';
export { McpHttpGuard } from './transports/http/mcp-http.guard';
export { McpScopes, McpVisibilityGuard } from './decorators/mcp-scopes.decorator';

export { McpAuthService } from './auth/mcp-auth.service';
export {
  McpBearerGuard,
  McpApiKeyGuard,
  McpBasicGuard,
  McpAuthGuard,
  McpCredentialGuard,
} from './auth/mcp-auth.guards';
export { hashMcpPassword, verifyMcpPassword } from './auth/password-hash';
export type { McpPasswordHashOptions } from './auth/password-hash';
export { mcpSecretDigest } from './auth/credential-table';
export type {
  McpAuthOptions,
  McpAuthProvider,
  McpAuthRequest,
  McpBearerOptions,
  McpJwtOptions,
  McpJsonWebKey,
  McpTokenVerifier,
  McpApiKeyOptions,
  McpBasicOptions,
  McpBasicUser,
  McpGuardAuthOptions,
  McpPrincipalInit,
  McpProtectedResourceOptions,
} from './interfaces/mcp-auth-options.interface';

export { McpRegistry } from './registry/mcp-registry.service';
export type { McpRegistryChangeKind, McpRegistryListener } from './registry/mcp-registry.service';
export type {
  McpToolEntry,
  McpResourceEntry,
  McpTemplateEntry,
  McpPromptEntry,
  McpCompiledSchema,
  McpValidationOutcome,
} from './protocol/calls/catalog';
export { McpSessionService } from './sessions/mcp-session.service';
export type { McpSessionEndReason, McpSessionEndListener } from './sessions/mcp-session.service';
export type { McpSessionState } from './protocol/messages/session-handle';
export type {
  McpSessionStore,
  McpSessionRecord,
  McpSessionCaps,
  McpSessionAdmission,
} from './interfaces/session-store.interface';
export { McpTaskService } from './tasks/mcp-task.service';
export type { McpTaskRecord, McpTaskStatus, McpTaskError, McpTaskStore } from './interfaces/task-store.interface';
export { MCP_TASKS_EXTENSION } from './protocol/tasks/task-mode';
export { MCP_SKILLS_EXTENSION } from './protocol/skills/skill-entry';
export { McpSkill } from './decorators/mcp-skill.decorator';
export { McpRoute, McpRoutes } from './decorators/mcp-route.decorator';
export type {
  McpRouteOptions,
  McpRoutesExposeOptions,
  McpRoutesOptions,
} from './interfaces/mcp-route-options.interface';
export type {
  McpSkillDecoratorOptions,
  McpSkillFiles,
  McpSkillOptions,
} from './interfaces/mcp-skill-options.interface';
export type { McpExtension } from './protocol/extensions/extensions';
export { MCP_APPS_EXTENSION, MCP_APP_MIME_TYPE } from './protocol/apps/apps';
export type {
  McpToolUiOptions,
  McpUiVisibility,
  McpUiResourceMeta,
  McpUiResourceCsp,
  McpUiResourcePermissions,
  McpUiPermission,
} from './protocol/apps/apps';
export type { McpReplayStore, McpReplayEvent, McpReplayWindow } from './interfaces/replay-store.interface';
export { McpNotifier } from './notifications/mcp-notifier.service';
export { McpHealthIndicator } from './health/mcp.health';
export type {
  McpHealthCheckOptions,
  McpHealthDetails,
  McpHealthIndicatorResult,
  McpHealthStatus,
  McpRegistryHealth,
  McpStoresHealth,
} from './health/mcp.health';
export type { McpNotificationBus, McpEvent, McpEventHandler } from './interfaces/notification-bus.interface';

export { McpError, McpToolError, McpUrlElicitationRequiredError } from './protocol/messages/mcp-error';
export type { McpUrlElicitation } from './protocol/messages/mcp-error';
export type {
  McpAskOptions,
  ElicitRequestParams,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  SamplingMessage,
  ListRootsResult,
  Root,
} from './protocol/messages/client-requests';
export { McpErrorCode } from './protocol/messages/json-rpc';
export type {
  RequestId,
  JSONObject,
  JSONRPCMessage,
  JSONRPCRequest,
  JSONRPCNotification,
  JSONRPCResponse,
  JSONRPCResultResponse,
  JSONRPCErrorResponse,
} from './protocol/messages/json-rpc';
export type { McpNativeExchange } from './protocol/messages/native-exchange';
export type { McpHeaderBag } from './protocol/messages/request-headers';
export { MCP_REVISIONS, MCP_LATEST_REVISION } from './protocol/messages/revisions';
export type { McpRevision, McpEra } from './protocol/messages/revisions';
export type { LoggingLevel } from './protocol/messages/log-levels';
export type { McpCallContext, McpPrincipal, McpTransportKind } from './protocol/calls/call-context';
export type { McpCompletionHandler, McpTaskSupport } from './protocol/calls/catalog';
export type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  PromptArgument,
  PromptMessage,
  ReadResourceResult,
  ResourceContents,
  ToolAnnotations,
  Annotations,
  Icon,
  Implementation,
  ClientCapabilities,
  McpCompletion,
  McpCacheScope,
} from './protocol/messages/mcp-types';
export { McpConfigurationError } from './errors/mcp-configuration.error';
