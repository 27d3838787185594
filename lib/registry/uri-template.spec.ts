import { InvalidUriTemplateError, UriTemplate } from './uri-template';

type Row = [template: string, uri: string, expected: Record<string, string> | undefined];

function check([template, uri, expected]: Row): void {
  expect(new UriTemplate(template).match(uri)).toEqual(expected);
}

describe('UriTemplate', () => {
  describe('simple expressions {var}', () => {
    it.each<Row>([
      ['test://items/{id}', 'test://items/123', { id: '123' }],
      ['test://template/{id}/data', 'test://template/123/data', { id: '123' }],
      ['notes://{owner}/{id}', 'notes://ada/42', { owner: 'ada', id: '42' }],
      ['db://{table}/{id}.json', 'db://users/7.json', { table: 'users', id: '7' }],
      ['x://{a},{b}', 'x://1,2', { a: '1', b: '2' }],
      ['x://{a,b}', 'x://1,2', { a: '1', b: '2' }],
      ['test://items/{id}', 'test://items/', undefined],
      ['test://items/{id}', 'test://items/1/2', undefined],
      ['test://items/{id}', 'test://other/1', undefined],
      ['test://items/{id}', 'test://items/1?x=2', undefined],
      ['test://items/{id}', 'prefix-test://items/1', undefined],
      ['test://template/{id}/data', 'test://template/123/data/more', undefined],
    ])('%s matching %s', (...row) => check(row));
  });

  describe('percent-decoding', () => {
    it.each<Row>([
      ['test://items/{id}', 'test://items/hello%20world', { id: 'hello world' }],
      ['test://items/{id}', 'test://items/caf%C3%A9', { id: 'café' }],
      ['p/{+path}', 'p/docs/read%20me.md', { path: 'docs/read me.md' }],
      ['search{?q}', 'search?q=a%26b', { q: 'a&b' }],
    ])('%s matching %s', (...row) => check(row));

    it.each([['test://items/%E0%A4%A'], ['test://items/%ZZ'], ['test://items/%']])(
      'malformed percent-encoding in %s matches nothing',
      (uri) => {
        expect(new UriTemplate('test://items/{id}').match(uri)).toBeUndefined();
      },
    );
  });

  describe('reserved expressions {+var}', () => {
    it.each<Row>([
      ['file:///{+path}', 'file:///home/ada/notes.txt', { path: 'home/ada/notes.txt' }],
      ['repo://{owner}/{+path}', 'repo://ada/src/lib/a.ts', { owner: 'ada', path: 'src/lib/a.ts' }],
      ['file:///{+path}', 'file:///a?b', undefined],
      ['file:///{+path}', 'file:///', undefined],
    ])('%s matching %s', (...row) => check(row));
  });

  describe('query expressions {?a,b} and continuations {&c}', () => {
    it.each<Row>([
      ['search{?q,lang}', 'search?q=mcp&lang=en', { q: 'mcp', lang: 'en' }],
      ['search{?q,lang}', 'search?lang=en&q=mcp', { q: 'mcp', lang: 'en' }],
      ['search{?q,lang}', 'search?q=mcp', { q: 'mcp' }],
      ['search{?q,lang}', 'search', {}],
      ['search{?q}', 'search?q=', { q: '' }],
      ['search{?q}', 'search?q=1&unknown=2', { q: '1' }],
      ['search{?q}', 'search/extra', undefined],
      ['search?fixed=1{&page}', 'search?fixed=1&page=2', { page: '2' }],
      ['search{?q}{&page}', 'search?q=mcp&page=2', { q: 'mcp', page: '2' }],
    ])('%s matching %s', (...row) => check(row));
  });

  describe('path expressions {/a,b}', () => {
    it.each<Row>([
      ['api{/version}', 'api/v1', { version: 'v1' }],
      ['api{/version,resource}', 'api/v1/users', { version: 'v1', resource: 'users' }],
      ['api{/version,resource}', 'api/v1', { version: 'v1' }],
      ['api{/version}', 'api', {}],
      ['api{/version}', 'api/v1/users', undefined],
    ])('%s matching %s', (...row) => check(row));
  });

  describe('fragment expressions {#f}', () => {
    it.each<Row>([
      ['doc://page{#section}', 'doc://page#intro', { section: 'intro' }],
      ['doc://page{#section}', 'doc://page#a%20b', { section: 'a b' }],
      ['doc://page{#section}', 'doc://page', {}],
      ['doc://page{#a,b}', 'doc://page#x,y', { a: 'x', b: 'y' }],
    ])('%s matching %s', (...row) => check(row));
  });

  describe('label and path-parameter expressions', () => {
    it.each<Row>([
      ['file{.ext}', 'file.txt', { ext: 'txt' }],
      ['file{.ext}', 'file', {}],
      ['file{.major,minor}', 'file.1.2', { major: '1', minor: '2' }],
      ['map{;x,y}', 'map;x=1;y=2', { x: '1', y: '2' }],
      ['map{;x,y}', 'map;y=2', { y: '2' }],
    ])('%s matching %s', (...row) => check(row));
  });

  describe('matching ambiguous templates', () => {
    // Where expressions and literals can share characters, the earliest expression takes the
    // most it can (as a backtracking regular expression would).
    it.each<Row>([
      ['x://{a}.{b}', 'x://one.two.three', { a: 'one.two', b: 'three' }],
      ['x://{a}{b}', 'x://abc', { a: 'ab', b: 'c' }],
      ['x://{a}-{b}-{c}', 'x://1-2-3-4', { a: '1-2', b: '3', c: '4' }],
      ['x://{+a}/{b}', 'x://p/q/r', { a: 'p/q', b: 'r' }],
      ['x://{+a}{/b}', 'x://p/q/r', { a: 'p/q/r' }],
      ['x://{a}{.b}', 'x://f.tar.gz', { a: 'f.tar.gz' }],
      ['map{;x,y}', 'map;x=1;;y=2', { x: '1', y: '2' }],
      ['x://{a}{?q}', 'x://v?q=1', { a: 'v', q: '1' }],
      ['x://{a}.{b}', 'x://nodot', undefined],
    ])('%s matching %s', (...row) => check(row));
  });

  describe('matching time', () => {
    // A backtracking matcher takes minutes on these (quadratic or cubic in the URI's length for
    // adjacent expressions, exponential for {;x}); a linear one, tens of milliseconds at most.
    // The bound of a second is no speed target (speed is measured by npm run bench): it sits
    // far above what the linear matcher takes on a busy machine and far below what a
    // backtracking one would. The matcher is warmed first on a tenth of the URI, so that what is
    // timed is matching, not compiling.
    it.each<[template: string, head: string, unit: string, count: number, tail: string]>([
      ['x://{a}.{b}', 'x://', 'a.', 200_000, '/'],
      ['x://{a}{b}{c}', 'x://', 'a', 8_000, '/'],
      ['x://{+a}{+b}', 'x://', 'a/', 200_000, '#'],
      ['x://{a}{.b}{/c}', 'x://', 'a.', 200_000, '?'],
      ['map{;x}', 'map', ';', 40, '/'],
      ['map{;x,y}', 'map', ';x=', 8_000, '/'],
    ])('%s answers a hostile URI without backtracking', (source, head, unit, count, tail) => {
      const template = new UriTemplate(source);
      const warmUp = `${head}${unit.repeat(count / 10)}${tail}`;
      for (let round = 0; round < 3; round++) {
        template.match(warmUp);
      }
      const uri = `${head}${unit.repeat(count)}${tail}`;
      const started = performance.now();
      expect(template.match(uri)).toBeUndefined();
      expect(performance.now() - started).toBeLessThan(1_000);
    });
  });

  describe('unsafe values', () => {
    it.each<Row>([
      ['notes://{id}', 'notes://..%2F..%2Fetc%2Fpasswd', undefined],
      ['notes://{id}', 'notes://a%2Fb', undefined],
      ['notes://{id}', 'notes://a%5Cb', undefined],
      ['notes://{id}', 'notes://..', undefined],
      ['notes://{id}', 'notes://%2E%2E', undefined],
      ['notes://{id}', 'notes://a%00', undefined],
      ['notes://{id}', 'notes://a%0Ab', undefined],
      ['notes://{id}', 'notes://a%7F', undefined],
      ['notes://{id}', 'notes://a..b', { id: 'a..b' }],
      ['notes://{id}', 'notes://...', { id: '...' }],
      ['notes://{id}', 'notes://a%20b%09', undefined],
      ['notes://{a,b}', 'notes://ok,..', undefined],
      ['search{?q}', 'search?q=..%2Fx', undefined],
      ['search{?q}', 'search?q=%00', undefined],
      ['search{?q}', 'search?other=%00&q=1', { q: '1' }],
      ['api{/v}', 'api/%2E%2E', undefined],
      ['file{.ext}', 'file.%2E%2E', undefined],
      ['map{;x}', 'map;x=a%5Cb', undefined],
      ['file:///{+path}', 'file:///docs/a.md', { path: 'docs/a.md' }],
      ['file:///{+path}', 'file:///docs/v1..v2/a.md', { path: 'docs/v1..v2/a.md' }],
      ['file:///{+path}', 'file:///a/../../etc/passwd', undefined],
      ['file:///{+path}', 'file:///a/%2E%2E/b', undefined],
      ['file:///{+path}', 'file:///a%5C..%5Cb', undefined],
      ['file:///{+path}', 'file:///a/..', undefined],
      ['file:///{+path}', 'file:///../a', undefined],
      ['file:///{+path}', 'file:///a%00.md', undefined],
      ['doc://page{#section}', 'doc://page#a/b', { section: 'a/b' }],
      ['doc://page{#section}', 'doc://page#../b', undefined],
    ])('%s matching %s', (...row) => check(row));

    it('are given as they are to a template that allows them', () => {
      const template = new UriTemplate('notes://{id}', { allowUnsafeValues: true });
      expect(template.match('notes://..%2F..%2Fetc%2Fpasswd')).toEqual({ id: '../../etc/passwd' });
      expect(template.match('notes://a%00')).toEqual({ id: 'a\0' });
      expect(template.match('notes://a%5Cb')).toEqual({ id: 'a\\b' });
      expect(new UriTemplate('file:///{+path}', { allowUnsafeValues: true }).match('file:///a/../b')).toEqual({
        path: 'a/../b',
      });
    });
  });

  it('treats literal regular-expression characters literally', () => {
    const template = new UriTemplate('a.b+c://(x)/{id}');
    expect(template.match('a.b+c://(x)/1')).toEqual({ id: '1' });
    expect(template.match('aXb+c://(x)/1')).toBeUndefined();
  });

  it('lists its variables in order of appearance', () => {
    expect(new UriTemplate('x://{a}/{+b}{?c,d}{#e}').variables).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(new UriTemplate('x://fixed').variables).toEqual([]);
  });

  it('accepts explode and prefix modifiers', () => {
    expect(new UriTemplate('x://{list*}').match('x://a')).toEqual({ list: 'a' });
    expect(new UriTemplate('x://{name:3}').match('x://abc')).toEqual({ name: 'abc' });
  });

  it('a template without expressions matches only itself', () => {
    const template = new UriTemplate('test://static');
    expect(template.match('test://static')).toEqual({});
    expect(template.match('test://static2')).toBeUndefined();
  });

  describe('invalid templates', () => {
    it.each([
      ['an empty expression', 'x://{}'],
      ['an unclosed brace', 'x://{id'],
      ['a stray closing brace', 'x://id}'],
      ['a closing brace before an expression', 'x://}{id}'],
      ['nested braces', 'x://{a{b}}'],
      ['a space in a name', 'x://{a b}'],
      ['a hyphen in a name', 'x://{a-b}'],
      ['an operator without a name', 'x://{?}'],
      ['an empty name in a list', 'x://{a,}'],
      ['a reserved operator =', 'x://{=a}'],
      ['a reserved operator !', 'x://{!a}'],
      ['a reserved operator @', 'x://{@a}'],
      ['a reserved operator |', 'x://{|a}'],
      ['a variable used twice', 'x://{id}/{id}'],
      ['a variable repeated in a list', 'x://{?a,a}'],
    ])('%s (%s) throws InvalidUriTemplateError', (_label, template) => {
      expect(() => new UriTemplate(template)).toThrow(InvalidUriTemplateError);
    });
  });
});
