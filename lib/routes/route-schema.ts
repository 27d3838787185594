/**
 * The input schema of a route tool, from what the route declares: one object with the path
 * parameters (required; an integer behind `ParseIntPipe`), the `@Query('name')` fields and the
 * properties of a `@Query()` DTO (optional), and `body`, the `@Body()` DTO's schema. Only the
 * shape is kept where the route validates: the DTO's value constraints (lengths, bounds,
 * patterns, formats) are left to the route's own `ValidationPipe`, so that its words reach the
 * caller.
 */
import { ParseIntPipe, type Type } from '@nestjs/common';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import {
  PARAMTYPES_METADATA,
  ROUTE_ARGS_METADATA,
  ROUTE_PARAM,
  routeArgType,
  type RouteArgEntry,
} from '../shared/nest-internals';
import { headerInputSchema, isSettableHeader } from './route-headers';
import type { PathParam } from './route-path';

/** Where each argument of the tool goes in the request. */
export interface RouteInputs {
  readonly jsonSchema: Record<string, unknown>;
  readonly pathParams: readonly string[];
  readonly queryFields: readonly string[];
  /** The `@Headers('name')` inputs (lower case), sent as those headers. */
  readonly headerFields: readonly string[];
  readonly body: boolean;
}

/** What turns a DTO class into JSON Schema (the module's schema compiler). */
export type DtoSchemaOf = (dto: Type) => Record<string, unknown>;

const CONSTRAINTS = new Set([
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'not',
  'const',
]);

/** A schema with the value constraints removed, at every depth. */
export function shapeOf(schema: unknown): unknown {
  if (Array.isArray(schema)) {
    return schema.map(shapeOf);
  }
  if (schema === null || typeof schema !== 'object') {
    return schema;
  }
  const shaped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (CONSTRAINTS.has(key)) {
      continue;
    }
    // `properties` and `$defs` hold names, not keywords: their values are schemas.
    shaped[key] =
      key === 'properties' || key === '$defs'
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, shapeOf(sub)]),
          )
        : shapeOf(value);
  }
  return shaped;
}

function isParseInt(pipes: unknown[] | undefined): boolean {
  return (pipes ?? []).some((pipe) => pipe === ParseIntPipe || pipe instanceof ParseIntPipe);
}

/** Whether a parameter's type is a class of the application (a DTO), not a built-in one. */
export function isDto(type: unknown): type is Type {
  return typeof type === 'function' && ![Object, String, Number, Boolean, Array].includes(type as never);
}

/**
 * `pathNames`: the path's parameters (a name alone is a required one). `reservedHeaders`: the
 * headers the call sets itself (forwarded, the version's), never an input.
 * @throws McpConfigurationError naming the route for two inputs of one name.
 */
export function routeInputs(
  controller: Type,
  methodName: string,
  path: string,
  pathNames: ReadonlyArray<string | PathParam>,
  dtoSchema: DtoSchemaOf,
  where: string,
  reservedHeaders: ReadonlySet<string> = new Set(),
): RouteInputs {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodName) ?? {}) as Record<
    string,
    RouteArgEntry
  >;
  const types = (Reflect.getMetadata(PARAMTYPES_METADATA, controller.prototype, methodName) ?? []) as unknown[];
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  let defs: Record<string, unknown> = {};
  const add = (name: string, schema: unknown, isRequired: boolean): void => {
    if (name in properties) {
      throw new McpConfigurationError(`${where}: the route has two inputs named "${name}" (${path})`);
    }
    properties[name] = schema;
    if (isRequired) {
      required.push(name);
    }
  };
  const entries = Object.entries(args).map(([key, entry]) => ({ type: routeArgType(key), entry }));
  const paramPipes = (name: string): boolean =>
    entries.some(({ type, entry }) => type === ROUTE_PARAM.param && entry.data === name && isParseInt(entry.pipes));
  const params = pathNames.map((param) =>
    typeof param === 'string' ? { name: param, optional: false, wildcard: false } : param,
  );
  for (const { name, optional, wildcard } of params) {
    if (name in properties) {
      continue; // a name used twice in the path (`/a/:id/b/:id`) is one input
    }
    const schema: Record<string, unknown> = { type: paramPipes(name) ? 'integer' : 'string' };
    if (wildcard) {
      schema.description = "Several path segments, separated by '/'";
    }
    add(name, schema, !optional);
  }
  const queryFields: string[] = [];
  const headerFields: string[] = [];
  let body = false;
  const dto = (index: number): Record<string, unknown> | undefined => {
    const type = types[index];
    if (!isDto(type)) {
      return undefined;
    }
    const { $defs, ...schema } = shapeOf(dtoSchema(type)) as Record<string, unknown>;
    defs = { ...defs, ...($defs as Record<string, unknown> | undefined) };
    return schema;
  };
  for (const { type, entry } of entries.sort((a, b) => a.entry.index - b.entry.index)) {
    if (type === ROUTE_PARAM.query) {
      if (typeof entry.data === 'string') {
        add(entry.data, { type: isParseInt(entry.pipes) ? 'integer' : 'string' }, false);
        queryFields.push(entry.data);
      } else {
        const schema = dto(entry.index);
        for (const [name, field] of Object.entries((schema?.properties ?? {}) as Record<string, unknown>)) {
          add(name, field, false);
          queryFields.push(name);
        }
      }
    } else if (type === ROUTE_PARAM.headers && typeof entry.data === 'string') {
      const name = entry.data.toLowerCase();
      if (isSettableHeader(name, reservedHeaders) && !headerFields.includes(name)) {
        add(name, headerInputSchema(), false);
        headerFields.push(name);
      }
    } else if (type === ROUTE_PARAM.body && !body) {
      body = true;
      add('body', typeof entry.data === 'string' ? {} : (dto(entry.index) ?? { type: 'object' }), true);
    }
  }
  const jsonSchema: Record<string, unknown> = { type: 'object', properties };
  if (required.length > 0) {
    jsonSchema.required = required;
  }
  if (Object.keys(defs).length > 0) {
    jsonSchema.$defs = defs;
  }
  return { jsonSchema, pathParams: params.map(({ name }) => name), queryFields, headerFields, body };
}
