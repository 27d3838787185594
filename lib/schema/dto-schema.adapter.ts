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
  schemas(): Record<string, Record<string, unknown>>;
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
  let cached: { count: number; schemas: Record<string, Record<string, unknown>> } | undefined;
  const metadataCount = (): number => {
    const store = validator.getMetadataStorage() as { validationMetadatas?: Map<unknown, unknown[]> };
    let count = 0;
    store.validationMetadatas?.forEach((list) => (count += list.length));
    return count;
  };
  toolkit = {
    validate: validator.validate,
    plainToInstance: transformer.plainToInstance,
    hasMetadata: (cls) => validator.getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false).length > 0,
    schemas: () => {
      // Generating the schemas of every DTO is costly; do it again only when new decorators appeared.
      const count = metadataCount();
      if (cached === undefined || cached.count !== count) {
        cached = {
          count,
          schemas: jsonschema.validationMetadatasToSchemas({
            refPointerPrefix: '#/$defs/',
            classTransformerMetadataStorage: storage.defaultMetadataStorage,
          }),
        };
      }
      return cached.schemas;
    },
  };
  return toolkit;
}

/** The definitions a schema refers to, collected transitively. */
function collectDefinitions(
  root: Record<string, unknown>,
  all: Record<string, Record<string, unknown>>,
): Record<string, Record<string, unknown>> {
  const defs: Record<string, Record<string, unknown>> = {};
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      pending.push(...node);
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')) {
          const name = value.slice('#/$defs/'.length);
          if (defs[name] === undefined && all[name] !== undefined) {
            defs[name] = all[name];
            pending.push(all[name]);
          }
        } else {
          pending.push(value);
        }
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
  const all = kit.schemas();
  const root = all[dto.name];
  if (root === undefined) {
    throw new McpConfigurationError(`no JSON Schema could be generated for ${dto.name}`);
  }
  const defs = collectDefinitions(root, all);
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
