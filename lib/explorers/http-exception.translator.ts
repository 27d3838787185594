/**
 * Nest's `HttpException`s (a guard's denial, a `ValidationPipe` failure, a handler's
 * `NotFoundException`...) as MCP errors. Their messages are meant for clients, so they are kept;
 * any other error stays as it is and the engine answers it with a generic message.
 */
import type { Era } from '../protocol/revisions';
import { ErrorCode } from '../protocol/json-rpc';
import { isMcpError, isMcpToolError, McpError, McpToolError } from '../protocol/mcp-error';
import type { McpHandlerKind } from './mcp-metadata.accessor';

type HandlerKind = McpHandlerKind;

interface HttpExceptionLike {
  getStatus(): number;
  getResponse(): unknown;
  message: string;
}

/** Duck-typed: the exception may come from another loaded copy of @nestjs/common. */
function isHttpException(error: unknown): error is HttpExceptionLike {
  return (
    error instanceof Error &&
    typeof (error as Partial<HttpExceptionLike>).getStatus === 'function' &&
    typeof (error as Partial<HttpExceptionLike>).getResponse === 'function'
  );
}

/** The client-facing message of an HttpException (a ValidationPipe lists several). */
export function httpExceptionMessage(error: HttpExceptionLike): string {
  const response = error.getResponse();
  if (typeof response === 'string') {
    return response;
  }
  if (typeof response === 'object' && response !== null && 'message' in response) {
    const message = response.message;
    if (Array.isArray(message)) {
      return message.map(String).join('; ');
    }
    if (typeof message === 'string') {
      return message;
    }
  }
  return error.message;
}

/**
 * The JSON-RPC error code for an HTTP status, for handlers whose failures are protocol errors
 * (resources, templates, prompts): bad input is Invalid params, a missing resource is the
 * era's resource-not-found code, anything else is an internal error.
 */
export function codeForHttpStatus(status: number, kind: HandlerKind, era: Era): number {
  if (status === 400 || status === 422) {
    return ErrorCode.InvalidParams;
  }
  if (status === 404) {
    return kind === 'prompt' || era === 'modern' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound;
  }
  return ErrorCode.InternalError;
}

/**
 * Translates an error thrown by a handler. For tools, an HttpException is a tool execution
 * error (`isError: true`) the model can read; elsewhere it becomes a JSON-RPC error. Any other
 * error is passed on, for the engine to log and answer with a generic message.
 */
export function translateHttpException(error: unknown, kind: HandlerKind, era: Era): unknown {
  // The handler's chosen answers, by brand: they pass as they are, whatever else they look like.
  if (isMcpError(error) || isMcpToolError(error) || !isHttpException(error)) {
    return error;
  }
  const status = error.getStatus();
  const message = status >= 500 ? 'Internal error' : httpExceptionMessage(error);
  if (kind === 'tool') {
    return new McpToolError(message);
  }
  return new McpError(codeForHttpStatus(status, kind, era), message);
}
