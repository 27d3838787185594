import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

/**
 * The sample MCP server: a small notes app. Serves Streamable HTTP at
 * http://127.0.0.1:3000/mcp, the simple POST-only endpoint at /rpc and the 2024-11-05 SSE pair
 * at /sse and /messages (HOST and PORT override the address). `npm run start:stdio` serves the
 * same app over stdio.
 */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks();
  const host = process.env.HOST ?? '127.0.0.1';
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port, host);
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  new Logger('Sample').log(`MCP server listening on ${base}/mcp (simple: ${base}/rpc, SSE pair: ${base}/sse)`);
}

void bootstrap();
