import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsInt,
  IsOptional,
  IsString,
  ValidateNested,
} from 'class-validator';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { CompiledSchema } from '../protocol/catalog';
import { compileDtoSchema } from './dto-schema.adapter';
import { McpSchemaCompiler } from './mcp-schema.compiler';

class GeoDto {
  @IsInt()
  lat!: number;

  @IsInt()
  lng!: number;
}

class LineDto {
  @IsString()
  sku!: string;

  @IsInt()
  quantity!: number;
}

class WarehouseDto {
  @IsString()
  code!: string;

  @ValidateNested()
  @Type(() => GeoDto)
  location!: GeoDto;
}

class OrderDto {
  @IsEmail()
  email!: string;

  @IsBoolean()
  @IsOptional()
  rush?: boolean;

  @IsArray()
  @ArrayMaxSize(3)
  @ValidateNested({ each: true })
  @Type(() => LineDto)
  lines!: LineDto[];

  @ValidateNested()
  @Type(() => WarehouseDto)
  from!: WarehouseDto;
}

/** An unrelated DTO: its definition must not leak into OrderDto's $defs. */
class UnrelatedDto {
  @IsString()
  whatever!: string;
}

const compiler = new McpSchemaCompiler();
const compileJson = (schema: Record<string, unknown>): CompiledSchema => compiler.compileJsonSchema(schema);

describe('compileDtoSchema', () => {
  it('collects the definitions a DTO refers to, transitively, and only those', () => {
    expect(compileDtoSchema(UnrelatedDto, compileJson).jsonSchema.properties).toEqual({ whatever: { type: 'string' } });
    const { jsonSchema } = compileDtoSchema(OrderDto, compileJson);
    expect(jsonSchema.type).toBe('object');
    expect(Object.keys(jsonSchema.$defs as object).sort()).toEqual(['GeoDto', 'LineDto', 'WarehouseDto']);
    expect(jsonSchema.properties).toMatchObject({
      email: { type: 'string', format: 'email' },
      rush: { type: 'boolean' },
      lines: { type: 'array', items: { $ref: '#/$defs/LineDto' }, maxItems: 3 },
      from: { $ref: '#/$defs/WarehouseDto' },
    });
    expect(jsonSchema.required).toEqual(expect.arrayContaining(['email', 'lines', 'from']));
    expect(jsonSchema.required).not.toContain('rush');
  });

  it('produces a JSON Schema that compiles and validates like the DTO', async () => {
    const { jsonSchema } = compileDtoSchema(OrderDto, compileJson);
    const asJson = compiler.compileJsonSchema(jsonSchema);
    const good = {
      email: 'a@b.co',
      lines: [{ sku: 'x', quantity: 1 }],
      from: { code: 'W1', location: { lat: 1, lng: 2 } },
    };
    expect(await asJson.validate(good)).toMatchObject({ ok: true });
    expect(await asJson.validate({ ...good, from: { code: 'W1', location: { lat: 'n', lng: 2 } } })).toMatchObject({
      ok: false,
    });
  });

  it('hands the generated schema to the JSON Schema compiler once', () => {
    const seen: Array<Record<string, unknown>> = [];
    const compiled = compileDtoSchema(GeoDto, (schema) => {
      seen.push(schema);
      return compileJson(schema);
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(compiled.jsonSchema);
    expect(compiled.jsonSchema).not.toHaveProperty('$defs');
  });

  it('lets a JSON Schema compilation failure stop the registration', () => {
    expect(() =>
      compileDtoSchema(GeoDto, () => {
        throw new McpConfigurationError('schema is invalid');
      }),
    ).toThrow('schema is invalid');
  });

  it('turns valid values into nested instances', async () => {
    const { validate } = compileDtoSchema(OrderDto, compileJson);
    const outcome = await validate({
      email: 'a@b.co',
      lines: [{ sku: 'x', quantity: 2 }],
      from: { code: 'W1', location: { lat: 1, lng: 2 } },
    });
    expect(outcome.ok).toBe(true);
    const order = (outcome as { value: OrderDto }).value;
    expect(order).toBeInstanceOf(OrderDto);
    expect(order.lines[0]).toBeInstanceOf(LineDto);
    expect(order.from).toBeInstanceOf(WarehouseDto);
    expect(order.from.location).toBeInstanceOf(GeoDto);
  });

  it('reports errors deep in arrays and nested objects with their path', async () => {
    const { validate } = compileDtoSchema(OrderDto, compileJson);
    const outcome = await validate({
      email: 'a@b.co',
      lines: [
        { sku: 'x', quantity: 1 },
        { sku: 5, quantity: 1 },
      ],
      from: { code: 'W1', location: { lat: 1, lng: 'east' } },
    });
    expect(outcome.ok).toBe(false);
    const message = (outcome as { message: string }).message;
    expect(message).toContain('/lines/1/sku: sku must be a string');
    expect(message).toContain('/from/location/lng: lng must be an integer number');
  });

  it('lists at most five errors and counts the rest', async () => {
    const { validate } = compileDtoSchema(OrderDto, compileJson);
    const outcome = await validate({
      email: 'nope',
      rush: 'yes',
      lines: [
        { sku: 1, quantity: 'a' },
        { sku: 2, quantity: 'b' },
      ],
      from: { code: 3, location: { lat: 'x', lng: 'y' } },
    });
    const message = (outcome as { message: string }).message;
    expect(message.split('; ')).toHaveLength(5);
    expect(message).toMatch(/\(and \d+ more\)$/);
  });

  it('gives two different DTO classes that share a name their own schema', () => {
    // Two modules of one app may both declare, say, a `CreateDto`.
    const first = (() => {
      class SameNameDto {
        @IsString()
        title!: string;
      }
      return SameNameDto;
    })();
    const second = (() => {
      class SameNameDto {
        @IsInt()
        priority!: number;
      }
      return SameNameDto;
    })();
    const firstSchema = compileDtoSchema(first, compileJson).jsonSchema;
    const secondSchema = compileDtoSchema(second, compileJson).jsonSchema;
    expect(firstSchema).toMatchObject({ properties: { title: { type: 'string' } }, required: ['title'] });
    expect(firstSchema.properties).not.toHaveProperty('priority');
    expect(secondSchema).toMatchObject({ properties: { priority: { type: 'integer' } }, required: ['priority'] });
    expect(secondSchema.properties).not.toHaveProperty('title');
  });

  it('refuses a class without decorators', () => {
    class Bare {
      a = 1;
    }
    expect(() => compileDtoSchema(Bare, compileJson)).toThrow(McpConfigurationError);
    expect(() => compileDtoSchema(Bare, compileJson)).toThrow(/Bare has no class-validator decorators/);
  });
});
