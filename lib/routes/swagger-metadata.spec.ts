import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiHideProperty,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import {
  resolvedType,
  swaggerOperation,
  swaggerParameters,
  swaggerProperties,
  swaggerSuccessResponse,
  swaggerTags,
} from './swagger-metadata';

class Inner {
  @ApiProperty()
  n!: number;
}

class Dto {
  @ApiProperty({ description: 'Title', example: 'x' })
  title!: string;

  @ApiProperty({ type: () => Inner, required: false })
  inner?: Inner;

  @ApiHideProperty()
  @ApiProperty()
  secret!: string;
}

/** What the Swagger CLI plugin writes, beside one decorated property. */
class PluginDto {
  @ApiProperty({ description: 'Decorated' })
  both!: string;

  static _OPENAPI_METADATA_FACTORY() {
    return { plain: { required: true, type: () => Number }, both: { required: false, type: () => String } };
  }
}

@ApiTags('notes')
@ApiResponse({ status: 202, type: Inner })
@Controller('notes')
class NotesController {
  @Get(':id')
  @ApiTags('read', 'notes')
  @ApiOperation({ operationId: 'getNote', summary: 'One', description: '  ' })
  @ApiParam({ name: 'id', description: 'Id' })
  @ApiQuery({ name: 'q', required: false })
  @ApiOkResponse({ type: Dto })
  get(): void {}

  @Post()
  @ApiBody({ type: Dto })
  @ApiOkResponse({ type: Inner })
  @ApiCreatedResponse({ type: Dto })
  create(): void {}

  @Post('later')
  @HttpCode(200)
  @ApiAcceptedResponse({ type: Inner })
  later(): void {}

  @Get('plain')
  plain(): void {}
}

const method = (name: keyof NotesController) => NotesController.prototype[name] as object;

describe('the @nestjs/swagger metadata, read by its keys', () => {
  it("reads @ApiOperation's operationId, summary and description (blank ones left out)", () => {
    expect(swaggerOperation(method('get'))).toEqual({ operationId: 'getNote', summary: 'One', description: undefined });
    expect(swaggerOperation(method('plain'))).toBeUndefined();
  });

  it('reads the tags of the controller and of the method, once each', () => {
    expect(swaggerTags(NotesController, method('get'))).toEqual(['notes', 'read']);
    expect(swaggerTags(NotesController, method('plain'))).toEqual(['notes']);
  });

  it('reads @ApiParam, @ApiQuery and @ApiBody', () => {
    expect(swaggerParameters(method('get'))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'path', name: 'id', description: 'Id' }),
        expect.objectContaining({ in: 'query', name: 'q', required: false }),
      ]),
    );
    expect(swaggerParameters(method('create'))).toEqual([expect.objectContaining({ in: 'body', type: Dto })]);
    expect(swaggerParameters(method('plain'))).toEqual([]);
  });

  it("picks the declared response of the status the route answers, else the first typed 2xx, else the controller's", () => {
    expect(swaggerSuccessResponse(NotesController, method('get'), 200)?.type).toBe(Dto);
    expect(swaggerSuccessResponse(NotesController, method('create'), 201)?.type).toBe(Dto);
    expect(swaggerSuccessResponse(NotesController, method('later'), 200)?.type).toBe(Inner);
    expect(swaggerSuccessResponse(NotesController, method('plain'), 200)?.type).toBe(Inner);
  });

  it('reads the @ApiProperty of a DTO, in order, without the hidden ones', () => {
    const properties = swaggerProperties(Dto);
    expect([...properties.keys()]).toEqual(['title', 'inner']);
    expect(properties.get('title')).toMatchObject({ type: String, description: 'Title', example: 'x' });
    expect(resolvedType(properties.get('inner')?.type)).toBe(Inner);
    expect(swaggerProperties(class Bare {}).size).toBe(0);
  });

  it("takes the CLI plugin's metadata, under the decorators'", () => {
    const properties = swaggerProperties(PluginDto);
    expect(resolvedType(properties.get('plain')?.type)).toBe(Number);
    expect(properties.get('both')).toMatchObject({ description: 'Decorated', required: false });
    expect(resolvedType(properties.get('both')?.type)).toBe(String);
  });

  it('calls a lazy type and leaves a class as it is', () => {
    expect(resolvedType(() => Inner)).toBe(Inner);
    expect(resolvedType(Inner)).toBe(Inner);
    expect(resolvedType('string')).toBe('string');
  });
});
