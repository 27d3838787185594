/**
 * A route tool's name, description, inputs and output schema from the route's `@nestjs/swagger`
 * metadata, when it has some (read through Reflect keys: swagger-metadata.ts); a route without
 * any keeps what route-shape.ts and route-schema.ts give it.
 */
import type { Type } from '@nestjs/common';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import {
  PARAMTYPES_METADATA,
  ROUTE_ARGS_METADATA,
  ROUTE_PARAM,
  routeArgType,
  type RouteArgEntry,
} from '../shared/nest-internals';
import { isDto, shapeOf, type RouteInputs } from './route-schema';
import { resolvedType, swaggerOperation, swaggerParameters, swaggerSuccessResponse } from './swagger-metadata';
import { annotatedInput, fromOpenApi, type SwaggerSchemas } from './swagger-schema';

type Schema = Record<string, unknown>;

/** The tool name `@ApiOperation({ operationId })` gives, if any. */
export function operationToolName(method: object): string | undefined {
  return swaggerOperation(method)?.operationId;
}

/** `@ApiOperation()`'s summary and description, a blank line between them; `undefined` without either. */
export function operationDescription(method: object): string | undefined {
  const operation = swaggerOperation(method);
  const parts = [operation?.summary, operation?.description].filter((part): part is string => part !== undefined);
  return parts.length === 0 ? undefined : parts.join('\n\n');
}

/** Whether the route's `@Body()` parameter is typed with a DTO class. */
function bodyIsDto(controller: Type, methodName: string): boolean {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodName) ?? {}) as Record<
    string,
    RouteArgEntry
  >;
  const types = (Reflect.getMetadata(PARAMTYPES_METADATA, controller.prototype, methodName) ?? []) as unknown[];
  return Object.entries(args).some(
    ([key, entry]) =>
      routeArgType(key) === ROUTE_PARAM.body && typeof entry.data !== 'string' && isDto(types[entry.index]),
  );
}

/**
 * The inputs with `@ApiParam()`, `@ApiQuery()` and `@ApiBody()` over them, and the `$defs` of
 * the swagger-described DTOs met (`schemas`, the table the DTO schemas were built with).
 * An `@ApiQuery()` without a matching `@Query('name')` becomes an optional query field.
 * @throws McpConfigurationError naming the route for an `@ApiQuery()` named like another input.
 */
export function swaggerInputs(
  inputs: RouteInputs,
  controller: Type,
  methodName: string,
  schemas: SwaggerSchemas,
  where: string,
): RouteInputs {
  const method = (controller.prototype as Record<string, object>)[methodName];
  const properties = { ...((inputs.jsonSchema.properties ?? {}) as Record<string, Schema>) };
  const required = new Set((inputs.jsonSchema.required ?? []) as string[]);
  const queryFields = [...inputs.queryFields];
  for (const parameter of swaggerParameters(method)) {
    const name = parameter.name;
    if (parameter.in === 'path' && name !== undefined && inputs.pathParams.includes(name)) {
      properties[name] = annotatedInput(schemas, properties[name], parameter);
    } else if (parameter.in === 'query' && typeof name === 'string' && name !== '') {
      if (queryFields.includes(name)) {
        properties[name] = annotatedInput(schemas, properties[name], parameter);
        if (parameter.required === true) {
          required.add(name);
        }
      } else if (name in properties) {
        throw new McpConfigurationError(`${where}: @ApiQuery "${name}" is named like another input of the route`);
      } else {
        // Documented but not read with `@Query('name')`: the route may read it from `@Req()`.
        properties[name] = annotatedInput(schemas, undefined, parameter);
        queryFields.push(name);
      }
    } else if (parameter.in === 'body' && inputs.body) {
      const body = properties.body ?? {};
      const declared = parameter.schema !== undefined || (parameter.type !== undefined && parameter.type !== String);
      properties.body =
        declared && !bodyIsDto(controller, methodName)
          ? {
              ...(shapeOf(
                parameter.schema === undefined ? schemas.property(parameter) : fromOpenApi(parameter.schema),
              ) as Schema),
            }
          : { ...body };
      if (typeof parameter.description === 'string' && parameter.description !== '') {
        properties.body.description = parameter.description;
      }
    }
  }
  const jsonSchema: Schema = { ...inputs.jsonSchema, properties };
  if (required.size > 0) {
    jsonSchema.required = [...required];
  }
  const defs = {
    ...((inputs.jsonSchema.$defs ?? {}) as Schema),
    ...Object.fromEntries(Object.entries(schemas.defs).map(([name, def]) => [name, shapeOf(def)])),
  };
  if (Object.keys(defs).length > 0) {
    jsonSchema.$defs = defs;
  }
  return { ...inputs, jsonSchema, queryFields };
}

/** Drops `additionalProperties: false` at the root and in `$defs`: a response may carry more than it documents. */
function open(schema: Schema): Schema {
  const { additionalProperties, ...rest } = schema;
  const opened: Schema = additionalProperties === false ? rest : schema;
  if (typeof opened.$defs === 'object' && opened.$defs !== null) {
    opened.$defs = Object.fromEntries(
      Object.entries(opened.$defs as Record<string, Schema>).map(([name, def]) => [name, open(def)]),
    );
  }
  return opened;
}

/** Whether an OpenAPI schema points into the document's components, which a tool cannot carry. */
function refersOut(schema: unknown): boolean {
  if (Array.isArray(schema)) {
    return schema.some(refersOut);
  }
  if (schema === null || typeof schema !== 'object') {
    return false;
  }
  return Object.entries(schema).some(([key, value]) => key === '$ref' || refersOut(value));
}

/**
 * An output schema written out in `@ApiOkResponse({ schema })`: its JSON Schema shape when it is
 * an object schema that stands alone; `undefined` for an array, a primitive or a `$ref` into the
 * OpenAPI document's components.
 */
function writtenOutputSchema(schema: Record<string, unknown>): Schema | undefined {
  const converted = fromOpenApi(schema) as Schema;
  if (converted.type !== 'object' || refersOut(converted)) {
    return undefined;
  }
  return open(shapeOf(converted) as Schema);
}

/**
 * The output schema of a route: the shape of the object DTO its successful response declares
 * (`@ApiOkResponse({ type })`, `@ApiCreatedResponse`, `@ApiResponse({ status: 2xx, type })`),
 * or the object schema it writes out (`{ schema }`); `undefined` for none, an array or a
 * primitive (an MCP output schema is an object schema).
 */
export function swaggerOutputSchema(
  controller: Type,
  method: object,
  status: number,
  schemas: SwaggerSchemas,
): Schema | undefined {
  const response = swaggerSuccessResponse(controller, method, status);
  if (response === undefined || response.isArray === true) {
    return undefined;
  }
  if (response.type === undefined && response.schema !== undefined) {
    return writtenOutputSchema(response.schema);
  }
  const type = resolvedType(response.type);
  if (typeof type !== 'function' || !isDto(type) || type === Date) {
    return undefined;
  }
  let root: Schema;
  try {
    root = schemas.dto(type);
  } catch (error) {
    // A class that neither class-validator nor swagger describes says nothing of the output.
    if (error instanceof McpConfigurationError) {
      return undefined;
    }
    throw error;
  }
  const schema: Schema = { ...root, type: 'object' };
  if (Object.keys(schemas.defs).length > 0) {
    schema.$defs = schemas.defs;
  }
  return open(shapeOf(schema) as Schema);
}
