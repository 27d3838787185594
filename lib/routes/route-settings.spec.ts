import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { resolveRouteSettings } from './route-settings';

describe('resolveRouteSettings', () => {
  it('forwards authorization by default, with a 1 MiB response bound', () => {
    expect(resolveRouteSettings(undefined)).toEqual({ forwardHeaders: ['authorization'], maxResponseBytes: 1048576 });
  });

  it('adds the named headers, lower-cased, once', () => {
    expect(
      resolveRouteSettings({ forwardHeaders: ['X-Api-Key', 'x-api-key', 'Authorization'], maxResponseBytes: 10 }),
    ).toEqual({ forwardHeaders: ['authorization', 'x-api-key'], maxResponseBytes: 10 });
  });

  it('takes the routes the options expose, and nothing without the option', () => {
    class NotesController {}
    expect(resolveRouteSettings({}).expose).toBeUndefined();
    expect(
      resolveRouteSettings({ expose: { controllers: [NotesController], tags: ['notes'], paths: ['/api/**'] } }).expose,
    ).toEqual({ controllers: [NotesController], tags: ['notes'], paths: ['/api/**'] });
    expect(resolveRouteSettings({ expose: {} }).expose).toEqual({ controllers: [], tags: [], paths: [] });
  });

  it.each([
    [{ expose: [] }, 'routes.expose'],
    [{ expose: { controllers: ['NotesController'] } }, 'routes.expose.controllers'],
    [{ expose: { controllers: {} } }, 'routes.expose.controllers'],
    [{ expose: { tags: [''] } }, 'routes.expose.tags'],
    [{ expose: { paths: ['api/**'] } }, 'routes.expose.paths'],
    [{ expose: { paths: ['/api/v*'] } }, 'routes.expose.paths'],
    [{ forwardHeaders: ['bad header'] }, 'routes.forwardHeaders'],
    [{ forwardHeaders: 'x-api-key' }, 'routes.forwardHeaders'],
    [{ maxResponseBytes: 0 }, 'routes.maxResponseBytes'],
  ])('names the bad option in %j', (options, option) => {
    expect(() => resolveRouteSettings(options as never)).toThrow(McpConfigurationError);
    expect(() => resolveRouteSettings(options as never)).toThrow(option);
  });
});
