import type { McpParamsLayout } from './mcp-metadata.accessor';

/** What decides whether a handler may skip Nest's pipeline. */
export interface DirectCallFacts {
  /**
   * The host is a static class provider: not a controller or a factory/value provider (they run
   * on a shadow host), not request-scoped or transient.
   */
  readonly staticClassProvider: boolean;
  /** Whether the application has global enhancers; `undefined` when that cannot be read. */
  readonly globalEnhancers: boolean | undefined;
  /** Whether guards, interceptors, pipes or filters are bound to the class or the method. */
  readonly boundEnhancers: boolean;
  /** The handler's parameters, as the accessor read them. */
  readonly params: McpParamsLayout | undefined;
}

/**
 * Whether a handler may be called directly, its parameters mapped by the same params factory
 * the pipeline uses: nothing of the pipeline applies (no guard, interceptor, pipe or filter,
 * global or bound; no custom parameter decorator, whose factory needs an execution context), so
 * the pipeline would only map the parameters and call the method.
 */
export function canUseDirectCall(facts: DirectCallFacts): boolean {
  return (
    facts.staticClassProvider &&
    facts.globalEnhancers === false &&
    !facts.boundEnhancers &&
    facts.params !== undefined &&
    facts.params.params.every((param) => !param.custom && !param.piped)
  );
}
