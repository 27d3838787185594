/**
 * The link finder of the docs link check: what it takes for a link (and what it must not), and
 * the anchors it gives headings, checked on small documents.
 */
import { extractLinks, githubSlug, headingAnchors } from './markdown-links';

const destinations = (markdown: string) => extractLinks(markdown).map(({ kind, destination }) => [kind, destination]);

describe('extractLinks', () => {
  it('finds inline links and images, with or without a title, and their lines', () => {
    const links = extractLinks('See [the guide](docs/guide.md "Guide").\n\nA ![logo](img/logo.png) and [x](<a b.md>).');
    expect(links).toEqual([
      { kind: 'inline', line: 1, destination: 'docs/guide.md' },
      { kind: 'image', line: 3, destination: 'img/logo.png' },
      { kind: 'inline', line: 3, destination: 'a b.md' },
    ]);
  });

  it('finds reference links of all three forms through their definitions, and the definitions', () => {
    const markdown = [
      'Read [the spec][spec], the [Spec][] and [spec] itself; [missing][nowhere] is not defined.',
      '',
      '[spec]: ./SPEC.md',
    ].join('\n');
    expect(extractLinks(markdown)).toEqual([
      { kind: 'definition', line: 3, destination: './SPEC.md' },
      { kind: 'reference', line: 1, destination: './SPEC.md', label: 'spec', defined: true },
      { kind: 'reference', line: 1, destination: './SPEC.md', label: 'Spec', defined: true },
      { kind: 'reference', line: 1, destination: '', label: 'nowhere', defined: false },
      { kind: 'reference', line: 1, destination: './SPEC.md', label: 'spec', defined: true },
    ]);
  });

  it('takes bracketed text without a definition for text', () => {
    expect(extractLinks('An array `[a, b]` and [plain text] and [x] [y].')).toEqual([]);
  });

  it('finds autolinks and bare URLs, which GitHub links too', () => {
    expect(destinations('Go to <https://example.com/a> or https://example.com/b, or www.example.org.')).toEqual([
      ['autolink', 'https://example.com/a'],
      ['bare-url', 'https://example.com/b'],
      ['bare-url', 'www.example.org'],
    ]);
  });

  it('leaves out code: fenced blocks (``` and ~~~) and code spans, even over a line break', () => {
    const markdown = [
      '```ts',
      "const url = 'https://example.com'; // [not](a-link.md)",
      '```',
      '~~~~',
      '[inside](tilde.md)',
      '```',
      '[still inside](tilde.md)',
      '~~~~',
      'Text `[code](span.md)` and ``a `nested` [x](y.md)`` and `a span',
      'over two lines https://example.com` and [real](real.md).',
    ].join('\n');
    expect(destinations(markdown)).toEqual([['inline', 'real.md']]);
  });

  it('reads a link inside a table cell or a list item', () => {
    expect(destinations('| a | [b](b.md) |\n| - | - |\n\n- item [c](#c)')).toEqual([
      ['inline', 'b.md'],
      ['inline', '#c'],
    ]);
  });
});

describe('githubSlug and headingAnchors', () => {
  it.each([
    ['Two commands', 'two-commands'],
    ['The call context (`@McpCtx() ctx: McpCallContext`)', 'the-call-context-mcpctx-ctx-mcpcallcontext'],
    ['Several instances (Redis)', 'several-instances-redis'],
    ['Asking the client: one API, both eras', 'asking-the-client-one-api-both-eras'],
    ['snake_case and kebab-case', 'snake_case-and-kebab-case'],
    ['Ünïcode × symbols', 'ünïcode--symbols'],
  ])('the anchor of "%s" is #%s', (heading, slug) => {
    expect([...headingAnchors(`## ${heading}`)]).toEqual([slug]);
  });

  it('numbers repeated headings, reads setext headings and HTML ids, and skips headings in code', () => {
    const markdown = [
      '# Usage',
      '## Usage',
      'Options',
      '-------',
      '```',
      '# not a heading',
      '```',
      '<a id="custom-anchor"></a>',
      '### [Linked](x.md) **bold** heading ###',
    ].join('\n');
    expect([...headingAnchors(markdown)].sort()).toEqual(
      ['usage', 'usage-1', 'options', 'custom-anchor', 'linked-bold-heading'].sort(),
    );
  });

  it('keeps letters, digits, underscores and hyphens only', () => {
    expect(githubSlug('A.b/c:d@e!f?g_h-i')).toBe('abcdefg_h-i');
  });
});
