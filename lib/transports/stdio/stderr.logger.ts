import { ConsoleLogger, type LogLevel } from '@nestjs/common';

/**
 * Nest's console logger with every level written to stderr. Over stdio, stdout carries the
 * JSON-RPC messages and nothing else: a single log line there breaks the client's parser.
 * `ConsoleLogger` writes `log`, `warn`, `debug` and `verbose` to stdout, so a stdio server
 * needs this logger (or another one that stays off stdout).
 *
 * @example
 * ```ts
 * const app = await NestFactory.createApplicationContext(AppModule, { logger: new McpStderrLogger() });
 * ```
 * @publicApi
 */
export class McpStderrLogger extends ConsoleLogger {
  // Nest 11 and 12 both route every line, JSON or not, through `printMessages`, which takes the
  // stream to write to; forcing it keeps formatting, colours and JSON mode as they are.
  /** @internal */
  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
    params?: Record<string, any>,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack, params);
  }
}
