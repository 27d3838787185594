import type { SessionStore } from './session-store.interface';
import type { ReplayStore } from './replay-store.interface';
import type { TaskStore } from './task-store.interface';
import type { NotificationBus } from './notification-bus.interface';

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
   * @see getMcpSessionStoreToken
   */
  sessions?: SessionStore;
  /**
   * The SSE replay buffers of legacy sessions. It keeps as many events per session as it
   * chooses (`http.replayBufferSize` sizes the built-in one).
   * @see getMcpReplayStoreToken
   */
  replay?: ReplayStore;
  /**
   * Where tasks live.
   * @see getMcpTaskStoreToken
   */
  tasks?: TaskStore;
  /**
   * What carries list changes, resource updates and task status to the client streams.
   * @see getMcpNotificationBusToken
   */
  bus?: NotificationBus;
}
