/**
 * class-validator DTO classes as tool schemas: JSON Schema generated from the decorators with
 * class-validator-jsonschema, values turned into instances with class-transformer and validated
 * with class-validator. The three packages are optional peers, loaded only when a DTO is used.
 */
import type { McpCompiledSchema, McpValidationOutcome } from '../protocol/calls/catalog';
import type { McpDtoClass, McpValidatorOptions } from '../interfaces/mcp-schema.interface';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { MISSING_PACKAGE } from '../shared/mcp.messages';
import { joinListed } from './validation-messages';

const DTO_PACKAGES = 'class-validator class-transformer class-validator-jsonschema';

interface ValidationErrorLike {
  property: string;
  constraints?: Record<string, string>;
  children?: ValidationErrorLike[];
}

interface DtoToolkit {
  validate(object: object, options?: McpValidatorOptions): Promise<ValidationErrorLike[]>;
  plainToInstance(cls: McpDtoClass, plain: unknown): object;
  hasMetadata(cls: McpDtoClass): boolean;
  /**
   * The JSON Schema of one class; nested classes are `$ref`s to `#/$defs/<class name>`. With
   * `skipMissingProperties`, only `@IsDefined()` properties are required, as class-validator then
   * checks.
   */
  schemaOf(cls: McpDtoClass, skipMissingProperties: boolean): Record<string, unknown>;
  /** The class declared with `@Type(() => ...)` on a property, if any. */
  nestedClass(cls: McpDtoClass, property: string): McpDtoClass | undefined;
}

let toolkit: DtoToolkit | undefined;

function loadToolkit(): DtoToolkit {
  if (toolkit !== undefined) {
    return toolkit;
  }
  let validator, transformer, storage, jsonschema;
  try {
    /* eslint-disable @typescript-eslint/no-require-imports */
    validator = require('class-validator');
    transformer = require('class-transformer');
    storage = require('class-transformer/cjs/storage');
    jsonschema = require('class-validator-jsonschema');
    /* eslint-enable @typescript-eslint/no-require-imports */
  } catch {
    throw new McpConfigurationError(MISSING_PACKAGE(DTO_PACKAGES, 'A class-validator DTO as an MCP schema'));
  }
  const typeStorage = storage.defaultMetadataStorage;
  toolkit = {
    validate: validator.validate,
    plainToInstance: transformer.plainToInstance,
    hasMetadata: (cls) => validator.getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false).length > 0,
    // Per class (not `validationMetadatasToSchemas`, which merges every class of the same name).
    schemaOf: (cls, skipMissingProperties) =>
      jsonschema.targetConstructorToSchema(cls, {
        refPointerPrefix: '#/$defs/',
        classTransformerMetadataStorage: typeStorage,
        skipMissingProperties,
      }),
    nestedClass: (cls, property) => {
      const type = typeStorage.findTypeMetadata(cls, property)?.typeFunction?.();
      return typeof type === 'function' ? (type as McpDtoClass) : undefined;
    },
  };
  return toolkit;
}

/**
 * Whether a class carries class-validator decorators; `false` when the DTO packages are not
 * installed (an application may describe its DTOs with `@nestjs/swagger` alone).
 */
export function hasValidationMetadata(dto: McpDtoClass): boolean {
  try {
    return loadToolkit().hasMetadata(dto);
  } catch (error) {
    if (error instanceof McpConfigurationError) {
      return false;
    }
    throw error;
  }
}

/** The schemas of the classes nested in `root` (through `@Type`), collected transitively. */
function collectDefinitions(
  kit: DtoToolkit,
  root: McpDtoClass,
  rootSchema: Record<string, unknown>,
  skipMissingProperties: boolean,
) {
  const defs: Record<string, Record<string, unknown>> = {};
  const pending: Array<[McpDtoClass, Record<string, unknown>]> = [[root, rootSchema]];
  while (pending.length > 0) {
    const [cls, schema] = pending.pop()!;
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    for (const property of Object.keys(properties)) {
      const nested = kit.nestedClass(cls, property);
      if (nested !== undefined && defs[nested.name] === undefined && kit.hasMetadata(nested)) {
        defs[nested.name] = kit.schemaOf(nested, skipMissingProperties);
        pending.push([nested, defs[nested.name]]);
      }
    }
  }
  return defs;
}

/**
 * One line per failed constraint, with its path. A missing property is one line, "is required":
 * class-validator reports every constraint of a property it does not find.
 */
function formatErrors(errors: ValidationErrorLike[], parent: unknown, prefix = ''): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    const path = `${prefix}/${error.property}`;
    const value = typeof parent === 'object' && parent !== null ? Reflect.get(parent, error.property) : undefined;
    if (value === undefined && error.constraints !== undefined) {
      lines.push(`${path}: ${error.property} is required`);
      continue;
    }
    for (const message of Object.values(error.constraints ?? {})) {
      lines.push(`${path}: ${message}`);
    }
    if (error.children && error.children.length > 0) {
      lines.push(...formatErrors(error.children, value, path));
    }
  }
  return lines;
}

/**
 * Compiles a DTO class with the class-validator options in force for its tool. Values are
 * validated by class-validator, which knows every decorator, including custom ones the JSON
 * Schema cannot express; the schema compiler checks the generated JSON Schema and enforces it as
 * well.
 */
export function compileDtoSchema(dto: McpDtoClass, options: McpValidatorOptions = {}): McpCompiledSchema {
  const kit = loadToolkit();
  if (!kit.hasMetadata(dto)) {
    throw new McpConfigurationError(`${dto.name || 'the class'} has no class-validator decorators`);
  }
  if (options.forbidNonWhitelisted === true && options.whitelist !== true) {
    // class-validator ignores it without whitelist: the tool would accept what it seems to forbid.
    throw new McpConfigurationError('validatorOptions.forbidNonWhitelisted needs whitelist: true');
  }
  const skipMissing = options.skipMissingProperties === true || options.skipUndefinedProperties === true;
  const root = kit.schemaOf(dto, skipMissing);
  const defs = collectDefinitions(kit, dto, root, skipMissing);
  const jsonSchema: Record<string, unknown> = { type: 'object', ...root };
  if (options.forbidNonWhitelisted === true) {
    // Whitelisting applies to nested DTOs too; every generated property carries a decorator.
    for (const schema of [jsonSchema, ...Object.values(defs)]) {
      schema.additionalProperties = false;
    }
  }
  if (Object.keys(defs).length > 0) {
    jsonSchema.$defs = defs;
  }
  const validatorOptions: McpValidatorOptions = { forbidUnknownValues: false, ...options };
  return {
    jsonSchema,
    validate: async (value): Promise<McpValidationOutcome> => {
      const instance = kit.plainToInstance(dto, value);
      const errors = await kit.validate(instance, validatorOptions);
      if (errors.length === 0) {
        return { ok: true, value: instance };
      }
      return { ok: false, message: joinListed(formatErrors(errors, instance), (line) => line) };
    },
  };
}
