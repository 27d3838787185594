import type { JsonRpcErrorObject } from './json-rpc';

/**
 * A JSON-RPC error with an MCP error code. Throw it from a tool, resource, prompt or completion
 * handler to answer the request with exactly this error (message and data included), instead of
 * the generic error an unexpected exception produces.
 *
 * @example
 * throw new McpError(ErrorCode.InvalidParams, 'Unknown warehouse', { warehouse: id });
 *
 * @publicApi
 */
export class McpError extends Error {
  constructor(
    /** The JSON-RPC error code. */
    public readonly code: number,
    message: string,
    /** Optional structured data for the client. */
    public readonly data?: unknown,
  ) {
    super(message);
    this.name = 'McpError';
  }

  /** The JSON-RPC error object this error is sent as. */
  toJsonRpc(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/**
 * A tool execution error: the call ran and failed in a way the model should see. It is answered
 * as a `tools/call` result with `isError: true` and the message as text content, not as a
 * JSON-RPC error.
 *
 * @publicApi
 */
export class McpToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpToolError';
  }
}
