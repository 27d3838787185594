/**
 * The links of the repository's documents (README.md, CONTRIBUTING.md, bench/README.md and every
 * page under docs/, as scripts/doc-pages.ts lists them) resolve inside the repository: each is an
 * anchor of a heading of the same document, or a relative path to a file or directory of the
 * repository (with an anchor of that file when it names one), and never an absolute URL. Text
 * and code may show URLs (as code); links may not point at them.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { docPages } from '../scripts/doc-pages';
import { extractLinks, headingAnchors, type MarkdownLink } from './support/markdown-links';

const ROOT = resolve(__dirname, '..');
const DOCUMENTS = docPages(ROOT);
/** The documents there must be: the front door, its index, the options' defaults. */
const REQUIRED = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'docs/README.md', 'docs/reference/options.md'];
/** A page with a broken link of each kind, for the check itself. */
const BROKEN = 'test/fixtures/docs/links/broken.md';
/** Directories that are in the working tree but not in the repository. */
const NOT_IN_REPOSITORY = ['node_modules', 'dist', 'coverage', '.git'];

/** What is wrong with one link of `document`, or undefined when it resolves. */
function problemOf(document: string, link: MarkdownLink): string | undefined {
  const { destination } = link;
  if (link.kind === 'reference' && link.defined === false) {
    return `the reference [${link.label}] has no definition`;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(destination) || destination.startsWith('//') || link.kind === 'bare-url') {
    return `${destination} is an absolute URL`;
  }
  if (destination === '') {
    return 'the link has no destination';
  }
  const [rawPath, ...fragments] = destination.split('#');
  const fragment = fragments.length === 0 ? undefined : decodeURIComponent(fragments.join('#'));
  if (rawPath === '') {
    return headingAnchors(readFileSync(join(ROOT, document), 'utf8')).has(fragment ?? '')
      ? undefined
      : `#${fragment} is no heading of ${document}`;
  }
  if (rawPath.startsWith('/')) {
    return `${destination} is not relative to ${document}`;
  }
  const target = resolve(ROOT, dirname(document), decodeURIComponent(rawPath));
  const inRepository = relative(ROOT, target);
  if (inRepository.startsWith('..') || NOT_IN_REPOSITORY.includes(inRepository.split(sep)[0])) {
    return `${destination} is outside the repository`;
  }
  if (!existsSync(target)) {
    return `${destination} does not exist`;
  }
  if (fragment !== undefined && statSync(target).isFile() && target.endsWith('.md')) {
    return headingAnchors(readFileSync(target, 'utf8')).has(fragment)
      ? undefined
      : `#${fragment} is no heading of ${inRepository}`;
  }
  return undefined;
}

/** `document:line: problem` for each link of `document` that does not resolve. */
function problemsOf(document: string): string[] {
  return extractLinks(readFileSync(join(ROOT, document), 'utf8'))
    .map((link) => ({ link, problem: problemOf(document, link) }))
    .filter(({ problem }) => problem !== undefined)
    .map(({ link, problem }) => `${document}:${link.line}: ${problem}`);
}

it('checks every document there must be, and every page under docs/', () => {
  expect(REQUIRED.filter((document) => !DOCUMENTS.includes(document))).toEqual([]);
});

it('keeps README.md a front page: at most 12 KB, the rest in docs/', () => {
  expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(12 * 1024);
});

it.each(['README.md', 'docs/README.md'])('finds links to check in %s', (document) => {
  expect(
    existsSync(join(ROOT, document)) && extractLinks(readFileSync(join(ROOT, document), 'utf8')).length,
  ).toBeGreaterThan(0);
});

describe.each(DOCUMENTS)('the links of %s', (document) => {
  it('resolve inside the repository, none to an absolute URL', () => {
    expect(problemsOf(document)).toEqual([]);
  });
});

describe('the check itself', () => {
  it('refuses each broken link of a fixture page, at its line', () => {
    expect(problemsOf(BROKEN)).toEqual([
      `${BROKEN}:1: https://example.com/docs is an absolute URL`,
      `${BROKEN}:5: #no-such-section is no heading of ${BROKEN}`,
      `${BROKEN}:6: ../../../../docs/no-such-page.md does not exist`,
      `${BROKEN}:7: #no-such-heading is no heading of README.md`,
      `${BROKEN}:8: #no-such-heading is no heading of test/fixtures/docs/snippets/good.md`,
    ]);
  });

  const check = (destination: string, kind: MarkdownLink['kind'] = 'inline') =>
    problemOf('bench/README.md', { kind, line: 1, destination });

  it.each([
    ['https://modelcontextprotocol.io', 'https://modelcontextprotocol.io is an absolute URL'],
    ['mailto:someone@example.com', 'mailto:someone@example.com is an absolute URL'],
    ['//cdn.example.com/x.js', '//cdn.example.com/x.js is an absolute URL'],
    ['#no-such-heading', '#no-such-heading is no heading of bench/README.md'],
    ['/README.md', '/README.md is not relative to bench/README.md'],
    ['../../outside.md', '../../outside.md is outside the repository'],
    ['../node_modules/jest/package.json', '../node_modules/jest/package.json is outside the repository'],
    ['missing.ts', 'missing.ts does not exist'],
    ['../README.md#no-such-heading', '#no-such-heading is no heading of README.md'],
  ])('refuses %s', (destination, problem) => {
    expect(check(destination)).toBe(problem);
  });

  it.each(['#scale-out', '../README.md', '../README.md#two-commands', 'main.ts', '../lib', './'])(
    'accepts %s',
    (destination) => {
      expect(check(destination)).toBeUndefined();
    },
  );

  it('refuses a bare URL and an undefined reference', () => {
    expect(check('www.example.com', 'bare-url')).toBe('www.example.com is an absolute URL');
    expect(problemOf('README.md', { kind: 'reference', line: 1, destination: '', label: 'x', defined: false })).toBe(
      'the reference [x] has no definition',
    );
  });
});
