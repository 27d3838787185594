import { randomBytes } from 'node:crypto';
import { McpErrorCode, type JsonRpcErrorObject } from './json-rpc';

/**
 * The brands of the error classes: well-known symbols, so that an error made by another loaded
 * copy of the package (two bundles, a CommonJS and an ESM build) is still recognised, where
 * `instanceof` would say no. Test with `isMcpError` and `isMcpToolError`.
 */
const MCP_ERROR_BRAND = Symbol.for('nest-mcp.McpError');
const MCP_TOOL_ERROR_BRAND = Symbol.for('nest-mcp.McpToolError');

function hasBrand(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/**
 * A JSON-RPC error with an MCP error code. Throw it from a tool, resource, prompt or completion
 * handler to answer the request with exactly this error (message and data included), instead of
 * the generic error an unexpected exception produces.
 *
 * @example
 * throw new McpError(McpErrorCode.InvalidParams, 'Unknown warehouse', { warehouse: id });
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

  /** Marks McpErrors (and subclasses) of every loaded copy of the package. @internal */
  get [MCP_ERROR_BRAND](): true {
    return true;
  }

  /**
   * The JSON-RPC error object this error is sent as.
   *
   * @internal
   */
  toJsonRpc(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/**
 * An unexpected failure answered as a JSON-RPC error (-32603 "Internal error") rather than as a
 * tool's generic error result, and logged with its call like any unexpected failure, from
 * `failure`: what the application's exception filter made of an error when it wrote a 5xx
 * answer (which the module keeps off the wire). Internal to the package.
 */
export class McpInternalError extends McpError {
  constructor(readonly failure: unknown) {
    super(McpErrorCode.InternalError, 'Internal error');
    this.name = 'McpInternalError';
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

  /** Marks McpToolErrors of every loaded copy of the package. @internal */
  get [MCP_TOOL_ERROR_BRAND](): true {
    return true;
  }
}

/** Whether `value` is an `McpError` (or a subclass), from this or any other loaded copy of the package. */
export function isMcpError(value: unknown): value is McpError {
  return hasBrand(value, MCP_ERROR_BRAND);
}

/** Whether `value` is an `McpToolError`, from this or any other loaded copy of the package. */
export function isMcpToolError(value: unknown): value is McpToolError {
  return hasBrand(value, MCP_TOOL_ERROR_BRAND);
}

/** A fresh `elicitationId` for a URL-mode elicitation: 18 random bytes, 24 base64url characters. */
export function newElicitationId(): string {
  return randomBytes(18).toString('base64url');
}

/** One URL-mode elicitation the client must complete before retrying. */
export interface McpUrlElicitation {
  /** What to tell the user. */
  message: string;
  /** The page the client opens. */
  url: string;
  /** Correlates `notifications/elicitation/complete`; minted when omitted. */
  elicitationId?: string;
}

/**
 * Thrown from a handler (2025-11-25 and later) when the request cannot go on before the user
 * completes one or more URL-mode elicitations out of band (signing in to a third party...). It
 * is answered with the JSON-RPC error -32042 and `data.elicitations`; once a flow is done, tell
 * the client with `McpNotifier.elicitationComplete()` so it can retry.
 *
 * @publicApi
 */
export class McpUrlElicitationRequiredError extends McpError {
  /** The elicitations as sent, each with its `elicitationId`. */
  readonly elicitations: ReadonlyArray<Required<McpUrlElicitation> & { mode: 'url' }>;

  constructor(elicitations: McpUrlElicitation[], message = 'This request requires more information') {
    const sent = elicitations.map((elicitation) => ({
      mode: 'url' as const,
      elicitationId: elicitation.elicitationId ?? newElicitationId(),
      url: elicitation.url,
      message: elicitation.message,
    }));
    super(McpErrorCode.UrlElicitationRequired, message, { elicitations: sent });
    this.name = 'McpUrlElicitationRequiredError';
    this.elicitations = sent;
  }
}

/** What a caught value says: an error's message, or the value as text (what may be thrown). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
