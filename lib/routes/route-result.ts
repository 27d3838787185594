/**
 * A route's HTTP response as a tool result: 2xx → the JSON body as structured content (an
 * object) and as text, always; 4xx → an `isError` result with the status and Nest's message;
 * anything else → a JSON-RPC internal error without the route's details. A `text/*` body is
 * text only; a file (any other media type) is shown as `route-file.ts` says.
 */
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { McpError } from '../protocol/messages/mcp-error';
import type { CallToolResult } from '../protocol/messages/mcp-types';
import { fileResult, routeMediaOf, type RouteFile, type RouteLocation } from './route-file';

/** What the route answered. */
export interface RouteResponse {
  readonly status: number;
  /** The body as text; empty for a file. */
  readonly body: string;
  readonly contentType?: string;
  /** A 2xx body neither JSON nor text (see `route-file.ts`). */
  readonly file?: RouteFile;
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** Nest's `{ statusCode, message, error }`: the message (ValidationPipe's list joined), else the body. */
function messageOf(body: string): string {
  const json = parsed(body) as { message?: unknown; error?: unknown } | undefined;
  if (json !== undefined && typeof json === 'object' && json !== null) {
    if (Array.isArray(json.message)) {
      return json.message.map(String).join('; ');
    }
    if (typeof json.message === 'string') {
      return json.message;
    }
    if (typeof json.error === 'string') {
      return json.error;
    }
  }
  return body.trim();
}

/**
 * `location` names a file's source (`route:` when absent); a text body (`text/*`) is text only.
 * @throws McpError (-32603) for a status outside 2xx and 4xx.
 */
export function routeResult(response: RouteResponse, location: RouteLocation = { uri: 'route:' }): CallToolResult {
  const { status, body } = response;
  if (status >= 200 && status < 300) {
    if (response.file !== undefined) {
      return fileResult(response.file, location);
    }
    if (body.trim() === '') {
      return { content: [{ type: 'text', text: `HTTP ${status}` }] };
    }
    if (routeMediaOf(response.contentType) === 'text') {
      return { content: [{ type: 'text', text: body }] };
    }
    const json = parsed(body);
    const result: CallToolResult = { content: [{ type: 'text', text: body }] };
    if (json !== null && typeof json === 'object' && !Array.isArray(json)) {
      result.structuredContent = json;
    }
    return result;
  }
  if (status >= 400 && status < 500) {
    const message = messageOf(body);
    return {
      isError: true,
      content: [{ type: 'text', text: message === '' ? `HTTP ${status}` : `HTTP ${status}: ${message}` }],
    };
  }
  throw new McpError(McpErrorCode.InternalError, 'Internal error');
}
