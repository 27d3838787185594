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

  it.each([
    [{ forwardHeaders: ['bad header'] }, 'routes.forwardHeaders'],
    [{ forwardHeaders: 'x-api-key' }, 'routes.forwardHeaders'],
    [{ maxResponseBytes: 0 }, 'routes.maxResponseBytes'],
  ])('names the bad option in %j', (options, option) => {
    expect(() => resolveRouteSettings(options as never)).toThrow(McpConfigurationError);
    expect(() => resolveRouteSettings(options as never)).toThrow(option);
  });
});
