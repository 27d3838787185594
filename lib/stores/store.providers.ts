/**
 * The providers of the server's state: the application's own stores (`stores`) where given,
 * else the built-in ones: memory by default, Redis stores, bus and link when `redis` is set.
 */
import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import {
  MCP_CLOCK,
  MCP_CLUSTER_LINK,
  MCP_HTTP_SETTINGS,
  MCP_NOTIFICATION_BUS,
  MCP_REDIS_HUB,
  MCP_REDIS_SETTINGS,
  MCP_REPLAY_STORE,
  MCP_SERVER_SETTINGS,
  MCP_SESSION_SETTINGS,
  MCP_SESSION_STORE,
  MCP_STORE_SETTINGS,
  MCP_TASK_STORE,
} from '../shared/mcp.constants';
import type { McpServerSettings } from '../shared/server-settings';
import { getMcpStoreToken } from './store-tokens';
import type { SessionSettings } from '../sessions/session-settings';
import type { McpSessionStore } from '../interfaces/session-store.interface';
import type { McpReplayStore } from '../interfaces/replay-store.interface';
import type { McpTaskStore } from '../interfaces/task-store.interface';
import type { ClusterLink } from '../cluster/cluster-link.interface';
import type { McpNotificationBus } from '../interfaces/notification-bus.interface';
import { systemClock, type Clock } from '../protocol/bounds/clock';
import type { ResolvedStoreOptions } from './store-settings';
import { MemoryClusterLink } from './memory/memory-cluster.link';
import { MemoryNotificationBus } from './memory/memory-notification.bus';
import { MemoryReplayStore } from './memory/memory-replay.store';
import { MemorySessionStore } from './memory/memory-session.store';
import { MemoryTaskStore } from './memory/memory-task.store';
import type { RedisHub } from './redis/redis-hub';
import type * as RedisParts from './redis/redis-parts';
import type { ResolvedRedisOptions } from './redis/redis-settings';
import { McpLogger } from '../telemetry/mcp.logger';

type Hub = RedisHub | undefined;
type Stores = ResolvedStoreOptions | undefined;

/**
 * The Redis classes, loaded on first use: only a server with `redis` set (a hub) reaches them,
 * so an application without Redis does not load their code at startup.
 */
function redis(): typeof RedisParts {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./redis/redis-parts') as typeof RedisParts;
}

/** The named aliases of a server's stores, which its module exports beside `STORE_TOKENS`. */
export function namedStoreProviders(server: string): Array<{ provide: string; useExisting: symbol }> {
  return [
    { provide: getMcpStoreToken('sessions', server), useExisting: MCP_SESSION_STORE },
    { provide: getMcpStoreToken('replay', server), useExisting: MCP_REPLAY_STORE },
    { provide: getMcpStoreToken('tasks', server), useExisting: MCP_TASK_STORE },
    { provide: getMcpStoreToken('bus', server), useExisting: MCP_NOTIFICATION_BUS },
  ];
}

/** The tokens of the stores the module exports, so that the application can inject them. */
export const STORE_TOKENS = [MCP_SESSION_STORE, MCP_REPLAY_STORE, MCP_TASK_STORE, MCP_NOTIFICATION_BUS] as const;

/** Closes the Redis link, bus, clock and connections once the application has shut down. */
@Injectable()
export class McpStoresLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(MCP_REDIS_HUB) private readonly hub: Hub,
    @Inject(MCP_CLUSTER_LINK) private readonly link: ClusterLink,
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: McpNotificationBus,
    @Inject(MCP_CLOCK) private readonly clock: Clock,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.hub !== undefined && this.clock instanceof redis().RedisClock) {
      this.clock.stop();
    }
    await this.link.close();
    // The application's own bus is the application's to close.
    // Only a hub makes a Redis bus (and loads its class).
    if (this.hub !== undefined && this.bus instanceof redis().RedisNotificationBus) {
      this.bus.close();
    }
    await this.hub?.close();
  }
}

/** Connects to Redis when `redis` is set. */
async function connectHub(
  options: ResolvedRedisOptions | undefined,
  server: Pick<McpServerSettings, 'requestState'>,
): Promise<Hub> {
  if (options === undefined) {
    return undefined;
  }
  if (server.requestState.secret === undefined) {
    new McpLogger('McpModule').warn(
      'redis is set but requestState.secret is not: each instance seals requestState with a key of its own, ' +
        'so a multi round-trip retry that reaches another instance is refused. Set the same secret on every instance.',
    );
  }
  return redis().RedisHub.connect(options);
}

function sessionStore(stores: Stores, hub: Hub, sessions: SessionSettings): McpSessionStore {
  if (stores?.sessions !== undefined) {
    return stores.sessions;
  }
  return hub === undefined
    ? new MemorySessionStore()
    : new (redis().RedisSessionStore)(hub, { idleTimeoutMs: sessions.idleTimeoutMs });
}

function replayStore(
  stores: Stores,
  hub: Hub,
  // The HTTP settings a store reads, typed here so that the stores stay below the transports.
  http: { readonly replayBufferSize: number; readonly replayBufferBytes: number; readonly replayTotalBytes: number },
  sessions: SessionSettings,
): McpReplayStore {
  if (stores?.replay !== undefined) {
    return stores.replay;
  }
  const bytes = { sessionBytes: http.replayBufferBytes, totalBytes: http.replayTotalBytes };
  return hub === undefined
    ? new MemoryReplayStore(http.replayBufferSize, bytes)
    : // As long as a session's own keys: the buffer ends with its session, the TTL is a backstop.
      new (redis().RedisReplayStore)(
        hub,
        http.replayBufferSize,
        sessions.idleTimeoutMs + Math.max(sessions.idleTimeoutMs, 60_000),
        bytes,
      );
}

function taskStore(stores: Stores, hub: Hub, clock: Clock): McpTaskStore {
  return stores?.tasks ?? (hub === undefined ? new MemoryTaskStore() : new (redis().RedisTaskStore)(hub, { clock }));
}

/**
 * The clock of the times instances compare (idleness, task expiry): Redis's when `redis` is set,
 * so that one instance with a wrong clock ends nothing early on the others.
 */
function sharedClock(hub: Hub): Clock | Promise<Clock> {
  return hub === undefined ? systemClock : redis().RedisClock.of(hub, new McpLogger('McpModule'));
}

function notificationBus(stores: Stores, hub: Hub): Promise<McpNotificationBus> | McpNotificationBus {
  return stores?.bus ?? (hub === undefined ? new MemoryNotificationBus() : redis().RedisNotificationBus.create(hub));
}

/** Every provider of the server's state. */
export const STORE_PROVIDERS: Provider[] = [
  { provide: MCP_REDIS_HUB, useFactory: connectHub, inject: [MCP_REDIS_SETTINGS, MCP_SERVER_SETTINGS] },
  { provide: MCP_CLOCK, useFactory: sharedClock, inject: [MCP_REDIS_HUB] },
  {
    provide: MCP_CLUSTER_LINK,
    useFactory: (hub: Hub): Promise<ClusterLink> | ClusterLink =>
      hub === undefined ? new MemoryClusterLink() : redis().RedisClusterLink.create(hub),
    inject: [MCP_REDIS_HUB],
  },
  { provide: MCP_NOTIFICATION_BUS, useFactory: notificationBus, inject: [MCP_STORE_SETTINGS, MCP_REDIS_HUB] },
  {
    provide: MCP_SESSION_STORE,
    useFactory: sessionStore,
    inject: [MCP_STORE_SETTINGS, MCP_REDIS_HUB, MCP_SESSION_SETTINGS],
  },
  {
    provide: MCP_REPLAY_STORE,
    useFactory: replayStore,
    inject: [MCP_STORE_SETTINGS, MCP_REDIS_HUB, MCP_HTTP_SETTINGS, MCP_SESSION_SETTINGS],
  },
  { provide: MCP_TASK_STORE, useFactory: taskStore, inject: [MCP_STORE_SETTINGS, MCP_REDIS_HUB, MCP_CLOCK] },
  McpStoresLifecycle,
];
