/**
 * Every TypeScript block of the docs (README.md, CONTRIBUTING.md, bench/README.md,
 * docs/**\/*.md) compiles against the package, as scripts/check-doc-snippets.ts
 * (`npm run docs:check`) checks it; and the check itself, on fixture pages
 * (test/fixtures/docs/snippets): a page that compiles passes, a page with deliberate errors is
 * refused at the Markdown lines of those errors.
 *
 * The docs and the fixtures are checked by one TypeScript program, as the script does.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { checkSnippets, extractSnippets, formatProblems, type SnippetCheck } from '../scripts/check-doc-snippets';
import { docPages } from '../scripts/doc-pages';

const ROOT = resolve(__dirname, '..');
const GOOD = 'test/fixtures/docs/snippets/good.md';
const BAD = 'test/fixtures/docs/snippets/bad.md';
/** One compiler run on a busy machine. */
const CHECK_TIMEOUT_MS = 60_000;

const pages = docPages(ROOT);
let check: SnippetCheck;

beforeAll(() => {
  check = checkSnippets([...pages, GOOD, BAD], ROOT);
}, CHECK_TIMEOUT_MS);

const problemsOf = (page: string) => formatProblems(check.problems.filter((problem) => problem.page === page));

describe('the TypeScript blocks of the docs', () => {
  it('are found: README.md has some', () => {
    expect(pages).toContain('README.md');
    expect(check.snippets.filter((snippet) => snippet.page === 'README.md').length).toBeGreaterThan(0);
  });

  it.each(pages)('%s: every block compiles against the package', (page) => {
    expect(problemsOf(page)).toEqual([]);
  });

  it('leave no problem outside a page (compiler options, global types)', () => {
    expect(formatProblems(check.problems.filter((problem) => !problem.page.endsWith('.md')))).toEqual([]);
  });
});

describe('the check itself', () => {
  it('passes a page whose blocks compile: files named by markers, imports between them, both SDK clients', () => {
    expect(problemsOf(GOOD)).toEqual([]);
    expect(check.snippets.filter((snippet) => snippet.page === GOOD).map(({ file, line }) => [file, line])).toEqual([
      ['src/notes.service.ts', 8],
      ['src/app.module.ts', 33],
      ['snippet-47.ts', 47],
      ['snippet-55.ts', 55],
    ]);
  });

  it('refuses a page whose blocks do not compile, at their Markdown lines', () => {
    expect(problemsOf(BAD)).toEqual([
      `${BAD}:10:48 TS2322: Type 'number' is not assignable to type 'string'.`,
      `${BAD}:11:15 TS2304: Cannot find name 'StockService'.`,
      `${BAD}:19:27 TS2307: Cannot find module 'nest-mcp/dist/mcp.module' or its corresponding type declarations.`,
    ]);
  });

  it('reads ```ts and ```typescript blocks only, indented ones too, and their file markers', () => {
    const markdown = [
      '<!-- file: src/a.ts -->', // 1
      '```ts', // 2
      'export const a = 1;', // 3
      '```', // 4
      '```js', // 5
      'not typescript', // 6
      '```', // 7
      '- a list item:', // 8
      '', // 9
      '  ```typescript', // 10
      '  export const b = 2;', // 11
      '  ```', // 12
      '````ts', // 13
      '```', // 14
      '````', // 15
    ].join('\n');
    expect(extractSnippets('x.md', markdown)).toEqual([
      { page: 'x.md', line: 3, file: 'src/a.ts', named: true, code: 'export const a = 1;\n' },
      { page: 'x.md', line: 11, file: 'snippet-11.ts', named: false, code: 'export const b = 2;\n' },
      { page: 'x.md', line: 14, file: 'snippet-14.ts', named: false, code: '```\n' },
    ]);
  });

  it('refuses a file named twice on a page, and a file outside the page', () => {
    const markdown = [
      '<!-- file: src/a.ts -->',
      '```ts',
      'export const a = 1;',
      '```',
      '<!-- file: src/a.ts -->',
      '```ts',
      'export const b = 2;',
      '```',
      '<!-- file: ../escape.ts -->',
      '```ts',
      'export const c = 3;',
      '```',
    ].join('\n');
    const { problems } = checkSnippets(['virtual.md'], ROOT, () => markdown);
    expect(formatProblems(problems)).toEqual([
      'virtual.md:6:1 the file src/a.ts is already the block at line 2',
      "virtual.md:10:1 the file ../escape.ts is outside the page's project",
    ]);
  });

  it(
    'runs as npm run docs:check: exits 1 and prints page:line:column and the message',
    async () => {
      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        const child = execFile(
          process.execPath,
          [
            require.resolve('ts-node/dist/bin.js'),
            '--transpile-only',
            join(ROOT, 'scripts/check-doc-snippets.ts'),
            BAD,
          ],
          { cwd: ROOT },
          (_error, stdout, stderr) => done({ code: child.exitCode, stdout, stderr }),
        );
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${BAD}:11:15 TS2304: Cannot find name 'StockService'.`);
      expect(result.stdout).toMatch(/^2 TypeScript blocks in 1 pages: 3 problem\(s\) \(\d+\.\d s\)$/m);
    },
    CHECK_TIMEOUT_MS,
  );
});
