import { McpParamType } from '../shared/mcp.constants';
import { assignMcpParam } from './mcp-params.decorator';
import type { McpCallContext } from '../protocol/calls/call-context';

/**
 * The per-call context: progress, logging, abort signal, principal, client capabilities,
 * revision and era.
 *
 * @example
 * ```ts
 * @McpTool()
 * async import(@ToolArgs() args: ImportDto, @McpCtx() ctx: McpCtx) {
 *   ctx.progress(1, 3);
 *   if (ctx.signal.aborted) return;
 * }
 * ```
 * @publicApi
 */
export function McpCtx(): ParameterDecorator {
  return (target, key, index) => assignMcpParam(target, key!, index, McpParamType.CONTEXT);
}

/**
 * The per-call context handed to MCP handlers.
 *
 * @publicApi
 */
export type McpCtx = McpCallContext;
