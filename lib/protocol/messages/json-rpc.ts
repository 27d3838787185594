/**
 * JSON-RPC 2.0 envelopes as MCP uses them: types, error codes, and the classification of one
 * decoded message.
 */

/** A request id (the schema's `RequestId`). MCP forbids `null`. @publicApi */
export type RequestId = string | number;

/** A JSON object: the open objects of the protocol (`params`, `_meta`...). @publicApi */
export type JSONObject = Record<string, unknown>;

/** A JSON-RPC request: a method and an id the answer carries back. @publicApi */
export interface JSONRPCRequest {
  /** The JSON-RPC version; always `2.0`. */
  jsonrpc: '2.0';
  /** The id the answer carries back. */
  id: RequestId;
  /** The method to invoke. */
  method: string;
  /** The parameters of the method. */
  params?: JSONObject;
}

/** A JSON-RPC notification: a method, no id, no answer. @publicApi */
export interface JSONRPCNotification {
  /** The JSON-RPC version; always `2.0`. */
  jsonrpc: '2.0';
  /** The notification's method. */
  method: string;
  /** The parameters of the notification. */
  params?: JSONObject;
}

/** A JSON-RPC answer that succeeded. @publicApi */
export interface JSONRPCResultResponse {
  /** The JSON-RPC version; always `2.0`. */
  jsonrpc: '2.0';
  /** The id of the request this answers. */
  id: RequestId;
  /** The result of the method. */
  result: JSONObject;
}

/** A JSON-RPC answer that failed: a code, a message, optional data. @publicApi */
export interface JSONRPCErrorResponse {
  /** The JSON-RPC version; always `2.0`. */
  jsonrpc: '2.0';
  /** `null` only when the id of the failed message could not be read. */
  id: RequestId | null;
  /** The error: its code, a short message and optional extra data. */
  error: { code: number; message: string; data?: unknown };
}

/** The `error` member of a failed answer. */
export type JsonRpcErrorObject = JSONRPCErrorResponse['error'];

/** A JSON-RPC answer. @publicApi */
export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse;

/** Any JSON-RPC message: what a replay store keeps and a stream carries. @publicApi */
export type JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse;

/** The error codes MCP uses, by name. @publicApi */
export const McpErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Legacy era: a request that cannot be served, such as a timed-out tool call. */
  ServerError: -32000,
  /** Legacy era (prose only, reserved afterwards): the resource does not exist. */
  ResourceNotFound: -32002,
  /**
   * The caller's principal lacks a scope the tool, resource or prompt requires (`@McpScopes`);
   * `data.requiredScopes` names them. Over HTTP the answer is a 403 with a step-up challenge.
   */
  InsufficientScope: -32003,
  /**
   * A guard of the application refused the caller: around a call (a guard that returns `false`
   * or throws `UnauthorizedException` / `ForbiddenException`, or a filter that answers 401 or 403)
   * or, with `auth.guard`, at the endpoint. `data.status` is the HTTP status it stands for.
   */
  AccessDenied: -32004,
  /** 2025-11-25: the request needs a URL-mode elicitation first. */
  UrlElicitationRequired: -32042,
  /** 2026-07-28: an `Mcp-*` header disagrees with the body, or is missing or malformed. */
  HeaderMismatch: -32020,
  /** 2026-07-28: serving the request needs a client capability the request did not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the request's protocol version is not one this server supports. */
  UnsupportedProtocolVersion: -32022,
} as const;

/** The outcome of reading one decoded JSON value as a JSON-RPC message. */
export type ClassifiedMessage =
  | { kind: 'request'; message: JSONRPCRequest }
  | { kind: 'notification'; message: JSONRPCNotification }
  | { kind: 'response'; message: JSONRPCResponse }
  | { kind: 'invalid'; id: RequestId | null; reason: string; isNotification: boolean };

function isObject(value: unknown): value is JSONObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isValidId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/**
 * Classifies one decoded JSON value. Invalid requests keep their id when it can be read, so the
 * error can echo it; invalid notifications are reported as such so the caller can drop them
 * silently (notifications are never answered).
 */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (!isObject(value)) {
    return { kind: 'invalid', id: null, reason: 'Invalid Request: not a JSON-RPC object', isNotification: false };
  }
  const hasId = Object.prototype.hasOwnProperty.call(value, 'id');
  const id = isValidId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') {
    // Only a message with a method can be a notification: `{}` or `{"a":1}` is answered.
    return {
      kind: 'invalid',
      id,
      reason: 'Invalid Request: jsonrpc must be "2.0"',
      isNotification: !hasId && 'method' in value,
    };
  }
  if (!('method' in value)) {
    if (hasId && ('result' in value || 'error' in value)) {
      const response = readResponse(value);
      if (response) {
        return { kind: 'response', message: response };
      }
    }
    return { kind: 'invalid', id, reason: 'Invalid Request: missing method', isNotification: false };
  }
  if (typeof value.method !== 'string' || value.method.length === 0) {
    return { kind: 'invalid', id, reason: 'Invalid Request: method must be a string', isNotification: !hasId };
  }
  if (value.params !== undefined && !isObject(value.params)) {
    return { kind: 'invalid', id, reason: 'Invalid Request: params must be an object', isNotification: !hasId };
  }
  if (!hasId) {
    return {
      kind: 'notification',
      message: { jsonrpc: '2.0', method: value.method, params: value.params },
    };
  }
  if (id === null) {
    return {
      kind: 'invalid',
      id: null,
      reason: 'Invalid Request: id must be a string or an integer',
      isNotification: false,
    };
  }
  return {
    kind: 'request',
    message: { jsonrpc: '2.0', id, method: value.method, params: value.params },
  };
}

function readResponse(value: JSONObject): JSONRPCResponse | undefined {
  if (!isValidId(value.id) && value.id !== null) {
    return undefined;
  }
  if ('result' in value && isObject(value.result)) {
    return value.id === null ? undefined : { jsonrpc: '2.0', id: value.id, result: value.result };
  }
  if ('error' in value && isObject(value.error) && typeof value.error.code === 'number') {
    return {
      jsonrpc: '2.0',
      id: value.id,
      error: {
        code: value.error.code,
        message: typeof value.error.message === 'string' ? value.error.message : '',
        data: value.error.data,
      },
    };
  }
  return undefined;
}

/** Builds a success response. */
export function success(id: RequestId, result: JSONObject): JSONRPCResultResponse {
  return { jsonrpc: '2.0', id, result };
}

/** Builds an error response. */
export function failure(id: RequestId | null, code: number, message: string, data?: unknown): JSONRPCErrorResponse {
  const error: JsonRpcErrorObject = { code, message };
  if (data !== undefined) {
    error.data = data;
  }
  return { jsonrpc: '2.0', id, error };
}

/** A notification envelope. */
export function notification(method: string, params?: JSONObject): JSONRPCNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/** Whether a value is a plain JSON object (not an array, not null). */
export { isObject as isJsonObject };
