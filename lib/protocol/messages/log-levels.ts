/**
 * A logging level of `notifications/message` and `logging/setLevel`: the RFC 5424 severities.
 *
 * @publicApi
 */
export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** The logging levels, least severe first. */
export const LOG_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** Whether a value names a logging level. */
export function isLogLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** Whether a message at `level` passes a threshold of `threshold`. */
export function passesLevel(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}
