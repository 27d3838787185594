/**
 * JSON Schema from `@nestjs/swagger` metadata, merged into what class-validator says: a DTO
 * property's `@ApiProperty()` gives its description, enum, examples and default, and its type
 * and `required` where class-validator says nothing (a DTO with `@ApiProperty()` only gets its
 * whole schema from them); nested DTOs become `$defs`. `@ApiParam()`, `@ApiQuery()` and
 * `@ApiBody()` annotate the route's inputs the same way.
 */
import type { Type } from '@nestjs/common';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { hasValidationMetadata } from '../schema/dto-schema.adapter';
import { resolvedType, swaggerProperties, type SwaggerParameter, type SwaggerPropertyMeta } from './swagger-metadata';

type Schema = Record<string, unknown>;

/** What turns a DTO class into JSON Schema from class-validator (the module's schema compiler). */
export type ClassValidatorSchemaOf = (dto: Type) => Schema;

/** What a schema says about the shape of its values: kept from class-validator over swagger. */
const SHAPE_KEYS = ['type', '$ref', 'items', 'properties', 'anyOf', 'oneOf', 'allOf'];

/** OpenAPI keywords that are not JSON Schema 2020-12 ones (ajv's strict mode would refuse them). */
const OPENAPI_ONLY = new Set(['nullable', 'example', 'discriminator', 'xml', 'externalDocs']);

const BUILT_IN: ReadonlyMap<unknown, Schema> = new Map<unknown, Schema>([
  [String, { type: 'string' }],
  [Number, { type: 'number' }],
  [Boolean, { type: 'boolean' }],
  [Date, { type: 'string' }],
  [Object, { type: 'object' }],
  [Array, { type: 'array' }],
]);

const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

/** An enum's values, however `@nestjs/swagger` kept them (a list, a TypeScript enum, a lazy one). */
function enumValues(value: unknown): unknown[] | undefined {
  const resolved = typeof value === 'function' ? (value as () => unknown)() : value;
  if (Array.isArray(resolved)) {
    return resolved;
  }
  if (typeof resolved !== 'object' || resolved === null) {
    return undefined;
  }
  // A numeric TypeScript enum maps its values back to its names: leave those out.
  const reverse = new Set(
    Object.values(resolved)
      .filter((item) => typeof item === 'number')
      .map(String),
  );
  return Object.entries(resolved)
    .filter(([key]) => !reverse.has(key))
    .map(([, item]) => item as unknown);
}

function examplesOf(meta: SwaggerPropertyMeta): unknown[] | undefined {
  if (Array.isArray(meta.examples)) {
    return meta.examples;
  }
  if (typeof meta.examples === 'object' && meta.examples !== null) {
    // OpenAPI's named examples: `{ name: { value } }`.
    return Object.values(meta.examples).map((example) =>
      typeof example === 'object' && example !== null && 'value' in example
        ? (example as { value: unknown }).value
        : example,
    );
  }
  return meta.example === undefined ? undefined : [meta.example];
}

/**
 * An OpenAPI schema object as JSON Schema 2020-12, at every depth: `nullable: true` on a typed
 * schema becomes `null` among its types (the value may be null), and the other OpenAPI-only
 * keywords are dropped.
 */
export function fromOpenApi(schema: unknown): unknown {
  if (Array.isArray(schema)) {
    return schema.map(fromOpenApi);
  }
  if (schema === null || typeof schema !== 'object') {
    return schema;
  }
  const converted: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!OPENAPI_ONLY.has(key)) {
      converted[key] =
        key === 'properties'
          ? Object.fromEntries(Object.entries(value as Schema).map(([name, sub]) => [name, fromOpenApi(sub)]))
          : fromOpenApi(value);
    }
  }
  if ((schema as Schema).nullable === true && typeof converted.type === 'string') {
    converted.type = [converted.type, 'null'];
  }
  return converted;
}

/**
 * Builds the schemas of one tool: the DTO classes met go to one `$defs` table (by class name,
 * as class-validator names them), each merged with its swagger metadata once.
 */
export class SwaggerSchemas {
  /** The tool's `$defs`, filled as classes are met. */
  readonly defs: Record<string, Schema> = {};
  private readonly merged = new Set<string>();

  constructor(private readonly classValidator: ClassValidatorSchemaOf) {}

  /** The schema of a DTO class (its nested classes in {@link defs}), from class-validator and swagger. */
  dto(dto: Type): Schema {
    const properties = swaggerProperties(dto);
    // A DTO described by `@ApiProperty()` alone: class-validator says nothing about it.
    const base = properties.size > 0 && !hasValidationMetadata(dto) ? undefined : this.classValidator(dto);
    const { $defs, ...root } = base ?? { type: 'object', properties: {} };
    for (const [name, def] of Object.entries(($defs ?? {}) as Record<string, Schema>)) {
      this.defs[name] ??= def;
    }
    return this.merge(root, properties);
  }

  /** A `$ref` to a DTO class's schema in {@link defs}, merged with its swagger metadata once. */
  ref(dto: Type): Schema {
    const name = dto.name;
    if (!this.merged.has(name)) {
      this.merged.add(name);
      const existing = this.defs[name];
      if (existing === undefined) {
        // Held while it is built: a class that refers to itself gets its `$ref`.
        this.defs[name] = {};
        try {
          this.defs[name] = this.dto(dto);
        } catch (error) {
          delete this.defs[name];
          this.merged.delete(name);
          throw error;
        }
      } else {
        this.defs[name] = this.merge(existing, swaggerProperties(dto));
      }
    }
    return { $ref: `#/$defs/${name}` };
  }

  /** The schema of one `@ApiProperty()`, `@ApiParam()`, `@ApiQuery()` or `@ApiBody()`. */
  property(meta: SwaggerPropertyMeta): Schema {
    let schema: Schema;
    if (meta.type === 'array' && typeof meta.items === 'object' && meta.items !== null) {
      schema = { type: 'array', items: fromOpenApi(meta.items) };
    } else {
      const single = this.typeSchema(resolvedType(meta.type));
      schema = meta.isArray === true ? { type: 'array', items: single } : single;
    }
    const values = enumValues(meta.enum);
    if (values !== undefined) {
      const target = schema.type === 'array' && typeof schema.items === 'object' ? (schema.items as Schema) : schema;
      target.enum = values;
    }
    if (meta.nullable === true && typeof schema.type === 'string') {
      schema.type = [schema.type, 'null'];
    }
    return { ...schema, ...annotationsOf(meta) };
  }

  private typeSchema(type: unknown): Schema {
    const builtIn = BUILT_IN.get(type);
    if (builtIn !== undefined) {
      return { ...builtIn };
    }
    if (typeof type === 'string') {
      return TYPE_NAMES.has(type) ? { type } : {};
    }
    if (typeof type !== 'function') {
      return {};
    }
    try {
      return this.ref(type as Type);
    } catch (error) {
      // A class neither class-validator nor swagger describes: an object, and no more is known.
      if (error instanceof McpConfigurationError) {
        return { type: 'object' };
      }
      throw error;
    }
  }

  /** `properties`' swagger metadata over a schema (class-validator's, or an empty object one). */
  private merge(schema: Schema, properties: ReadonlyMap<string, SwaggerPropertyMeta>): Schema {
    if (properties.size === 0) {
      return schema;
    }
    const shapes = { ...((schema.properties ?? {}) as Record<string, Schema>) };
    const required = new Set((schema.required ?? []) as string[]);
    for (const [name, meta] of properties) {
      const declared = this.property(meta);
      const existing = shapes[name];
      if (existing === undefined) {
        shapes[name] = declared;
        if (meta.required !== false) {
          required.add(name);
        }
        continue;
      }
      const merged: Schema = { ...existing, ...annotationsOf(meta) };
      const values = enumValues(meta.enum);
      if (values !== undefined && merged.type !== 'array') {
        merged.enum = values;
      }
      if (!SHAPE_KEYS.some((key) => key in existing)) {
        for (const key of SHAPE_KEYS) {
          if (key in declared) {
            merged[key] = declared[key];
          }
        }
      }
      shapes[name] = merged;
    }
    const result: Schema = { ...schema, type: schema.type ?? 'object', properties: shapes };
    if (required.size > 0) {
      result.required = [...required];
    } else {
      delete result.required;
    }
    return result;
  }
}

/** The annotations of a property: description, title, examples, default. */
function annotationsOf(meta: SwaggerPropertyMeta): Schema {
  const annotations: Schema = {};
  if (typeof meta.description === 'string' && meta.description !== '') {
    annotations.description = meta.description;
  }
  if (typeof meta.title === 'string' && meta.title !== '') {
    annotations.title = meta.title;
  }
  const examples = examplesOf(meta);
  if (examples !== undefined) {
    annotations.examples = examples;
  }
  if (meta.default !== undefined) {
    annotations.default = meta.default;
  }
  return annotations;
}

/** What `@ApiParam()` / `@ApiQuery()` add over an input's schema: annotations, an enum, a type where none is sure. */
export function annotatedInput(
  schemas: SwaggerSchemas,
  existing: Schema | undefined,
  parameter: SwaggerParameter,
): Schema {
  const declared = {
    ...schemas.property(parameter),
    ...(fromOpenApi(parameter.schema ?? {}) as Schema),
  };
  if (existing === undefined) {
    return declared;
  }
  // `ParseIntPipe` makes an integer whatever the documentation says.
  const keepType = existing.type === 'integer' || declared.type === undefined;
  return { ...existing, ...declared, ...(keepType ? { type: existing.type } : {}) };
}
