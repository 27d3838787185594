import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { META_VALIDATOR_DIR, metaValidatorSources } from '../scripts/generate-meta-validators';

// The generated meta-schema validators are what ajv itself would compile: regenerated here with
// the installed ajv and the compiler's options, they must match the committed files.
describe('lib/schema/meta: the generated meta-schema validators', () => {
  const generated = metaValidatorSources();

  it.each(Object.keys(generated))('%s is current (else: npm run generate:meta-validators)', (file) => {
    expect(readFileSync(join(META_VALIDATOR_DIR, file), 'utf8')).toBe(generated[file]);
  });

  it('are the same whether the instance asserts formats or not', () => {
    expect(metaValidatorSources(false)).toEqual(generated);
  });
});
