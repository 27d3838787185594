import type { McpEvent, McpEventHandler, McpNotificationBus } from '../../interfaces/notification-bus.interface';

/** The default bus: delivers events to handlers in this process. */
export class MemoryNotificationBus implements McpNotificationBus {
  private readonly handlers = new Set<McpEventHandler>();

  async publish(event: McpEvent): Promise<void> {
    for (const handler of this.handlers) {
      handler(event);
    }
  }

  subscribe(handler: McpEventHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }
}
