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
      ['test://items/{id}', 'test://items/a%2Fb', { id: 'a/b' }],
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
