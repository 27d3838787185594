/**
 * The option defaults of the docs are the code's: docs/reference/options.md, where the defaults
 * are written (once), has a row for every option of `McpModule.forRoot()` with a `@default` TSDoc
 * tag, with that default, and no row for an option that does not exist.
 *
 * The page: tables whose first header cell is `Option`; in each row the first cell is the full
 * dotted option name in backticks (`http.maxBodyBytes`), the second its default, `—` when it has
 * none. The default is the TSDoc `@default` text exactly, except for backticks (the page may put
 * all of it in a code span, or only its code), spacing and `_` digit separators:
 * `4194304 (4 MiB)` matches `` `4194304` (4 MiB) `` and `` `4194304 (4 MiB)` ``, not `4 MiB`.
 *
 * The options are found by walking the types of `McpModuleOptions` and `McpModuleExtras`
 * (test/support/option-defaults.ts), records included (`auth.basic.users.*.id`); every `@default`
 * of the option files must be reached by that walk, so that none is skipped silently. A default
 * declared once but reachable under several names (`auth.bearer.tokens.*.scopes`,
 * `auth.apiKey.keys.*.scopes`) needs one row, under any of them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  declaredOptions,
  defaultProblems,
  defaultTagsIn,
  normalizeDefault,
  type DeclaredOption,
} from './support/option-defaults';

const ROOT = resolve(__dirname, '..');
const PAGE = 'docs/reference/options.md';
const FIXTURE = 'test/fixtures/docs/defaults/options.md';
/** The files that declare the options, whose `@default` tags are all options' defaults. */
const OPTION_FILES = [
  ...readdirSync(join(ROOT, 'lib/interfaces'))
    .filter((file) => file.endsWith('-options.interface.ts'))
    .map((file) => `lib/interfaces/${file}`),
  'lib/interfaces/mcp-module-extras.interface.ts',
  'lib/interfaces/mcp-schema.interface.ts',
].sort();
/** Walking the types runs the TypeScript checker on lib/interfaces, on a busy machine. */
const WALK_TIMEOUT_MS = 60_000;

let declared: DeclaredOption[];

beforeAll(() => {
  declared = declaredOptions(ROOT);
}, WALK_TIMEOUT_MS);

describe(`the option defaults of ${PAGE}`, () => {
  it('has the page', () => {
    expect(existsSync(join(ROOT, PAGE)) ? PAGE : `${PAGE} is missing`).toBe(PAGE);
  });

  it('has a row for every option with a default, with the default of its TSDoc', () => {
    expect(existsSync(join(ROOT, PAGE))).toBe(true);
    expect(defaultProblems(PAGE, readFileSync(join(ROOT, PAGE), 'utf8'), declared)).toEqual([]);
  });
});

describe('the options found in the code', () => {
  it('are those of forRoot, nested sections included, with their defaults', () => {
    const defaultsOf = (name: string) =>
      declared.filter((option) => option.name === name).map((option) => option.default);
    expect(defaultsOf('callTimeoutMs')).toEqual(['60000']);
    expect(defaultsOf('http.maxBodyBytes')).toEqual(['4194304 (4 MiB)']);
    expect(defaultsOf('auth.bearer.jwt.clockToleranceSec')).toEqual(['60']);
    expect(defaultsOf('console.allowInProduction')).toEqual(['false']);
    expect(defaultsOf('auth.basic.users.*.id')).toEqual(['the user name']);
    expect(defaultsOf('auth.apiKey.keys.*.scopes')).toEqual(['[]']);
    // A name in both roots: one declaration each.
    expect(defaultsOf('name')).toEqual([undefined, "'default' (forRootAsync without one)"]);
    expect(defaultsOf('version')).toEqual([undefined]);
    expect(declared.filter((option) => option.default !== undefined).length).toBeGreaterThan(60);
  });

  it('include every @default of the option files', () => {
    expect(OPTION_FILES).toContain('lib/interfaces/mcp-http-options.interface.ts');
    const reached = new Set(declared.map((option) => option.at));
    const tags = defaultTagsIn(OPTION_FILES, ROOT);
    expect(tags.length).toBeGreaterThan(60);
    expect(tags.filter((at) => !reached.has(at))).toEqual([]);
  });
});

describe('the check itself', () => {
  /** Where the code declares an option (read, not written here: comments above it move it). */
  const at = (name: string): string => declared.find((option) => option.name === name)?.at ?? `no option ${name}`;

  it('refuses a wrong default, a missing one, an unknown option, a repeated row and a row without a name', () => {
    const problems = defaultProblems(FIXTURE, readFileSync(join(ROOT, FIXTURE), 'utf8'), declared);
    expect(problems.filter((problem) => !problem.endsWith('has no row'))).toEqual([
      `${FIXTURE}:13: an option row starts with the option's name in backticks, then its default`,
      `${FIXTURE}:8: \`callTimeoutMs\` defaults to 60000 (${at('callTimeoutMs')}), not 30000`,
      `${FIXTURE}:9: \`pageSize\` defaults to 0 (${at('pageSize')}), not —`,
      `${FIXTURE}:10: \`http.noSuchOption\` is no option of McpModule.forRoot()`,
      `${FIXTURE}:12: \`path\` has a row already, at line 11`,
      `${FIXTURE}:14: \`http.cors\` defaults to true (${at('http.cors')}), not true | false`,
    ]);
    expect(problems).toContain(
      `${FIXTURE}: \`http.keepAliveMs\` (default 15000, ${at('http.keepAliveMs')}) has no row`,
    );
    // The rows that are right are not reported missing.
    expect(problems.filter((problem) => /`(http\.maxBodyBytes|sessions\.idleTimeoutMs|path)`/.test(problem))).toEqual([
      `${FIXTURE}:12: \`path\` has a row already, at line 11`,
    ]);
  });

  it('passes a page written from the code, and refuses it once one default is changed', () => {
    const table = (options: readonly DeclaredOption[]) =>
      [
        '| Option | Default |',
        '| ------ | ------- |',
        ...options.map((option) => `| \`${option.name}\` | ${option.default ?? '—'} |`),
      ].join('\n');
    expect(defaultProblems('generated.md', table(declared), declared)).toEqual([]);
    const changed = declared.map((option) =>
      option.name === 'http.maxJsonDepth' ? { ...option, default: '128' } : option,
    );
    const line = 3 + declared.findIndex((option) => option.name === 'http.maxJsonDepth');
    expect(defaultProblems('generated.md', table(changed), declared)).toEqual([
      `generated.md:${line}: \`http.maxJsonDepth\` defaults to 64 (${at('http.maxJsonDepth')}), not 128`,
    ]);
  });

  it('refuses a page without an option table', () => {
    expect(defaultProblems('x.md', '# Options\n\n| Name | Default |\n| - | - |\n| `a` | `1` |\n', declared)).toEqual([
      'x.md: no option table (a table whose first header cell is "Option")',
    ]);
  });

  it.each([
    ['`4194304` (4 MiB)', '4194304 (4 MiB)'],
    ['`4194304 (4 MiB)`', '4194304 (4 MiB)'],
    ['`30_000`', '30000'],
    ["`'mcp'`", "'mcp'"],
    ['twice  `maxBodyBytes`,\n at least `8388608`', 'twice maxBodyBytes, at least 8388608'],
    ['—', '—'],
    ['', '—'],
  ])('normalizes %j to %j', (written, normalized) => {
    expect(normalizeDefault(written)).toBe(normalized);
  });
});
