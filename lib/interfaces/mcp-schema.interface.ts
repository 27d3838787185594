/**
 * The schema kinds a tool's input or output may be described with.
 */

/** A JSON Schema object (2020-12 by default). */
export type JsonSchemaObject = Record<string, unknown>;

/** A class whose properties carry class-validator decorators. */
export type DtoClass = new (...args: any[]) => object;

/**
 * A Standard Schema (https://standardschema.dev): zod 4, valibot, arktype... To be advertised it
 * must also implement Standard JSON Schema (`~standard.jsonSchema`), as zod 4 does.
 */
export interface StandardSchemaLike {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => unknown;
    readonly jsonSchema?: {
      readonly input: (options: { target: string }) => Record<string, unknown>;
      readonly output: (options: { target: string }) => Record<string, unknown>;
    };
  };
}

/**
 * The schema of a tool's arguments or structured output: plain JSON Schema, a class-validator DTO
 * class, or a Standard Schema object.
 *
 * @publicApi
 */
export type McpSchema = JsonSchemaObject | DtoClass | StandardSchemaLike;
