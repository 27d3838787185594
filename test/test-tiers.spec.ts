/**
 * The test tiers of jest.config.js (its projects) as Jest itself lists them: every spec file of
 * the repository is in exactly one tier, `npm test` runs the union on every core, and each
 * `npm run test:<tier>` script selects its own tier. And the order Jest starts them in
 * (jest.sequencer.js): the longest first, from the committed durations when Jest has none.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
const TIERS = ['unit', 'types', 'e2e', 'browser', 'consumers'] as const;
const JEST = require.resolve('jest/bin/jest', { paths: [ROOT] });
/** Seconds per spec file (test/suite-durations.json), for a fresh clone's first run. */
const DURATIONS = JSON.parse(readFileSync(join(ROOT, 'test', 'suite-durations.json'), 'utf8')) as Record<
  string,
  number
>;

/** What jest.sequencer.js sorts: a spec file, in a context without Jest's cache of durations. */
interface SequencedTest {
  path: string;
  duration?: number;
  context: { config: { cache: boolean }; hasteFS: { getSize(path: string): number } };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest.config.js names it: plain CommonJS.
const DurationSequencer = require('../jest.sequencer.js') as new (options: object) => {
  sort(tests: SequencedTest[]): SequencedTest[];
};

/** The spec files Jest lists, relative to the root: all of them, or those of `tier`. */
function listed(tier?: string): Promise<string[]> {
  const args = [JEST, '--listTests', '--json', ...(tier ? ['--selectProjects', tier] : [])];
  return new Promise((done, fail) => {
    execFile(process.execPath, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return fail(new Error(`jest --listTests failed: ${error.message}\n${stderr}`));
      // --selectProjects prints which projects run before the JSON line.
      const json = stdout.split('\n').find((line) => line.startsWith('['));
      done((JSON.parse(json ?? '[]') as string[]).map((file) => relative(ROOT, file)).sort());
    });
  });
}

/** What Jest makes of jest.config.js (`jest --showConfig`). */
function showConfig(): Promise<{ globalConfig: Record<string, unknown> }> {
  return new Promise((done, fail) => {
    execFile(process.execPath, [JEST, '--showConfig'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) =>
      error
        ? fail(new Error(`jest --showConfig failed: ${error.message}`))
        : done(JSON.parse(stdout) as { globalConfig: Record<string, unknown> }),
    );
  });
}

/** Every spec file under `dir`, besides installed packages and the consumer apps. */
function specFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return entry.name === 'node_modules' || path === join('test', 'consumers') ? [] : specFiles(path);
    }
    return /\.(spec|e2e-spec)\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('test tiers', () => {
  let all: string[];
  const byTier = new Map<string, string[]>();

  beforeAll(async () => {
    const lists = await Promise.all([listed(), ...TIERS.map((tier) => listed(tier))]);
    all = lists[0];
    TIERS.forEach((tier, index) => byTier.set(tier, lists[index + 1]));
  }, 60_000);

  it('runs every spec file of lib/ and test/ in `npm test`', () => {
    expect(all).toEqual([...specFiles('lib'), ...specFiles('test')].sort());
  });

  it('puts every spec file in exactly one tier, none empty', () => {
    const tiersOf = new Map<string, string[]>();
    for (const [tier, files] of byTier) {
      expect({ tier, empty: files.length === 0 }).toEqual({ tier, empty: false });
      for (const file of files) tiersOf.set(file, [...(tiersOf.get(file) ?? []), tier]);
    }
    const notInOne = all
      .map((file) => [file, tiersOf.get(file) ?? []] as const)
      .filter(([, tiers]) => tiers.length !== 1);
    expect(notInOne).toEqual([]);
    expect([...tiersOf.keys()].sort()).toEqual(all);
  });

  it('keeps lib/ specs in unit or types, and the console, consumer and type specs in theirs', () => {
    expect(byTier.get('unit')!.every((file) => file.startsWith('lib/'))).toBe(true);
    expect(byTier.get('e2e')!.every((file) => file.startsWith('test/'))).toBe(true);
    expect(byTier.get('types')).toContain('lib/decorators/mcp-typed-tool.decorator.spec.ts');
    expect(byTier.get('consumers')).toEqual(['test/consumers.e2e-spec.ts']);
    expect(byTier.get('browser')).toContain('test/support/browser.e2e-spec.ts');
    expect(all.filter((file) => file.startsWith('test/console/'))).toEqual(
      byTier.get('browser')!.filter((file) => file.startsWith('test/console/')),
    );
  });

  it('runs two workers per core, with the 20 s test timeout for every tier (a global option of Jest)', async () => {
    const { globalConfig } = await showConfig();
    expect(globalConfig).toMatchObject({
      maxWorkers: 2 * availableParallelism(),
      testTimeout: 20_000,
      testSequencer: join(ROOT, 'jest.sequencer.js'),
    });
  });

  it('keeps durations of spec files Jest runs only, a whole number of seconds each', () => {
    const entries = Object.entries(DURATIONS);
    expect(entries.length).toBeGreaterThan(10);
    expect(entries.filter(([file]) => !all.includes(file)).map(([file]) => file)).toEqual([]);
    expect(entries.filter(([, seconds]) => !Number.isInteger(seconds) || seconds <= 0)).toEqual([]);
  });

  it('starts the files with a committed duration first, longest first, then the others largest first', () => {
    const [longest, next] = Object.entries(DURATIONS).sort(([, a], [, b]) => b - a);
    const sizes: Record<string, number> = { 'lib/a.spec.ts': 10, 'lib/b.spec.ts': 900, [longest[0]]: 1, [next[0]]: 5 };
    const context = { config: { cache: false }, hasteFS: { getSize: (path: string) => sizes[relative(ROOT, path)] } };
    const tests = Object.keys(sizes).map((file) => ({ path: join(ROOT, file), context }));
    const sorted = new DurationSequencer({}).sort(tests);
    expect(sorted.map((test) => [relative(ROOT, test.path), test.duration])).toEqual([
      [longest[0], longest[1] * 1000],
      [next[0], next[1] * 1000],
      ['lib/b.spec.ts', undefined],
      ['lib/a.spec.ts', undefined],
    ]);
  });

  it('has an npm script per tier, and `npm test` runs Jest on every tier', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.test).toBe('jest');
    for (const tier of TIERS) expect(scripts[`test:${tier}`]).toBe(`jest --selectProjects ${tier}`);
  });
});
