/**
 * The order Jest starts the spec files in: the longest first, so that the workers finish
 * together rather than one of them starting a two-minute suite while the others have nothing left.
 *
 * Jest does this by itself from the durations of the last run, kept in its cache; a fresh clone
 * has none, and Jest then falls back to the files' sizes, which start the longest suites (the
 * consumer apps' installs, the thousand sessions) minutes late. So the durations measured on the
 * 2-core machine are committed in test/suite-durations.json, and used for every spec file Jest
 * has no duration of its own for. Files in neither run after the ones with a duration, largest
 * first. Failed files still run first, as Jest does.
 *
 * To refresh the table after a run (`npx jest --json --outputFile=/tmp/jest.json`):
 *
 *   node jest.sequencer.js /tmp/jest.json
 *
 * which keeps the files of 3 s or more, rounded to the second.
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, sep } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const TABLE = join(__dirname, 'test', 'suite-durations.json');
/** Files shorter than this are left out of the table: their order matters little. */
const MIN_SECONDS = 3;

/** Seconds per spec file, relative to the root (forward slashes). */
function committedDurations() {
  return JSON.parse(readFileSync(TABLE, 'utf8'));
}

const key = (path) => relative(__dirname, path).split(sep).join('/');

class DurationSequencer extends Sequencer {
  constructor(...args) {
    super(...args);
    this.committed = committedDurations();
  }

  sort(tests) {
    const sizes = new Map();
    const size = (test) => {
      if (!sizes.has(test.path)) sizes.set(test.path, test.context.hasteFS.getSize(test.path) ?? 0);
      return sizes.get(test.path);
    };
    for (const test of tests) {
      const seconds = this.committed[key(test.path)];
      // Jest's own figure (milliseconds) when it has one, the committed one otherwise.
      test.duration = this.time(test) ?? (seconds === undefined ? undefined : seconds * 1000);
    }
    return tests.sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      const timedA = a.duration != null;
      if (timedA !== (b.duration != null)) return timedA ? -1 : 1;
      if (timedA && a.duration !== b.duration) return b.duration - a.duration;
      return size(b) - size(a) || (a.path < b.path ? -1 : 1);
    });
  }
}

module.exports = DurationSequencer;

if (require.main === module) {
  // node jest.sequencer.js <jest --json output>: rewrites the table from that run.
  const [file] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node jest.sequencer.js <output of jest --json>');
    process.exit(1);
  }
  const { testResults } = JSON.parse(readFileSync(file, 'utf8'));
  // The run may come from another clone: its root is where every spec file's path begins.
  const dirs = testResults.map((result) => dirname(result.name));
  let root = dirs[0];
  while (!dirs.every((dir) => dir === root || dir.startsWith(`${root}${sep}`))) root = dirname(root);
  const table = Object.fromEntries(
    testResults
      .map((result) => [
        relative(root, result.name).split(sep).join('/'),
        Math.round((result.endTime - result.startTime) / 1000),
      ])
      .filter(([, seconds]) => seconds >= MIN_SECONDS)
      .sort(([pathA, a], [pathB, b]) => b - a || (pathA < pathB ? -1 : 1)),
  );
  writeFileSync(TABLE, `${JSON.stringify(table, null, 2)}\n`);
  console.log(`${Object.keys(table).length} spec files written to ${relative(process.cwd(), TABLE)}`);
}
