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
   * (2025-11-25 `task.ttl`). A task still running when it expires is stopped and failed.
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
   * How many tasks one owner (a legacy session, or a principal) may have running at once; a
   * call beyond it is refused with -32603.
   * @default 100
   */
  maxLivePerOwner?: number;
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
