import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpModuleExtras } from '../interfaces/mcp-module-extras.interface';
import { resolveHttpPaths, type McpHttpPaths } from '../identity/http-paths';
import { defaultConsolePath, resolveConsoleSettings } from './console-settings';

const DEVELOPMENT = { NODE_ENV: 'development' };
const PRODUCTION = { NODE_ENV: 'production' };

function settingsOf(extras: McpModuleExtras, env: NodeJS.ProcessEnv = DEVELOPMENT) {
  return resolveConsoleSettings(extras, resolveHttpPaths(extras, 'mcp'), env);
}

/** The error `resolveConsoleSettings` throws (failing the test when it throws none). */
function refusal(extras: Record<string, unknown>, env: NodeJS.ProcessEnv = DEVELOPMENT): McpConfigurationError {
  const paths: McpHttpPaths = resolveHttpPaths(extras, 'mcp');
  try {
    resolveConsoleSettings(extras, paths, env);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigurationError);
    return error as McpConfigurationError;
  }
  throw new Error(`resolveConsoleSettings accepted ${JSON.stringify(extras)}`);
}

describe('resolveConsoleSettings', () => {
  describe('on and off', () => {
    it('is off without the extra', () => {
      expect(settingsOf({})).toBeUndefined();
    });

    it('is off with false', () => {
      expect(settingsOf({ console: false })).toBeUndefined();
    });

    it('serves at <path>/console with true', () => {
      expect(settingsOf({ console: true })).toEqual({ path: 'mcp/console', allowInProduction: false });
    });

    it('follows the endpoint path', () => {
      expect(settingsOf({ path: '/assistant/mcp/', console: true })?.path).toBe('assistant/mcp/console');
    });

    it('takes an object with a path and allowInProduction', () => {
      expect(settingsOf({ console: { path: 'tools/console', allowInProduction: true } })).toEqual({
        path: 'tools/console',
        allowInProduction: true,
      });
    });

    it('takes an empty object as true', () => {
      expect(settingsOf({ console: {} })).toEqual({ path: 'mcp/console', allowInProduction: false });
    });
  });

  describe('defaultConsolePath', () => {
    it.each([
      ['mcp', 'mcp/console'],
      ['/mcp/', 'mcp/console'],
      ['a/b', 'a/b/console'],
      ['/', 'console'],
    ])('%s -> %s', (endpoint, path) => {
      expect(defaultConsolePath(endpoint)).toBe(path);
    });
  });

  describe('bad values', () => {
    it.each([['yes'], [1], [null], [['mcp/console']]])('refuses console: %j', (value) => {
      expect(refusal({ console: value }).message).toBe(
        'Invalid McpModule option "console": must be true, false or { path?: string, allowInProduction?: boolean }',
      );
    });

    it.each([['yes'], [1], [null]])('refuses allowInProduction: %j', (value) => {
      expect(refusal({ console: { allowInProduction: value } }).message).toBe(
        'Invalid McpModule option "console.allowInProduction": must be a boolean',
      );
    });

    it.each([[''], ['  '], ['a b'], ['console?x=1'], ['console#top'], [42]])('refuses path %j', (path) => {
      expect(refusal({ console: { path } }).message).toBe(
        'Invalid McpModule option "console.path": must be a non-empty URL path without query or spaces',
      );
    });

    it.each([
      [{ console: { path: '/mcp/' } }, 'path (mcp)'],
      [{ simpleHttpPath: 'rpc', console: { path: 'rpc' } }, 'simpleHttpPath (rpc)'],
      [{ ssePath: 'sse', sseMessagesPath: 'messages', console: { path: 'sse' } }, 'ssePath (sse)'],
      [{ ssePath: 'sse', sseMessagesPath: 'messages', console: { path: '/messages' } }, 'sseMessagesPath (messages)'],
    ])('refuses a path one of the endpoints has: %j', (extras, other) => {
      expect(refusal(extras).message).toBe(`Invalid McpModule option "console.path": is the same path as ${other}`);
    });
  });

  it('lets an endpoint at `console` have its console at `console/console`', () => {
    expect(settingsOf({ path: 'console', console: true })?.path).toBe('console/console');
  });

  describe('production', () => {
    it('refuses NODE_ENV=production, naming console.allowInProduction and the server', () => {
      const error = refusal({ name: 'notes', console: true }, PRODUCTION);
      expect(error.message).toContain('console.allowInProduction');
      expect(error.message).toContain('server "notes"');
      expect(error.message).toContain('NODE_ENV is "production"');
    });

    it('refuses it for an object without allowInProduction, and with allowInProduction: false', () => {
      expect(refusal({ console: { path: 'c' } }, PRODUCTION).message).toContain('console.allowInProduction');
      expect(refusal({ console: { allowInProduction: false } }, PRODUCTION).message).toContain(
        'console.allowInProduction',
      );
    });

    it('serves it in production with allowInProduction: true', () => {
      expect(settingsOf({ console: { allowInProduction: true } }, PRODUCTION)).toEqual({
        path: 'mcp/console',
        allowInProduction: true,
      });
    });

    it('says nothing in production when the console is off', () => {
      expect(settingsOf({ console: false }, PRODUCTION)).toBeUndefined();
      expect(settingsOf({}, PRODUCTION)).toBeUndefined();
    });

    it('reads process.env by default', () => {
      const before = process.env.NODE_ENV;
      process.env.NODE_ENV = 'production';
      try {
        expect(() => resolveConsoleSettings({ console: true }, resolveHttpPaths({}, 'mcp'))).toThrow(
          McpConfigurationError,
        );
      } finally {
        process.env.NODE_ENV = before;
      }
    });
  });
});
