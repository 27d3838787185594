/**
 * Checks a schema against its dialect's meta-schema, as ajv's compile would, with validators
 * generated ahead of time (lib/schema/meta, written by scripts/generate-meta-validators.ts):
 * compiling the 2020-12 meta-schema would cost ajv 50 to 90 ms on the first schema of every
 * application.
 */
import type AjvCore from 'ajv/dist/core';
import type { ErrorObject } from 'ajv/dist/core';
import { validate as draft202012 } from './meta/draft-2020-12.meta-validator';
import { validate as draft07 } from './meta/draft-07.meta-validator';

/** What ajv's standalone code exports: a validator that leaves its errors on itself. */
interface MetaValidator {
  (schema: unknown): boolean;
  errors?: ErrorObject[] | null;
}

const META_VALIDATORS: Record<'2020-12' | 'draft-07', MetaValidator> = {
  '2020-12': draft202012 as MetaValidator,
  'draft-07': draft07 as MetaValidator,
};

/**
 * @param ajv the instance the schema is compiled on: its `errorsText` words the refusal.
 * @throws Error with ajv's message for a schema its meta-schema refuses (`schema is invalid: ...`).
 */
export function checkMetaSchema(ajv: AjvCore, dialect: '2020-12' | 'draft-07', schema: unknown): void {
  const validate = META_VALIDATORS[dialect];
  if (!validate(schema)) {
    throw new Error(`schema is invalid: ${ajv.errorsText(validate.errors)}`);
  }
}
