import type { McpEvent, McpEventHandler, McpNotificationBus } from '../../interfaces/notification-bus.interface';
import type { RedisHub } from './redis-hub';
import { McpLogger } from '../../telemetry/mcp.logger';

/**
 * The notification bus of several instances: events are published on one Redis channel and
 * every instance (the publisher included) hands them to its handlers, in the order Redis
 * received them.
 */
export class RedisNotificationBus implements McpNotificationBus {
  private readonly logger = new McpLogger('McpRedisNotificationBus');
  private readonly handlers = new Set<McpEventHandler>();
  private stop: (() => void) | undefined;

  private constructor(
    private readonly hub: RedisHub,
    private readonly channel: string,
  ) {}

  /** A bus listening on the hub's `bus` channel. */
  static async create(hub: RedisHub): Promise<RedisNotificationBus> {
    const bus = new RedisNotificationBus(hub, hub.key('bus'));
    bus.stop = await hub.subscribe(bus.channel, (payload) => bus.dispatch(payload));
    return bus;
  }

  async publish(event: McpEvent): Promise<void> {
    await this.hub.publish(this.channel, JSON.stringify(event));
  }

  subscribe(handler: McpEventHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** Stops listening. */
  close(): void {
    this.stop?.();
    this.stop = undefined;
  }

  private dispatch(payload: string): void {
    let event: McpEvent;
    try {
      event = JSON.parse(payload) as McpEvent;
    } catch {
      this.logger.warn('Dropped a notification bus message that is not JSON');
      return;
    }
    for (const handler of this.handlers) {
      try {
        handler(event);
      } catch (error) {
        this.logger.error(`A ${event.type} handler failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}
