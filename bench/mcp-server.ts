/**
 * Child process: the sample app (its own AppModule, hence the sample's `echo` tool), topped up
 * with filler tools through `McpRegistry.addTool` so that tools/list returns exactly
 * BENCH_TOOL_COUNT (default 100) tools.
 *
 * The scale-out scenarios set the sample's `MCP_REDIS_URL` and `MCP_REQUEST_STATE_SECRET`, so
 * that several of these processes serve as one server.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { fillRegistry } from './bench-tools';
import { ReportingLogger, send, serve } from './child-runtime';
import { applyPatches } from './patches';

async function main(): Promise<void> {
  // Experiments only (bench/main.ts --patch): none by default.
  applyPatches((process.env.BENCH_PATCH ?? '').split(',').filter((name) => name.length > 0));
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
