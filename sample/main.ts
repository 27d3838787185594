// First: with an OTEL_*_EXPORTER variable set, it starts the OpenTelemetry SDK, which must hook
// `http` before Nest and the HTTP platform load it.
import { sampleTelemetry } from './telemetry';
import 'reflect-metadata';
import { Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

/** The application with the SDK stopped after it: what is left to export is sent on shutdown. */
@Module({ imports: [AppModule] })
class TelemetryAppModule implements OnApplicationShutdown {
  // Nest calls it after every module's `onModuleDestroy`, where the MCP module drains its calls
  // (and so ends their spans).
  async onApplicationShutdown(): Promise<void> {
    await sampleTelemetry?.shutdown();
  }
}

/**
 * The sample MCP server: a small notes app. Serves Streamable HTTP at
 * http://127.0.0.1:3000/mcp, the simple POST-only endpoint at /rpc and the 2024-11-05 SSE pair
 * at /sse and /messages (HOST and PORT override the address; PORT=0 takes a free port; a server
 * reached by a name other than localhost, HOST=0.0.0.0 on a LAN say, lists it in MCP_ALLOWED_HOSTS).
 * `npm run start:stdio` serves the same app over stdio. `OTEL_TRACES_EXPORTER=console` prints
 * the spans (see telemetry.ts). `MCP_CONSOLE=1` also serves the MCP console, a page to try the
 * tools, resources and prompts from a browser, at /mcp/console.
 */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(sampleTelemetry === undefined ? AppModule : TelemetryAppModule);
  app.enableShutdownHooks();
  const host = process.env.HOST ?? '127.0.0.1';
  await app.listen(Number(process.env.PORT ?? 3000), host);
  // The port listened on, which PORT=0 leaves to the system.
  const { port } = app.getHttpServer().address() as { port: number };
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const consoleUrl = process.env.MCP_CONSOLE === '1' ? `, console: ${base}/mcp/console` : '';
  new Logger('Sample').log(
    `MCP server listening on ${base}/mcp (simple: ${base}/rpc, SSE pair: ${base}/sse${consoleUrl})`,
  );
}

void bootstrap();
