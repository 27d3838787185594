import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

/**
 * The sample MCP server: a small notes app. Serves Streamable HTTP at
 * http://127.0.0.1:3000/mcp (HOST and PORT override the address).
 */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks();
  const host = process.env.HOST ?? '127.0.0.1';
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port, host);
  new Logger('Sample').log(`MCP server listening on http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`);
}

void bootstrap();
