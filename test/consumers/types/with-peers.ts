/**
 * Type-checked only (never run), beside the NestJS 12 apps, in the consumers that have every
 * optional peer of nest-mcp installed: the peers' own objects must fit the module's structural
 * option types (an ioredis `Redis` and `Cluster`, OpenTelemetry's providers and propagator), and
 * the features that use a peer type-check as the README shows them (zod and class-validator
 * schemas, a terminus health check).
 */
import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { metrics, propagation, trace } from '@opentelemetry/api';
import { IsString, MinLength } from 'class-validator';
import { Cluster, Redis } from 'ioredis';
import { McpHealthIndicator, McpModule, McpTool, McpArgs, type McpRedisClient } from 'nest-mcp';
import { z } from 'zod';

const redis: McpRedisClient = new Redis({ lazyConnect: true, enableOfflineQueue: false, commandTimeout: 1_000 });
const cluster: McpRedisClient = new Cluster([{ host: '127.0.0.1', port: 7000 }], { lazyConnect: true });

export class EchoDto {
  @IsString()
  @MinLength(1)
  text!: string;
}

const Search = z.object({ query: z.string(), limit: z.number().int().default(10) });

@Injectable()
export class PeerTools {
  @McpTool({ description: 'Echoes its text', input: EchoDto })
  echo(@McpArgs() args: EchoDto): string {
    return args.text;
  }

  @McpTool({ description: 'Searches', input: Search })
  search(@McpArgs() args: z.infer<typeof Search>): string {
    return `${args.query} (${args.limit})`;
  }
}

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly mcp: McpHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.mcp.isHealthy('mcp')]);
  }
}

@Module({
  imports: [
    TerminusModule,
    McpModule.forRoot({
      name: 'peers',
      version: '1.0.0',
      redis: { client: redis },
      telemetry: {
        tracerProvider: trace.getTracerProvider(),
        meterProvider: metrics.getMeterProvider(),
        propagator: propagation,
      },
    }),
    McpModule.forRoot({ name: 'cluster', version: '1.0.0', path: 'cluster', redis: { client: cluster } }),
  ],
  providers: [PeerTools],
  controllers: [HealthController],
})
export class PeersModule {}
