import type { DynamicModule, LoggerService, LogLevel, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpStdioServer, type McpStdioListenOptions } from './mcp-stdio.server';
import { McpStderrLogger } from './stderr.logger';

/**
 * Options of `runMcpStdio()`.
 *
 * @publicApi
 */
export interface McpStdioRunOptions extends McpStdioListenOptions {
  /**
   * The application's logger. Whatever it is, it must not write to stdout, which carries the
   * JSON-RPC messages; log levels alone keep `McpStderrLogger` with those levels.
   * @default new McpStderrLogger()
   * @example ['error', 'warn']
   */
  logger?: LoggerService | LogLevel[] | false;
}

/**
 * Runs a Nest application as an MCP server over stdio: creates an application context of
 * `rootModule` (which imports `McpModule`) with logs on stderr, enables the shutdown hooks,
 * serves stdin/stdout, and closes the application once the client closes stdin. Resolves when
 * the application is closed; the process then exits once nothing else keeps it alive.
 *
 * HTTP controllers of the application (McpModule's included) are not served: an application
 * context has no HTTP server.
 *
 * @example
 * ```ts
 * // main-stdio.ts
 * void runMcpStdio(AppModule);
 * ```
 * @publicApi
 */
export async function runMcpStdio(
  rootModule: Type<unknown> | DynamicModule,
  options: McpStdioRunOptions = {},
): Promise<void> {
  const { logger, ...listenOptions } = options;
  const app = await NestFactory.createApplicationContext(rootModule, {
    logger: Array.isArray(logger) ? new McpStderrLogger({ logLevels: logger }) : (logger ?? new McpStderrLogger()),
  });
  app.enableShutdownHooks();
  // The named server's, so that `closed` below is the one that listens.
  const stdio = app.get(McpStdioServer, { strict: false });
  const server = listenOptions.server === undefined ? stdio : stdio.serverNamed(listenOptions.server);
  try {
    await server.listen(listenOptions);
  } finally {
    // A shutdown signal stopped the server from inside `app.close()`: that close is under way.
    if (!server.closed) {
      await app.close();
    }
  }
}
