/**
 * The `tasks` section of the module options, validated and with its defaults, once, at startup.
 * It lives beside the tasks so that the options factory depends on the tasks and never the
 * other way round.
 */
import type { McpTaskOptions } from '../interfaces/mcp-task-options.interface';
import { integer } from '../shared/option-checks';

/** The task settings, resolved from the module options (`tasks`). */
export interface TaskSettings {
  /** Modern era: how long a task-capable call runs in place before it becomes a task. */
  readonly inlineMs: number;
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  /** Live (not terminal) tasks one caller (quota key) may have. */
  readonly maxLivePerOwner: number;
  /** Ended tasks kept for one caller (quota key); the one that ended first is dropped first. */
  readonly maxKeptPerOwner: number;
  /** How long `tasks/result` waits for a terminal state. */
  readonly resultTimeoutMs: number;
  /** How often expired tasks are looked for. */
  readonly sweepIntervalMs: number;
  /** How long a task that expired while live stays readable as failed. */
  readonly expiredGraceMs: number;
}

/** How long a task that expired while live stays readable as failed; not an option. */
const EXPIRED_GRACE_MS = 60_000;

/**
 * Validates the `tasks` section (an object already) and applies the defaults.
 *
 * @throws McpConfigurationError naming the first bad option
 */
export function resolveTaskOptions(tasks: Partial<McpTaskOptions>): TaskSettings {
  // The default retention never exceeds the cap, and neither may an explicit one.
  const maxTtlMs = integer(tasks.maxTtlMs, 'tasks.maxTtlMs', 24 * 3_600_000, 1_000);
  return {
    inlineMs: integer(tasks.inlineMs, 'tasks.inlineMs', 100, 0, 3_600_000),
    defaultTtlMs: integer(tasks.defaultTtlMs, 'tasks.defaultTtlMs', Math.min(3_600_000, maxTtlMs), 1_000, maxTtlMs),
    maxTtlMs,
    pollIntervalMs: integer(tasks.pollIntervalMs, 'tasks.pollIntervalMs', 1_000, 1, 3_600_000),
    maxLivePerOwner: integer(tasks.maxLivePerOwner, 'tasks.maxLivePerOwner', 100, 1),
    maxKeptPerOwner: integer(tasks.maxKeptPerOwner, 'tasks.maxKeptPerOwner', 1_000, 1),
    resultTimeoutMs: integer(tasks.resultTimeoutMs, 'tasks.resultTimeoutMs', 300_000, 1),
    sweepIntervalMs: integer(tasks.sweepIntervalMs, 'tasks.sweepIntervalMs', 60_000, 10),
    expiredGraceMs: EXPIRED_GRACE_MS,
  };
}
