/**
 * Every part of Nest this package uses that Nest does not document as public: deep imports,
 * metadata keys of its decorators, and fields it keeps private. They live here, and only here,
 * so that a Nest release that moves one breaks one file, and `nest-internals.spec.ts` pins each
 * shape on the Nest versions of the peer range (11 and 12).
 */
import type { CanActivate, ExecutionContext, Type } from '@nestjs/common';
import {
  CUSTOM_ROUTE_ARGS_METADATA,
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  HTTP_CODE_METADATA,
  HOST_METADATA,
  INTERCEPTORS_METADATA,
  METHOD_METADATA,
  MODULE_PATH,
  PARAMTYPES_METADATA,
  PATH_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
  VERSION_METADATA,
} from '@nestjs/common/constants';
import { type DiscoveryService, type ExternalContextCreator, ModuleRef } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { LegacyRouteConverter } from '@nestjs/core/router/legacy-route-converter';
import { isRouteExcluded } from '@nestjs/core/router/utils/exclude-route.util';

export { CUSTOM_ROUTE_ARGS_METADATA, PARAMTYPES_METADATA, ROUTE_ARGS_METADATA };

/** The metadata keys of `@UseGuards`, `@UseInterceptors`, `@UsePipes` and `@UseFilters`. */
export const ENHANCER_KEYS: readonly string[] = [
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  EXCEPTION_FILTERS_METADATA,
];

/** The enhancers a class declares with `@UseGuards`, `@UseInterceptors`, `@UsePipes` and `@UseFilters`. */
export function endpointEnhancersOf(target: Type<unknown>): {
  guards: Array<Type<CanActivate> | CanActivate>;
  interceptors: unknown[];
  pipes: unknown[];
  filters: unknown[];
} {
  const read = (key: string): unknown[] => (Reflect.getMetadata(key, target) as unknown[] | undefined) ?? [];
  return {
    guards: read(GUARDS_METADATA) as Array<Type<CanActivate> | CanActivate>,
    interceptors: read(INTERCEPTORS_METADATA),
    pipes: read(PIPES_METADATA),
    filters: read(EXCEPTION_FILTERS_METADATA),
  };
}

/** What `@Get()`, `@Post()`... say about a controller method: its verb and path; `undefined` without one. */
export function routeMappingOf(
  handler: object,
): { verb: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OTHER'; path: string } | undefined {
  const path = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
  const method = Reflect.getMetadata(METHOD_METADATA, handler) as number | undefined;
  if (path === undefined || method === undefined) {
    return undefined;
  }
  // Nest's RequestMethod: GET 0, POST 1, PUT 2, DELETE 3, PATCH 4.
  const verbs = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
  return { verb: verbs[method] ?? 'OTHER', path: Array.isArray(path) ? (path[0] ?? '') : path };
}

/** The status a route answers with by `@HttpCode()`, if it has one. */
export function routeStatusOf(handler: object): number | undefined {
  const status = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as unknown;
  return typeof status === 'number' ? status : undefined;
}

/** A controller's path (`@Controller('notes')`, the first of several). */
export function controllerPathOf(controller: object): string {
  const path = Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined;
  return Array.isArray(path) ? (path[0] ?? '') : (path ?? '');
}

/** The host a controller is served on (`@Controller({ host })`): a string, a RegExp or a list. */
export function controllerHostOf(controller: object): unknown {
  return Reflect.getMetadata(HOST_METADATA, controller) as unknown;
}

/** What `@Version()` and the controller's `version` declare, as written (no default applied). */
export function declaredVersionsOf(
  controller: object,
  handler: object,
): { method?: string | symbol | Array<string | symbol>; controller?: string | symbol | Array<string | symbol> } {
  return {
    method: Reflect.getMetadata(VERSION_METADATA, handler) as string | symbol | Array<string | symbol> | undefined,
    controller: Reflect.getMetadata(VERSION_METADATA, controller) as
      string | symbol | Array<string | symbol> | undefined,
  };
}

/**
 * The path `RouterModule.register()` gave a module (the one set for this application, else the
 * one set for any), as Nest's router reads it.
 */
export function modulePathOf(module: object | undefined, applicationId: string | undefined): string | undefined {
  if (module === undefined) {
    return undefined;
  }
  const own =
    applicationId === undefined ? undefined : (Reflect.getMetadata(MODULE_PATH + applicationId, module) as unknown);
  const path = own ?? (Reflect.getMetadata(MODULE_PATH, module) as unknown);
  return typeof path === 'string' ? path : undefined;
}

/**
 * Whether the application's global prefix leaves out the route at `path` (its path without
 * the prefix and the URI version), by the exclusions of `setGlobalPrefix(prefix, { exclude })`
 * as Nest compiled them, with Nest's own test (`isRouteExcluded`).
 */
export function isExcludedFromGlobalPrefix(exclude: unknown, path: string, verb: RouteVerbName): boolean {
  if (!Array.isArray(exclude) || exclude.length === 0) {
    return false;
  }
  return isRouteExcluded(exclude as Parameters<typeof isRouteExcluded>[0], path, REQUEST_METHOD[verb]);
}

/** Nest's `RequestMethod` of each verb a route tool may have. */
const REQUEST_METHOD = { GET: 0, POST: 1, PUT: 2, DELETE: 3, PATCH: 4 } as const;

type RouteVerbName = keyof typeof REQUEST_METHOD;

/**
 * A route path as the Express adapter registers it: Nest converts the wildcards of the syntax
 * of path-to-regexp 6 (`/files/*`) to that of version 8 (`/files/{*path}`).
 */
export function convertLegacyRoutePath(path: string): string {
  return LegacyRouteConverter.tryConvert(path, { logs: false });
}

/** Nest's route parameter types this package reads: `@Body()`, `@Query()`, `@Param()`, `@Headers()`. */
export const ROUTE_PARAM = { body: 3, query: 4, param: 5, headers: 6 } as const;

/** The metadata key of `@UseGuards`. */
export const GUARDS_KEY: string = GUARDS_METADATA;

/** One entry of Nest's route-argument metadata (`${type}:${index}` → entry). */
export interface RouteArgEntry {
  readonly index: number;
  readonly data?: unknown;
  readonly pipes?: unknown[];
  /** Set by `createParamDecorator`: the decorator's value factory. */
  readonly factory?: unknown;
}

/** Whether a route-argument key belongs to a custom parameter decorator (`createParamDecorator`). */
export function isCustomRouteArg(key: string): boolean {
  return key.includes(CUSTOM_ROUTE_ARGS_METADATA);
}

/** The parameter type of a route-argument key (`'3:0'` → 3); `NaN` for a custom decorator. */
export function routeArgType(key: string): number {
  return Number(key.split(':')[0]);
}

/**
 * An execution context for guards run outside Nest's pipeline (visibility checks of list
 * requests), the same class Nest builds its own contexts with.
 */
export function createExecutionContext(
  args: unknown[],
  hostClass: Type,
  handler: (...args: unknown[]) => unknown,
  type: string,
): ExecutionContext {
  const context = new ExecutionContextHost(args, hostClass, handler);
  context.setType(type);
  return context;
}

/** The part of Nest's `ApplicationConfig` that says which enhancers apply to every handler. */
export interface GlobalEnhancers {
  getGlobalGuards(): unknown[];
  getGlobalInterceptors(): unknown[];
  getGlobalPipes(): unknown[];
  getGlobalFilters(): unknown[];
  getGlobalRequestGuards(): unknown[];
  getGlobalRequestInterceptors(): unknown[];
  getGlobalRequestPipes(): unknown[];
  getGlobalRequestFilters(): unknown[];
}

/** The `NestContainer` of the application, kept by `ExternalContextCreator.fromContainer` (Nest 8 to 12). */
export function containerOf(creator: ExternalContextCreator): object | undefined {
  const container = (creator as unknown as { container?: unknown }).container;
  return typeof container === 'object' && container !== null ? container : undefined;
}

/** The application's global enhancers, as the pipeline itself reads them; `undefined` if out of reach. */
export function globalEnhancersOf(creator: ExternalContextCreator): GlobalEnhancers | undefined {
  return (containerOf(creator) as { applicationConfig?: GlobalEnhancers } | undefined)?.applicationConfig;
}

/** Whether any global guard, interceptor, pipe or filter is registered (static or request-scoped). */
export function hasGlobalEnhancers(config: GlobalEnhancers): boolean {
  return [
    config.getGlobalGuards(),
    config.getGlobalInterceptors(),
    config.getGlobalPipes(),
    config.getGlobalFilters(),
    config.getGlobalRequestGuards(),
    config.getGlobalRequestInterceptors(),
    config.getGlobalRequestPipes(),
    config.getGlobalRequestFilters(),
  ].some((list) => Array.isArray(list) && list.length > 0);
}

/** What an exception handler of the pipeline does with an error (`ExternalExceptionsHandler`). */
export interface ExceptionsHandlerLike {
  next(exception: unknown, host: unknown): unknown;
  invokeCustomFilters?(exception: unknown, host: unknown): unknown;
}

/** The pipeline's factory of exception handlers (`ExternalExceptionFilterContext`). */
export interface FiltersContextLike {
  create(...args: unknown[]): ExceptionsHandlerLike;
}

/**
 * A new `ExternalContextCreator` on the same container as `shared`, built by the class of
 * `shared` (so by the Nest copy that made it), with its private exception-handler factory
 * exposed; `undefined` when either is out of reach.
 */
export function forkContextCreator(
  shared: ExternalContextCreator,
): { creator: ExternalContextCreator; filters: FiltersContextLike } | undefined {
  const container = containerOf(shared);
  const factory = shared.constructor as Partial<typeof ExternalContextCreator>;
  if (container === undefined || typeof factory.fromContainer !== 'function') {
    return undefined;
  }
  const creator = factory.fromContainer(container as Parameters<typeof ExternalContextCreator.fromContainer>[0]);
  const filters = (creator as unknown as { filtersContextCreator?: FiltersContextLike }).filtersContextCreator;
  return typeof filters?.create === 'function' ? { creator, filters } : undefined;
}

/** An exception filter's `catch`, as the pipeline calls it. */
export type FilterCatch = (exception: unknown, host: unknown) => unknown;

/** The part of `BaseExceptionFilterContext` that turns filters (instances or classes) into callable ones. */
interface ConcreteFiltersContext {
  createConcreteContext(metadata: unknown, contextId?: unknown, inquirerId?: unknown): unknown;
  getFilterInstance(filter: unknown, contextId?: unknown, inquirerId?: unknown): unknown;
}

/**
 * Has every filter `filters` resolves call `wrap(catch, filter)`'s function instead of its own
 * `catch`, where `filter` is the filter instance (or the class, for a static `catch`). Nest
 * resolves each filter (`getFilterInstance`) and maps the instances it keeps to
 * `{ func: instance.catch.bind(instance), exceptionMetatypes }` (`createConcreteContext`, Nest 8
 * to 12); the instances are collected while it does, in the same order. One wrapper per filter
 * instance, made on its first use. Returns false, and changes nothing, when either method is
 * missing; when the instances and the filters made do not line up, those filters stay as Nest made them.
 */
export function wrapConcreteFilters(
  filters: FiltersContextLike,
  wrap: (func: FilterCatch, filter: object) => FilterCatch,
): boolean {
  const context = filters as unknown as Partial<ConcreteFiltersContext>;
  if (typeof context.createConcreteContext !== 'function' || typeof context.getFilterInstance !== 'function') {
    return false;
  }
  const concrete = context.createConcreteContext.bind(context);
  const resolve = context.getFilterInstance.bind(context);
  const wrapped = new WeakMap<object, FilterCatch>();
  // One list, reused: the contexts of a request-scoped handler are made on every call.
  const resolved: object[] = [];
  let collecting = false;
  context.getFilterInstance = (filter, contextId, inquirerId) => {
    const instance = resolve(filter, contextId, inquirerId);
    if (collecting && (typeof instance === 'object' || typeof instance === 'function') && instance !== null) {
      resolved.push(instance);
    }
    return instance;
  };
  context.createConcreteContext = (metadata, contextId, inquirerId) => {
    resolved.length = 0;
    collecting = true;
    let made: unknown;
    try {
      made = concrete(metadata, contextId, inquirerId);
    } finally {
      collecting = false;
    }
    if (Array.isArray(made) && made.length === resolved.length) {
      for (let index = 0; index < made.length; index += 1) {
        const item = made[index] as { func?: unknown } | null;
        const filter = resolved[index];
        if (typeof item?.func === 'function') {
          let func = wrapped.get(filter);
          if (func === undefined) {
            func = wrap(item.func as FilterCatch, filter);
            wrapped.set(filter, func);
          }
          item.func = func;
        }
      }
    }
    resolved.length = 0;
    return made;
  };
  return true;
}

/** A provider or controller as `DiscoveryService` gives it (Nest's `InstanceWrapper`). */
export type HostWrapper = ReturnType<DiscoveryService['getProviders']>[number];

/** The `ModuleRef` of the module that provides `wrapper`, if any. */
export function moduleRefOf(wrapper: HostWrapper): ModuleRef | undefined {
  return wrapper.host?.providers.get(ModuleRef)?.instance as ModuleRef | undefined;
}

/**
 * The enhancer `enhancer` as the module providing `wrapper` registered it (Nest registers the
 * enhancers of a class provider's `@UseGuards(...)` among its module's injectables).
 */
export function registeredEnhancerOf(
  wrapper: HostWrapper,
  enhancer: Type,
): { instance: unknown; isStatic: boolean } | undefined {
  const injectable = wrapper.host?.injectables.get(enhancer);
  return injectable === undefined
    ? undefined
    : { instance: injectable.instance, isStatic: injectable.isDependencyTreeStatic() };
}
