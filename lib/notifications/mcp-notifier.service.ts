import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { MCP_NOTIFICATION_BUS, MCP_OWN_REGISTRY, MCP_OWN_SESSIONS } from '../shared/mcp.constants';
import { McpRegistry } from '../registry/mcp-registry.service';
import { McpSessionService } from '../sessions/mcp-session.service';
import { SessionChannels } from '../sessions/session-channels';
import { isJsonObject, notification, type JSONObject, type JSONRPCNotification } from '../protocol/messages/json-rpc';
import { McpEngine } from '../protocol/engine';
import type { McpEvent, McpNotificationBus } from '../interfaces/notification-bus.interface';
import { taskNotificationOf } from '../protocol/tasks/task-render';
import type { McpTaskRecord } from '../interfaces/task-store.interface';
import { McpLogger } from '../telemetry/mcp.logger';
import { logFailedSend } from '../protocol/bounds/store-unavailable';

/**
 * Tells clients that something changed: a list of tools, resources or prompts, or the content
 * of a resource. Registry changes are announced automatically; call these methods when what a
 * list or resource returns changes for other reasons.
 *
 * Every event reaches legacy sessions (on their GET stream; resource updates only to the
 * sessions subscribed to the URI) and modern `subscriptions/listen` streams that asked for it.
 * Task status changes (published by `McpTaskService`) reach the task's legacy session, or the
 * listen streams that named the task.
 * When the module is destroyed, open listen streams are ended gracefully.
 *
 * @publicApi
 */
@Injectable()
export class McpNotifier implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new McpLogger('McpNotifier');
  private readonly teardown: Array<() => void> = [];

  /** @internal */
  constructor(
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: McpNotificationBus,
    @Inject(MCP_OWN_REGISTRY) private readonly registry: McpRegistry,
    @Inject(MCP_OWN_SESSIONS) private readonly sessions: McpSessionService,
    private readonly channels: SessionChannels,
    private readonly engine: McpEngine,
  ) {}

  /** Starts delivering the bus's events and announcing the registry's list changes. */
  onModuleInit(): void {
    this.teardown.push(this.bus.subscribe((event) => this.deliver(event)));
    this.teardown.push(this.registry.onChange((list) => void this.publish({ type: 'list_changed', list })));
  }

  /** Stops delivering, then ends the modern listen streams: no event can reach them any more. */
  async onModuleDestroy(): Promise<void> {
    this.teardown.splice(0).forEach((stop) => stop());
    await this.engine.subscriptions.closeAll();
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

  /**
   * Tells a legacy session (2025-11-25) that the URL-mode elicitation `elicitationId` it was
   * given (by `ctx.elicit({ mode: 'url', ... })` or `McpUrlElicitationRequiredError`) is
   * complete, with `notifications/elicitation/complete` on the session's stream, so that the
   * client can retry what needed it.
   */
  elicitationComplete(sessionId: string, elicitationId: string): Promise<void> {
    return this.publish({ type: 'elicitation_complete', sessionId, elicitationId });
  }

  private async publish(event: McpEvent): Promise<void> {
    try {
      await this.bus.publish(event);
    } catch (error) {
      logFailedSend(this.logger, `publish ${event.type}`, error);
    }
  }

  /** Delivers an event to the legacy session streams and modern listen streams open on this instance. */
  private deliver(event: McpEvent): void {
    if (event.type === 'elicitation_complete') {
      // Only the session that was asked hears of it; modern clients learn it by retrying.
      this.channels.send(
        event.sessionId,
        notification('notifications/elicitation/complete', { elicitationId: event.elicitationId }),
      );
      return;
    }
    if (event.type === 'task_status') {
      this.deliverTask(event.task);
      return;
    }
    const message = this.watched(
      event.type === 'list_changed'
        ? notification(`notifications/${event.list}/list_changed`)
        : notification('notifications/resources/updated', { uri: event.uri }),
    );
    this.engine.subscriptions.publish(event, watchedMeta(message));
    if (event.type === 'list_changed') {
      for (const sessionId of this.channels.sessionIds()) {
        this.channels.send(sessionId, message);
      }
      return;
    }
    this.sessions
      .subscribers(event.uri)
      .then((sessionIds) => sessionIds.forEach((sessionId) => this.channels.send(sessionId, message)))
      .catch((error: unknown) => logFailedSend(this.logger, 'deliver a resource update', error));
  }

  /**
   * A task changed: a legacy task's session hears `notifications/tasks/status` on its stream; a
   * modern task's `notifications/tasks` reaches the listen streams that named it.
   */
  private deliverTask(task: McpTaskRecord): void {
    const { method, params } = taskNotificationOf(task);
    if (task.era === 'legacy') {
      if (task.sessionId !== undefined) {
        this.channels.send(task.sessionId, this.watched(notification(method, params), task.sessionId));
      }
      return;
    }
    const message = this.watched(notification(method, params));
    this.engine.subscriptions.publish({ type: 'task_status', taskId: task.id, params }, watchedMeta(message));
  }

  /**
   * The notification of an event as the engine's watcher makes it (once per event, whatever
   * the number of its listeners: they all carry its context); itself when nothing watches.
   */
  private watched(message: JSONRPCNotification, sessionId?: string): JSONRPCNotification {
    const watch = this.engine.watchNotification;
    return watch === undefined ? message : watch(message, sessionId);
  }
}

/**
 * The `_meta` a watcher gave a notification (an event's notification has none of its own), for
 * the listen streams, which send it with theirs.
 */
function watchedMeta(message: JSONRPCNotification): JSONObject | undefined {
  const meta = message.params?._meta;
  return isJsonObject(meta) ? meta : undefined;
}
