import { matchesPathPattern, pathPatternFault } from './path-glob';

describe('matchesPathPattern', () => {
  it.each([
    ['/api/v1/notes', '/api/v1/notes', true],
    ['/api/v1/notes', '/api/v1/notes/:id', false],
    ['/api/*/notes', '/api/v1/notes', true],
    ['/api/*/notes', '/api/notes', false],
    ['/api/*', '/api/v1/notes', false],
    ['/api/**', '/api', true],
    ['/api/**', '/api/v1/notes/:id', true],
    ['/**', '/anything/at/all', true],
    ['/**/:id', '/api/v1/notes/:id', true],
    ['/**/:id', '/api/v1/notes', false],
    ['/api/**/notes/*', '/api/v1/x/notes/:id', true],
    ['/api/**/notes/*', '/api/v1/x/notes', false],
    ['/api/**/a/**/b', '/api/a/x/a/y/b', true],
    ['/api/**/a/**/b', '/api/b/a', false],
    ['api/v1//notes/', '/api/v1/notes', true],
  ])('%s on %s: %s', (pattern, path, expected) => {
    expect(matchesPathPattern(pattern, path)).toBe(expected);
  });

  it('stays fast on a pattern of many ** against a long path that does not match', () => {
    const pattern = '/' + Array.from({ length: 50 }, () => '**/a').join('/') + '/z';
    const path = '/' + Array.from({ length: 2000 }, () => 'a').join('/');
    // Segments × pattern segments at most; backtracking at every ** would not end before Jest's timeout.
    expect(matchesPathPattern(pattern, path)).toBe(false);
  });
});

describe('pathPatternFault', () => {
  it('takes whole-segment wildcards', () => {
    expect(pathPatternFault('/api/*/notes/**')).toBeUndefined();
  });

  it.each([
    ['api/notes', 'must start with "/"'],
    ['/api/note*', '"note*"'],
    ['/api/***', '"***"'],
  ])('refuses %s', (pattern, reason) => {
    expect(pathPatternFault(pattern)).toContain(reason);
  });
});
