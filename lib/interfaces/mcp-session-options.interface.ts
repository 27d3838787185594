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
   * How many sessions may be open at once on the whole server (every instance sharing a Redis
   * store); `initialize` (or a 2024-11-05 SSE pair's GET) beyond it is refused: HTTP 503 with
   * `Retry-After`, JSON-RPC -32603.
   * @default 10000
   */
  maxSessions?: number;
  /**
   * How many sessions one caller may hold, counted by its quota key (`McpPrincipal.quotaKey`:
   * an authenticated caller's id, an anonymous HTTP caller's address). A caller at its cap that
   * opens another session ends its own session idle the longest, unless that session has an open
   * stream (a GET stream or SSE pair, on any instance) or calls running on this instance; when
   * none of its longest idle sessions may end, the new one is refused: HTTP 429 with
   * `Retry-After`, JSON-RPC -32603. Checked atomically with `maxSessions` on Redis.
   * @default 100
   */
  maxPerPrincipal?: number;
  /**
   * How many resources one session may subscribe to (`resources/subscribe`); a subscription
   * beyond it is refused with JSON-RPC -32603. Subscribing again to a resource held already
   * does not count twice.
   * @default 1000
   */
  maxSubscriptions?: number;
  /**
   * How often idle sessions are looked for, in ms.
   * @default 60000
   */
  sweepIntervalMs?: number;
}
