/**
 * The stdio transport (`McpStdioServer`).
 *
 * @publicApi
 */
export interface McpStdioOptions {
  /**
   * The longest line (one JSON-RPC message) read from stdin, in bytes. A longer line is answered
   * with -32600 and skipped; the server keeps serving.
   * @default 16777216 (16 MiB)
   */
  maxFrameBytes?: number;
  /**
   * How many requests run at once.
   * @default 8
   */
  maxWorkers?: number;
  /**
   * How many requests wait for a worker; beyond it a request is refused with -32603
   * "Server is overloaded".
   * @default 64
   */
  maxQueue?: number;
  /**
   * How many `subscriptions/listen` requests may be open at once (they hold no worker).
   * @default 32
   */
  maxSubscriptions?: number;
  /**
   * How many notifications may wait to be written while stdout is congested; more are dropped
   * (answers never are).
   * @default 256
   */
  maxPendingNotifications?: number;
}
