/**
 * The public injection tokens of a server's stores, apart from the providers that make them: the
 * entry point's declarations reach this file only, never the Redis classes (whose types are
 * ioredis's, an optional peer an application may not have installed).
 */
import { MCP_NOTIFICATION_BUS, MCP_REPLAY_STORE, MCP_SESSION_STORE, MCP_TASK_STORE } from '../shared/mcp.constants';
import { namedServerToken } from '../identity/named-token';

/**
 * The injection token of the session store (`SessionStore`): the one given as `stores.sessions`,
 * else the built-in one. Inject it with `@Inject(getMcpSessionStoreToken())`, or replace it in a
 * test with `overrideProvider(getMcpSessionStoreToken())` (the store of every server). With
 * several servers, name one: `getMcpSessionStoreToken('admin')` (give a server a store of its
 * own with its `stores` option).
 *
 * @publicApi
 */
export const getMcpSessionStoreToken = (server?: string): symbol | string =>
  server === undefined ? MCP_SESSION_STORE : namedServerToken(server, 'SessionStore');

/**
 * The injection token of the replay store (`ReplayStore`), as {@link getMcpSessionStoreToken}.
 *
 * @publicApi
 */
export const getMcpReplayStoreToken = (server?: string): symbol | string =>
  server === undefined ? MCP_REPLAY_STORE : namedServerToken(server, 'ReplayStore');

/**
 * The injection token of the task store (`TaskStore`), as {@link getMcpSessionStoreToken}.
 *
 * @publicApi
 */
export const getMcpTaskStoreToken = (server?: string): symbol | string =>
  server === undefined ? MCP_TASK_STORE : namedServerToken(server, 'TaskStore');

/**
 * The injection token of the notification bus (`NotificationBus`), as {@link getMcpSessionStoreToken}.
 *
 * @publicApi
 */
export const getMcpNotificationBusToken = (server?: string): symbol | string =>
  server === undefined ? MCP_NOTIFICATION_BUS : namedServerToken(server, 'NotificationBus');
