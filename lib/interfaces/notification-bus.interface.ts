import type { McpTaskRecord } from './task-store.interface';

/** A server-side event that clients may be told about. */
export type McpEvent =
  | { readonly type: 'list_changed'; readonly list: 'tools' | 'resources' | 'prompts' }
  | { readonly type: 'resource_updated'; readonly uri: string }
  /** A URL-mode elicitation of a legacy session finished out of band (2025-11-25). */
  | { readonly type: 'elicitation_complete'; readonly sessionId: string; readonly elicitationId: string }
  /** A task changed; it is stored as given here. */
  | { readonly type: 'task_status'; readonly task: McpTaskRecord };

/** Handler of published events. */
export type McpEventHandler = (event: McpEvent) => void;

/**
 * Carries events from where they happen to every instance that holds client streams. The
 * in-memory bus serves one process; a shared bus (Redis pub/sub) serves several.
 *
 * @publicApi
 */
export interface McpNotificationBus {
  /** Delivers an event to every subscriber (of every instance, for a shared bus). */
  publish(event: McpEvent): Promise<void>;
  /** Calls `handler` with every event delivered. @returns a function that ends the subscription. */
  subscribe(handler: McpEventHandler): () => void;
}
