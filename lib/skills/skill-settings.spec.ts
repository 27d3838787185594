import { resolve } from 'node:path';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { resolveSkillSettings } from './skill-settings';

describe('resolveSkillSettings', () => {
  it('serves no skills without the section', () => {
    expect(resolveSkillSettings(undefined)).toBeUndefined();
  });

  it('defaults to directory reads, no directory, no scopes and the server ttlMs', () => {
    expect(resolveSkillSettings({})).toEqual({
      directory: undefined,
      directoryRead: true,
      scopes: new Map(),
      ttlMs: undefined,
    });
  });

  it('resolves a relative directory from the working directory and keeps the scopes by path', () => {
    const settings = resolveSkillSettings({
      directory: 'sample/skills',
      scopes: { 'a/b': ['x', 'x', 'y'] },
      ttlMs: 0,
      directoryRead: false,
    });
    expect(settings).toEqual({
      directory: resolve(process.cwd(), 'sample/skills'),
      directoryRead: false,
      scopes: new Map([['a/b', ['x', 'y']]]),
      ttlMs: 0,
    });
  });

  it.each<[string, object, RegExp]>([
    ['a section that is not an object', [], /"skills": must be an object/],
    [
      'a missing directory',
      { directory: '/nonexistent/skills' },
      /"skills.directory": \/nonexistent\/skills is not a directory/,
    ],
    ['a file as the directory', { directory: __filename }, /is not a directory/],
    ['an empty directory name', { directory: ' ' }, /"skills.directory": must be a non-empty string/],
    ['directoryRead that is not a boolean', { directoryRead: 'yes' }, /"skills.directoryRead": must be a boolean/],
    ['scopes that are not strings', { scopes: { a: [1] } }, /"skills.scopes.a": must be an array of non-empty strings/],
    ['a scope with a space', { scopes: { a: ['b c'] } }, /"skills.scopes.a": scopes must not hold spaces/],
    ['a negative ttlMs', { ttlMs: -1 }, /"skills.ttlMs": must be an integer of at least 0/],
  ])('refuses %s', (_title, options, message) => {
    expect(() => resolveSkillSettings(options as never)).toThrow(McpConfigurationError);
    expect(() => resolveSkillSettings(options as never)).toThrow(message);
  });
});
