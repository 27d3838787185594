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
} from '../mcp.constants';
import { McpRegistry } from '../registry/mcp-registry.service';
import { McpNotifier } from '../notifications/mcp-notifier.service';
import { McpSessionService } from '../sessions/mcp-session.service';
import { McpTaskService } from '../tasks/mcp-task.service';
import { McpStdioServer } from '../transports/stdio/mcp-stdio.server';
import { McpAuthService } from '../auth/mcp-auth.service';
import { McpHealthIndicator } from '../health/mcp.health';
import { namedServerToken } from './named-token';

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

function tokenOf(type: Type, server: string | undefined): Type | string {
  return server === undefined ? type : namedServerToken(server, type.name);
}

/**
 * The token of a server's `McpRegistry`: the class for the default server (no name), else the
 * server's own, for `inject: [...]` of factories and for `app.get()`.
 *
 * @example getMcpRegistryToken('admin')
 * @publicApi
 */
export const getMcpRegistryToken = (server?: string): Type | string => tokenOf(McpRegistry, server);

/** The token of a server's `McpNotifier`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpNotifierToken = (server?: string): Type | string => tokenOf(McpNotifier, server);

/** The token of a server's `McpSessionService`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpSessionServiceToken = (server?: string): Type | string => tokenOf(McpSessionService, server);

/** The token of a server's `McpTaskService`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpTaskServiceToken = (server?: string): Type | string => tokenOf(McpTaskService, server);

/** The token of a server's `McpStdioServer`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpStdioServerToken = (server?: string): Type | string => tokenOf(McpStdioServer, server);

/** The token of a server's `McpAuthService`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpAuthServiceToken = (server?: string): Type | string => tokenOf(McpAuthService, server);

/** The token of a server's `McpHealthIndicator`, as {@link getMcpRegistryToken}. @publicApi */
export const getMcpHealthIndicatorToken = (server?: string): Type | string => tokenOf(McpHealthIndicator, server);

/**
 * Injects the `McpRegistry` of a server: the default one without a name.
 *
 * @example constructor(@InjectMcpRegistry('admin') private readonly registry: McpRegistry) {}
 * @publicApi
 */
export const InjectMcpRegistry = (server?: string): ParameterDecorator & PropertyDecorator =>
  Inject(getMcpRegistryToken(server));

/** Injects the `McpNotifier` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpNotifier = (server?: string): ParameterDecorator & PropertyDecorator =>
  Inject(getMcpNotifierToken(server));

/** Injects the `McpSessionService` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpSessionService = (server?: string): ParameterDecorator & PropertyDecorator =>
  Inject(getMcpSessionServiceToken(server));

/** Injects the `McpTaskService` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpTaskService = (server?: string): ParameterDecorator & PropertyDecorator =>
  Inject(getMcpTaskServiceToken(server));

/** Injects the `McpStdioServer` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpStdioServer = (server?: string): ParameterDecorator & PropertyDecorator =>
  Inject(getMcpStdioServerToken(server));

/** Injects the `McpAuthService` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpAuthService = (server?: string): ParameterDecorator & PropertyDecorator =>
  Inject(getMcpAuthServiceToken(server));

/** Injects the `McpHealthIndicator` of a server, as {@link InjectMcpRegistry}. @publicApi */
export const InjectMcpHealthIndicator = (server?: string): ParameterDecorator & PropertyDecorator =>
  Inject(getMcpHealthIndicatorToken(server));
