import { Injectable } from '@nestjs/common';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import AjvDraft07 from 'ajv';
import addFormats from 'ajv-formats';
import type { CompiledSchema, ValidationOutcome } from '../protocol/catalog';
import type { SchemaCompiler } from '../registry/mcp-registry.service';
import type { McpSchema, StandardSchemaLike } from '../interfaces/mcp-schema.interface';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { compileDtoSchema } from './dto-schema.adapter';

const DRAFT_07_META = 'http://json-schema.org/draft-07/schema';

/** The schema of a tool that declares none: any object. */
const ANY_OBJECT: CompiledSchema = {
  jsonSchema: { type: 'object' },
  validate: (value) => ({ ok: true, value }),
};

/** How many validation errors a message lists before it stops. */
const MAX_LISTED_ERRORS = 5;

/** Formats ajv errors as one readable line. */
export function formatAjvErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) {
    return 'invalid value';
  }
  const listed = errors.slice(0, MAX_LISTED_ERRORS).map((error) => {
    const where = error.instancePath === '' ? '' : `${error.instancePath} `;
    const extra = error.keyword === 'additionalProperties' ? ` "${String(error.params.additionalProperty)}"` : '';
    return `${where}${error.message ?? 'is invalid'}${extra}`;
  });
  const more = errors.length > MAX_LISTED_ERRORS ? ` (and ${errors.length - MAX_LISTED_ERRORS} more)` : '';
  return listed.join('; ') + more;
}

function isStandardSchema(schema: unknown): schema is StandardSchemaLike {
  return typeof schema === 'object' && schema !== null && '~standard' in schema;
}

/**
 * Compiles tool schemas of the three supported kinds into JSON Schema 2020-12 plus a
 * validator, once, when a tool registers.
 *
 * - Plain JSON Schema: advertised verbatim, validated with ajv (2020-12, or draft-07 when the
 *   schema names it in `$schema`). Remote `$ref`s are never fetched.
 * - class-validator DTO classes: JSON Schema generated from the decorators; values are turned
 *   into instances with class-transformer and validated with class-validator.
 * - Standard Schema objects (zod 4, valibot, arktype...): JSON Schema from the schema's Standard
 *   JSON Schema converter; values validated by the schema itself.
 */
@Injectable()
export class McpSchemaCompiler implements SchemaCompiler {
  /** 2020-12, the default dialect of MCP schemas. */
  private readonly ajv: Ajv2020;
  /** Draft-07, for schemas that say so in `$schema` (its `items` arrays, `definitions`...). */
  private readonly ajvDraft07: AjvDraft07;

  constructor() {
    const options = { strict: false, allErrors: true, validateFormats: true } as const;
    this.ajv = new Ajv2020(options);
    this.ajvDraft07 = new AjvDraft07(options);
    addFormats(this.ajv);
    addFormats(this.ajvDraft07);
  }

  compile(schema: McpSchema | undefined, role: 'input' | 'output'): CompiledSchema {
    if (schema === undefined) {
      return ANY_OBJECT;
    }
    if (typeof schema === 'function') {
      return compileDtoSchema(schema, (jsonSchema) => this.compileJsonSchema(jsonSchema));
    }
    if (isStandardSchema(schema)) {
      return this.compileStandardSchema(schema, role);
    }
    if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) {
      return this.compileJsonSchema(schema);
    }
    throw new McpConfigurationError('expected a JSON Schema object, a class-validator DTO class or a Standard Schema');
  }

  /** Compiles a JSON Schema; throws a configuration error when it is not a valid schema. */
  compileJsonSchema(jsonSchema: Record<string, unknown>): CompiledSchema {
    let validator: ValidateFunction;
    try {
      const dialect = typeof jsonSchema.$schema === 'string' ? jsonSchema.$schema.replace(/#$/, '') : undefined;
      if (dialect !== undefined && dialect !== DRAFT_07_META && !dialect.includes('2020-12')) {
        throw new Error(`unsupported JSON Schema dialect ${dialect}; use 2020-12 or draft-07`);
      }
      validator = dialect === DRAFT_07_META ? this.ajvDraft07.compile(jsonSchema) : this.ajv.compile(jsonSchema);
    } catch (error) {
      throw new McpConfigurationError(error instanceof Error ? error.message : String(error));
    }
    return {
      jsonSchema,
      validate: (value): ValidationOutcome =>
        validator(value) ? { ok: true, value } : { ok: false, message: formatAjvErrors(validator.errors) },
    };
  }

  private compileStandardSchema(schema: StandardSchemaLike, role: 'input' | 'output'): CompiledSchema {
    const standard = schema['~standard'];
    if (standard.jsonSchema === undefined) {
      throw new McpConfigurationError(
        `the ${standard.vendor} schema cannot describe itself as JSON Schema (no "~standard.jsonSchema"); use a library version that implements Standard JSON Schema, or pass JSON Schema`,
      );
    }
    let jsonSchema: Record<string, unknown>;
    try {
      jsonSchema = standard.jsonSchema[role]({ target: 'draft-2020-12' });
    } catch (error) {
      throw new McpConfigurationError(
        `the ${standard.vendor} schema cannot be converted to JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return {
      jsonSchema,
      validate: async (value): Promise<ValidationOutcome> => {
        const outcome = (await standard.validate(value)) as {
          value?: unknown;
          issues?: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>;
        };
        if (outcome.issues === undefined) {
          return { ok: true, value: outcome.value };
        }
        return { ok: false, message: formatIssues(outcome.issues) };
      },
    };
  }
}

function formatIssues(
  issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>,
): string {
  const listed = issues.slice(0, MAX_LISTED_ERRORS).map((issue) => {
    const path = (issue.path ?? [])
      .map((segment) => String(typeof segment === 'object' && segment !== null ? segment.key : segment))
      .join('/');
    return path === '' ? issue.message : `/${path} ${issue.message}`;
  });
  const more = issues.length > MAX_LISTED_ERRORS ? ` (and ${issues.length - MAX_LISTED_ERRORS} more)` : '';
  return listed.join('; ') + more;
}
