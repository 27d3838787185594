import { McpParamType } from '../shared/mcp.constants';
import type { McpCallContext } from '../protocol/calls/call-context';
import type { McpNativeExchange } from '../protocol/messages/native-exchange';

/**
 * The arguments every MCP handler runs with, in the order its `ExecutionContext` exposes them:
 * the transport request and response (so that `switchToHttp()` guards such as ThrottlerGuard work
 * unchanged; both `undefined` on stdio), the call's arguments, the call context.
 */
export type McpHandlerArgs = [request: unknown, response: unknown, args: unknown, call: McpCallContext];

/** The handler arguments of one call. */
export function mcpHandlerArgs(
  args: unknown,
  call: McpCallContext,
  native: McpNativeExchange | undefined,
): McpHandlerArgs {
  return [native?.request, native?.response, args, call];
}

/**
 * The one mapping from the parameter types of `@McpArgs()`, `@McpCtx()` and `@McpRequest()` to
 * values, used by Nest's pipeline (as its params factory) and by the direct call alike.
 */
export class McpParamsFactory {
  exchangeKeyForValue(type: number, data: unknown, args: unknown[]): unknown {
    switch (type) {
      case McpParamType.ARGS:
        return typeof data === 'string' ? propertyOf(args[2], data) : args[2];
      case McpParamType.CONTEXT:
        return args[3];
      case McpParamType.REQUEST:
        return args[0];
      default:
        // Nest's HTTP parameter decorators (@Body, @Query...) have no meaning on an MCP call.
        return undefined;
    }
  }
}

/** One property of the call's arguments (`@McpArgs('name')`). */
function propertyOf(args: unknown, name: string): unknown {
  return typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[name] : args;
}
