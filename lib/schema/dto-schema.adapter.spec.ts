import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
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

describe('compileDtoSchema', () => {
  it('collects the definitions a DTO refers to, transitively, and only those', () => {
    expect(compileDtoSchema(UnrelatedDto).jsonSchema.properties).toEqual({ whatever: { type: 'string' } });
    const { jsonSchema } = compileDtoSchema(OrderDto);
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
    const { jsonSchema } = compileDtoSchema(OrderDto);
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

  it('leaves $defs out when no DTO is nested', () => {
    expect(compileDtoSchema(GeoDto).jsonSchema).not.toHaveProperty('$defs');
  });

  it('turns valid values into nested instances', async () => {
    const { validate } = compileDtoSchema(OrderDto);
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
    const { validate } = compileDtoSchema(OrderDto);
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
    const { validate } = compileDtoSchema(OrderDto);
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
    const firstSchema = compileDtoSchema(first).jsonSchema;
    const secondSchema = compileDtoSchema(second).jsonSchema;
    expect(firstSchema).toMatchObject({ properties: { title: { type: 'string' } }, required: ['title'] });
    expect(firstSchema.properties).not.toHaveProperty('priority');
    expect(secondSchema).toMatchObject({ properties: { priority: { type: 'integer' } }, required: ['priority'] });
    expect(secondSchema.properties).not.toHaveProperty('title');
  });

  it('refuses a class without decorators', () => {
    class Bare {
      a = 1;
    }
    expect(() => compileDtoSchema(Bare)).toThrow(McpConfigurationError);
    expect(() => compileDtoSchema(Bare)).toThrow(/Bare has no class-validator decorators/);
  });

  describe('messages', () => {
    class ReserveDto {
      @IsString()
      @IsNotEmpty()
      @MaxLength(12)
      @Matches(/^[A-Z]{3}-[0-9]+$/)
      sku!: string;

      @IsOptional()
      @ValidateNested()
      @Type(() => GeoDto)
      at?: GeoDto;
    }

    it('a missing property is one line, "is required", not every constraint of the field', async () => {
      const outcome = await compileDtoSchema(ReserveDto).validate({});
      expect(outcome).toEqual({ ok: false, message: '/sku: sku is required' });
    });

    it('so is a missing property of a nested DTO', async () => {
      const outcome = await compileDtoSchema(ReserveDto).validate({ sku: 'ABC-1', at: { lat: 1 } });
      expect(outcome).toEqual({ ok: false, message: '/at/lng: lng is required' });
    });

    it('a present but invalid property still lists what is wrong', async () => {
      const outcome = await compileDtoSchema(ReserveDto).validate({ sku: '' });
      expect(outcome.ok).toBe(false);
      const message = (outcome as { message: string }).message;
      expect(message).toContain('/sku: sku should not be empty');
      expect(message).toContain('/sku: sku must match');
      expect(message).not.toContain('required');
    });

    it('does not depend on class-validator keeping the values in its errors', async () => {
      const { validate } = compileDtoSchema(ReserveDto, { validationError: { target: false, value: false } });
      expect(await validate({ sku: '' })).not.toMatchObject({ message: expect.stringContaining('required') });
      expect(await validate({})).toEqual({ ok: false, message: '/sku: sku is required' });
    });
  });

  describe('validator options', () => {
    class ItemDto {
      @IsString()
      sku!: string;

      @Allow()
      note?: unknown;
    }

    class BasketDto {
      @IsString()
      owner!: string;

      @IsDefined()
      @IsInt()
      version!: number;

      @IsOptional()
      @IsBoolean()
      gift?: boolean;

      @IsArray()
      @ValidateNested({ each: true })
      @Type(() => ItemDto)
      items!: ItemDto[];
    }

    const valid = { owner: 'ada', version: 1, items: [{ sku: 'A', note: 'keep' }] };

    it('whitelist strips undecorated properties, at every depth', async () => {
      const outcome = await compileDtoSchema(BasketDto, { whitelist: true }).validate({
        ...valid,
        extra: 1,
        items: [{ sku: 'A', note: 'kept: @Allow()', extra: 2 }],
      });
      expect(outcome.ok).toBe(true);
      const basket = (outcome as { value: BasketDto & { extra?: unknown } }).value;
      expect(basket).not.toHaveProperty('extra');
      expect(basket.items[0]).toEqual({ sku: 'A', note: 'kept: @Allow()' });
    });

    it('whitelist alone leaves the advertised schema open', () => {
      const { jsonSchema } = compileDtoSchema(BasketDto, { whitelist: true });
      expect(jsonSchema).not.toHaveProperty('additionalProperties');
    });

    it('forbidNonWhitelisted refuses them, and the advertised schema says additionalProperties: false', async () => {
      const compiled = compileDtoSchema(BasketDto, { whitelist: true, forbidNonWhitelisted: true });
      expect(compiled.jsonSchema.additionalProperties).toBe(false);
      expect((compiled.jsonSchema.$defs as Record<string, object>).ItemDto).toMatchObject({
        additionalProperties: false,
        properties: { sku: { type: 'string' }, note: {} },
      });
      expect(await compiled.validate(valid)).toMatchObject({ ok: true });
      expect(await compiled.validate({ ...valid, extra: 1 })).toEqual({
        ok: false,
        message: '/extra: property extra should not exist',
      });
      const asJson = compiler.compileJsonSchema(compiled.jsonSchema);
      expect(await asJson.validate(valid)).toMatchObject({ ok: true });
      expect(await asJson.validate({ ...valid, items: [{ sku: 'A', note: 'n', extra: 2 }] })).toEqual({
        ok: false,
        message: '/items/0 must NOT have additional properties "extra"',
      });
    });

    it('forbidNonWhitelisted without whitelist, which class-validator ignores, is a configuration error', () => {
      expect(() => compileDtoSchema(BasketDto, { forbidNonWhitelisted: true })).toThrow(McpConfigurationError);
      expect(() => compileDtoSchema(BasketDto, { forbidNonWhitelisted: true })).toThrow(/needs whitelist: true/);
    });

    it.each([['skipMissingProperties'], ['skipUndefinedProperties']])(
      '%s lets properties be missing: only @IsDefined() ones stay required',
      async (option) => {
        const compiled = compileDtoSchema(BasketDto, { [option]: true });
        expect(compiled.jsonSchema.required).toEqual(['version']);
        expect(await compiled.validate({ version: 2 })).toMatchObject({ ok: true });
        expect(await compiled.validate({ owner: 'ada' })).toEqual({
          ok: false,
          message: '/version: version is required',
        });
      },
    );

    it('without options, the required properties are those without @IsOptional()', () => {
      expect(compileDtoSchema(BasketDto).jsonSchema.required).toEqual(['owner', 'version', 'items']);
    });

    it('other options reach class-validator as given', async () => {
      class CodeDto {
        @IsNotEmpty()
        @Matches(/^[A-Z]+$/)
        code!: string;
      }
      const all = await compileDtoSchema(CodeDto).validate({ code: '' });
      expect((all as { message: string }).message.split('; ')).toHaveLength(2);
      const first = await compileDtoSchema(CodeDto, { stopAtFirstError: true }).validate({ code: '' });
      expect((first as { message: string }).message.split('; ')).toHaveLength(1);
    });
  });
});
