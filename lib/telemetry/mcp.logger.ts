/**
 * The module's logger: Nest's `Logger` (so the application's logger service, pino or winston
 * included, still writes every line), whose lines carry the ids of the active span when there
 * is one, so that a log line and its trace can be found from each other.
 */
import { Logger } from '@nestjs/common';
import { registeredOpenTelemetry } from './open-telemetry';

/**
 * `message` with ` trace_id=<32 hex> span_id=<16 hex>` appended when a span is active (a
 * request, a task, a question to the client); as it is otherwise, and when it is not a string.
 */
export function withTraceIds(message: unknown): unknown {
  if (typeof message !== 'string') {
    return message;
  }
  // No span is active before something registered with the API (a context manager).
  const api = registeredOpenTelemetry();
  const span = api?.trace.getActiveSpan()?.spanContext();
  if (span === undefined || !api!.trace.isSpanContextValid(span)) {
    return message;
  }
  return `${message} trace_id=${span.traceId} span_id=${span.spanId}`;
}

/** Nest's `Logger`, each line with the active span's ids (see `withTraceIds`). */
export class McpLogger extends Logger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    super.log(withTraceIds(message), ...optionalParams);
  }

  override error(message: unknown, ...optionalParams: unknown[]): void {
    super.error(withTraceIds(message), ...optionalParams);
  }

  override warn(message: unknown, ...optionalParams: unknown[]): void {
    super.warn(withTraceIds(message), ...optionalParams);
  }

  override debug(message: unknown, ...optionalParams: unknown[]): void {
    super.debug(withTraceIds(message), ...optionalParams);
  }

  override verbose(message: unknown, ...optionalParams: unknown[]): void {
    super.verbose(withTraceIds(message), ...optionalParams);
  }

  override fatal(message: unknown, ...optionalParams: unknown[]): void {
    super.fatal(withTraceIds(message), ...optionalParams);
  }
}
