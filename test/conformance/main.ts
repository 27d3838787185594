import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConformanceModule } from './conformance.module';

/**
 * Starts the conformance fixture server at http://127.0.0.1:${PORT:-3100}/mcp (loopback only:
 * the suite's DNS-rebinding scenario expects a loopback URL).
 *
 *   PORT=3100 npx ts-node --transpile-only -r tsconfig-paths/register test/conformance/main.ts
 */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(ConformanceModule, { logger: ['error', 'warn', 'log'] });
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3100);
  await app.listen(port, '127.0.0.1');
  new Logger('Conformance').log(`MCP conformance fixtures listening on http://127.0.0.1:${port}/mcp`);
}

void bootstrap();
