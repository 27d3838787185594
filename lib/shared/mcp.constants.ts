/**
 * Metadata keys and injection tokens. Namespaced, so that two loaded copies of the package
 * still read each other's metadata.
 */
export const MCP_TOOL_METADATA = 'nest-mcp:tool';
export const MCP_RESOURCE_METADATA = 'nest-mcp:resource';
export const MCP_RESOURCE_TEMPLATE_METADATA = 'nest-mcp:resource-template';
export const MCP_PROMPT_METADATA = 'nest-mcp:prompt';
export const MCP_UI_RESOURCE_METADATA = 'nest-mcp:ui-resource';
export const MCP_SKILL_METADATA = 'nest-mcp:skill';
export const MCP_ROUTE_METADATA = 'nest-mcp:route';
export const MCP_ROUTES_METADATA = 'nest-mcp:routes';
/** The `(args, ctx)` parameter layout the handler decorators record on a method without parameter decorators. */
export const MCP_DEFAULT_PARAMS_METADATA = 'nest-mcp:default-params';

/** The execution context type guards and interceptors see for MCP calls. */
export const MCP_CONTEXT_TYPE = 'mcp';

/**
 * Parameter types of `@McpArgs()`, `@McpCtx()` and `@McpRequest()`, stored under Nest's route
 * argument metadata so that pipes and custom parameter decorators work on MCP handlers.
 *
 * The arguments take the type of Nest's `@Body()` (3): pipes see them as `type: 'body'`, so a
 * global `ValidationPipe` validates a DTO-typed `@McpArgs()` as it would a request body (it
 * skips parameters of any unknown type). The other two sit far above Nest's own types.
 */
export const McpParamType = {
  ARGS: 3,
  CONTEXT: 1001,
  REQUEST: 1002,
} as const;
export type McpParamType = (typeof McpParamType)[keyof typeof McpParamType];

/** Token of the options after validation and defaults. */
export const MCP_RESOLVED_OPTIONS = Symbol('nest-mcp:resolved-options');
/** Token of the HTTP paths the module was mounted at (`McpHttpPaths`, from the module extras). */
export const MCP_HTTP_PATHS = Symbol('nest-mcp:http-paths');
/** Token of the session store. */
export const MCP_SESSION_STORE = Symbol('nest-mcp:session-store');
/** Token of the replay store (the SSE replay buffers of legacy sessions). */
export const MCP_REPLAY_STORE = Symbol('nest-mcp:replay-store');
/** Token of the task store. */
export const MCP_TASK_STORE = Symbol('nest-mcp:task-store');
/** Token of the notification bus. */
export const MCP_NOTIFICATION_BUS = Symbol('nest-mcp:notification-bus');
/** Property of the platform request where authentication leaves the caller's principal. */
export const MCP_PRINCIPAL_PROPERTY = 'mcpPrincipal';
/** Metadata of `@McpScopes` (on a method or a class). */
export const MCP_SCOPES_METADATA = 'nest-mcp:scopes';
export const MCP_EXTENSION_PROVIDER_METADATA = 'nest-mcp:extension-provider';
export const MCP_EXTENSION_METHOD_METADATA = 'nest-mcp:extension-method';
/** Metadata of `@McpVisibilityGuard` (on a guard class). */
export const MCP_VISIBILITY_GUARD_METADATA = 'nest-mcp:visibility-guard';
/** Token of the link between the instances of one server (`ClusterLink`). */
export const MCP_CLUSTER_LINK = Symbol('nest-mcp:cluster-link');
/** Token of the Redis connections (`RedisHub`), or `undefined` without Redis. */
export const MCP_REDIS_HUB = Symbol('nest-mcp:redis-hub');
/**
 * Token of the clock (`Clock`) of the times instances compare: Redis's clock when `redis` is set
 * (`RedisClock`), else the system clock.
 */
export const MCP_CLOCK = Symbol('nest-mcp:clock');
/**
 * Metadata of the module's endpoint controllers and their route handlers (`McpEndpointMarker`):
 * how the platform hooks and `isMcpEndpoint()` recognise the module's own routes.
 */
export const MCP_ENDPOINT_METADATA = 'nest-mcp:endpoint';
/**
 * Tokens of the sections of the resolved options: each service injects the sections it reads,
 * never the whole object. `MCP_SERVER_SETTINGS` holds the top-level options (`McpServerSettings`);
 * the others one section each (`HttpSettings`, `StdioSettings`, `SessionSettings`,
 * `ResolvedAuthOptions`, `TaskSettings`, `ResolvedRedisOptions | undefined`,
 * `ResolvedStoreOptions | undefined`, `TelemetrySettings`).
 */
export const MCP_SERVER_SETTINGS = Symbol('nest-mcp:server-settings');
export const MCP_HTTP_SETTINGS = Symbol('nest-mcp:http-settings');
export const MCP_STDIO_SETTINGS = Symbol('nest-mcp:stdio-settings');
export const MCP_SESSION_SETTINGS = Symbol('nest-mcp:session-settings');
export const MCP_AUTH_SETTINGS = Symbol('nest-mcp:auth-settings');
export const MCP_TASK_SETTINGS = Symbol('nest-mcp:task-settings');
/** Token of the apps settings (`AppsSettings`: the views of `apps.views`, read). */
export const MCP_APPS_SETTINGS = Symbol('nest-mcp:apps-settings');
export const MCP_REDIS_SETTINGS = Symbol('nest-mcp:redis-settings');
export const MCP_STORE_SETTINGS = Symbol('nest-mcp:store-settings');
export const MCP_TELEMETRY_SETTINGS = Symbol('nest-mcp:telemetry-settings');
/** `RouteSettings`: the `routes` section. */
export const MCP_ROUTE_SETTINGS = Symbol('nest-mcp:route-settings');
/** `ToolSearchSettings | undefined`: the `toolSearch` option (search mode). */
export const MCP_TOOL_SEARCH_SETTINGS = Symbol('nest-mcp:tool-search-settings');
/** `SkillSettings | undefined`: the `skills` section. */
export const MCP_SKILL_SETTINGS = Symbol('nest-mcp:skill-settings');
/** Token of a server's skills (`SkillLibrary`), `null` when it serves none. */
export const MCP_SKILL_LIBRARY = Symbol('nest-mcp:skill-library');
/** Token of a server's telemetry (`McpTelemetry`), `null` when it records nothing. */
export const MCP_TELEMETRY = Symbol('nest-mcp:telemetry');
/** Token of the identity of one server (`McpServerIdentity`): its name, paths and `include`. */
export const MCP_SERVER_IDENTITY = Symbol('nest-mcp:server-identity');
/**
 * Tokens of a server's own public services, inside its module. The classes themselves are the
 * tokens of the default server only (see `server-tokens.ts`), so a server's parts reach their
 * own services through these.
 */
export const MCP_OWN_REGISTRY = Symbol('nest-mcp:own-registry');
/** The server's extension providers (`@McpExtensionProvider`), found before its engine is made. */
export const MCP_EXTENSION_PROVIDERS = Symbol('nest-mcp:extension-providers');
export const MCP_OWN_NOTIFIER = Symbol('nest-mcp:own-notifier');
export const MCP_OWN_SESSIONS = Symbol('nest-mcp:own-sessions');
export const MCP_OWN_TASKS = Symbol('nest-mcp:own-tasks');
export const MCP_OWN_STDIO = Symbol('nest-mcp:own-stdio');
export const MCP_OWN_AUTH = Symbol('nest-mcp:own-auth');
export const MCP_OWN_HEALTH = Symbol('nest-mcp:own-health');
/**
 * Metadata of the console controllers (`McpConsoleMarker`): `isMcpEndpoint()` counts them as the
 * module's routes. Not `MCP_ENDPOINT_METADATA`, which the platform hooks read for body handling.
 */
export const MCP_CONSOLE_METADATA = 'nest-mcp:console';
/** Token of a server's console settings (`ConsoleSettings`), present only when its console is on. */
export const MCP_CONSOLE_SETTINGS = Symbol('nest-mcp:console-settings');
