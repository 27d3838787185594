import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { normalizePath, resolveHttpPaths } from './http-paths';

/** The error `resolveHttpPaths` throws for `extras` (failing the test when it throws none). */
function refusal(extras: Record<string, unknown>): McpConfigurationError {
  try {
    resolveHttpPaths(extras, 'mcp');
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigurationError);
    return error as McpConfigurationError;
  }
  throw new Error(`resolveHttpPaths accepted ${JSON.stringify(extras)}`);
}

describe('normalizePath', () => {
  it.each([
    ['mcp', '/mcp'],
    ['/mcp', '/mcp'],
    ['/mcp/', '/mcp'],
    ['//a/b//', '/a/b'],
    ['a/b', '/a/b'],
  ])('%s -> %s', (path, normalized) => {
    expect(normalizePath(path)).toBe(normalized);
  });
});

describe('resolveHttpPaths', () => {
  describe('defaults', () => {
    it('serves only Streamable HTTP at the default path when no path is given', () => {
      expect(resolveHttpPaths({}, 'mcp')).toEqual({ streamable: 'mcp', simple: undefined, sse: undefined });
    });

    it('takes the path extra for Streamable HTTP', () => {
      expect(resolveHttpPaths({ path: 'assistant/mcp' }, 'mcp').streamable).toBe('assistant/mcp');
    });

    it('ignores the extras that are no paths', () => {
      expect(resolveHttpPaths({ isGlobal: false }, 'mcp')).toEqual({ streamable: 'mcp' });
    });
  });

  describe('enabled transports', () => {
    it('enables the simple endpoint with simpleHttpPath', () => {
      expect(resolveHttpPaths({ simpleHttpPath: 'rpc' }, 'mcp')).toEqual({
        streamable: 'mcp',
        simple: 'rpc',
        sse: undefined,
      });
    });

    it('enables the SSE pair with ssePath and sseMessagesPath, paths kept as given', () => {
      expect(resolveHttpPaths({ ssePath: '/sse/', sseMessagesPath: 'sse/messages' }, 'mcp')).toEqual({
        streamable: 'mcp',
        simple: undefined,
        sse: { events: '/sse/', messages: 'sse/messages' },
      });
    });

    it('enables every transport at once', () => {
      expect(
        resolveHttpPaths({ path: 'mcp', simpleHttpPath: 'rpc', ssePath: 'sse', sseMessagesPath: 'messages' }, 'x'),
      ).toEqual({ streamable: 'mcp', simple: 'rpc', sse: { events: 'sse', messages: 'messages' } });
    });
  });

  describe('the SSE pair takes both paths', () => {
    it('refuses ssePath without sseMessagesPath, naming sseMessagesPath', () => {
      const error = refusal({ ssePath: 'sse' });
      expect(error.message).toContain('Invalid McpModule option "sseMessagesPath"');
      expect(error.message).toContain('SSE pair');
    });

    it('refuses sseMessagesPath without ssePath, naming ssePath', () => {
      const error = refusal({ sseMessagesPath: 'messages' });
      expect(error.message).toContain('Invalid McpModule option "ssePath"');
    });
  });

  describe('paths may not collide', () => {
    it.each<[string, Record<string, unknown>, string, string]>([
      ['simpleHttpPath equal to the default path', { simpleHttpPath: 'mcp' }, 'simpleHttpPath', 'path'],
      ['simpleHttpPath equal to path', { path: 'api/mcp', simpleHttpPath: '/api/mcp/' }, 'simpleHttpPath', 'path'],
      [
        'ssePath equal to simpleHttpPath',
        { simpleHttpPath: 'rpc', ssePath: 'rpc', sseMessagesPath: 'messages' },
        'ssePath',
        'simpleHttpPath',
      ],
      ['ssePath equal to sseMessagesPath', { ssePath: 'sse', sseMessagesPath: '/sse' }, 'sseMessagesPath', 'ssePath'],
      ['sseMessagesPath equal to path', { ssePath: 'sse', sseMessagesPath: 'mcp/' }, 'sseMessagesPath', 'path'],
    ])('refuses %s, naming both options', (_title, extras, option, other) => {
      const error = refusal(extras);
      expect(error.message).toContain(`Invalid McpModule option "${option}"`);
      expect(error.message).toContain(`same path as ${other}`);
    });

    it('accepts nested paths that differ', () => {
      expect(resolveHttpPaths({ ssePath: 'legacy', sseMessagesPath: 'legacy/messages' }, 'mcp').sse).toEqual({
        events: 'legacy',
        messages: 'legacy/messages',
      });
    });
  });

  describe('paths must be URL paths', () => {
    const options = ['path', 'simpleHttpPath', 'ssePath', 'sseMessagesPath'] as const;
    const bad: Array<[string, unknown]> = [
      ['an empty string', ''],
      ['blanks', '   '],
      ['a query', 'rpc?x=1'],
      ['a fragment', 'rpc#top'],
      ['a space', 'my rpc'],
      ['a number', 42],
      ['null', null],
    ];

    it.each(options.flatMap((option) => bad.map(([title, value]) => [option, title, value] as const)))(
      'refuses %s as %s',
      (option, _title, value) => {
        // The pair's partner is given, so that the bad value itself is what is refused.
        const partner =
          option === 'ssePath'
            ? { sseMessagesPath: 'messages' }
            : option === 'sseMessagesPath'
              ? { ssePath: 'sse' }
              : {};
        const error = refusal({ ...partner, [option]: value });
        expect(error.message).toContain(`Invalid McpModule option "${option}"`);
        expect(error.message).toContain('URL path');
      },
    );
  });
});
