import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { resolveRouteSettings } from './route-settings';

describe('resolveRouteSettings', () => {
  it('forwards authorization by default, with a 1 MiB response bound, files inline up to 256 KiB', () => {
    expect(resolveRouteSettings(undefined)).toEqual({
      forwardHeaders: ['authorization'],
      maxResponseBytes: 1048576,
      maxInlineBytes: 262144,
      confirmDestructive: false,
    });
  });

  it('adds the named headers, lower-cased, once', () => {
    expect(
      resolveRouteSettings({ forwardHeaders: ['X-Api-Key', 'x-api-key', 'Authorization'], maxResponseBytes: 10 }),
    ).toMatchObject({ forwardHeaders: ['authorization', 'x-api-key'], maxResponseBytes: 10 });
  });

  it('keeps an inline bound of 0 (every file a link) and the confirmation of destructive routes', () => {
    expect(resolveRouteSettings({ maxInlineBytes: 0, confirmDestructive: true })).toMatchObject({
      maxInlineBytes: 0,
      confirmDestructive: true,
    });
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
    [{ maxInlineBytes: -1 }, 'routes.maxInlineBytes'],
    [{ maxInlineBytes: 1.5 }, 'routes.maxInlineBytes'],
    [{ confirmDestructive: 'yes' }, 'routes.confirmDestructive'],
  ])('names the bad option in %j', (options, option) => {
    expect(() => resolveRouteSettings(options as never)).toThrow(McpConfigurationError);
    expect(() => resolveRouteSettings(options as never)).toThrow(option);
  });
});
