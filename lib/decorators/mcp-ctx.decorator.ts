import { McpParamType } from '../shared/mcp.constants';
import { assignMcpParam } from './mcp-params.decorator';

/**
 * The per-call context (an `McpCallContext`): progress, logging, abort signal, principal, client capabilities,
 * revision and era.
 *
 * @example
 * ```ts
 * @McpTool()
 * async import(@McpArgs() args: ImportDto, @McpCtx() ctx: McpCallContext) {
 *   ctx.progress(1, 3);
 *   if (ctx.signal.aborted) return;
 * }
 * ```
 * @publicApi
 */
export function McpCtx(): ParameterDecorator {
  return (target, key, index) => assignMcpParam(target, key!, index, McpParamType.CONTEXT);
}
