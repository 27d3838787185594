/** The RFC 5424 severities MCP logging uses, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

/** A logging level of `notifications/message` and `logging/setLevel`. */
export type LoggingLevel = (typeof LOG_LEVELS)[number];

/** Whether a value names a logging level. */
export function isLogLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** Whether a message at `level` passes a threshold of `threshold`. */
export function passesLevel(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}
