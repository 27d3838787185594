/**
 * class-validator DTO classes as tool schemas: JSON Schema generated from the decorators with
 * class-validator-jsonschema, values turned into instances with class-transformer and validated
 * with class-validator. The three packages are optional peers, loaded only when a DTO is used.
 */
import type { CompiledSchema, ValidationOutcome } from '../protocol/catalog';
import type { DtoClass } from '../interfaces/mcp-schema.interface';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { MISSING_PACKAGE } from '../mcp.messages';

const DTO_PACKAGES = 'class-validator class-transformer class-validator-jsonschema';

interface ValidationErrorLike {
  property: string;
  constraints?: Record<string, string>;
  children?: ValidationErrorLike[];
}

interface DtoToolkit {
  validate(object: object, options?: Record<string, unknown>): Promise<ValidationErrorLike[]>;
  plainToInstance(cls: DtoClass, plain: unknown): object;
  hasMetadata(cls: DtoClass): boolean;
  /** The JSON Schema of one class; nested classes are `$ref`s to `#/$defs/<class name>`. */
  schemaOf(cls: DtoClass): Record<string, unknown>;
  /** The class declared with `@Type(() => ...)` on a property, if any. */
  nestedClass(cls: DtoClass, property: string): DtoClass | undefined;
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
    schemaOf: (cls) =>
      jsonschema.targetConstructorToSchema(cls, {
        refPointerPrefix: '#/$defs/',
        classTransformerMetadataStorage: typeStorage,
      }),
    nestedClass: (cls, property) => {
      const type = typeStorage.findTypeMetadata(cls, property)?.typeFunction?.();
      return typeof type === 'function' ? (type as DtoClass) : undefined;
    },
  };
  return toolkit;
}

/** The schemas of the classes nested in `root` (through `@Type`), collected transitively. */
function collectDefinitions(kit: DtoToolkit, root: DtoClass, rootSchema: Record<string, unknown>) {
  const defs: Record<string, Record<string, unknown>> = {};
  const pending: Array<[DtoClass, Record<string, unknown>]> = [[root, rootSchema]];
  while (pending.length > 0) {
    const [cls, schema] = pending.pop()!;
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    for (const property of Object.keys(properties)) {
      const nested = kit.nestedClass(cls, property);
      if (nested !== undefined && defs[nested.name] === undefined && kit.hasMetadata(nested)) {
        defs[nested.name] = kit.schemaOf(nested);
        pending.push([nested, defs[nested.name]]);
      }
    }
  }
  return defs;
}

function formatErrors(errors: ValidationErrorLike[], prefix = ''): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    const path = `${prefix}/${error.property}`;
    for (const message of Object.values(error.constraints ?? {})) {
      lines.push(`${path}: ${message}`);
    }
    if (error.children && error.children.length > 0) {
      lines.push(...formatErrors(error.children, path));
    }
  }
  return lines;
}

/**
 * Compiles a DTO class. The generated JSON Schema is compiled too (so a DTO that produces an
 * invalid schema fails at startup), but values are validated by class-validator, which knows
 * every decorator, including custom ones the JSON Schema cannot express.
 */
export function compileDtoSchema(
  dto: DtoClass,
  compileJson: (schema: Record<string, unknown>) => CompiledSchema,
): CompiledSchema {
  const kit = loadToolkit();
  if (!kit.hasMetadata(dto)) {
    throw new McpConfigurationError(`${dto.name || 'the class'} has no class-validator decorators`);
  }
  const root = kit.schemaOf(dto);
  const defs = collectDefinitions(kit, dto, root);
  const jsonSchema: Record<string, unknown> = { type: 'object', ...root };
  if (Object.keys(defs).length > 0) {
    jsonSchema.$defs = defs;
  }
  compileJson(jsonSchema);
  return {
    jsonSchema,
    validate: async (value): Promise<ValidationOutcome> => {
      const instance = kit.plainToInstance(dto, value);
      const errors = await kit.validate(instance, { forbidUnknownValues: false });
      if (errors.length === 0) {
        return { ok: true, value: instance };
      }
      const lines = formatErrors(errors);
      return {
        ok: false,
        message: lines.slice(0, 5).join('; ') + (lines.length > 5 ? ` (and ${lines.length - 5} more)` : ''),
      };
    },
  };
}
