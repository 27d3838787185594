import type { ExecutionContext } from '@nestjs/common';
import { MCP_CONTEXT_TYPE } from '../shared/mcp.constants';
import type { McpCallContext } from '../protocol/calls/call-context';

/**
 * A view of an `ExecutionContext` for MCP calls, for guards, interceptors and filters.
 *
 * Arguments of an MCP call, in order: the transport request (the HTTP request, `undefined` on
 * stdio), the transport response, the call's arguments, the `McpCallContext`. Guards that read
 * `context.switchToHttp().getRequest()` (ThrottlerGuard, passport's AuthGuard) therefore work
 * on MCP calls unchanged.
 *
 * @example
 * ```ts
 * canActivate(context: ExecutionContext) {
 *   if (!McpExecutionContext.isMcp(context)) return true;
 *   const mcp = McpExecutionContext.create(context);
 *   return mcp.getContext().principal.scopes.includes('notes:write');
 * }
 * ```
 * @publicApi
 */
export class McpExecutionContext {
  private constructor(private readonly context: ExecutionContext) {}

  /** Wraps an execution context of type `'mcp'`. */
  static create(context: ExecutionContext): McpExecutionContext {
    return new McpExecutionContext(context);
  }

  /** Whether an execution context belongs to an MCP call. */
  static isMcp(context: ExecutionContext): boolean {
    return context.getType<string>() === MCP_CONTEXT_TYPE;
  }

  /**
   * Whether a visibility guard (`@McpVisibilityGuard()`) runs for a list request rather than a
   * call: the context is the list request's, and there are no arguments.
   */
  isListing(): boolean {
    // A call always has arguments (`{}` at least): an extension method named `.../list` is a call.
    return this.getArgs<unknown>() === undefined && this.getContext().method.endsWith('/list');
  }

  /** The call's arguments: a tool's arguments, a prompt's arguments, a template's variables; `undefined` when listing. */
  getArgs<T = Record<string, unknown>>(): T {
    return this.context.getArgByIndex<T>(2);
  }

  /** The per-call context (principal, signal, progress, logging...). */
  getContext(): McpCallContext {
    return this.context.getArgByIndex<McpCallContext>(3);
  }

  /** The transport request: the HTTP request, or `undefined` on stdio. */
  getRequest<T = unknown>(): T | undefined {
    return this.context.getArgByIndex<T | undefined>(0);
  }

  /** The class and method that serve the call. */
  getHandler(): ReturnType<ExecutionContext['getHandler']> {
    return this.context.getHandler();
  }

  /** The class whose method serves the call. */
  getClass(): ReturnType<ExecutionContext['getClass']> {
    return this.context.getClass();
  }
}
