/**
 * Child process: the sample app (its own AppModule, hence the sample's `echo` tool), topped up
 * with filler tools through `McpRegistry.addTool` so that tools/list returns exactly
 * BENCH_TOOL_COUNT (default 100) tools.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { McpRegistry } from 'nest-mcp';
import { AppModule } from '../sample/app.module';
import { benchTools } from './bench-tools';
import { ReportingLogger, send, serve } from './child-runtime';
import { applyPatches } from './patches';

async function main(): Promise<void> {
  // Experiments only (bench/main.ts --patch): none by default.
  applyPatches((process.env.BENCH_PATCH ?? '').split(',').filter((name) => name.length > 0));
  const app = await NestFactory.create(AppModule, { logger: new ReportingLogger('McpBenchServer') });
  // Runs discovery, so that the sample's decorated tools are registered before we count them.
  await app.init();
  const registry = app.get(McpRegistry);
  const wanted = Number(process.env.BENCH_TOOL_COUNT ?? 100);
  for (const tool of benchTools(Math.max(0, wanted - registry.listTools().length))) {
    registry.addTool(tool);
  }
  await serve(app, undefined, { tools: registry.listTools().length });
}

main().catch((error: unknown) => {
  send({ type: 'server-error', message: `startup failed: ${error instanceof Error ? error.stack : String(error)}` });
  process.exit(1);
});
