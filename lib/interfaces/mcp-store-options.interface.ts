import type { McpSessionStore } from './session-store.interface';
import type { McpReplayStore } from './replay-store.interface';
import type { McpTaskStore } from './task-store.interface';
import type { McpNotificationBus } from './notification-bus.interface';

/**
 * Stores of the application's own (`stores` of the module options). Each one given replaces the
 * built-in memory store of its kind; the module neither opens nor closes it.
 *
 * Every instance of a server talks to the others through the Redis link (`redis`), which comes
 * with its own stores: custom stores serve one instance, and `redis` with `stores` is refused at
 * startup.
 *
 * @publicApi
 */
export interface McpStoreOptions {
  /**
   * Where legacy sessions and their resource subscriptions live.
   * @see getMcpStoreToken
   */
  sessions?: McpSessionStore;
  /**
   * The SSE replay buffers of legacy sessions. It keeps as many events per session as it
   * chooses (`http.replayBufferSize` sizes the built-in one).
   * @see getMcpStoreToken
   */
  replay?: McpReplayStore;
  /**
   * Where tasks live.
   * @see getMcpStoreToken
   */
  tasks?: McpTaskStore;
  /**
   * What carries list changes, resource updates and task status to the client streams.
   * @see getMcpStoreToken
   */
  bus?: McpNotificationBus;
}
