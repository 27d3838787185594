/**
 * The injection tokens of a server's public services. The default server (see
 * `defaultServerOf`) is reached by class, as with one server: `McpRegistry`, `McpNotifier`...
 * Every server, the default included, is reached by name: `getMcpToken(McpRegistry, 'admin')`, or
 * `@InjectMcp(McpRegistry, 'admin')`, the way `@nestjs/typeorm` names its data sources
 * (`getRepositoryToken(Entity, dataSource)`).
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
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { NOT_A_PUBLIC_SERVICE } from '../shared/mcp.messages';
import { McpRegistry } from '../registry/mcp-registry.service';
import { McpNotifier } from '../notifications/mcp-notifier.service';
import { McpSessionService } from '../sessions/mcp-session.service';
import { McpTaskService } from '../tasks/mcp-task.service';
import { McpStdioServer } from '../transports/stdio/mcp-stdio.server';
import { McpAuthService } from '../auth/mcp-auth.service';
import { McpHealthIndicator } from '../health/mcp.health';
import { namedServerToken } from '../identity/named-token';

/** One public service of a server: its class, and the token its own server's parts inject it by. */
/** @internal */
export interface ServerService {
  readonly type: Type;
  readonly own: symbol;
}

/** The services every server exports, by name, and the default one also by class. */
/** @internal */
export const SERVER_SERVICES: readonly ServerService[] = [
  { type: McpRegistry, own: MCP_OWN_REGISTRY },
  { type: McpNotifier, own: MCP_OWN_NOTIFIER },
  { type: McpSessionService, own: MCP_OWN_SESSIONS },
  { type: McpTaskService, own: MCP_OWN_TASKS },
  { type: McpStdioServer, own: MCP_OWN_STDIO },
  { type: McpAuthService, own: MCP_OWN_AUTH },
  { type: McpHealthIndicator, own: MCP_OWN_HEALTH },
];

/**
 * A class, as {@link getMcpToken} and {@link InjectMcp} take it: one of the seven public services
 * of a server (`McpRegistry`, `McpNotifier`, `McpSessionService`, `McpTaskService`,
 * `McpStdioServer` of `nest-mcp/stdio`, `McpAuthService`, `McpHealthIndicator`), checked when
 * called.
 *
 * @publicApi
 */
export type McpServiceClass = abstract new (...args: never[]) => unknown;

/**
 * The injection token of one public service of a server: the class itself for the default
 * server (no name, as with one server), else the server's own token. For `inject: [...]` of
 * factories, `app.get()` and `overrideProvider()`.
 *
 * @param service - one of the seven public services: `McpRegistry`, `McpNotifier`,
 *   `McpSessionService`, `McpTaskService`, `McpStdioServer`, `McpAuthService`,
 *   `McpHealthIndicator`; another class throws `McpConfigurationError`.
 * @param server - the server's `name`; omitted: the default server.
 * @example
 * ```ts
 * const registry = app.get<McpRegistry>(getMcpToken(McpRegistry, 'admin'));
 * ```
 * @publicApi
 */
export function getMcpToken<T extends McpServiceClass>(service: T): T;
/** The token of one public service of the named server: `nest-mcp:server:<name>:<Class>`. @publicApi */
export function getMcpToken<T extends McpServiceClass>(service: T, server: string): string;
/** The token of one public service: the class without a server name, the server's own with one. @publicApi */
export function getMcpToken<T extends McpServiceClass>(service: T, server?: string): T | string;
export function getMcpToken<T extends McpServiceClass>(service: T, server?: string): T | string {
  const known = SERVER_SERVICES.some(({ type }) => (type as unknown) === service);
  if (!known) {
    throw new McpConfigurationError(NOT_A_PUBLIC_SERVICE(nameOf(service)));
  }
  return server === undefined ? service : namedServerToken(server, service.name);
}

/**
 * Injects one public service of a server: the default server's without a name.
 *
 * @param service - as for {@link getMcpToken}.
 * @param server - the server's `name`; omitted: the default server.
 * @example
 * ```ts
 * constructor(@InjectMcp(McpRegistry, 'admin') private readonly registry: McpRegistry) {}
 * ```
 * @publicApi
 */
export function InjectMcp(service: McpServiceClass, server?: string): ParameterDecorator & PropertyDecorator {
  return Inject(getMcpToken(service, server));
}

function nameOf(value: unknown): string {
  return typeof value === 'function' && value.name !== '' ? value.name : String(value);
}
