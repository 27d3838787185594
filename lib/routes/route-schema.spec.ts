import { Body, Controller, Get, Headers, Param, ParseIntPipe, Post, Query } from '@nestjs/common';
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

  @Get('files{/*rest}')
  files(
    @Param('rest') _rest: string[],
    @Headers('X-Tenant') _tenant: string,
    @Headers('authorization') _auth: string,
    @Headers('x-api-key') _key: string,
    @Headers('content-length') _length: string,
    @Headers() _all: Record<string, string>,
  ): void {}

  @Get(':id')
  headerClash(@Param('id') _id: string, @Headers('id') _header: string): void {}
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
      headerFields: [],
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

  it('makes an optional path param not required, and a named header an optional string input', () => {
    const inputs = routeInputs(
      NotesController,
      'files',
      '/notes/files{/*rest}',
      [{ name: 'rest', optional: true, wildcard: true }],
      dtoSchema,
      'N.files',
      new Set(['authorization', 'x-api-key']),
    );
    expect(inputs.headerFields).toEqual(['x-tenant']);
    expect(inputs.jsonSchema).toEqual({
      type: 'object',
      properties: {
        rest: { type: 'string', description: "Several path segments, separated by '/'" },
        'x-tenant': { type: 'string', maxLength: 4096 },
      },
    });
  });

  it('refuses a header input named like a path param, naming the route', () => {
    expect(() => routeInputs(NotesController, 'headerClash', '/notes/:id', ['id'], dtoSchema, 'N.headerClash')).toThrow(
      /N\.headerClash.*"id"/,
    );
  });

  it('keeps a property named like a constraint keyword', () => {
    expect(shapeOf({ properties: { pattern: { type: 'string', pattern: 'a' } } })).toEqual({
      properties: { pattern: { type: 'string' } },
    });
  });
});
