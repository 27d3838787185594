import AjvCore from 'ajv/dist/core';
import { z } from 'zod';
import { JSON_SCHEMA_2020_12_INPUT } from '../../test/conformance/conformance.fixtures';
import { compileStrictly, createAjv, McpSchemaCompiler } from './mcp-schema.compiler';
import { checkMetaSchema, dialectTables, type Dialect } from './meta-schemas';
import { checkStrictSchema } from './strict-schema.checker';
import { createPatternEngine } from './pattern-engine';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** What ajv's compile makes of a schema, on an instance of its own: `ok` or its message. */
function ajvVerdict(schema: Record<string, unknown>, dialect: Dialect, assertFormats: boolean): string {
  try {
    // ajv's own meta-schema check, not the module's generated one: the reference is ajv alone.
    compileStrictly(createAjv(dialect, assertFormats, { validateSchema: true }), schema);
    return 'ok';
  } catch (error) {
    return (error as Error).message;
  }
}

/** What the module's checks make of it, without ajv; `checked` is then compiled as the compiler would. */
function checkVerdict(schema: Record<string, unknown>, dialect: Dialect, assertFormats: boolean): string {
  let verdict: string;
  try {
    checkMetaSchema(dialect, schema);
    const { keywords, formats } = dialectTables(dialect);
    verdict = checkStrictSchema(schema, {
      next: dialect === '2020-12',
      keywords,
      formats: assertFormats ? formats : undefined,
    });
  } catch (error) {
    return (error as Error).message;
  }
  if (verdict === 'checked') {
    // Compiled later, as the compiler does on the first call: without a refusal.
    compileStrictly(createAjv(dialect, assertFormats), schema);
    return 'ok';
  }
  return verdict;
}

const filler = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'What to look for' },
    limit: { type: 'integer', minimum: 1, maximum: 100, description: 'How many records to return' },
    order: { type: 'string', enum: ['asc', 'desc'], description: 'Sort order' },
  },
  required: ['query'],
  additionalProperties: false,
};

/** Schemas the check judges alone: each is refused or accepted exactly as ajv compiles it. */
const JUDGED: Array<[string, Record<string, unknown>]> = [
  ['a typical tool input', filler],
  ['an empty object schema', { type: 'object' }],
  [
    'every modelled applicator, valid',
    {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, maxItems: 5 },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
        some: { type: 'array', contains: { const: 1 }, minContains: 2, maxContains: 3 },
        none: { type: 'array', contains: { const: 1 }, minContains: 0, maxContains: 0 },
        shape: {
          oneOf: [
            { type: 'object', properties: { r: { type: 'number', exclusiveMinimum: 0 } }, required: ['r'] },
            { type: 'object', properties: { w: { type: 'number', multipleOf: 0.5 } }, required: ['w'] },
          ],
        },
        kind: { anyOf: [{ const: 'a' }, { enum: ['b', 'c'] }] },
        both: { allOf: [{ type: 'string' }, { not: { const: '' } }] },
        when: { if: { type: 'string' }, then: { format: 'date-time' }, else: { type: 'null' } },
        dict: { type: 'object', propertyNames: { pattern: '^[a-z]+$' }, additionalProperties: { type: 'number' } },
        more: { type: 'object', dependentSchemas: { a: { required: ['b'] } }, dependentRequired: { b: ['a'] } },
        rest: { type: 'object', unevaluatedProperties: false, minProperties: 1, maxProperties: 3 },
        list: { type: 'array', unevaluatedItems: { type: 'string' } },
        mail: { type: 'string', format: 'email', maxLength: 254 },
      },
      patternProperties: { '^x_': { type: 'string' }, 'é+': true },
    },
  ],
  ['the annotation keywords', { title: 'T', description: 'D', default: {}, examples: [{}], deprecated: true }],
  [
    'annotations on a property',
    { type: 'object', properties: { a: { type: 'string', readOnly: true, writeOnly: false, $comment: 'c' } } },
  ],
  [
    'content annotations, and a contentSchema ajv does not compile',
    { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png', contentSchema: { typo: 1 } },
  ],
  ['data that looks like keywords', { enum: [{ propertes: 1 }], const: { requird: [] }, default: { minimun: 1 } }],
  ['a property named like a misspelt keyword', { type: 'object', properties: { propertes: { type: 'string' } } }],
  ['vendor extensions anywhere', { type: 'object', 'x-owner': 'me', properties: { a: { 'x-mcp-header': 'A' } } }],
  ['boolean subschemas', { type: 'object', properties: { a: true, b: false }, additionalProperties: false }],
  ['an unknown keyword at the root', { type: 'object', propertes: {} }],
  ['an unknown keyword in a property', { type: 'object', properties: { n: { type: 'integer', minimun: 1 } } }],
  ['an unknown keyword under items', { type: 'array', items: { enun: ['a'] } }],
  ['an unknown keyword in prefixItems', { type: 'array', prefixItems: [{ type: 'string' }, { typ: 'x' }] }],
  ['an unknown keyword in allOf', { allOf: [{ type: 'string' }, { maxLenght: 3 }] }],
  ['an unknown keyword in not', { not: { constt: 1 } }],
  ['an unknown keyword in if', { if: { typ: 'string' }, then: { minLength: 1 } }],
  ['an unknown keyword in else', { if: { type: 'string' }, else: { minimun: 1 } }],
  ['an unknown keyword in additionalProperties', { type: 'object', additionalProperties: { tipe: 'string' } }],
  ['an unknown keyword in propertyNames', { type: 'object', propertyNames: { patern: '^a' } }],
  ['an unknown keyword in patternProperties', { type: 'object', patternProperties: { '^a': { requird: [] } } }],
  ['an unknown keyword in dependentSchemas', { type: 'object', dependentSchemas: { a: { requird: [] } } }],
  ['an unknown keyword in contains', { type: 'array', contains: { cnst: 1 } }],
  ['an unknown keyword in unevaluatedProperties', { type: 'object', unevaluatedProperties: { tpye: 'string' } }],
  ['an unknown keyword in an otherwise empty subschema', { type: 'object', properties: { a: { foo: 1 } } }],
  ['a keyword that merely contains x-', { type: 'object', 'max-x-items': 1 }],
  ['an unknown format', { type: 'object', properties: { email: { type: 'string', format: 'emial' } } }],
  ['an unknown format in a list', { anyOf: [{ type: 'string', format: 'date' }, { format: 'dat' }] }],
  ['an unknown format under a property with a slash', { properties: { 'a/b~c d': { format: 'nope' } } }],
  ['then without if', { type: 'object', then: { required: ['a'] } }],
  ['else without if', { type: 'object', else: { required: ['a'] } }],
  ['if without then or else', { if: { type: 'string' } }],
  ['minContains without contains', { type: 'array', minContains: 1 }],
  ['maxContains without contains', { type: 'array', maxContains: 1 }],
  ['minContains 0 without maxContains', { type: 'array', contains: { type: 'string' }, minContains: 0 }],
  ['minContains above maxContains', { type: 'array', contains: { type: 'string' }, minContains: 3, maxContains: 2 }],
  ['a nested meaningless keyword', { type: 'object', properties: { a: { else: {} } } }],
  ['a pattern that is no regular expression', { type: 'string', pattern: '(' }],
  ['a pattern valid only without the unicode flag', { type: 'string', pattern: '^\\-$' }],
  ['a patternProperties key that is no regular expression', { type: 'object', patternProperties: { '[': {} } }],
  ['a type that is no type', { type: 'object', properties: { a: { type: 'strnig' } } }],
  ['a bound that is no number', { type: 'integer', minimum: 'one' }],
  ['required that is no list', { type: 'object', required: 'a' }],
  ['properties that are a list', { type: 'object', properties: [{ type: 'string' }] }],
  ['additionalItems in 2020-12 (a draft-07 keyword)', { type: 'array', items: [{}], additionalItems: false }],
];

/** Draft-07 schemas the check judges alone. */
const JUDGED_DRAFT_07: Array<[string, Record<string, unknown>]> = [
  ['a typical tool input', { $schema: DRAFT_07, ...filler }],
  [
    'a tuple with additionalItems and dependencies',
    {
      $schema: DRAFT_07,
      type: 'object',
      properties: { t: { type: 'array', items: [{ type: 'string' }], additionalItems: { type: 'number' } } },
      dependencies: { a: ['b'], c: { required: ['d'] } },
    },
  ],
  ['additionalItems beside a single items schema', { $schema: DRAFT_07, items: {}, additionalItems: false }],
  ['an unknown keyword in a tuple item', { $schema: DRAFT_07, items: [{ typ: 'string' }] }],
  ['an unknown keyword in additionalItems', { $schema: DRAFT_07, items: [{}], additionalItems: { tpye: 1 } }],
  ['an unknown keyword in a dependency schema', { $schema: DRAFT_07, dependencies: { a: { requird: [] } } }],
  ['a 2020-12 keyword in draft-07', { $schema: DRAFT_07, type: 'array', prefixItems: [] }],
  ['contains with minContains in draft-07', { $schema: DRAFT_07, contains: {}, minContains: 0 }],
  ['then without if in draft-07', { $schema: DRAFT_07, then: {} }],
];

/** Schemas only ajv can judge: compiled at registration, as before the check. */
const COMPILED_NOW: Array<[string, Record<string, unknown>]> = [
  ['a reference', { type: 'object', $defs: { a: { type: 'string' } }, properties: { a: { $ref: '#/$defs/a' } } }],
  ['an unresolvable reference', { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }],
  ['an identifier', { $id: 'https://example.com/a', type: 'object' }],
  ['unused definitions', { type: 'object', $defs: { a: { typo: 1 } } }],
  ['an anchor', { type: 'object', $defs: { a: { $anchor: 'x' } }, properties: { a: { $ref: '#x' } } }],
  ['$schema inside a subschema', { type: 'object', properties: { a: { $schema: DRAFT_07 } } }],
  ['the 2020-12 conformance schema of every keyword', JSON_SCHEMA_2020_12_INPUT],
  ["ajv-formats' own keywords", { type: 'string', format: 'date', formatMinimum: '2020-01-01' }],
  ['the unsupported id keyword', { type: 'object', properties: { a: { id: 'x' } } }],
];

describe('checkStrictSchema: the verdicts of ajv strict compile, without compiling', () => {
  describe.each([true, false])('with formats asserted: %s', (assertFormats) => {
    it.each(JUDGED)('2020-12: %s', (_label, schema) => {
      const verdict = checkVerdict(schema, '2020-12', assertFormats);
      expect(verdict).not.toBe('compile-now');
      expect(verdict).toBe(ajvVerdict(schema, '2020-12', assertFormats));
    });

    it.each(JUDGED_DRAFT_07)('draft-07: %s', (_label, schema) => {
      const verdict = checkVerdict(schema, 'draft-07', assertFormats);
      expect(verdict).not.toBe('compile-now');
      expect(verdict).toBe(ajvVerdict(schema, 'draft-07', assertFormats));
    });

    it.each(COMPILED_NOW)('leaves to ajv: %s', (_label, schema) => {
      expect(checkVerdict(schema, '2020-12', assertFormats)).toBe('compile-now');
    });
  });

  it('refuses what ajv refuses, in the cases above (so that the comparisons are not all "ok")', () => {
    const refused = JUDGED.filter(([, schema]) => ajvVerdict(schema, '2020-12', true) !== 'ok');
    expect(refused.length).toBeGreaterThan(30);
    expect(ajvVerdict({ type: 'object', properties: { e: { format: 'emial' } } }, '2020-12', true)).toBe(
      'unknown format "emial" ignored in schema at path "#/properties/e"',
    );
  });

  it('judges alone what zod 4 emits for schemas without recursion', () => {
    const tool = z.object({
      email: z.email(),
      when: z.iso.datetime(),
      n: z.number().int().min(1),
      tags: z.array(z.string()).max(3),
      mode: z.enum(['a', 'b']),
      pair: z.tuple([z.string(), z.number()]),
      opt: z.string().optional(),
      meta: z.string().meta({ description: 'D', 'x-owner': 'me' }),
    });
    const schema = z.toJSONSchema(tool, { target: 'draft-2020-12' }) as Record<string, unknown>;
    expect(checkVerdict(schema, '2020-12', true)).toBe('ok');
    expect(ajvVerdict(schema, '2020-12', true)).toBe('ok');
  });

  it.each([
    ['a pattern', { type: 'string', pattern: '^(a)\\1$' }],
    ['a patternProperties name', { type: 'object', patternProperties: { '(?<=a)b': {} } }],
  ])('refuses %s the linear engine cannot run, as ajv compiling with that engine does', (_label, schema) => {
    const engine = createPatternEngine();
    let refusal = 'ok';
    try {
      compileStrictly(createAjv('2020-12', true, { code: { regExp: engine } }), schema);
    } catch (error) {
      refusal = (error as Error).message;
    }
    expect(refusal).toMatch(/cannot be tested in linear time/);
    const { keywords, formats } = dialectTables('2020-12');
    expect(() =>
      checkStrictSchema(schema, { next: true, keywords, formats, compilePattern: (source) => engine(source, 'u') }),
    ).toThrow(refusal);
  });
});

describe('McpSchemaCompiler compiles a validator on its first use', () => {
  afterEach(() => jest.restoreAllMocks());

  it('checks a schema the check can judge at registration and compiles it on the first validation only', async () => {
    const compile = jest.spyOn(AjvCore.prototype, 'compile');
    const compiled = new McpSchemaCompiler().compile(filler, 'input');
    // The meta-schema is compiled for the check; the schema itself is not.
    expect(compile.mock.calls.some(([schema]) => schema === filler)).toBe(false);
    expect(await compiled.validate({ query: 'a', limit: 0 })).toMatchObject({
      ok: false,
      message: '/limit must be >= 1',
    });
    expect(await compiled.validate({ query: 'a', limit: 1 })).toEqual({ ok: true, value: { query: 'a', limit: 1 } });
    expect(compile.mock.calls.filter(([schema]) => schema === filler)).toHaveLength(1);
  });

  it('loads ajv for the first validator it compiles, not to check a schema', async () => {
    let loads = 0;
    let compiled!: ReturnType<McpSchemaCompiler['compile']>;
    jest.isolateModules(() => {
      jest.doMock('ajv/dist/2020', () => {
        loads++;
        return jest.requireActual('ajv/dist/2020');
      });
      const fresh = jest.requireActual<{ McpSchemaCompiler: typeof McpSchemaCompiler }>('./mcp-schema.compiler');
      compiled = new fresh.McpSchemaCompiler().compile(filler, 'input');
    });
    expect(loads).toBe(0);
    expect(await compiled.validate({ query: 'a' })).toMatchObject({ ok: true });
    expect(loads).toBe(1);
  });

  it('compiles a schema with references at registration', () => {
    const compile = jest.spyOn(AjvCore.prototype, 'compile');
    const schema = COMPILED_NOW[0][1];
    new McpSchemaCompiler().compile(schema, 'input');
    expect(compile.mock.calls.filter(([compiled]) => compiled === schema)).toHaveLength(1);
  });

  it('still refuses an unresolvable reference at registration', () => {
    expect(() => new McpSchemaCompiler().compile(COMPILED_NOW[1][1], 'input')).toThrow(/can't resolve reference/);
  });
});
