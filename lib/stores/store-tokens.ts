/**
 * The public injection tokens of a server's stores, apart from the providers that make them: the
 * entry point's declarations reach this file only, never the Redis classes (whose types are
 * ioredis's, an optional peer an application may not have installed).
 */
import { Inject } from '@nestjs/common';
import { MCP_NOTIFICATION_BUS, MCP_REPLAY_STORE, MCP_SESSION_STORE, MCP_TASK_STORE } from '../shared/mcp.constants';
import { namedServerToken } from '../identity/named-token';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { NOT_A_STORE_KIND } from '../shared/mcp.messages';

/**
 * The stores of a server, by the key of its `stores` option: `sessions` (`McpSessionStore`),
 * `replay` (`McpReplayStore`), `tasks` (`McpTaskStore`), `bus` (`McpNotificationBus`).
 *
 * @publicApi
 */
export type McpStoreKind = 'sessions' | 'replay' | 'tasks' | 'bus';

/** Per kind: the default server's token, and the name of a named server's token (as before). */
const STORE_TOKENS: Readonly<Record<McpStoreKind, { readonly token: symbol; readonly named: string }>> = {
  sessions: { token: MCP_SESSION_STORE, named: 'SessionStore' },
  replay: { token: MCP_REPLAY_STORE, named: 'ReplayStore' },
  tasks: { token: MCP_TASK_STORE, named: 'TaskStore' },
  bus: { token: MCP_NOTIFICATION_BUS, named: 'NotificationBus' },
};

/**
 * The injection token of a server's store of one kind: the one given in its `stores` option,
 * else the built-in one. Inject it with `@InjectMcpStore('sessions')`, or replace it in a test
 * with `overrideProvider(getMcpStoreToken('sessions'))` (without a name: the store every server
 * shares unless it has its own). With several servers, name one: `getMcpStoreToken('sessions',
 * 'admin')` (give a server a store of its own with its `stores` option).
 *
 * @param kind - `'sessions'`, `'replay'`, `'tasks'` or `'bus'`; another value throws `McpConfigurationError`.
 * @param server - the server's `name`; omitted: the default token.
 * @publicApi
 */
export function getMcpStoreToken(kind: McpStoreKind): symbol;
/** The token of the named server's store of one kind. @publicApi */
export function getMcpStoreToken(kind: McpStoreKind, server: string): string;
/** The token of a store of one kind: the shared one without a server name, the server's own with one. @publicApi */
export function getMcpStoreToken(kind: McpStoreKind, server?: string): symbol | string;
export function getMcpStoreToken(kind: McpStoreKind, server?: string): symbol | string {
  const entry = Object.prototype.hasOwnProperty.call(STORE_TOKENS, kind) ? STORE_TOKENS[kind] : undefined;
  if (entry === undefined) {
    throw new McpConfigurationError(NOT_A_STORE_KIND(String(kind)));
  }
  return server === undefined ? entry.token : namedServerToken(server, entry.named);
}

/**
 * Injects a server's store of one kind, as {@link getMcpStoreToken}.
 *
 * @example
 * ```ts
 * constructor(@InjectMcpStore('sessions') private readonly sessions: McpSessionStore) {}
 * ```
 * @publicApi
 */
export function InjectMcpStore(kind: McpStoreKind, server?: string): ParameterDecorator & PropertyDecorator {
  return Inject(getMcpStoreToken(kind, server));
}
