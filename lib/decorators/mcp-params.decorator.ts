import type { PipeTransform, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '../shared/nest-internals';
import { MCP_DEFAULT_PARAMS_METADATA, McpParamType } from '../shared/mcp.constants';

type PipeLike = Type<PipeTransform> | PipeTransform;

/** Writes one MCP parameter into Nest's route argument metadata, where pipes look for it. */
export function assignMcpParam(
  target: object,
  key: string | symbol,
  index: number,
  type: McpParamType,
  data?: string,
  pipes: PipeLike[] = [],
): void {
  const constructor = target.constructor;
  const existing = Reflect.getMetadata(ROUTE_ARGS_METADATA, constructor, key) ?? {};
  Reflect.defineMetadata(
    ROUTE_ARGS_METADATA,
    { ...existing, [`${type}:${index}`]: { index, data, pipes } },
    constructor,
    key,
  );
}

function isPipe(value: unknown): value is PipeLike {
  return typeof value === 'function' || (typeof value === 'object' && value !== null && 'transform' in value);
}

/**
 * The arguments of the call: a tool's validated arguments, a prompt's arguments, or a
 * template's variables. With a property name, only that property. Pipes given here (and global
 * pipes such as `ValidationPipe`) run on the value.
 *
 * @publicApi
 */
export function McpArgs(
  property?: string | Type<PipeTransform> | PipeTransform,
  ...pipes: Array<Type<PipeTransform> | PipeTransform>
): ParameterDecorator {
  return (target, key, index) => {
    const data = typeof property === 'string' ? property : undefined;
    const allPipes = isPipe(property) ? [property, ...pipes] : pipes;
    assignMcpParam(target, key!, index, McpParamType.ARGS, data, allPipes);
  };
}

/**
 * The transport's request object: the HTTP request on HTTP transports, `undefined` on stdio.
 *
 * @publicApi
 */
export function McpRequest(): ParameterDecorator {
  return (target, key, index) => assignMcpParam(target, key!, index, McpParamType.REQUEST);
}

/** The parameters of a handler without parameter decorators: `(args, ctx)`. */
const DEFAULT_PARAMS = Object.freeze({
  [`${McpParamType.ARGS}:0`]: Object.freeze({ index: 0, data: undefined, pipes: [] }),
  [`${McpParamType.CONTEXT}:1`]: Object.freeze({ index: 1, data: undefined, pipes: [] }),
});

/**
 * Part of every handler decorator (`@McpTool()`...): on a method without parameter decorators
 * (they are applied before method decorators), records the `(args, ctx)` layout in Nest's
 * route-argument format, so that pipes (a global `ValidationPipe`) see the arguments with their
 * declared type. It goes under a key of its own: Nest's route arguments stay what the method's
 * own parameter decorators wrote.
 *
 * @internal
 */
export function McpDefaultParams(): MethodDecorator {
  return (target, key) => {
    if (Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key) === undefined) {
      Reflect.defineMetadata(MCP_DEFAULT_PARAMS_METADATA, DEFAULT_PARAMS, target.constructor, key);
    }
  };
}
