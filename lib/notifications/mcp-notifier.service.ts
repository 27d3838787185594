import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { MCP_NOTIFICATION_BUS } from '../mcp.constants';
import { McpRegistry } from '../registry/mcp-registry.service';
import { McpSessionService } from '../sessions/mcp-session.service';
import { SessionChannels } from '../sessions/session-channels';
import { notification } from '../protocol/json-rpc';
import type { McpEvent, NotificationBus } from './notification-bus.interface';

/**
 * Tells clients that something changed: a list of tools, resources or prompts, or the content
 * of a resource. Registry changes are announced automatically; call these methods when what a
 * list or resource returns changes for other reasons.
 *
 * @publicApi
 */
@Injectable()
export class McpNotifier implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpNotifier');
  private readonly teardown: Array<() => void> = [];

  constructor(
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: NotificationBus,
    private readonly registry: McpRegistry,
    private readonly sessions: McpSessionService,
    private readonly channels: SessionChannels,
  ) {}

  onModuleInit(): void {
    this.teardown.push(this.bus.subscribe((event) => this.deliver(event)));
    this.teardown.push(this.registry.onChange((list) => void this.publish({ type: 'list_changed', list })));
  }

  onModuleDestroy(): void {
    this.teardown.splice(0).forEach((stop) => stop());
  }

  /** Announces that the list of tools changed. */
  toolsChanged(): Promise<void> {
    return this.publish({ type: 'list_changed', list: 'tools' });
  }

  /** Announces that the list of resources or resource templates changed. */
  resourcesChanged(): Promise<void> {
    return this.publish({ type: 'list_changed', list: 'resources' });
  }

  /** Announces that the list of prompts changed. */
  promptsChanged(): Promise<void> {
    return this.publish({ type: 'list_changed', list: 'prompts' });
  }

  /** Announces that the content of the resource at `uri` changed, to the clients subscribed to it. */
  resourceUpdated(uri: string): Promise<void> {
    return this.publish({ type: 'resource_updated', uri });
  }

  private async publish(event: McpEvent): Promise<void> {
    try {
      await this.bus.publish(event);
    } catch (error) {
      this.logger.error(`Could not publish ${event.type}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Delivers an event to the legacy session streams open on this instance. */
  private deliver(event: McpEvent): void {
    if (event.type === 'list_changed') {
      const message = notification(`notifications/${event.list}/list_changed`);
      for (const sessionId of this.channels.sessionIds()) {
        this.channels.send(sessionId, message);
      }
      return;
    }
    const message = notification('notifications/resources/updated', { uri: event.uri });
    this.sessions
      .subscribers(event.uri)
      .then((sessionIds) => sessionIds.forEach((sessionId) => this.channels.send(sessionId, message)))
      .catch((error: unknown) => this.logger.error(`Could not deliver a resource update: ${String(error)}`));
  }
}
