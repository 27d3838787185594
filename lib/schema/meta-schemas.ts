/**
 * What the module knows of each JSON Schema dialect without an ajv instance: a validator of its
 * meta-schema, and the keywords and formats of the module's ajv instances. All three are
 * generated ahead of time (lib/schema/meta, written by scripts/generate-meta-validators.ts):
 * compiling the 2020-12 meta-schema would cost ajv 50 to 90 ms, and loading ajv itself 25 to
 * 35 ms, on the first schema of every application. With them, a schema is checked at startup
 * and ajv is loaded when a validator is first compiled.
 */
import type { ErrorObject } from 'ajv/dist/core';
import type * as GeneratedModule from './meta/draft-2020-12.meta-validator';

/** A JSON Schema dialect the module compiles: 2020-12 (MCP's default) or draft-07. */
export type Dialect = '2020-12' | 'draft-07';

/** ajv's standalone code: a validator that leaves its errors on itself. */
interface MetaValidator {
  (schema: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** One dialect, as the generated file gives it. */
export interface DialectTables {
  readonly validate: MetaValidator;
  /** Every keyword the module's ajv instance of the dialect knows. */
  readonly keywords: ReadonlySet<string>;
  /** The formats its instance that asserts `format` knows. */
  readonly formats: ReadonlySet<string>;
}

const loaded = new Map<Dialect, DialectTables>();

/** The dialect's tables, loaded on first use (an application of 2020-12 schemas never loads draft-07's). */
export function dialectTables(dialect: Dialect): DialectTables {
  let tables = loaded.get(dialect);
  if (tables === undefined) {
    const generated = (
      dialect === '2020-12'
        ? // eslint-disable-next-line @typescript-eslint/no-require-imports
          require('./meta/draft-2020-12.meta-validator')
        : // eslint-disable-next-line @typescript-eslint/no-require-imports
          require('./meta/draft-07.meta-validator')
    ) as typeof GeneratedModule;
    tables = {
      validate: generated.validate as MetaValidator,
      keywords: new Set(generated.keywords),
      formats: new Set(generated.formats),
    };
    loaded.set(dialect, tables);
  }
  return tables;
}

/**
 * @throws Error with ajv's message for a schema its meta-schema refuses (`schema is invalid: ...`,
 * the errors as ajv's `errorsText` words them).
 */
export function checkMetaSchema(dialect: Dialect, schema: unknown): void {
  const { validate } = dialectTables(dialect);
  if (!validate(schema)) {
    const errors = validate.errors ?? [];
    const text = errors.length === 0 ? 'No errors' : errors.map((e) => `data${e.instancePath} ${e.message}`).join(', ');
    throw new Error(`schema is invalid: ${text}`);
  }
}
