/**
 * A route's HTTP response as a tool result: 2xx → the JSON body as structured content (an
 * object) and as text, always; 4xx → an `isError` result with the status and Nest's message;
 * anything else → a JSON-RPC internal error without the route's details.
 */
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { McpError } from '../protocol/messages/mcp-error';
import type { CallToolResult } from '../protocol/messages/mcp-types';

/** What the route answered. */
export interface RouteResponse {
  readonly status: number;
  readonly body: string;
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

/** @throws McpError (-32603) for a status outside 2xx and 4xx. */
export function routeResult(response: RouteResponse): CallToolResult {
  const { status, body } = response;
  if (status >= 200 && status < 300) {
    if (body.trim() === '') {
      return { content: [{ type: 'text', text: `HTTP ${status}` }] };
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
