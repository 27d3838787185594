/**
 * Child process: the sample app (its own AppModule, hence the sample's `echo` tool), topped up
 * with filler tools through `McpRegistry.addTool` so that tools/list returns exactly
 * BENCH_TOOL_COUNT (default 100) tools.
 *
 * With BENCH_REDIS_URL (the scale-out scenarios), the sample's module options also get
 * `redis: { url }` and `requestState: { secret: BENCH_REQUEST_STATE_SECRET }`, so that several
 * of these processes serve as one server.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { McpModule } from 'nest-mcp';
import { fillRegistry } from './bench-tools';
import { ReportingLogger, send, serve } from './child-runtime';
import { applyPatches } from './patches';

/**
 * Adds the Redis options to whatever the sample's `McpModule.forRootAsync` factory returns. It
 * must run before the sample's module is loaded: its decorator calls `forRootAsync` then.
 */
function shareThroughRedis(url: string, secret: string): void {
  const forRootAsync = McpModule.forRootAsync.bind(McpModule);
  McpModule.forRootAsync = (options) => {
    const factory = options.useFactory;
    if (factory === undefined) {
      throw new Error('the bench expects the sample to configure McpModule.forRootAsync with useFactory');
    }
    return forRootAsync({
      ...options,
      useFactory: async (...deps: unknown[]) => ({
        ...(await factory(...deps)),
        redis: { url },
        requestState: { secret },
      }),
    });
  };
}

async function main(): Promise<void> {
  // Experiments only (bench/main.ts --patch): none by default.
  applyPatches((process.env.BENCH_PATCH ?? '').split(',').filter((name) => name.length > 0));
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (redisUrl !== undefined && redisUrl !== '') {
    const secret = process.env.BENCH_REQUEST_STATE_SECRET ?? '';
    if (Buffer.byteLength(secret) < 32) {
      throw new Error('BENCH_REDIS_URL needs BENCH_REQUEST_STATE_SECRET (at least 32 bytes), shared by the instances');
    }
    shareThroughRedis(redisUrl, secret);
  }
  const { AppModule } = await import('../sample/app.module');
  const app = await NestFactory.create(AppModule, { logger: new ReportingLogger('McpBenchServer') });
  // Runs discovery, so that the sample's decorated tools are registered before we count them.
  await app.init();
  await serve(app, undefined, { tools: fillRegistry(app) });
}

main().catch((error: unknown) => {
  send({ type: 'server-error', message: `startup failed: ${error instanceof Error ? error.stack : String(error)}` });
  process.exit(1);
});
