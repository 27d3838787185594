import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Type as TransformType } from 'class-transformer';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { McpSchemaCompiler } from '../schema/mcp-schema.compiler';
import { fromOpenApi, SwaggerSchemas } from './swagger-schema';

enum Level {
  Low = 1,
  High = 2,
}

class Tag {
  @ApiProperty({ description: 'Tag name' })
  name!: string;

  @ApiPropertyOptional({ type: () => Tag, description: 'Parent tag' })
  parent?: Tag;
}

/** Swagger alone. */
class SwaggerOnly {
  @ApiProperty({ description: 'Title', examples: { short: { value: 'a' }, long: { value: 'abc' } }, minLength: 1 })
  title!: string;

  @ApiPropertyOptional({ enum: Level, default: Level.Low })
  level?: Level;

  @ApiProperty({ type: [Tag] })
  tags!: Tag[];

  @ApiProperty({ nullable: true, type: 'integer' })
  count!: number | null;

  @ApiProperty({ type: Date })
  at!: Date;
}

class Nested {
  @IsInt()
  n!: number;
}

/** class-validator for the pipe, swagger over it. */
class Mixed {
  @IsInt()
  @ApiProperty({ type: String, description: 'An integer, whatever swagger says' })
  id!: number;

  @IsOptional()
  @ApiProperty({ type: Number, description: 'Typed by swagger alone', required: true })
  size?: number;

  @ApiPropertyOptional({ description: 'Not known to class-validator' })
  note?: string;

  @ValidateNested()
  @TransformType(() => Nested)
  @ApiProperty({ type: () => Nested, description: 'Nested' })
  nested!: Nested;

  @IsString()
  plain!: string;
}

class Nothing {
  x!: string;
}

const compiler = new McpSchemaCompiler();
const schemas = () => new SwaggerSchemas((dto) => compiler.compile(dto, 'input').jsonSchema);

describe('SwaggerSchemas', () => {
  it('gives a DTO described by @ApiProperty alone its whole schema, nested DTOs in $defs', () => {
    const built = schemas();
    expect(built.dto(SwaggerOnly)).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string', description: 'Title', examples: ['a', 'abc'] },
        level: { type: 'number', enum: [1, 2], default: 1 },
        tags: { type: 'array', items: { $ref: '#/$defs/Tag' } },
        count: { type: ['integer', 'null'] },
        at: { type: 'string' },
      },
      required: ['title', 'tags', 'count', 'at'],
    });
    expect(built.defs).toEqual({
      Tag: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Tag name' },
          parent: { $ref: '#/$defs/Tag', description: 'Parent tag' },
        },
        required: ['name'],
      },
    });
  });

  it("keeps class-validator's types and required, and adds swagger's words and the types it lacks", () => {
    const built = schemas();
    const schema = built.dto(Mixed);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.id).toMatchObject({ type: 'integer', description: 'An integer, whatever swagger says' });
    expect(properties.size).toMatchObject({ type: 'number', description: 'Typed by swagger alone' });
    expect(properties.note).toEqual({ type: 'string', description: 'Not known to class-validator' });
    expect(properties.nested).toMatchObject({ $ref: '#/$defs/Nested', description: 'Nested' });
    expect(properties.plain).toEqual({ type: 'string' });
    // `size` is optional to the pipe (@IsOptional), whatever swagger says; `note` optional to swagger.
    expect(schema.required).toEqual(expect.arrayContaining(['id', 'nested', 'plain']));
    expect(schema.required).not.toContain('size');
    expect(schema.required).not.toContain('note');
    expect(built.defs.Nested).toMatchObject({ properties: { n: { type: 'integer' } } });
  });

  it('leaves a DTO without swagger metadata to class-validator, and its refusal of a bare class as it was', () => {
    expect(schemas().dto(Nested)).toEqual(compiler.compile(Nested, 'input').jsonSchema);
    expect(() => schemas().dto(Nothing)).toThrow(McpConfigurationError);
    expect(schemas().property({ type: Nothing })).toEqual({ type: 'object' });
  });

  it('turns an OpenAPI schema into JSON Schema 2020-12', () => {
    expect(
      fromOpenApi({
        type: 'object',
        nullable: true,
        example: { a: 1 },
        properties: { example: { type: 'string', nullable: true } },
      }),
    ).toEqual({ type: ['object', 'null'], properties: { example: { type: ['string', 'null'] } } });
  });
});
