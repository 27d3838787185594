/**
 * The schema kinds a tool's input or output may be described with.
 */

/** A JSON Schema object (2020-12 by default). */
export type McpJsonSchemaObject = Record<string, unknown>;

/** A class whose properties carry class-validator decorators. */
export type McpDtoClass = new (...args: any[]) => object;

/**
 * A Standard Schema (https://standardschema.dev): zod 4, valibot, arktype... To be advertised it
 * must also implement Standard JSON Schema (`~standard.jsonSchema`), as zod 4 does.
 */
export interface McpStandardSchemaLike {
  /** The Standard Schema interface: its version, vendor, validator and JSON Schema converters. */
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
export type McpSchema = McpJsonSchemaObject | McpDtoClass | McpStandardSchemaLike;

/**
 * What a handler receives for a schema: the output type of a Standard Schema (its
 * `~standard.types`, which zod 4 fills in; defaults and transforms applied), an instance of a DTO
 * class. `unknown` for plain JSON Schema, and for a Standard Schema that declares no types.
 *
 * @publicApi
 */
export type McpSchemaOutput<S> = S extends McpDtoClass
  ? InstanceType<S>
  : S extends { readonly '~standard': { readonly types?: infer Types } }
    ? NonNullable<Types> extends { readonly output: infer Output }
      ? Output
      : unknown
    : unknown;

/**
 * How class-validator validates DTO arguments and outputs: the options of its `validate()`
 * (`ValidatorOptions`), set for the whole module (`McpModuleOptions.validatorOptions`) or for one
 * tool (`@McpTool({ validatorOptions })`, which overrides the module's option by option).
 *
 * Declared here by shape, so that applications without class-validator still compile; a
 * class-validator `ValidatorOptions` object can be passed as is. The advertised JSON Schema
 * follows the options that change what is accepted: `whitelist` with `forbidNonWhitelisted` adds
 * `additionalProperties: false`, `skipMissingProperties` (or `skipUndefinedProperties`) leaves
 * only `@IsDefined()` properties required.
 *
 * @publicApi
 */
export interface McpValidatorOptions {
  /** Skip the constraints of properties that are `null` or missing (`@IsDefined()` still applies). */
  skipMissingProperties?: boolean;
  /** Skip the constraints of properties that are missing. */
  skipUndefinedProperties?: boolean;
  /** Skip the constraints of properties that are `null`. */
  skipNullProperties?: boolean;
  /** Strip properties that carry no decorator (use `@Allow()` to keep one without constraints). */
  whitelist?: boolean;
  /** With `whitelist`: refuse properties that carry no decorator instead of stripping them. */
  forbidNonWhitelisted?: boolean;
  /** Validate only the constraints of these groups. */
  groups?: string[];
  /** The default of the `always` option of the decorators. */
  always?: boolean;
  /** Without `groups`, skip the constraints that belong to a group. */
  strictGroups?: boolean;
  /** Leave out the default messages (only the messages set on the decorators remain). */
  dismissDefaultMessages?: boolean;
  /** What class-validator puts in its errors (the module reads neither). */
  validationError?: { target?: boolean; value?: boolean };
  /**
   * Refuse objects class-validator knows nothing about.
   * @default false (class-validator's own default is true)
   */
  forbidUnknownValues?: boolean;
  /** Stop at the first failing constraint of each property. */
  stopAtFirstError?: boolean;
  /** Let class-validator print warnings about its own configuration. */
  enableDebugMessages?: boolean;
}
