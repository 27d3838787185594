import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBase64,
  IsCreditCard,
  IsDateString,
  IsEmail,
  IsEnum,
  IsHexColor,
  IsInt,
  IsIP,
  IsISBN,
  IsJSON,
  IsMobilePhone,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  Min,
  ValidateNested,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { z } from 'zod';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpSchema, McpStandardSchemaLike } from '../interfaces/mcp-schema.interface';
import type { McpCompiledSchema, McpValidationOutcome } from '../protocol/calls/catalog';
import { JSON_SCHEMA_2020_12_INPUT } from '../../test/conformance/conformance.fixtures';
import { formatAjvErrors, McpSchemaCompiler } from './mcp-schema.compiler';

// One compiler for the file: its ajv instance is costly to build and holds nothing per schema.
const compiler = new McpSchemaCompiler();

async function validate(schema: McpCompiledSchema, value: unknown): Promise<McpValidationOutcome> {
  return schema.validate(value);
}

function configurationError(run: () => unknown): McpConfigurationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigurationError);
    return error as McpConfigurationError;
  }
  throw new Error('expected an McpConfigurationError');
}

describe('McpSchemaCompiler', () => {
  describe('no schema', () => {
    it('is any object', async () => {
      const compiled = compiler.compile(undefined, 'input');
      expect(compiled.jsonSchema).toEqual({ type: 'object' });
      expect(await validate(compiled, { anything: [1] })).toEqual({ ok: true, value: { anything: [1] } });
    });
  });

  describe('plain JSON Schema (2020-12 by default)', () => {
    const order = {
      type: 'object',
      $defs: {
        address: {
          type: 'object',
          properties: { street: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{5}$' } },
          required: ['street', 'zip'],
          additionalProperties: false,
        },
      },
      properties: {
        id: { type: 'integer', minimum: 1 },
        email: { type: 'string', format: 'email' },
        shipTo: { $ref: '#/$defs/address' },
        tags: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
      },
      required: ['id', 'shipTo'],
      additionalProperties: false,
    };
    const compiled = compiler.compile(order, 'input');
    const valid = { id: 1, email: 'a@b.co', shipTo: { street: 'Main', zip: '12345' }, tags: ['x', 2] };

    it('advertises the schema verbatim', () => {
      expect(compiled.jsonSchema).toBe(order);
    });

    it('accepts a valid value as is', async () => {
      expect(await validate(compiled, valid)).toEqual({ ok: true, value: valid });
    });

    it.each<[string, unknown, string]>([
      ['an unknown property', { ...valid, extra: 1 }, 'must NOT have additional properties "extra"'],
      ['a missing required property', { shipTo: valid.shipTo }, "must have required property 'id'"],
      ['a wrong type', { ...valid, id: 'one' }, '/id must be integer'],
      ['a value under its minimum', { ...valid, id: 0 }, '/id must be >= 1'],
      [
        'a bad nested value through $ref',
        { ...valid, shipTo: { street: 'Main', zip: 'abc' } },
        '/shipTo/zip must match pattern',
      ],
      [
        'an unknown nested property',
        { ...valid, shipTo: { ...valid.shipTo, floor: 2 } },
        'additional properties "floor"',
      ],
      ['a bad format', { ...valid, email: 'not-an-email' }, '/email must match format "email"'],
      ['a 2020-12 prefixItems mismatch', { ...valid, tags: [1, 2] }, '/tags/0 must be string'],
      ['an item beyond prefixItems (items: false)', { ...valid, tags: ['x', 2, 3] }, '/tags'],
    ])('refuses %s with a readable message', async (_label, value, message) => {
      const outcome = await validate(compiled, value);
      expect(outcome.ok).toBe(false);
      expect(!outcome.ok && outcome.message).toContain(message);
    });

    it('lists at most five errors and counts the rest', async () => {
      const many = compiler.compile(
        {
          type: 'object',
          properties: Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((key) => [key, { type: 'string' }])),
        },
        'input',
      );
      const outcome = await validate(many, { a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1 });
      expect(!outcome.ok && outcome.message).toBe(
        '/a must be string; /b must be string; /c must be string; /d must be string; /e must be string (and 2 more)',
      );
    });

    it.each([['https://json-schema.org/draft/2020-12/schema'], ['https://json-schema.org/draft/2020-12/schema#']])(
      'accepts $schema %s',
      async (dialect) => {
        const compiled2020 = compiler.compile({ $schema: dialect, type: 'object', required: ['a'] }, 'input');
        expect(await validate(compiled2020, {})).toMatchObject({ ok: false });
        expect(await validate(compiled2020, { a: 1 })).toMatchObject({ ok: true });
      },
    );

    it.each([['http://json-schema.org/draft-07/schema#'], ['http://json-schema.org/draft-07/schema']])(
      'accepts a draft-07 $schema (%s) with definitions',
      async (dialect) => {
        const draft07 = compiler.compile(
          {
            $schema: dialect,
            type: 'object',
            definitions: { name: { type: 'string', minLength: 2 } },
            properties: { name: { $ref: '#/definitions/name' } },
            required: ['name'],
          },
          'input',
        );
        expect(await validate(draft07, { name: 'Ada' })).toMatchObject({ ok: true });
        expect(await validate(draft07, { name: 'A' })).toMatchObject({ ok: false });
      },
    );

    it.each([
      ['draft-04', 'http://json-schema.org/draft-04/schema#'],
      ['draft-06', 'http://json-schema.org/draft-06/schema#'],
      ['2019-09', 'https://json-schema.org/draft/2019-09/schema'],
      ['a made-up dialect', 'https://example.com/my-dialect'],
    ])('refuses an unsupported $schema (%s)', (_label, dialect) => {
      const error = configurationError(() => compiler.compile({ $schema: dialect, type: 'object' }, 'input'));
      expect(error.message).toContain('unsupported JSON Schema dialect');
      expect(error.message).toContain(dialect.replace(/#$/, ''));
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['an unknown type', { type: 'nope' }, /type/],
      ['properties that are not an object', { properties: 5 }, /properties must be object/],
      ['required that is not an array', { required: 'a' }, /required/],
      ['a dangling local $ref', { $ref: '#/$defs/missing' }, /missing/],
      ['a network $ref (never fetched)', { $ref: 'https://example.com/schema.json' }, /example\.com/],
      ['a negative minLength', { type: 'string', minLength: -1 }, /minLength/],
    ])('refuses %s with McpConfigurationError', (_label, schema, message) => {
      expect(configurationError(() => compiler.compile(schema, 'input')).message).toMatch(message);
    });

    it.each([
      ['an array', [{ type: 'string' }]],
      ['a string', 'object'],
      ['a number', 42],
      ['null', null],
    ])('refuses %s as a schema', (_label, schema) => {
      configurationError(() => compiler.compile(schema as never, 'input'));
    });
  });

  describe('class-validator DTOs', () => {
    class AddressDto {
      @IsString()
      street!: string;

      @IsString()
      @IsOptional()
      city?: string;
    }

    class CustomerDto {
      @IsString()
      name!: string;

      @IsInt()
      @Min(0)
      age!: number;

      @ValidateNested()
      @Type(() => AddressDto)
      address!: AddressDto;
    }

    const compiled = compiler.compile(CustomerDto, 'input');

    it('generates an object schema with $defs for nested DTOs', () => {
      expect(compiled.jsonSchema).toMatchObject({
        type: 'object',
        properties: {
          name: { type: 'string' },
          age: { type: 'integer', minimum: 0 },
          address: { $ref: '#/$defs/AddressDto' },
        },
        $defs: { AddressDto: { properties: { street: { type: 'string' } } } },
      });
    });

    it('validates into instances of the DTO classes', async () => {
      const outcome = await validate(compiled, { name: 'Ada', age: 36, address: { street: 'Main' } });
      expect(outcome.ok).toBe(true);
      const value = (outcome as { value: CustomerDto }).value;
      expect(value).toBeInstanceOf(CustomerDto);
      expect(value.address).toBeInstanceOf(AddressDto);
      expect(value).toMatchObject({ name: 'Ada', age: 36, address: { street: 'Main' } });
    });

    it('reports nested errors with their path', async () => {
      const outcome = await validate(compiled, { name: 7, age: -1, address: { street: 3 } });
      expect(outcome.ok).toBe(false);
      const message = (outcome as { message: string }).message;
      expect(message).toContain('/name: name must be a string');
      expect(message).toContain('/age: age must not be less than 0');
      expect(message).toContain('/address/street: street must be a string');
    });

    it('refuses a class without class-validator decorators', () => {
      class Plain {
        value = 1;
      }
      expect(configurationError(() => compiler.compile(Plain, 'input')).message).toContain(
        'has no class-validator decorators',
      );
    });
  });

  describe('Standard Schema (zod 4)', () => {
    const schema = z.object({
      name: z.string().min(1),
      count: z.number().int().default(1),
      tags: z.array(z.string()).optional(),
    });
    const compiled = compiler.compile(schema, 'input');

    it('takes the JSON Schema from ~standard.jsonSchema (2020-12)', () => {
      expect(compiled.jsonSchema).toMatchObject({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { name: { type: 'string', minLength: 1 }, count: { type: 'integer' } },
        required: ['name'],
      });
    });

    it('uses the output form of the schema for output schemas', () => {
      expect(compiler.compile(schema, 'output').jsonSchema).toMatchObject({ required: ['name', 'count'] });
    });

    it('validates with the schema itself and returns its parsed value', async () => {
      expect(await validate(compiled, { name: 'x' })).toEqual({ ok: true, value: { name: 'x', count: 1 } });
    });

    it('reports issues with their path', async () => {
      const outcome = await validate(compiled, { name: '', count: 1.5, tags: ['a', 2] });
      expect(outcome.ok).toBe(false);
      const message = (outcome as { message: string }).message;
      expect(message).toMatch(/^\/name /);
      expect(message).toContain('/count ');
      expect(message).toContain('/tags/1 ');
    });

    it('refuses a Standard Schema without ~standard.jsonSchema, naming the vendor', () => {
      const bare: McpStandardSchemaLike = {
        '~standard': { version: 1, vendor: 'acme-schema', validate: (value) => ({ value }) },
      };
      const error = configurationError(() => compiler.compile(bare, 'input'));
      expect(error.message).toContain('acme-schema');
      expect(error.message).toContain('~standard.jsonSchema');
    });

    it('refuses a Standard Schema whose JSON Schema conversion fails', () => {
      const unconvertible: McpStandardSchemaLike = {
        '~standard': {
          version: 1,
          vendor: 'acme-schema',
          validate: (value) => ({ value }),
          jsonSchema: {
            input: () => {
              throw new Error('transforms cannot be represented');
            },
            output: () => ({}),
          },
        },
      };
      expect(configurationError(() => compiler.compile(unconvertible, 'input')).message).toContain(
        'transforms cannot be represented',
      );
    });

    it('refuses a zod schema that cannot be expressed as JSON Schema', () => {
      configurationError(() => compiler.compile(z.object({ when: z.date() }), 'input'));
    });
  });
});

describe('strict schemas: a keyword ajv does not know stops the registration', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['at the root', { type: 'object', propertes: { a: { type: 'string' } } }, 'propertes'],
    ['beside properties', { type: 'object', properties: { sku: { type: 'string' } }, requird: ['sku'] }, 'requird'],
    ['in a property', { type: 'object', properties: { n: { type: 'integer', minimun: 1 } } }, 'minimun'],
    [
      'in a definition it refers to',
      { type: 'object', $defs: { a: { type: 'string', maxLenght: 3 } }, properties: { a: { $ref: '#/$defs/a' } } },
      'maxLenght',
    ],
    ['under items', { type: 'object', properties: { l: { type: 'array', items: { enun: ['a'] } } } }, 'enun'],
    [
      'in a draft-07 schema',
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', additionalProperty: false },
      'additionalProperty',
    ],
  ])('refuses an unknown keyword %s, naming it', (_label, schema, keyword) => {
    const error = configurationError(() => compiler.compile(schema, 'input'));
    expect(error.message).toContain(`unknown keyword "${keyword}"`);
    expect(error.message).toContain('"x-...');
  });

  it('refuses an unknown keyword of an output schema too', () => {
    const error = configurationError(() =>
      compiler.compile({ type: 'object', properties: {}, requried: [] }, 'output'),
    );
    expect(error.message).toContain('unknown keyword "requried"');
  });

  it('refuses a format ajv does not know in plain JSON Schema (a misspelt one would check nothing)', () => {
    const error = configurationError(() =>
      compiler.compile({ type: 'object', properties: { email: { type: 'string', format: 'emial' } } }, 'input'),
    );
    expect(error.message).toContain('unknown format "emial"');
  });

  it('refuses keywords that strict mode finds meaningless', () => {
    expect(
      configurationError(() => compiler.compile({ type: 'object', then: { required: ['a'] } }, 'input')).message,
    ).toContain('"then" without "if"');
  });

  it('accepts the annotation keywords real schemas carry', async () => {
    const annotated = compiler.compile(
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: 'https://example.com/schemas/upload',
        $comment: 'an upload',
        title: 'Upload',
        description: 'A file to store',
        type: 'object',
        default: {},
        examples: [{ name: 'a.png' }],
        deprecated: false,
        properties: {
          name: { type: 'string', readOnly: true, writeOnly: false, format: 'hostname' },
          data: { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png' },
          meta: { type: 'string', contentMediaType: 'application/json', contentSchema: { type: 'object' } },
          kind: { enum: ['a', 'b'], patternProperties: {}, propertyNames: { pattern: '^[a-z]+$' } },
        },
        patternProperties: { '^n': { type: 'string' } },
        dependentRequired: { data: ['name'] },
        unevaluatedProperties: false,
      },
      'input',
    );
    expect(await validate(annotated, { name: 'a.png', data: 'AAAA' })).toMatchObject({ ok: true });
    expect(await validate(annotated, { data: 'AAAA' })).toMatchObject({ ok: false });
  });

  it('accepts $anchor (2020-12) and resolves references to it', async () => {
    const anchored = compiler.compile(
      {
        type: 'object',
        $defs: { zip: { $anchor: 'zipCode', type: 'string', pattern: '^[0-9]{5}$' } },
        properties: { zip: { $ref: '#zipCode' } },
      },
      'input',
    );
    expect(await validate(anchored, { zip: '12345' })).toMatchObject({ ok: true });
    expect(await validate(anchored, { zip: 'N1' })).toMatchObject({ ok: false });
  });

  it('accepts the conformance suite schema of every 2020-12 keyword', async () => {
    const compiled = compiler.compile(JSON_SCHEMA_2020_12_INPUT, 'input');
    expect(compiled.jsonSchema).toBe(JSON_SCHEMA_2020_12_INPUT);
    expect(await validate(compiled, { name: 'Ada', contactMethod: 'email', email: 'a@b.co' })).toMatchObject({
      ok: true,
    });
    expect(await validate(compiled, { name: 'Ada', contactMethod: 'phone', email: 'a@b.co' })).toMatchObject({
      ok: false,
    });
  });

  it('accepts the same annotations in a draft-07 schema', () => {
    compiler.compile(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $comment: 'old',
        title: 'T',
        type: 'object',
        definitions: { a: { type: 'string', examples: ['x'], readOnly: true } },
        properties: { a: { $ref: '#/definitions/a' }, b: { type: 'string', contentEncoding: 'base64' } },
      },
      'input',
    );
  });

  it('takes vendor extensions (x-*) as annotations, wherever they are', async () => {
    const extended = compiler.compile(
      {
        $id: 'https://example.com/schemas/payment',
        type: 'object',
        'x-vendor-owner': 'billing',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          amount: { type: 'number', 'x-unit': { currency: 'EUR' } },
        },
        $defs: { id: { type: 'string', 'x-internal': true } },
        required: ['region'],
      },
      'input',
    );
    expect(await validate(extended, { region: 'eu', amount: 3 })).toMatchObject({ ok: true });
    expect(await validate(extended, { amount: 3 })).toMatchObject({ ok: false });
    compiler.compile({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', 'x-legacy': 1 }, 'input');
  });

  it('does not take a keyword that merely contains x- for a vendor extension', () => {
    expect(configurationError(() => compiler.compile({ type: 'object', 'max-x-items': 1 }, 'input')).message).toContain(
      'unknown keyword "max-x-items"',
    );
  });

  it('compiles what zod 4 emits: its formats, metadata and every construct it can express', () => {
    const Tree: z.ZodType<{ name: string; children: unknown[] }> = z.object({
      name: z.string(),
      get children() {
        return z.array(Tree);
      },
    });
    const everything = z.object({
      email: z.email(),
      url: z.url(),
      uuid: z.uuid(),
      emoji: z.emoji(),
      nanoid: z.nanoid(),
      cuid: z.cuid(),
      cuid2: z.cuid2(),
      ulid: z.ulid(),
      ip: z.ipv4(),
      cidr: z.cidrv6(),
      base64: z.base64(),
      base64url: z.base64url(),
      e164: z.e164(),
      jwt: z.jwt(),
      when: z.iso.datetime(),
      day: z.iso.date(),
      duration: z.iso.duration(),
      hex: z.hex(),
      lower: z.string().lowercase(),
      prefix: z.string().startsWith('a').endsWith('z').includes('m'),
      regex: z.string().regex(/^a+$/),
      number: z.number().gt(1).lt(10).multipleOf(2),
      int: z.int32(),
      literal: z.literal(['a', 'b']),
      enum: z.enum(['a', 'b']),
      tuple: z.tuple([z.string()], z.number()),
      record: z.record(z.string(), z.number()),
      partial: z.partialRecord(z.enum(['a']), z.string()),
      catchall: z.object({ a: z.string() }).catchall(z.string()),
      strict: z.strictObject({ a: z.string() }),
      union: z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b') })]),
      intersection: z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() })),
      nullish: z.string().nullish(),
      defaulted: z.string().default('x'),
      readonly: z.array(z.string()).readonly(),
      tree: Tree,
      meta: z.string().meta({ title: 'T', description: 'D', examples: ['a'], deprecated: true, 'x-owner': 'me' }),
      template: z.templateLiteral(['a', z.number()]),
      json: z.json(),
      anything: z.unknown(),
    });
    for (const role of ['input', 'output'] as const) {
      expect(compiler.compile(everything, role).jsonSchema).toMatchObject({ type: 'object' });
    }
  });

  it('refuses zod metadata that is not a keyword', () => {
    const error = configurationError(() => compiler.compile(z.object({ a: z.string().meta({ label: 'A' }) }), 'input'));
    expect(error.message).toContain('unknown keyword "label"');
  });

  it('compiles what class-validator-jsonschema emits, its own formats included', () => {
    enum Color {
      Red = 'red',
    }
    class EverythingDto {
      @IsEmail() email!: string;
      @IsUrl() site!: string;
      @IsUUID() id!: string;
      @IsDateString() when!: string;
      @IsBase64() blob!: string;
      @IsCreditCard() card!: string;
      @IsMobilePhone() phone!: string;
      @IsISBN() isbn!: string;
      @IsJSON() json!: string;
      @IsIP('4') ip!: string;
      @IsHexColor() color!: string;
      @IsEnum(Color) hue!: Color;
      @IsArray() @ArrayMaxSize(2) @IsString({ each: true }) tags!: string[];
    }
    expect(compiler.compile(EverythingDto, 'input').jsonSchema).toMatchObject({ type: 'object' });
  });

  it('refuses a DTO whose @JSONSchema() adds an unknown keyword', () => {
    class AnnotatedDto {
      @IsString()
      @JSONSchema({ descripton: 'typo' } as never)
      name!: string;
    }
    expect(configurationError(() => compiler.compile(AnnotatedDto, 'input')).message).toContain(
      'unknown keyword "descripton"',
    );
  });
});

describe('what the advertised schema refuses, the call refuses', () => {
  class NoteDto {
    @IsString()
    title!: string;

    @IsOptional()
    @IsArray()
    @IsString({ each: true })
    tags?: string[];

    @IsOptional()
    @IsUrl()
    link?: string;
  }

  it('a DTO: null for an optional array passes class-validator, not the advertised schema', async () => {
    const compiled = compiler.compile(NoteDto, 'input');
    expect(compiled.jsonSchema).toMatchObject({ properties: { tags: { type: 'array' } } });
    const outcome = await validate(compiled, { title: 'a', tags: null });
    expect(outcome).toEqual({ ok: false, message: '/tags must be array' });
  });

  it('a DTO: valid values still reach the handler as instances', async () => {
    const outcome = await validate(compiler.compile(NoteDto, 'input'), { title: 'a', tags: ['x'] });
    expect(outcome.ok && outcome.value).toBeInstanceOf(NoteDto);
  });

  it("a DTO: class-validator's messages come first", async () => {
    const outcome = await validate(compiler.compile(NoteDto, 'input'), { title: 1, tags: null });
    expect(outcome).toEqual({ ok: false, message: '/title: title must be a string' });
  });

  it("a DTO: formats stay class-validator's (format is an annotation to the advertised check)", async () => {
    // @IsUrl() takes a URL without a scheme; ajv's "url" format would not.
    expect(await validate(compiler.compile(NoteDto, 'input'), { title: 'a', link: 'example.com' })).toMatchObject({
      ok: true,
    });
  });

  it('a DTO output schema is enforced the same way', async () => {
    const outcome = await validate(compiler.compile(NoteDto, 'output'), { title: 'a', tags: null });
    expect(outcome).toEqual({ ok: false, message: '/tags must be array' });
  });

  it('zod: a coercing schema accepts a string, its advertised schema does not', async () => {
    const compiled = compiler.compile(z.object({ count: z.coerce.number() }), 'input');
    expect(compiled.jsonSchema).toMatchObject({ properties: { count: { type: 'number' } } });
    expect(await validate(compiled, { count: '5' })).toEqual({ ok: false, message: '/count must be number' });
    expect(await validate(compiled, { count: 5 })).toEqual({ ok: true, value: { count: 5 } });
  });

  it('zod: an output with a property its schema lacks is refused, since the advertised output schema is closed', async () => {
    const compiled = compiler.compile(z.object({ total: z.number() }), 'output');
    expect(compiled.jsonSchema).toMatchObject({ additionalProperties: false });
    expect(await validate(compiled, { total: 1, debug: true })).toEqual({
      ok: false,
      message: 'must NOT have additional properties "debug"',
    });
  });

  it('zod: a synchronous schema answers without a promise', () => {
    const outcome = compiler.compile(z.object({ a: z.string() }), 'input').validate({ a: 'x' });
    expect(outcome).toEqual({ ok: true, value: { a: 'x' } });
  });

  it('zod: an asynchronous refinement still works', async () => {
    const compiled = compiler.compile(
      z.object({ a: z.string().refine(async (value) => value !== 'taken', 'is taken') }),
      'input',
    );
    expect(await validate(compiled, { a: 'free' })).toEqual({ ok: true, value: { a: 'free' } });
    expect(await validate(compiled, { a: 'taken' })).toEqual({ ok: false, message: '/a is taken' });
  });

  it('zod: what its own schema refuses keeps its own message', async () => {
    const outcome = await validate(compiler.compile(z.object({ count: z.number().max(3) }), 'input'), { count: 9 });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.message).toMatch(/^\/count Too big/);
  });

  it('a tool without schema does no work at all', () => {
    const none = compiler.compile(undefined, 'input');
    const value = { a: 1 };
    const outcome = none.validate(value);
    expect(outcome).toEqual({ ok: true, value });
    expect(outcome).not.toBeInstanceOf(Promise);
  });
});

describe('schema patterns: tested in time linear in the string', () => {
  const HOSTILE = `${'a'.repeat(29)}!`;

  // JavaScript's RegExp takes seconds on each (2^29 ways to split the a's); the compiler's
  // engine, milliseconds. Warmed first, so that what is timed is validating, not compiling.
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    [
      'a pattern',
      { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
      { s: HOSTILE },
      '/s must match pattern "^(a+)+$"',
    ],
    [
      'a patternProperties name (a client chooses property names)',
      { type: 'object', patternProperties: { '^(a+)+$': { type: 'string' } }, additionalProperties: false },
      { [HOSTILE]: 'x' },
      `must NOT have additional properties "${HOSTILE}"`,
    ],
    [
      'a propertyNames pattern',
      { type: 'object', propertyNames: { pattern: '^(a+)+$' } },
      { [HOSTILE]: 'x' },
      'must match pattern "^(a+)+$"; property name must be valid',
    ],
  ])('%s answers a hostile string in under 50 ms, with its error', async (_label, schema, value, message) => {
    const compiled = compiler.compile(schema, 'input');
    await validate(compiled, { s: 'aaa', aaa: 'x' });
    const started = performance.now();
    const outcome = await validate(compiled, value);
    const elapsed = performance.now() - started;
    expect(outcome).toEqual({ ok: false, message });
    expect(elapsed).toBeLessThan(50);
  });

  it('keep their meaning: ECMAScript patterns with the u flag', async () => {
    const compiled = compiler.compile(
      {
        type: 'object',
        properties: {
          zip: { type: 'string', pattern: '^[0-9]{5}$' },
          name: { type: 'string', pattern: '^\\p{Lu}\\p{Ll}+$' },
          space: { type: 'string', pattern: '^\\s$' },
        },
      },
      'input',
    );
    expect((await validate(compiled, { zip: '75001', name: 'Émile', space: '\u00a0' })).ok).toBe(true);
    expect(await validate(compiled, { zip: '7500', name: 'émile', space: '_' })).toEqual({
      ok: false,
      message:
        '/zip must match pattern "^[0-9]{5}$"; /name must match pattern "^\\p{Lu}\\p{Ll}+$"; /space must match pattern "^\\s$"',
    });
  });

  class PairDto {
    @Matches(/^(\w)\1$/)
    pair!: string;
  }

  it.each<[string, McpSchema]>([
    [
      'JSON Schema checked without compiling',
      { type: 'object', properties: { p: { type: 'string', pattern: '^(\\w)\\1$' } } },
    ],
    [
      'JSON Schema compiled at once ($defs)',
      {
        type: 'object',
        $defs: { pair: { type: 'string', pattern: '^(\\w)\\1$' } },
        properties: { p: { $ref: '#/$defs/pair' } },
      },
    ],
  ])('that need backtracking are refused at registration: %s', (_label, schema) => {
    expect(configurationError(() => compiler.compile(schema, 'input')).message).toBe(
      'pattern "^(\\w)\\1$" cannot be tested in linear time (it has a backreference); list it in the McpModule option "nativeSchemaPatterns" to test it with JavaScript\'s RegExp, which backtracks',
    );
  });

  it("that need backtracking run on RegExp in a DTO's advertised schema, as its own @Matches already does", async () => {
    const compiled = compiler.compile(PairDto, 'input');
    expect(compiled.jsonSchema).toMatchObject({ properties: { pair: { pattern: '^(\\w)\\1$' } } });
    expect((await validate(compiled, { pair: 'qq' })).ok).toBe(true);
    expect((await validate(compiled, { pair: 'qz' })).ok).toBe(false);
  });

  it('listed in nativeSchemaPatterns run on JavaScript RegExp', async () => {
    const trusting = new McpSchemaCompiler({ nativeSchemaPatterns: ['^(\\w)\\1$'] });
    const compiled = trusting.compile(
      { type: 'object', properties: { p: { type: 'string', pattern: '^(\\w)\\1$' } } },
      'input',
    );
    expect((await validate(compiled, { p: 'zz' })).ok).toBe(true);
    expect(await validate(compiled, { p: 'zy' })).toEqual({ ok: false, message: '/p must match pattern "^(\\w)\\1$"' });
    expect((await validate(trusting.compile(PairDto, 'input'), { pair: 'qq' })).ok).toBe(true);
  });
});

describe('class-validator options', () => {
  class SkuDto {
    @IsString()
    sku!: string;

    @IsOptional()
    @IsInt()
    quantity?: number;
  }

  it('come from the module (MCP_RESOLVED_OPTIONS) and reach class-validator', async () => {
    const strict = new McpSchemaCompiler({ validatorOptions: { whitelist: true, forbidNonWhitelisted: true } });
    const compiled = strict.compile(SkuDto, 'input');
    expect(compiled.jsonSchema).toMatchObject({ additionalProperties: false });
    const outcome = await validate(compiled, { sku: 'A', gift: true });
    expect(outcome).toEqual({ ok: false, message: '/gift: property gift should not exist' });
  });

  it("a tool's options override the module's one by one", async () => {
    const module = new McpSchemaCompiler({ validatorOptions: { whitelist: true, forbidNonWhitelisted: true } });
    const relaxed = module.compile(SkuDto, 'input', { forbidNonWhitelisted: false });
    expect(relaxed.jsonSchema).not.toHaveProperty('additionalProperties');
    // Still whitelisting (the module's), no longer forbidding (the tool's): the extra is stripped.
    const outcome = await validate(relaxed, { sku: 'A', gift: true });
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && outcome.value).not.toHaveProperty('gift');
  });

  it('without options, an unknown property is kept and nothing is forbidden', async () => {
    const outcome = await validate(compiler.compile(SkuDto, 'input'), { sku: 'A', gift: true });
    expect(outcome.ok && outcome.value).toMatchObject({ sku: 'A', gift: true });
  });
});

describe('formatAjvErrors', () => {
  it('says "invalid value" when there is nothing to say', () => {
    expect(formatAjvErrors(null)).toBe('invalid value');
    expect(formatAjvErrors([])).toBe('invalid value');
  });
});
