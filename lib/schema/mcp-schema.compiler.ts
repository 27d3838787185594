import { Inject, Injectable, Optional } from '@nestjs/common';
import type Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020';
import type { RegExpEngine } from 'ajv/dist/types';
import type AjvDraft07 from 'ajv';
import type * as AjvFormatsModule from 'ajv-formats';
import type { McpCompiledSchema, McpValidationOutcome } from '../protocol/calls/catalog';
import type { SchemaCompiler } from '../registry/entry-schemas';
import type { McpSchema, McpValidatorOptions, McpStandardSchemaLike } from '../interfaces/mcp-schema.interface';
import type { McpServerSettings } from '../shared/server-settings';
import { MCP_SERVER_SETTINGS } from '../shared/mcp.constants';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { compileDtoSchema } from './dto-schema.adapter';
import { joinListed } from './validation-messages';
import { isThenable } from '../protocol/messages/thenables';
import { checkStrictSchema, VENDOR_KEYWORD } from './strict-schema.checker';
import { checkMetaSchema, dialectTables, type Dialect } from './meta-schemas';
import { createPatternEngine } from './pattern-engine';

const DRAFT_07_META = 'http://json-schema.org/draft-07/schema';

/** The schema of a tool that declares none: any object. */
const ANY_OBJECT: McpCompiledSchema = {
  jsonSchema: { type: 'object' },
  validate: (value) => ({ ok: true, value }),
};

/** ajv's strict-mode refusal of a keyword it does not know. */
const UNKNOWN_KEYWORD = /^strict mode: unknown keyword: "(.*)"$/;

/** Formats ajv errors as one readable line. */
export function formatAjvErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) {
    return 'invalid value';
  }
  return joinListed(errors, (error) => {
    const where = error.instancePath === '' ? '' : `${error.instancePath} `;
    const extra = error.keyword === 'additionalProperties' ? ` "${String(error.params.additionalProperty)}"` : '';
    return `${where}${error.message ?? 'is invalid'}${extra}`;
  });
}

function isStandardSchema(schema: unknown): schema is McpStandardSchemaLike {
  return typeof schema === 'object' && schema !== null && '~standard' in schema;
}

function dialectOf(jsonSchema: Record<string, unknown>): Dialect {
  const declared = typeof jsonSchema.$schema === 'string' ? jsonSchema.$schema.replace(/#$/, '') : undefined;
  if (declared === undefined || declared.includes('2020-12')) {
    return '2020-12';
  }
  if (declared === DRAFT_07_META) {
    return 'draft-07';
  }
  throw new McpConfigurationError(`unsupported JSON Schema dialect ${declared}; use 2020-12 or draft-07`);
}

/** ajv's message, with the hint a strict-mode refusal needs. */
function schemaErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const keyword = UNKNOWN_KEYWORD.exec(message)?.[1];
  return keyword === undefined
    ? message
    : `unknown keyword "${keyword}" (a misspelt keyword would go unchecked; name vendor extensions "x-...")`;
}

/**
 * An ajv instance as the compiler uses it: strict about schemas (unknown keywords and formats,
 * ignored keywords), not about data. Exported for the strictness check's specs and the
 * meta-validator generator, which can override its `code` and `validateSchema` options.
 */
export function createAjv(
  dialect: Dialect,
  assertFormats: boolean,
  overrides: Pick<Options, 'code' | 'validateSchema'> = {},
): Ajv2020 | AjvDraft07 {
  const options: Options = {
    // The module checks schemas against their meta-schema itself (checkMetaSchema).
    validateSchema: false,
    strict: false,
    strictSchema: true,
    // `properties` beside a matching `patternProperties` is a legitimate schema.
    allowMatchingProperties: true,
    allErrors: true,
    validateFormats: assertFormats,
    ...overrides,
  };
  // ajv is loaded by the first validator compiled, not at startup (lib/schema/meta-schemas.ts).
  /* eslint-disable @typescript-eslint/no-require-imports */
  let ajv: Ajv2020 | AjvDraft07;
  if (dialect === 'draft-07') {
    ajv = new (require('ajv') as { default: typeof AjvDraft07 }).default(options);
  } else {
    ajv = new (require('ajv/dist/2020') as { default: typeof Ajv2020 }).default(options);
    // ajv resolves `$anchor` but leaves it out of its 2020-12 keywords: strict mode would refuse it.
    ajv.addKeyword('$anchor');
  }
  if (assertFormats) {
    (require('ajv-formats') as typeof AjvFormatsModule).default(ajv);
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
  return ajv;
}

/** Compiles with ajv now, declaring each vendor extension met as an annotation. */
export function compileStrictly(ajv: Ajv2020 | AjvDraft07, jsonSchema: Record<string, unknown>): ValidateFunction {
  for (;;) {
    try {
      return ajv.compile(jsonSchema);
    } catch (error) {
      // Strict mode refuses vendor extensions like any unknown keyword: declare the one met, and
      // try again.
      const keyword = UNKNOWN_KEYWORD.exec(error instanceof Error ? error.message : '')?.[1];
      if (keyword === undefined || !VENDOR_KEYWORD.test(keyword) || ajv.getKeyword(keyword) !== false) {
        throw error;
      }
      ajv.addKeyword(keyword);
    }
  }
}

/**
 * Compiles tool schemas of the three supported kinds into JSON Schema 2020-12 plus a
 * validator, when a tool registers; the ajv validator itself is built on its first use.
 *
 * - Plain JSON Schema: advertised verbatim, validated with ajv (2020-12, or draft-07 when the
 *   schema names it in `$schema`). Remote `$ref`s are never fetched.
 * - class-validator DTO classes: JSON Schema generated from the decorators; values are turned
 *   into instances with class-transformer and validated with class-validator.
 * - Standard Schema objects (zod 4, valibot, arktype...): JSON Schema from the schema's Standard
 *   JSON Schema converter; values validated by the schema itself.
 *
 * Every schema is held to ajv's strict mode at registration: an unknown keyword (`propertes`,
 * `requird`) is a configuration error, since it would leave values unchecked; vendor extensions
 * (`x-*`) are annotations. A DTO or Standard Schema value is checked against its advertised JSON Schema too,
 * after its own validator, so that a call never passes what the advertised schema refuses.
 */
@Injectable()
export class McpSchemaCompiler implements SchemaCompiler {
  /** ajv instances by dialect and whether they assert `format`; made when first needed. */
  private readonly instances = new Map<string, Ajv2020 | AjvDraft07>();
  private readonly validatorOptions: McpValidatorOptions;
  /** Schema patterns, compiled once each, to run in linear time (`nativeSchemaPatterns` aside). */
  private readonly patterns: RegExpEngine;
  /** The same for the schemas DTOs and Standard Schemas advertise (see `createPatternEngine`). */
  private readonly advertisedPatterns: RegExpEngine;

  constructor(
    @Optional()
    @Inject(MCP_SERVER_SETTINGS)
    settings?: Pick<McpServerSettings, 'validatorOptions' | 'nativeSchemaPatterns'>,
  ) {
    this.validatorOptions = settings?.validatorOptions ?? {};
    this.patterns = createPatternEngine(settings?.nativeSchemaPatterns);
    this.advertisedPatterns = createPatternEngine(settings?.nativeSchemaPatterns, true);
  }

  /**
   * @param validatorOptions the tool's class-validator options, over the module's (DTOs only).
   */
  compile(
    schema: McpSchema | undefined,
    role: 'input' | 'output',
    validatorOptions?: McpValidatorOptions,
  ): McpCompiledSchema {
    if (schema === undefined) {
      return ANY_OBJECT;
    }
    if (typeof schema === 'function') {
      return this.enforceJsonSchema(
        compileDtoSchema(
          schema,
          validatorOptions === undefined ? this.validatorOptions : { ...this.validatorOptions, ...validatorOptions },
        ),
      );
    }
    if (isStandardSchema(schema)) {
      return this.enforceJsonSchema(this.compileStandardSchema(schema, role));
    }
    if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) {
      return this.compileJsonSchema(schema);
    }
    throw new McpConfigurationError('expected a JSON Schema object, a class-validator DTO class or a Standard Schema');
  }

  /** Compiles a JSON Schema; throws a configuration error when it is not a valid schema. */
  compileJsonSchema(jsonSchema: Record<string, unknown>): McpCompiledSchema {
    const validator = this.validatorFor(jsonSchema, true);
    return {
      jsonSchema,
      validate: (value): McpValidationOutcome => {
        const validate = validator();
        return validate(value) ? { ok: true, value } : { ok: false, message: formatAjvErrors(validate.errors) };
      },
    };
  }

  /**
   * Checks the values a DTO or Standard Schema accepts against its advertised JSON Schema as
   * well: the two can disagree (class-validator's `@IsOptional()` lets `null` through where the
   * schema says `type: 'array'`; a coercing zod schema takes a string for a number). The own
   * validator runs first, for its messages and its value; ajv then checks the value as it came.
   * `format` is only an annotation here: each library checks formats its own way (an
   * `@IsUrl()` accepts `example.com`, ajv's `url` does not), and 2020-12 does not require it.
   */
  private enforceJsonSchema(native: McpCompiledSchema): McpCompiledSchema {
    const advertisedValidator = this.validatorFor(native.jsonSchema, false);
    const check = (own: McpValidationOutcome, value: unknown): McpValidationOutcome => {
      if (!own.ok) {
        return own;
      }
      const advertised = advertisedValidator();
      return advertised(value) ? own : { ok: false, message: formatAjvErrors(advertised.errors) };
    };
    return {
      jsonSchema: native.jsonSchema,
      validate: (value) => {
        const outcome = native.validate(value);
        return outcome instanceof Promise ? outcome.then((own) => check(own, value)) : check(outcome, value);
      },
    };
  }

  /**
   * The ajv validator of a schema, compiled on its first use: a configuration error now when it
   * is not a valid schema. Strict mode's refusals are found by `checkStrictSchema` without
   * compiling; a schema it cannot judge alone (references, identifiers...) is compiled now.
   */
  private validatorFor(jsonSchema: Record<string, unknown>, assertFormats: boolean): () => ValidateFunction {
    try {
      const dialect = dialectOf(jsonSchema);
      checkMetaSchema(dialect, jsonSchema);
      const { keywords, formats } = dialectTables(dialect);
      const verdict = checkStrictSchema(jsonSchema, {
        next: dialect === '2020-12',
        keywords,
        formats: assertFormats ? formats : undefined,
        compilePattern: (source) => this.patternsFor(assertFormats)(source, 'u'),
      });
      if (verdict === 'checked') {
        let compiled: ValidateFunction | undefined;
        return () => (compiled ??= compileStrictly(this.ajv(dialect, assertFormats), jsonSchema));
      }
      const compiled = compileStrictly(this.ajv(dialect, assertFormats), jsonSchema);
      return () => compiled;
    } catch (error) {
      throw error instanceof McpConfigurationError ? error : new McpConfigurationError(schemaErrorMessage(error));
    }
  }

  /**
   * The pattern engine of an instance: the one that asserts formats checks plain JSON Schema
   * (a pattern the linear engine cannot run is refused); the other, the schemas DTOs and Standard
   * Schemas advertise, checked after their own validator (such a pattern runs on RegExp).
   */
  private patternsFor(assertFormats: boolean): RegExpEngine {
    return assertFormats ? this.patterns : this.advertisedPatterns;
  }

  private ajv(dialect: Dialect, assertFormats: boolean): Ajv2020 | AjvDraft07 {
    const key = `${dialect}:${assertFormats}`;
    let ajv = this.instances.get(key);
    if (ajv === undefined) {
      ajv = createAjv(dialect, assertFormats, { code: { regExp: this.patternsFor(assertFormats) } });
      this.instances.set(key, ajv);
    }
    return ajv;
  }

  private compileStandardSchema(schema: McpStandardSchemaLike, role: 'input' | 'output'): McpCompiledSchema {
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
    const read = (result: unknown): McpValidationOutcome => {
      const { value, issues } = result as StandardResult;
      return issues === undefined ? { ok: true, value } : { ok: false, message: formatIssues(issues) };
    };
    return {
      jsonSchema,
      // A synchronous schema (zod without async refinements) answers without a promise.
      validate: (value) => {
        const result = standard.validate(value);
        return isThenable(result) ? Promise.resolve(result).then(read) : read(result);
      },
    };
  }
}

/** What `~standard.validate` answers. */
interface StandardResult {
  readonly value?: unknown;
  readonly issues?: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>;
}

function formatIssues(issues: NonNullable<StandardResult['issues']>): string {
  return joinListed(issues, (issue) => {
    const path = (issue.path ?? [])
      .map((segment) => String(typeof segment === 'object' && segment !== null ? segment.key : segment))
      .join('/');
    return path === '' ? issue.message : `/${path} ${issue.message}`;
  });
}
