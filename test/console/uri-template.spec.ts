/**
 * The Resources panel's URI templates: the variables it makes inputs for, and the URI it reads,
 * checked against the examples of RFC 6570 (sections 1.2 and 3.2) for string values.
 */
// @ts-expect-error -- a browser module without declarations (console-ui/tsconfig.json checks it)
import * as panel from '../../console-ui/resources-panel.js';

const { expandUriTemplate, parseUriTemplate, templateVariables } = panel as {
  expandUriTemplate(template: string, values: Record<string, string | undefined>): string;
  parseUriTemplate(template: string): unknown[];
  templateVariables(template: string): string[];
};

const VALUES = {
  var: 'value',
  hello: 'Hello World!',
  path: '/foo/bar',
  empty: '',
  x: '1024',
  y: '768',
};

describe('console URI templates (RFC 6570)', () => {
  it.each([
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{+var}', 'value'],
    ['{+hello}', 'Hello%20World!'],
    ['{+path}/here', '/foo/bar/here'],
    ['here?ref={+path}', 'here?ref=/foo/bar'],
    ['map?{x,y}', 'map?1024,768'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{+path,x}/here', '/foo/bar,1024/here'],
    ['{#x,hello,y}', '#1024,Hello%20World!,768'],
    ['{#path,x}/here', '#/foo/bar,1024/here'],
    ['X{.var}', 'X.value'],
    ['X{.x,y}', 'X.1024.768'],
    ['{/var}', '/value'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ['{var:3}', 'val'],
    ['{var:30}', 'value'],
    ['{+path:6}/here', '/foo/b/here'],
    ['{?x,undef}', '?x=1024'],
    ['{?undef}', ''],
    ['{/undef}{var}', 'value'],
    ['notes://{var}', 'notes://value'],
  ])('%s expands to %s', (template, uri) => {
    expect(expandUriTemplate(template, VALUES)).toBe(uri);
  });

  it('percent-encodes UTF-8 in simple expansion, keeps existing triplets in reserved expansion', () => {
    expect(expandUriTemplate('notes://{id}', { id: 'ü/é 1' })).toBe('notes://%C3%BC%2F%C3%A9%201');
    expect(expandUriTemplate('{+id}', { id: 'a%20b c' })).toBe('a%20b%20c');
    expect(expandUriTemplate('{id}', { id: 'a%20b' })).toBe('a%2520b');
  });

  it('names each variable once, in order, without operators or modifiers', () => {
    expect(templateVariables('file:///{+path}{?a,b*}{&c:3}{#frag}{/a}')).toEqual(['path', 'a', 'b', 'c', 'frag']);
    expect(templateVariables('notes://index')).toEqual([]);
    expect(parseUriTemplate('x{.a*,b:2}y')).toEqual([
      { literal: 'x' },
      {
        operator: '.',
        variables: [
          { name: 'a', explode: true },
          { name: 'b', explode: false, prefix: 2 },
        ],
      },
      { literal: 'y' },
    ]);
  });
});
