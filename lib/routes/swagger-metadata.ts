/**
 * What `@nestjs/swagger` decorators say about a route, read through their Reflect keys only:
 * the library never imports the package (it is not a dependency), and an application without it
 * simply has none of these keys. The key names are the package's `DECORATORS` (dist/constants.js),
 * pinned by this file's spec against the installed package.
 */
import type { Type } from '@nestjs/common';

/** The metadata keys of the `@nestjs/swagger` decorators read here. */
export const SWAGGER_KEYS = {
  operation: 'swagger/apiOperation',
  responses: 'swagger/apiResponse',
  parameters: 'swagger/apiParameters',
  tags: 'swagger/apiUseTags',
  propertyNames: 'swagger/apiModelPropertiesArray',
  property: 'swagger/apiModelProperties',
  hiddenProperty: 'swagger/apiModelPropertyHidden',
  excludedEndpoint: 'swagger/apiExcludeEndpoint',
  excludedController: 'swagger/apiExcludeController',
} as const;

/** The static method the Swagger CLI plugin adds to DTO classes: property name → metadata. */
const PLUGIN_FACTORY = '_OPENAPI_METADATA_FACTORY';

/** `@ApiOperation()`'s options that a tool uses. */
export interface SwaggerOperation {
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
}

/** One `@ApiProperty()` (or the CLI plugin's entry), as the decorator stored it. */
export interface SwaggerPropertyMeta {
  readonly type?: unknown;
  readonly isArray?: boolean;
  readonly items?: unknown;
  readonly enum?: unknown;
  readonly description?: string;
  readonly title?: string;
  readonly example?: unknown;
  readonly examples?: unknown;
  readonly default?: unknown;
  readonly required?: boolean;
  readonly nullable?: boolean;
  readonly format?: string;
}

/** One `@ApiParam()`, `@ApiQuery()` or `@ApiBody()`, as stored. */
export interface SwaggerParameter extends SwaggerPropertyMeta {
  /** `path`, `query`, `body` or `header`. */
  readonly in: string;
  readonly name?: string;
  readonly schema?: Record<string, unknown>;
}

/** One declared response (`@ApiOkResponse({ type })` or `({ schema })`...), by status. */
export interface SwaggerResponse {
  readonly type?: unknown;
  readonly isArray?: boolean;
  /** An OpenAPI schema written out, when the response names no type. */
  readonly schema?: Record<string, unknown>;
}

function own<T>(key: string, target: object, property?: string): T | undefined {
  return (property === undefined ? Reflect.getMetadata(key, target) : Reflect.getMetadata(key, target, property)) as
    T | undefined;
}

/** `@ApiOperation()` on a route's method, if any. */
export function swaggerOperation(method: object): SwaggerOperation | undefined {
  const operation = own<Record<string, unknown>>(SWAGGER_KEYS.operation, method);
  if (operation === undefined || typeof operation !== 'object' || operation === null) {
    return undefined;
  }
  const text = (value: unknown): string | undefined =>
    typeof value === 'string' && value.trim() !== '' ? value : undefined;
  return {
    operationId: text(operation.operationId),
    summary: text(operation.summary),
    description: text(operation.description),
  };
}

/**
 * Whether the route is left out of the OpenAPI document: `@ApiExcludeController()` on its
 * controller or `@ApiExcludeEndpoint()` on its method (unless `disable: false`).
 */
export function swaggerExcluded(controller: Type, method: object): boolean {
  const endpoint = own<{ disable?: unknown }>(SWAGGER_KEYS.excludedEndpoint, method);
  const whole = own<unknown[]>(SWAGGER_KEYS.excludedController, controller);
  return (endpoint !== undefined && endpoint.disable !== false) || (Array.isArray(whole) && whole[0] !== false);
}

/** The `@ApiTags()` of a route: its controller's, then its method's. */
export function swaggerTags(controller: Type, method: object): string[] {
  const tags = [
    ...(own<unknown[]>(SWAGGER_KEYS.tags, controller) ?? []),
    ...(own<unknown[]>(SWAGGER_KEYS.tags, method) ?? []),
  ];
  return [...new Set(tags.filter((tag): tag is string => typeof tag === 'string'))];
}

/**
 * The `@ApiParam()`, `@ApiQuery()` and `@ApiBody()` of a route's method (a controller-level one
 * is copied onto each method by the decorator itself).
 */
export function swaggerParameters(method: object): SwaggerParameter[] {
  const parameters = own<unknown[]>(SWAGGER_KEYS.parameters, method) ?? [];
  return parameters.filter(
    (parameter): parameter is SwaggerParameter =>
      typeof parameter === 'object' && parameter !== null && typeof (parameter as SwaggerParameter).in === 'string',
  );
}

/**
 * The declared successful response of a route: the one of the status it answers (`@HttpCode`,
 * else 201 for POST and 200 otherwise), else the first 2xx with a type. Method-level
 * declarations come over the controller's.
 */
export function swaggerSuccessResponse(controller: Type, method: object, status: number): SwaggerResponse | undefined {
  const responses = {
    ...own<Record<string, SwaggerResponse>>(SWAGGER_KEYS.responses, controller),
    ...own<Record<string, SwaggerResponse>>(SWAGGER_KEYS.responses, method),
  };
  const typed = (key: string): SwaggerResponse | undefined => {
    const response = responses[key];
    return typeof response === 'object' &&
      response !== null &&
      (response.type !== undefined || (typeof response.schema === 'object' && response.schema !== null))
      ? response
      : undefined;
  };
  const successes = Object.keys(responses)
    .filter((key) => /^2\d\d$/.test(key))
    .sort();
  return typed(String(status)) ?? successes.map(typed).find((response) => response !== undefined);
}

/**
 * A type as `@nestjs/swagger` keeps it, resolved: a lazy `() => Dto` is called (the decorator's
 * own test: a function named `type`, or an arrow function, which has no prototype).
 */
export function resolvedType(type: unknown): unknown {
  if (typeof type === 'function' && (type.name === 'type' || !('prototype' in type) || type.prototype === undefined)) {
    try {
      return (type as () => unknown)();
    } catch {
      return undefined;
    }
  }
  return type;
}

/**
 * The `@ApiProperty()` metadata of a DTO class, by property, in declaration order: the CLI
 * plugin's entries first, the decorators' over them; `@ApiHideProperty()` ones left out.
 * Empty when the class has none.
 */
export function swaggerProperties(dto: Type): Map<string, SwaggerPropertyMeta> {
  const properties = new Map<string, SwaggerPropertyMeta>();
  const factory = (dto as unknown as Record<string, unknown>)[PLUGIN_FACTORY];
  if (typeof factory === 'function') {
    const entries = (factory as () => unknown).call(dto);
    if (typeof entries === 'object' && entries !== null) {
      for (const [name, meta] of Object.entries(entries)) {
        if (typeof meta === 'object' && meta !== null) {
          properties.set(name, meta as SwaggerPropertyMeta);
        }
      }
    }
  }
  const prototype = dto.prototype as object;
  for (const key of own<unknown[]>(SWAGGER_KEYS.propertyNames, prototype) ?? []) {
    if (typeof key !== 'string') {
      continue;
    }
    const name = key.startsWith(':') ? key.slice(1) : key;
    const meta = own<SwaggerPropertyMeta>(SWAGGER_KEYS.property, prototype, name);
    properties.set(name, { ...properties.get(name), ...meta });
  }
  for (const name of [...properties.keys()]) {
    if (own<boolean>(SWAGGER_KEYS.hiddenProperty, prototype, name) === true) {
      properties.delete(name);
    }
  }
  return properties;
}
