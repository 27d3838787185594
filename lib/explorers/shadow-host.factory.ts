/**
 * Hosts whose class-based enhancers Nest's `ExternalContextCreator` cannot find.
 *
 * The context creator looks up `@UseGuards(SomeGuard)`, `@UseInterceptors(...)`, `@UsePipes(...)`
 * and `@UseFilters(...)` classes among the injectables of the module that *provides* the host's
 * class. Two kinds of hosts fall outside that lookup and would lose those enhancers without a
 * word: controllers (they are not providers) and factory or value providers (Nest registers
 * enhancers only for class providers). For them, the handler runs on a "shadow host": a copy of
 * the class's and the method's metadata in which every enhancer class is replaced by a resolved
 * instance. Instances need no lookup, so every enhancer runs, exactly once.
 */
import type { Type } from '@nestjs/common';
import type { EnhancerResolver } from './enhancer-resolver';
import { ENHANCER_KEYS, PARAMTYPES_METADATA } from '../shared/nest-internals';

function isClass(value: unknown): value is Type {
  return typeof value === 'function';
}

async function resolveList(list: unknown, resolve: EnhancerResolver): Promise<unknown[] | undefined> {
  if (!Array.isArray(list)) {
    return undefined;
  }
  return Promise.all(list.map((item) => (isClass(item) ? resolve(item) : item)));
}

/** Copies every metadata key of `source` (or of `source`'s property `key`) to `target`. */
function copyMetadata(source: object, target: object, key?: string): void {
  const keys = key === undefined ? Reflect.getMetadataKeys(source) : Reflect.getMetadataKeys(source, key);
  for (const metadataKey of keys) {
    const value =
      key === undefined ? Reflect.getMetadata(metadataKey, source) : Reflect.getMetadata(metadataKey, source, key);
    if (key === undefined) {
      Reflect.defineMetadata(metadataKey, value, target);
    } else {
      Reflect.defineMetadata(metadataKey, value, target, key);
    }
  }
}

/**
 * Builds the shadow host of `instance[methodName]`: an object whose class carries the real class's
 * metadata and whose method calls the real method on the real instance, with every enhancer
 * class resolved to an instance. `paramsKey` is where the method's parameters are described
 * (see `McpMetadataAccessor.getParams`); their pipes are resolved too.
 */
export async function createShadowHost(
  instance: Record<string, unknown>,
  methodName: string,
  paramsKey: string | undefined,
  resolve: EnhancerResolver,
): Promise<Record<string, unknown>> {
  const realClass = instance.constructor as Type;
  const method = instance[methodName] as (...args: unknown[]) => unknown;

  // A class of the same name, so that logs and `context.getClass().name` still read right.
  const shadowClass = { [realClass.name]: class {} }[realClass.name];
  copyMetadata(realClass, shadowClass);
  for (const key of ENHANCER_KEYS) {
    const resolved = await resolveList(Reflect.getMetadata(key, realClass), resolve);
    if (resolved !== undefined) {
      Reflect.defineMetadata(key, resolved, shadowClass);
    }
  }

  const routeArgs =
    paramsKey === undefined
      ? undefined
      : (Reflect.getMetadata(paramsKey, realClass, methodName) as Record<string, { pipes?: unknown[] }> | undefined);
  if (paramsKey !== undefined && routeArgs !== undefined) {
    const copy: Record<string, unknown> = {};
    for (const [param, metadata] of Object.entries(routeArgs)) {
      copy[param] = { ...metadata, pipes: (await resolveList(metadata.pipes, resolve)) ?? [] };
    }
    Reflect.defineMetadata(paramsKey, copy, shadowClass, methodName);
  }
  const paramtypes = Reflect.getMetadata(PARAMTYPES_METADATA, realClass.prototype as object, methodName) as unknown;
  if (paramtypes !== undefined) {
    Reflect.defineMetadata(PARAMTYPES_METADATA, paramtypes, shadowClass.prototype, methodName);
  }

  const substitute = function (this: unknown, ...args: unknown[]): unknown {
    return method.apply(instance, args);
  };
  Object.defineProperty(substitute, 'name', { value: methodName });
  copyMetadata(method, substitute);
  for (const key of ENHANCER_KEYS) {
    const resolved = await resolveList(Reflect.getMetadata(key, method), resolve);
    if (resolved !== undefined) {
      Reflect.defineMetadata(key, resolved, substitute);
    }
  }

  const host = Object.create(shadowClass.prototype) as Record<string, unknown>;
  host[methodName] = substitute;
  return host;
}
