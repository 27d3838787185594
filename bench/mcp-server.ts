/**
 * Child process: the sample app (its own AppModule, hence the sample's `echo` tool), topped up
 * with filler tools through `McpRegistry.addTool` so that tools/list returns exactly
 * BENCH_TOOL_COUNT (default 100) tools.
 *
 * The scale-out scenarios set the sample's `MCP_REDIS_URL` and `MCP_REQUEST_STATE_SECRET`, so
 * that several of these processes serve as one server. With BENCH_TELEMETRY=1 (bench/main.ts
 * --telemetry) the OpenTelemetry SDK of bench/telemetry-sdk.ts is registered globally first.
 * BENCH_PLATFORM=fastify serves it on Fastify.
 */
import 'reflect-metadata';
import { fillRegistry } from './bench-tools';
import { createBenchApp, ReportingLogger, send, serve, type ParentMessage } from './child-runtime';
import { applyPatches } from './patches';

/** Also keeps the module's startup line about OpenTelemetry, which says whether it records. */
class BenchLogger extends ReportingLogger {
  telemetryLine: string | undefined;

  override log(message: unknown, ...rest: unknown[]): void {
    if (typeof message === 'string' && message.startsWith('OpenTelemetry:')) {
      this.telemetryLine = message;
    }
    super.log(message, ...rest);
  }
}

async function main(): Promise<void> {
  // Experiments only (bench/main.ts --patch): none by default.
  applyPatches((process.env.BENCH_PATCH ?? '').split(',').filter((name) => name.length > 0));
  let onMessage: ((message: ParentMessage) => void) | undefined;
  if (process.env.BENCH_TELEMETRY === '1') {
    // Loaded only here: the plain server must not even load the SDK.
    const { registerTelemetrySdk, telemetryCounts } = await import('./telemetry-sdk');
    registerTelemetrySdk();
    onMessage = (message) => {
      if (message.type === 'telemetry') {
        telemetryCounts().then(
          (counts) => send({ type: 'telemetry', ...counts }),
          (error: unknown) => send({ type: 'server-error', message: `telemetry flush: ${String(error)}` }),
        );
      }
    };
  }
  const { AppModule } = await import('../sample/app.module');
  const logger = new BenchLogger('McpBenchServer');
  const app = await createBenchApp(AppModule, logger);
  // Runs discovery, so that the sample's decorated tools are registered before we count them.
  await app.init();
  await serve(app, onMessage, { tools: fillRegistry(app), telemetry: logger.telemetryLine });
}

main().catch((error: unknown) => {
  send({ type: 'server-error', message: `startup failed: ${error instanceof Error ? error.stack : String(error)}` });
  process.exit(1);
});
