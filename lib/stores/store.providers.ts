/**
 * The providers of the server's state: memory stores by default, Redis stores, bus and link
 * when `redis` is configured.
 */
import { Inject, Injectable, Logger, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import {
  MCP_CLUSTER_LINK,
  MCP_NOTIFICATION_BUS,
  MCP_REDIS_HUB,
  MCP_REPLAY_STORE,
  MCP_RESOLVED_OPTIONS,
  MCP_SESSION_STORE,
  MCP_TASK_STORE,
} from '../mcp.constants';
import type { ResolvedMcpOptions } from '../mcp-options.factory';
import type { ClusterLink } from '../cluster/cluster-link.interface';
import type { NotificationBus } from '../notifications/notification-bus.interface';
import { MemoryClusterLink } from './memory/memory-cluster.link';
import { MemoryNotificationBus } from './memory/memory-notification.bus';
import { MemoryReplayStore } from './memory/memory-replay.store';
import { MemorySessionStore } from './memory/memory-session.store';
import { MemoryTaskStore } from './memory/memory-task.store';
import { RedisHub } from './redis/redis-hub';
import { RedisClusterLink } from './redis/redis-cluster.link';
import { RedisNotificationBus } from './redis/redis-notification.bus';
import { RedisReplayStore } from './redis/redis-replay.store';
import { RedisSessionStore } from './redis/redis-session.store';
import { RedisTaskStore } from './redis/redis-task.store';

type Hub = RedisHub | undefined;

/** Closes the Redis link, bus and connections once the application has shut down. */
@Injectable()
export class McpStoresLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(MCP_REDIS_HUB) private readonly hub: Hub,
    @Inject(MCP_CLUSTER_LINK) private readonly link: ClusterLink,
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: NotificationBus,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.link.close();
    if (this.bus instanceof RedisNotificationBus) {
      this.bus.close();
    }
    await this.hub?.close();
  }
}

/** Every provider of the server's state. */
export const STORE_PROVIDERS: Provider[] = [
  {
    provide: MCP_REDIS_HUB,
    useFactory: async (options: ResolvedMcpOptions): Promise<Hub> => {
      if (options.redis === undefined) {
        return undefined;
      }
      if (options.requestState.secret === undefined) {
        new Logger('McpModule').warn(
          'redis is set but requestState.secret is not: each instance seals requestState with a key of its own, ' +
            'so a multi round-trip retry that reaches another instance is refused. Set the same secret on every instance.',
        );
      }
      return RedisHub.connect(options.redis);
    },
    inject: [MCP_RESOLVED_OPTIONS],
  },
  {
    provide: MCP_CLUSTER_LINK,
    useFactory: (hub: Hub): Promise<ClusterLink> | ClusterLink =>
      hub === undefined ? new MemoryClusterLink() : RedisClusterLink.create(hub),
    inject: [MCP_REDIS_HUB],
  },
  {
    provide: MCP_NOTIFICATION_BUS,
    useFactory: (hub: Hub): Promise<NotificationBus> | NotificationBus =>
      hub === undefined ? new MemoryNotificationBus() : RedisNotificationBus.create(hub),
    inject: [MCP_REDIS_HUB],
  },
  {
    provide: MCP_SESSION_STORE,
    useFactory: (options: ResolvedMcpOptions, hub: Hub) =>
      hub === undefined
        ? new MemorySessionStore()
        : new RedisSessionStore(hub, { idleTimeoutMs: options.sessions.idleTimeoutMs }),
    inject: [MCP_RESOLVED_OPTIONS, MCP_REDIS_HUB],
  },
  {
    provide: MCP_REPLAY_STORE,
    useFactory: (options: ResolvedMcpOptions, hub: Hub) =>
      hub === undefined
        ? new MemoryReplayStore(options.http.replayBufferSize)
        : // As long as a session's own keys: the buffer ends with its session, the TTL is a backstop.
          new RedisReplayStore(
            hub,
            options.http.replayBufferSize,
            options.sessions.idleTimeoutMs + Math.max(options.sessions.idleTimeoutMs, 60_000),
          ),
    inject: [MCP_RESOLVED_OPTIONS, MCP_REDIS_HUB],
  },
  {
    provide: MCP_TASK_STORE,
    useFactory: (hub: Hub) => (hub === undefined ? new MemoryTaskStore() : new RedisTaskStore(hub, {})),
    inject: [MCP_REDIS_HUB],
  },
  McpStoresLifecycle,
];
