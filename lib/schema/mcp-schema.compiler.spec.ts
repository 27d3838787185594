import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { z } from 'zod';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { StandardSchemaLike } from '../interfaces/mcp-schema.interface';
import type { CompiledSchema, ValidationOutcome } from '../protocol/catalog';
import { formatAjvErrors, McpSchemaCompiler } from './mcp-schema.compiler';

// One compiler for the file: its ajv instance is costly to build and holds nothing per schema.
const compiler = new McpSchemaCompiler();

async function validate(schema: CompiledSchema, value: unknown): Promise<ValidationOutcome> {
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
      const bare: StandardSchemaLike = {
        '~standard': { version: 1, vendor: 'acme-schema', validate: (value) => ({ value }) },
      };
      const error = configurationError(() => compiler.compile(bare, 'input'));
      expect(error.message).toContain('acme-schema');
      expect(error.message).toContain('~standard.jsonSchema');
    });

    it('refuses a Standard Schema whose JSON Schema conversion fails', () => {
      const unconvertible: StandardSchemaLike = {
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

describe('formatAjvErrors', () => {
  it('says "invalid value" when there is nothing to say', () => {
    expect(formatAjvErrors(null)).toBe('invalid value');
    expect(formatAjvErrors([])).toBe('invalid value');
  });
});
