import { Inject, Injectable } from '@nestjs/common';
import { MCP_OWN_REGISTRY, MCP_REDIS_HUB, MCP_SESSION_STORE } from '../shared/mcp.constants';
import { HEALTH_DISCOVERY_PENDING, HEALTH_STORE_TIMEOUT } from '../shared/mcp.messages';
import { McpExplorer } from '../explorers/mcp.explorer';
import { McpRegistry } from '../registry/mcp-registry.service';
import type { McpSessionStore } from '../interfaces/session-store.interface';
import type { RedisHub } from '../stores/redis/redis-hub';
import { MemorySessionStore } from '../stores/memory/memory-session.store';
import { messageOf } from '../protocol/messages/mcp-error';

/** `up` or `down`, as `@nestjs/terminus` spells them. @publicApi */
export type McpHealthStatus = 'up' | 'down';

/** The state stores (sessions, tasks, replay buffers) of this instance. @publicApi */
export interface McpStoresHealth {
  /** `up` when the stores answer. */
  status: McpHealthStatus;
  /**
   * Where the state is kept: `memory` (always up), `redis` (up when it answers PING and takes a
   * write: a `SET` of `<redis.keyPrefix>health` expiring in 10 s, which a Redis out of memory or
   * read-only refuses; sessions and tasks share this one store) or `custom` (a session store of
   * the application's own, `stores.sessions`: up when it counts its sessions in time).
   */
  kind: 'memory' | 'redis' | 'custom';
  /** Legacy sessions in the session store (every instance's with Redis); absent when down. */
  sessions?: number;
  /** Redis and custom stores: how long the probe took, in milliseconds. */
  responseTime?: number;
  /** Why the stores are down. */
  message?: string;
}

/** The registry of tools, resources, templates and prompts. @publicApi */
export interface McpRegistryHealth {
  /** `up` once discovery has finished. */
  status: McpHealthStatus;
  /** Whether discovery of the decorated handlers has finished (it runs while the module starts). */
  loaded: boolean;
  /** How many tools are registered. */
  tools: number;
  /** How many resources with a fixed URI are registered. */
  resources: number;
  /** How many resource templates are registered. */
  resourceTemplates: number;
  /** How many prompts are registered. */
  prompts: number;
  /** Why the registry is down. */
  message?: string;
}

/** What {@link McpHealthIndicator.isHealthy} reports under its key. @publicApi */
export interface McpHealthDetails {
  /** `up` when both the stores and the registry are. */
  status: McpHealthStatus;
  /** Why it is down: the reasons of the parts that are, joined with `; `. */
  message?: string;
  /** The health of the session and task stores. */
  stores: McpStoresHealth;
  /** The health of the registry of tools, resources and prompts. */
  registry: McpRegistryHealth;
}

/**
 * A health indicator result: `{ [key]: { status, ... } }`, the shape `@nestjs/terminus`'s
 * `HealthCheckService.check()` takes. @publicApi
 */
export type McpHealthIndicatorResult<Key extends string = string> = Record<Key, McpHealthDetails>;

/** Options of {@link McpHealthIndicator.isHealthy}. @publicApi */
export interface McpHealthCheckOptions {
  /**
   * How long the Redis (or custom session store) probe may take before the stores count as down. Clients made from
   * `redis.url` fail at once while Redis is away; your own `client` may queue commands instead.
   * @default 1000
   */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 1000;
/** How long the key the write probe sets (`<redis.keyPrefix>health`) lives. */
const HEALTH_KEY_TTL_MS = 10_000;

/**
 * The health of the MCP server, for `@nestjs/terminus` (or any readiness probe): its stores
 * serve (a Redis PING and a write when `redis` is configured; memory stores are always up) and its
 * registry is loaded (discovery of decorated handlers has finished), with counts in the details.
 *
 * It returns terminus-shaped results and never throws: a failing part is reported as `down`,
 * which `HealthCheckService.check()` answers with 503. It does not import `@nestjs/terminus`,
 * so applications without it load nest-mcp as before.
 *
 * @example
 * ```ts
 * @Get('health')
 * @HealthCheck()
 * check() {
 *   return this.health.check([() => this.mcp.isHealthy('mcp')]);
 * }
 * ```
 * @publicApi
 */
@Injectable()
export class McpHealthIndicator {
  /**
   * Injected as a property, not a constructor parameter: the declarations of this public class
   * then omit its type, whose declarations import ioredis's (an optional peer an application
   * without Redis does not install).
   */
  @Inject(MCP_REDIS_HUB) private readonly hub!: RedisHub | undefined;

  /** @internal */
  constructor(
    @Inject(MCP_OWN_REGISTRY) private readonly registry: McpRegistry,
    private readonly explorer: McpExplorer,
    @Inject(MCP_SESSION_STORE) private readonly sessions: McpSessionStore,
  ) {}

  /**
   * Checks the stores and the registry.
   * @param key the key of the result (`mcp` by default), as terminus indicators take one.
   * @returns `{ [key]: McpHealthDetails }`, `status: 'down'` with a `message` when a part is down.
   */
  async isHealthy<const Key extends string = 'mcp'>(
    key: Key = 'mcp' as Key,
    options: McpHealthCheckOptions = {},
  ): Promise<McpHealthIndicatorResult<Key>> {
    const stores = await this.checkStores(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const registry = this.checkRegistry();
    const reasons = [
      stores.message === undefined ? undefined : `stores: ${stores.message}`,
      registry.message === undefined ? undefined : `registry: ${registry.message}`,
    ].filter((reason) => reason !== undefined);
    const details: McpHealthDetails =
      reasons.length === 0
        ? { status: 'up', stores, registry }
        : { status: 'down', message: reasons.join('; '), stores, registry };
    return { [key]: details } as McpHealthIndicatorResult<Key>;
  }

  private async checkStores(timeoutMs: number): Promise<McpStoresHealth> {
    const hub = this.hub;
    if (hub === undefined && this.sessions instanceof MemorySessionStore) {
      return { status: 'up', kind: 'memory', sessions: await this.sessions.count() };
    }
    const kind = hub === undefined ? 'custom' : 'redis';
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(HEALTH_STORE_TIMEOUT(timeoutMs))), timeoutMs);
    });
    try {
      // The session and task stores share the hub's connection: one PING answers for both, and
      // one write, since a Redis out of memory or read-only answers PING and reads but refuses
      // every write a request needs.
      const probe =
        hub === undefined
          ? this.sessions.count()
          : Promise.all([
              hub.run('health ping', (client) => client.ping()),
              hub.run('health write', (client) => client.set(hub.key('health'), '1', 'PX', HEALTH_KEY_TTL_MS)),
              this.sessions.count(),
            ]).then(([, , sessions]) => sessions);
      const sessions = await Promise.race([probe, timeout]);
      return { status: 'up', kind, sessions, responseTime: Math.round(performance.now() - started) };
    } catch (error) {
      return { status: 'down', kind, message: messageOf(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  private checkRegistry(): McpRegistryHealth {
    const counts = {
      tools: this.registry.listTools().length,
      resources: this.registry.listResources().length,
      resourceTemplates: this.registry.listTemplates().length,
      prompts: this.registry.listPrompts().length,
    };
    return this.explorer.discovered === undefined
      ? { status: 'down', loaded: false, ...counts, message: HEALTH_DISCOVERY_PENDING }
      : { status: 'up', loaded: true, ...counts };
  }
}
