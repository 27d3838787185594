/**
 * The injection tokens of a server's public services. The default server (see
 * `defaultServerOf`) is reached by class, as with one server: `McpRegistry`, `McpNotifier`...
 * Every server, the default included, is reached by name: `getMcpRegistryToken('admin')`, or
 * `@InjectMcpRegistry('admin')`, the way `@nestjs/typeorm` names its data sources.
 */
import { Inject, type Type } from '@nestjs/common';
import {
  MCP_OWN_AUTH,
  MCP_OWN_HEALTH,
  MCP_OWN_NOTIFIER,
  MCP_OWN_REGISTRY,
  MCP_OWN_SESSIONS,
  MCP_OWN_STDIO,
  MCP_OWN_TASKS,
} from '../shared/mcp.constants';
import { McpRegistry } from '../registry/mcp-registry.service';
import { McpNotifier } from '../notifications/mcp-notifier.service';
import { McpSessionService } from '../sessions/mcp-session.service';
import { McpTaskService } from '../tasks/mcp-task.service';
import { McpStdioServer } from '../transports/stdio/mcp-stdio.server';
import { McpAuthService } from '../auth/mcp-auth.service';
import { McpHealthIndicator } from '../health/mcp.health';
import { namedServerToken } from '../identity/named-token';

/** One public service of a server: its class, and the token its own server's parts inject it by. */
export interface ServerService {
  readonly type: Type;
  readonly own: symbol;
}

/** The services every server exports, by name, and the default one also by class. */
export const SERVER_SERVICES: readonly ServerService[] = [
  { type: McpRegistry, own: MCP_OWN_REGISTRY },
  { type: McpNotifier, own: MCP_OWN_NOTIFIER },
  { type: McpSessionService, own: MCP_OWN_SESSIONS },
  { type: McpTaskService, own: MCP_OWN_TASKS },
  { type: McpStdioServer, own: MCP_OWN_STDIO },
  { type: McpAuthService, own: MCP_OWN_AUTH },
  { type: McpHealthIndicator, own: MCP_OWN_HEALTH },
];

/** A token getter of one service: the class without a name, the server's own token with one. */
function tokenGetter(type: Type): (server?: string) => Type | string {
  return (server) => (server === undefined ? type : namedServerToken(server, type.name));
}

/** The `@Inject...()` decorator of one service. */
function injector(type: Type): (server?: string) => ParameterDecorator & PropertyDecorator {
  const tokenOf = tokenGetter(type);
  return (server) => Inject(tokenOf(server));
}

/**
 * The token of a server's `McpRegistry`: the class for the default server (no name), else the
 * server's own, for `inject: [...]` of factories and for `app.get()`.
 *
 * @example getMcpRegistryToken('admin')
 * @publicApi
 */
export const getMcpRegistryToken = tokenGetter(McpRegistry);

/** The token of a server's `McpNotifier`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpNotifierToken = tokenGetter(McpNotifier);

/** The token of a server's `McpSessionService`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpSessionServiceToken = tokenGetter(McpSessionService);

/** The token of a server's `McpTaskService`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpTaskServiceToken = tokenGetter(McpTaskService);

/** The token of a server's `McpStdioServer`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpStdioServerToken = tokenGetter(McpStdioServer);

/** The token of a server's `McpAuthService`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpAuthServiceToken = tokenGetter(McpAuthService);

/** The token of a server's `McpHealthIndicator`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpHealthIndicatorToken = tokenGetter(McpHealthIndicator);

/**
 * Injects the `McpRegistry` of a server: the default one without a name.
 *
 * @example constructor(@InjectMcpRegistry('admin') private readonly registry: McpRegistry) {}
 * @publicApi
 */
export const InjectMcpRegistry = injector(McpRegistry);

/** Injects the `McpNotifier` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpNotifier = injector(McpNotifier);

/** Injects the `McpSessionService` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpSessionService = injector(McpSessionService);

/** Injects the `McpTaskService` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpTaskService = injector(McpTaskService);

/** Injects the `McpStdioServer` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpStdioServer = injector(McpStdioServer);

/** Injects the `McpAuthService` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpAuthService = injector(McpAuthService);

/** Injects the `McpHealthIndicator` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpHealthIndicator = injector(McpHealthIndicator);
