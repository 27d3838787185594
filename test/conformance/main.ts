import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConformanceModule } from './conformance.module';

/**
 * Starts the conformance fixture server at http://127.0.0.1:${PORT:-3100}/mcp (loopback only:
 * the suite's DNS-rebinding scenario expects a loopback URL).
 *
 *   PORT=3100 npx ts-node --transpile-only -r tsconfig-paths/register test/conformance/main.ts
 *
 * State is in memory (one instance) unless MCP_REDIS_URL (or MCP_REDIS_CLUSTER, or
 * MCP_REDIS_SENTINELS and MCP_REDIS_SENTINEL_NAME) is set, as in the sample: then every instance
 * started with the same Redis and MCP_REQUEST_STATE_SECRET serves as one server (sessions, tasks,
 * notifications, and the tool and prompt the trigger tools add at runtime).
 */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(
    ConformanceModule.forRoot({
      redisUrl: process.env.MCP_REDIS_URL,
      redisHa: {
        cluster: process.env.MCP_REDIS_CLUSTER,
        sentinels: process.env.MCP_REDIS_SENTINELS,
        sentinelName: process.env.MCP_REDIS_SENTINEL_NAME,
      },
      requestStateSecret: process.env.MCP_REQUEST_STATE_SECRET,
    }),
    { logger: ['error', 'warn', 'log'] },
  );
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3100);
  await app.listen(port, '127.0.0.1');
  const over = ['MCP_REDIS_URL', 'MCP_REDIS_CLUSTER', 'MCP_REDIS_SENTINELS'].filter((name) =>
    process.env[name]?.trim(),
  );
  const shared = over.length > 0 ? ` (state shared over ${over.join(', ')})` : '';
  new Logger('Conformance').log(`MCP conformance fixtures listening on http://127.0.0.1:${port}/mcp${shared}`);
}

void bootstrap();
