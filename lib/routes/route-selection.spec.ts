import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController, ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import { exposedBy } from './route-selection';

@ApiTags('notes')
@Controller('notes')
class NotesController {
  @Get()
  list(): void {}

  @Get('stats')
  @ApiTags('stats')
  stats(): void {}
}

@ApiTags('notes')
@Controller('hidden')
class HiddenController {
  @Get()
  @ApiExcludeEndpoint()
  secret(): void {}

  @Get('shown')
  @ApiExcludeEndpoint(false)
  shown(): void {}
}

@ApiExcludeController()
@Controller('internal')
class InternalController {
  @Get()
  list(): void {}
}

@Controller('other')
class OtherController {
  @Get()
  list(): void {}
}

const none = { controllers: [], tags: [], paths: [] };
const notes = (method: 'list' | 'stats', path: string) => ({
  controller: NotesController,
  method: NotesController.prototype[method],
  path,
});
const other = { controller: OtherController, method: OtherController.prototype.list, path: '/api/other' };

describe('exposedBy', () => {
  it('selects nothing without the option, or with empty lists', () => {
    expect(exposedBy(undefined, notes('list', '/api/notes'))).toBe(false);
    expect(exposedBy(none, notes('list', '/api/notes'))).toBe(false);
  });

  it('selects by controller', () => {
    const exposure = { ...none, controllers: [NotesController] };
    expect(exposedBy(exposure, notes('list', '/api/notes'))).toBe(true);
    expect(exposedBy(exposure, other)).toBe(false);
  });

  it("selects by the controller's tags and the method's", () => {
    expect(exposedBy({ ...none, tags: ['notes'] }, notes('list', '/api/notes'))).toBe(true);
    expect(exposedBy({ ...none, tags: ['stats'] }, notes('list', '/api/notes'))).toBe(false);
    expect(exposedBy({ ...none, tags: ['stats'] }, notes('stats', '/api/notes/stats'))).toBe(true);
    expect(exposedBy({ ...none, tags: ['notes'] }, other)).toBe(false);
  });

  it('selects by a path pattern', () => {
    const exposure = { ...none, paths: ['/api/*/stats', '/api/other'] };
    expect(exposedBy(exposure, notes('stats', '/api/notes/stats'))).toBe(true);
    expect(exposedBy(exposure, notes('list', '/api/notes'))).toBe(false);
    expect(exposedBy(exposure, other)).toBe(true);
  });

  it('never selects a route the OpenAPI document leaves out', () => {
    const everything = { controllers: [HiddenController, InternalController], tags: ['notes'], paths: ['/**'] };
    const hidden = (method: 'secret' | 'shown') => ({
      controller: HiddenController,
      method: HiddenController.prototype[method],
      path: `/hidden/${method}`,
    });
    expect(exposedBy(everything, hidden('secret'))).toBe(false);
    expect(exposedBy(everything, hidden('shown'))).toBe(true);
    expect(
      exposedBy(everything, {
        controller: InternalController,
        method: InternalController.prototype.list,
        path: '/internal',
      }),
    ).toBe(false);
  });
});
