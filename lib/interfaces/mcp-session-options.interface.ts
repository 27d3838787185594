/**
 * Legacy-era sessions (2024-11-05 to 2025-11-25).
 *
 * @publicApi
 */
export interface McpSessionOptions {
  /**
   * A session idle for this long (ms) ends. An open stream keeps its session alive.
   * @default 1800000 (30 minutes)
   */
  idleTimeoutMs?: number;
  /**
   * How many sessions may be open at once; `initialize` beyond it is refused (HTTP 503).
   * @default 10000
   */
  maxSessions?: number;
  /**
   * How often idle sessions are looked for, in ms.
   * @default 60000
   */
  sweepIntervalMs?: number;
}
