import { Body, Controller, Param, ParseIntPipe, Post, Query } from '@nestjs/common';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { routeInputs, shapeOf } from './route-schema';

class NoteDto {
  title!: string;
}

@Controller('notes')
class NotesController {
  @Post(':folder/:id')
  create(
    @Param('folder') _folder: string,
    @Param('id', ParseIntPipe) _id: number,
    @Query('draft') _draft: string,
    @Query('limit', new ParseIntPipe()) _limit: number,
    @Body() _dto: NoteDto,
  ): void {}

  @Post(':body')
  clash(@Param('body') _body: string, @Body() _dto: NoteDto): void {}
}

const dtoSchema = () => ({
  type: 'object',
  properties: { title: { type: 'string', minLength: 1, maxLength: 5 }, nested: { $ref: '#/$defs/Inner' } },
  required: ['title'],
  $defs: { Inner: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } } } },
});

describe('routeInputs', () => {
  it('puts path params (integer behind ParseIntPipe), query fields and the body DTO in one object', () => {
    const inputs = routeInputs(
      NotesController,
      'create',
      '/notes/:folder/:id',
      ['folder', 'id'],
      dtoSchema,
      'N.create',
    );
    expect(inputs).toEqual({
      pathParams: ['folder', 'id'],
      queryFields: ['draft', 'limit'],
      body: true,
      jsonSchema: {
        type: 'object',
        properties: {
          folder: { type: 'string' },
          id: { type: 'integer' },
          draft: { type: 'string' },
          limit: { type: 'integer' },
          body: {
            type: 'object',
            properties: { title: { type: 'string' }, nested: { $ref: '#/$defs/Inner' } },
            required: ['title'],
          },
        },
        required: ['folder', 'id', 'body'],
        $defs: { Inner: { type: 'object', properties: { n: { type: 'integer' } } } },
      },
    });
  });

  it('refuses two inputs of one name, naming the route', () => {
    expect(() => routeInputs(NotesController, 'clash', '/notes/:body', ['body'], dtoSchema, 'N.clash')).toThrow(
      McpConfigurationError,
    );
    expect(() => routeInputs(NotesController, 'clash', '/notes/:body', ['body'], dtoSchema, 'N.clash')).toThrow(
      /N\.clash/,
    );
  });

  it('keeps a property named like a constraint keyword', () => {
    expect(shapeOf({ properties: { pattern: { type: 'string', pattern: 'a' } } })).toEqual({
      properties: { pattern: { type: 'string' } },
    });
  });
});
