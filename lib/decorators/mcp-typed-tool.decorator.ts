import { ROUTE_ARGS_METADATA, routeArgType } from '../shared/nest-internals';
import { McpParamType } from '../shared/mcp.constants';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpToolOptions } from '../interfaces/mcp-definitions.interface';
import type { McpDtoClass, McpSchemaOutput, McpStandardSchemaLike } from '../interfaces/mcp-schema.interface';
import { TYPED_TOOL_PARAMETERS } from '../shared/mcp.messages';
import type { McpCallContext } from '../protocol/calls/call-context';
import { assignMcpParam } from './mcp-params.decorator';
import { McpTool } from './mcp-tool.decorator';

/** The options of `@McpTypedTool()`: those of `@McpTool()`, with `input` required. @publicApi */
export type McpTypedToolOptions<S extends McpStandardSchemaLike | McpDtoClass> = Omit<McpToolOptions, 'input'> & {
  /** The schema of the arguments: a Standard Schema (zod 4...) or a class-validator DTO class. */
  input: S;
};

/** The handlers `@McpTypedTool()` accepts for the schema `S`. @publicApi */
export type McpTypedToolHandler<S> = (args: McpSchemaOutput<S>, ctx: McpCallContext, ...rest: never[]) => unknown;

/**
 * `@McpTool()` whose handler TypeScript checks against the input schema: the method receives
 * `(args, ctx)`, and `args` must take what the schema produces (the output type of a zod or
 * other Standard Schema, defaults applied; an instance of a DTO class). A handler that declares
 * an argument of another type, or a property the schema does not have, does not compile.
 *
 * Parameter decorators cannot check types, so the method takes its arguments in that order:
 * `@McpArgs()` (whole) on the first and `@McpCtx()` on the second may be written or left out,
 * other parameter decorators (`@McpRequest()`...) come after them.
 *
 * @example
 * ```ts
 * const Search = z.object({ query: z.string(), limit: z.number().default(10) });
 *
 * @McpTypedTool({ description: 'Searches', input: Search })
 * search(args: { query: string; limit: number }, ctx: McpCallContext) { ... }   // compiles
 * // search(args: { query: number }) would not: the schema gives a string
 * ```
 * @publicApi
 */
export function McpTypedTool<S extends McpStandardSchemaLike | McpDtoClass>(options: McpTypedToolOptions<S>) {
  const decorate = McpTool(options);
  return <H extends McpTypedToolHandler<S>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<H>,
  ): void => {
    placeArgumentsAndContext(target, key);
    decorate(target, key, descriptor);
  };
}

/**
 * Gives the method `(args, ctx)` whatever other parameter decorators it has (they run before
 * method decorators). Without any, the explorer does the same; with one, it would fill only the
 * decorated parameters.
 */
function placeArgumentsAndContext(target: object, key: string | symbol): void {
  const params = (Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key) ?? {}) as Record<
    string,
    { index: number; data?: unknown }
  >;
  const at = (index: number) =>
    Object.entries(params)
      .filter(([, param]) => param.index === index)
      .map(([entry, param]) => ({ type: routeArgType(entry), data: param.data }));
  const first = at(0);
  const second = at(1);
  if (
    first.some((param) => param.type !== McpParamType.ARGS || param.data !== undefined) ||
    second.some((param) => param.type !== McpParamType.CONTEXT)
  ) {
    throw new McpConfigurationError(TYPED_TOOL_PARAMETERS(`${target.constructor.name}.${String(key)}`));
  }
  if (Object.keys(params).length === 0) {
    return;
  }
  if (first.length === 0) {
    assignMcpParam(target, key, 0, McpParamType.ARGS);
  }
  if (second.length === 0) {
    assignMcpParam(target, key, 1, McpParamType.CONTEXT);
  }
}
