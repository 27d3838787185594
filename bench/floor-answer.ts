/**
 * The floor's answer: the bytes the MCP server answers `tools/call echo` and `tools/list` with,
 * in both eras, built by hand (no validation, no sessions, no protocol checks), and the head our
 * transport writes with them. Shared by the floor child (floor-server.ts) and the route-cost
 * tool (route-cost.ts), so that both measure against the same floor.
 */
import type { IncomingHttpHeaders } from 'node:http';

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/** The sample's server info as 2026-07-28 renders it (sample/app.module.ts). */
const SERVER_INFO = {
  name: 'notes',
  version: '1.0.0',
  title: 'Notes',
  description: 'A small notes server built with nest-mcp',
};
/** The default cache hints of list results in the modern era. */
const LIST_TTL_MS = 60000;
const LIST_CACHE_SCOPE = 'private';

export interface FloorRequest {
  id: string | number;
  method: string;
  params?: { arguments?: { text?: string }; _meta?: Record<string, unknown> };
}

/** The tools the list scenarios return, rendered per era. */
export interface FloorLists {
  legacy: unknown[];
  modern: unknown[];
}

/** The payload and head of the floor's answer to `body`. */
export function floorAnswer(
  body: FloorRequest,
  headers: IncomingHttpHeaders,
  lists: FloorLists,
): { payload: string; head: Record<string, string | number> } {
  const modern = body.params?._meta?.[PROTOCOL_VERSION_KEY] !== undefined;
  let result: Record<string, unknown>;
  if (body.method === 'tools/list') {
    result = modern
      ? {
          tools: lists.modern,
          resultType: 'complete',
          ttlMs: LIST_TTL_MS,
          cacheScope: LIST_CACHE_SCOPE,
          _meta: { [SERVER_INFO_KEY]: SERVER_INFO },
        }
      : { tools: lists.legacy };
  } else {
    result = { content: [{ type: 'text', text: body.params?.arguments?.text }] };
    if (modern) {
      result.resultType = 'complete';
      result._meta = { [SERVER_INFO_KEY]: SERVER_INFO };
    }
  }
  const payload = JSON.stringify({ jsonrpc: '2.0', id: body.id, result });
  const session = headers['mcp-session-id'];
  const extra: Record<string, string> = !modern && typeof session === 'string' ? { 'mcp-session-id': session } : {};
  return {
    payload,
    head: { ...extra, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
  };
}
