import { join } from 'node:path';
import { type DynamicModule, Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { sampleRedis, type SampleRedisHa } from '../../sample/common/sample-redis';
import { CONFORMANCE_SHARED_LISTS, DynamicLists, type SharedListsOptions } from './conformance.dynamic';
import { ConformancePrompts } from './conformance.prompts';
import { ConformanceResources } from './conformance.resources';
import { ConformanceTools } from './conformance.tools';
import { ConformanceInputTools } from './conformance.input';
import { ConformanceTaskTools } from './conformance.tasks';

/** Where the fixture keeps its state; nothing given: in memory, one instance. */
export interface ConformanceOptions {
  /** Redis shared by several instances (read like the sample's `MCP_REDIS_URL`; blank means none). */
  redisUrl?: string;
  /** Or a Redis Cluster or a Sentinel set (read like the sample's `MCP_REDIS_CLUSTER`, `MCP_REDIS_SENTINELS`...). */
  redisHa?: SampleRedisHa;
  /** The `requestState.secret`, the same on every instance (like the sample's `MCP_REQUEST_STATE_SECRET`). */
  requestStateSecret?: string;
  /** The fixture's own Redis keys and channels (see conformance.dynamic.ts). */
  lists?: Omit<SharedListsOptions, 'redisUrl'>;
}

/**
 * The fixture server the official MCP conformance suite runs against (see `.ci/run`). Every
 * revision is served on one endpoint, `/mcp`: the suite's 2025-11-25 requirement set runs with
 * `initialize` and a session, the 2026-07-28 set statelessly. With `redisUrl`, several instances
 * behind a round-robin balancer serve as one (`.ci/run` runs the suite against two, on a Redis
 * Cluster).
 */
@Module({})
export class ConformanceModule {
  static forRoot(options: ConformanceOptions = {}): DynamicModule {
    const shared = sampleRedis(options.redisUrl, options.requestStateSecret, options.redisHa);
    return {
      module: ConformanceModule,
      imports: [
        McpModule.forRoot({
          name: 'nest-mcp-conformance',
          version: '0.1.0',
          title: 'nest-mcp conformance fixtures',
          description: 'The fixture surface of the MCP conformance suite, built with nest-mcp decorators',
          // The suite's sep-2640-skills-* scenarios find the skill from skills/list.
          skills: { directory: join(__dirname, 'skills') },
          ...shared,
        }),
      ],
      providers: [
        { provide: CONFORMANCE_SHARED_LISTS, useValue: { ...options.lists, redis: shared.redis } },
        DynamicLists,
        ConformanceTools,
        ConformanceInputTools,
        ConformanceTaskTools,
        ConformanceResources,
        ConformancePrompts,
      ],
    };
  }
}
