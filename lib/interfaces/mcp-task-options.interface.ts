/**
 * Tasks (2025-11-25 core methods, 2026-07-28 extension `io.modelcontextprotocol/tasks`).
 *
 * @publicApi
 */
export interface McpTaskOptions {
  /**
   * 2026-07-28: how long a call of a tool with `taskSupport` runs in place before it is handed
   * to a task (the `taskInlineMs` of the design). A call that ends within it is answered in
   * place; a longer one is answered with the task.
   * @default 100
   */
  inlineMs?: number;
  /**
   * How long a task is kept from its creation, in ms, when the client asks for nothing else
   * (2025-11-25 `task.ttl`). A task still running when it expires is stopped and failed. The
   * default is `maxTtlMs` when that is lower.
   * @default 3600000
   */
  defaultTtlMs?: number;
  /**
   * The longest retention a client may ask for.
   * @default 86400000
   */
  maxTtlMs?: number;
  /**
   * The polling interval suggested to clients, in ms.
   * @default 1000
   */
  pollIntervalMs?: number;
  /**
   * How many tasks one caller may have running at once, counted by its quota key
   * (`McpPrincipal.quotaKey`: an authenticated caller's id, an anonymous HTTP caller's address;
   * the tasks of a caller's legacy sessions count together); a call beyond it is refused with
   * JSON-RPC -32603.
   * @default 100
   */
  maxLivePerOwner?: number;
  /**
   * How many ended tasks (completed, failed, cancelled) are kept for one caller, counted as
   * `maxLivePerOwner`, until their TTL: beyond it, the task that ended first is deleted (its
   * owner then reads it as unknown).
   * @default 1000
   */
  maxKeptPerOwner?: number;
  /**
   * 2025-11-25: how long `tasks/result` waits for the task to end before it answers -32603.
   * @default 300000
   */
  resultTimeoutMs?: number;
  /**
   * How often expired tasks are looked for, in ms.
   * @default 60000
   */
  sweepIntervalMs?: number;
}
