import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProperty, ApiQuery } from '@nestjs/swagger';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { McpSchemaCompiler } from '../schema/mcp-schema.compiler';
import { routeInputs } from './route-schema';
import { operationDescription, swaggerInputs, swaggerOutputSchema } from './route-swagger';
import { SwaggerSchemas } from './swagger-schema';

class ItemDto {
  @ApiProperty({ description: 'Name' })
  name!: string;
}

@Controller('items')
class ItemsController {
  @Get(':id')
  @ApiOperation({ summary: 'Summary only' })
  @ApiQuery({ name: 'sort', description: 'Sort order' })
  @ApiQuery({ name: 'page', type: Number, required: false })
  @ApiOkResponse({ type: () => ItemDto })
  get(@Param('id') _id: string, @Query('sort') _sort: string): void {}

  @Get(':id/clash')
  @ApiQuery({ name: 'id' })
  clash(@Param('id') _id: string): void {}

  @Post()
  @ApiOperation({ description: 'Description only' })
  @ApiBody({ type: [ItemDto], description: 'Items' })
  @ApiOkResponse({ type: [ItemDto] })
  many(@Body() _items: unknown[]): void {}

  @Get('written')
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: { total: { type: 'integer', minimum: 0, nullable: true } },
      required: ['total'],
    },
  })
  written(): void {}

  @Get('written-list')
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'string' } } })
  writtenList(): void {}

  @Get('referenced')
  @ApiOkResponse({ schema: { type: 'object', properties: { item: { $ref: '#/components/schemas/ItemDto' } } } })
  referenced(): void {}

  @Post('one')
  @ApiBody({ type: String, description: 'Its words, not its type' })
  @ApiOkResponse({ type: String })
  one(@Body() _item: ItemDto): void {}
}

const compiler = new McpSchemaCompiler();

function inputsOf(methodName: keyof ItemsController, path: string, params: string[]) {
  const schemas = new SwaggerSchemas((dto) => compiler.compile(dto, 'input').jsonSchema);
  const base = routeInputs(ItemsController, methodName, path, params, (dto) => schemas.dto(dto), `I.${methodName}`);
  return swaggerInputs(base, ItemsController, methodName, schemas, `I.${methodName}`);
}

function outputOf(methodName: keyof ItemsController) {
  return swaggerOutputSchema(
    ItemsController,
    ItemsController.prototype[methodName],
    200,
    new SwaggerSchemas((dto) => compiler.compile(dto, 'output').jsonSchema),
  );
}

describe('route tools from swagger metadata', () => {
  it('annotates a @Query field (required as @ApiQuery says) and adds an @ApiQuery no @Query reads, optional', () => {
    const inputs = inputsOf('get', '/items/:id', ['id']);
    expect(inputs.jsonSchema).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        sort: { type: 'string', description: 'Sort order' },
        page: { type: 'number' },
      },
      required: ['id', 'sort'],
    });
    expect(inputs.queryFields).toEqual(['sort', 'page']);
  });

  it('refuses an @ApiQuery named like another input', () => {
    expect(() => inputsOf('clash', '/items/:id/clash', ['id'])).toThrow(McpConfigurationError);
    expect(() => inputsOf('clash', '/items/:id/clash', ['id'])).toThrow(/I\.clash: @ApiQuery "id"/);
  });

  it("takes @ApiBody's type for a body that is no DTO, and only its description for a DTO", () => {
    expect(inputsOf('many', '/items', []).jsonSchema).toEqual({
      type: 'object',
      properties: { body: { type: 'array', items: { $ref: '#/$defs/ItemDto' }, description: 'Items' } },
      required: ['body'],
      $defs: {
        ItemDto: { type: 'object', properties: { name: { type: 'string', description: 'Name' } }, required: ['name'] },
      },
    });
    expect(inputsOf('one', '/items/one', []).jsonSchema.properties).toEqual({
      body: {
        type: 'object',
        properties: { name: { type: 'string', description: 'Name' } },
        required: ['name'],
        description: 'Its words, not its type',
      },
    });
  });

  it('gives an output schema for an object DTO only', () => {
    expect(outputOf('get')).toEqual({
      type: 'object',
      properties: { name: { type: 'string', description: 'Name' } },
      required: ['name'],
    });
    expect(outputOf('many')).toBeUndefined();
    expect(outputOf('one')).toBeUndefined();
    expect(outputOf('clash')).toBeUndefined();
  });

  it('takes an object schema written out in @ApiOkResponse, without its constraints or OpenAPI words', () => {
    expect(outputOf('written')).toEqual({
      type: 'object',
      properties: { total: { type: ['integer', 'null'] } },
      required: ['total'],
    });
    expect(outputOf('writtenList')).toBeUndefined();
    expect(outputOf('referenced')).toBeUndefined();
  });

  it("joins @ApiOperation's summary and description with a blank line", () => {
    expect(operationDescription(ItemsController.prototype.get)).toBe('Summary only');
    expect(operationDescription(ItemsController.prototype.many)).toBe('Description only');
    expect(operationDescription(ItemsController.prototype.clash)).toBeUndefined();
  });
});
