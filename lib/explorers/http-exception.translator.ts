/**
 * Nest's `HttpException`s (a guard's denial, a `ValidationPipe` failure, a handler's
 * `NotFoundException`...) and what an application's exception filter wrote to the response, as
 * MCP errors. Their messages are meant for clients, so they are kept; any other error stays as it
 * is and the engine answers it with a generic message.
 */
import type { McpEra } from '../protocol/messages/revisions';
import { McpErrorCode } from '../protocol/messages/json-rpc';
import {
  isMcpError,
  isMcpToolError,
  McpError,
  McpInternalError,
  McpToolError,
  messageOf,
} from '../protocol/messages/mcp-error';
import { FilterAnswer } from './filter-response.capture';
import type { McpInvokedKind } from './mcp-metadata.accessor';

type HandlerKind = McpInvokedKind;

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
  return typeof response === 'string' ? response : (bodyMessage(response) ?? error.message);
}

/** The `message` of an error body (`{ message: 'x' }`, or a ValidationPipe's list joined by '; '). */
function bodyMessage(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && 'message' in body) {
    const message = body.message;
    if (Array.isArray(message)) {
      return message.map(String).join('; ');
    }
    if (typeof message === 'string') {
      return message;
    }
  }
  return undefined;
}

/** 401 and 403: the caller was refused, whoever said so (a guard, a handler, a filter). */
function isAccessDenial(status: number): boolean {
  return status === 401 || status === 403;
}

/** The access-denied error: -32004 with the HTTP status it stands for. */
function accessDenied(status: number, message: string): McpError {
  return new McpError(McpErrorCode.AccessDenied, message, { status });
}

/**
 * The JSON-RPC error code for an HTTP status, for handlers whose failures are protocol errors
 * (resources, templates, prompts, extension methods): bad input is Invalid params, a missing resource is the
 * era's resource-not-found code, anything else is an internal error.
 */
export function codeForHttpStatus(status: number, kind: HandlerKind, era: McpEra): number {
  if (status === 400 || status === 422) {
    return McpErrorCode.InvalidParams;
  }
  if (status === 404) {
    return kind === 'prompt' || kind === 'extension method' || era === 'modern'
      ? McpErrorCode.InvalidParams
      : McpErrorCode.ResourceNotFound;
  }
  return McpErrorCode.InternalError;
}

/**
 * Translates an error thrown by a handler (or by its pipeline: a guard, a pipe, a filter).
 *
 * - An HttpException of status 401 or 403 (a guard that returns `false` makes Nest throw
 *   `ForbiddenException('Forbidden resource')`) is the JSON-RPC error -32004
 *   (`McpErrorCode.AccessDenied`) with its message and `data: { status }`, for every kind: a refusal,
 *   never a tool result.
 * - Any other HttpException of a tool is a tool execution error (`isError: true`) the model can
 *   read; elsewhere it is the JSON-RPC error of `codeForHttpStatus`. Above 499 its message is
 *   not passed on.
 * - What an exception filter wrote to the response (a `FilterAnswer`) is a JSON-RPC error for
 *   every kind, by the status written (the message is the body's `message`, a list joined by
 *   '; ', else the caught exception's client-facing message):
 *
 *   | status written      | answer                                                        |
 *   | ------------------- | ------------------------------------------------------------- |
 *   | 400, 422            | -32602 Invalid params                                         |
 *   | 401, 403            | -32004 access denied, `data: { status }`                      |
 *   | 404                 | `codeForHttpStatus`: -32002 (legacy resources), else -32602   |
 *   | any other below 500 | -32603 with the body's message                                |
 *   | 500 and above       | -32603 "Internal error", the caught exception logged with the |
 *   |                     | call (resources, templates, prompts: as if no filter had run) |
 *
 * Any other error is passed on, for the engine to log and answer with a generic message.
 */
export function translateHttpException(error: unknown, kind: HandlerKind, era: McpEra): unknown {
  if (error instanceof FilterAnswer) {
    return translateFilterAnswer(error, kind, era);
  }
  // The handler's chosen answers, by brand: they pass as they are, whatever else they look like.
  if (isMcpError(error) || isMcpToolError(error) || !isHttpException(error)) {
    return error;
  }
  const status = error.getStatus();
  if (isAccessDenial(status)) {
    return accessDenied(status, httpExceptionMessage(error));
  }
  const message = status >= 500 ? 'Internal error' : httpExceptionMessage(error);
  if (kind === 'tool') {
    return new McpToolError(message);
  }
  return new McpError(codeForHttpStatus(status, kind, era), message);
}

/** What a filter wrote, by the table of `translateHttpException`. */
function translateFilterAnswer(answer: FilterAnswer, kind: HandlerKind, era: McpEra): unknown {
  const { status, exception } = answer;
  if (status >= 500) {
    // Logged by the engine with its call; a tool answers the JSON-RPC error the filter meant.
    return kind === 'tool' ? new McpInternalError(exception) : translateHttpException(exception, kind, era);
  }
  const message =
    writtenMessage(answer.body) ??
    (isHttpException(exception) ? httpExceptionMessage(exception) : messageOf(exception));
  if (isAccessDenial(status)) {
    return accessDenied(status, message);
  }
  if (status === 400 || status === 422 || status === 404) {
    return new McpError(codeForHttpStatus(status, kind, era), message);
  }
  return new McpError(McpErrorCode.InternalError, message);
}

/** The message of a written body: an object's (or its JSON text's) `message`, else a plain text. */
function writtenMessage(body: unknown): string | undefined {
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) {
    return bodyMessage(body);
  }
  const text = body.toString();
  try {
    return bodyMessage(JSON.parse(text));
  } catch {
    return text.length > 0 ? text : undefined;
  }
}
