#!/usr/bin/env node
/**
 * Summarizes the conformance runs of .ci/run from their checks.json files
 * (`<results-dir>/server-<scenario>-<timestamp>/checks.json`, written by `conformance server -o`).
 *
 *   node summarize.mjs run --dir <results-dir> --label <text>
 *                          (--requirements <revision> | --scenarios <file, one name a line>)
 *                          [--baseline <baseline.yml>] [--counts <file>] [--seen <file>]
 *   node summarize.mjs entries <baseline.yml>      prints how many `server:` entries the file lists
 *                                                  (0 when it is absent or lists nothing)
 *   node summarize.mjs unmatched <baseline.yml> <seen-file>...
 *                                                  lists the entries that no run saw (below)
 *
 * `run` prints one line per scenario and a closing line for the run, and writes to --counts:
 *   <checks passed> <checks failed> <checks expected> <scenarios passed> <scenarios failed>
 *   <scenarios expected> <scenarios with nothing scored>
 * and to --seen the baseline entries this run accounted for: those that matched a failing or
 * warning check, and those it found stale.
 *
 * Counting (the rules .ci/run documents for its closing line):
 * - Which scenarios count. --requirements <revision>: the scenarios the revision's frozen
 *   requirement set scores (`server:` in the suite's requirements/<revision>.yaml); the suite
 *   also runs scenarios it does not score there (extension tasks-*, pending, added after the
 *   release): they are listed and counted nowhere. --scenarios <file>: a suite run (.ci/run
 *   writes the file: the suite's scenarios minus the excluded ones); every scenario counts.
 *   A counted scenario without a checks.json (the suite never got to it) is one failed check.
 * - Checks: SUCCESS = passed; FAILURE = failed; WARNING = failed too (with a baseline the
 *   suite fails on an unlisted warning exactly as on a failure, and without one our count is
 *   what fails the run); INFO and SKIPPED count as neither.
 * - Baseline (--baseline, given only when .ci/run passes the same file to the suite): a failing
 *   or warning check listed as `scenario:check-id` (or its whole scenario as `scenario`) is
 *   "expected", neither passed nor failed. An entry that matches a counted scenario of this
 *   run but no longer fails is stale, as the suite decides it (a `scenario` entry whose
 *   scenario has no failing or warning check; a `scenario:check-id` entry whose check now
 *   passes): each stale entry is one failed check. Entries for scenarios this run does not
 *   count are ignored, as the suite ignores them. Without --baseline every FAILURE and
 *   WARNING is failed.
 * - An entry no run saw (`unmatched`) is stale in a way the suite never reports: the suite calls
 *   a `scenario:check-id` entry stale only when that check is reported as SUCCESS, and some
 *   scenarios emit their catch-all failure id (e.g. elicitation-sep1034-general) only when they
 *   fail, so once the feature works the entry matches nothing and nothing says so. .ci/run counts
 *   each such entry as one failure when all its default runs ran.
 * - Scenarios: passed = no failing or warning check and at least one SUCCESS; failed = an
 *   unexpected failing or warning check; expected = all its failing checks are in the
 *   baseline; "nothing scored" = only INFO/SKIPPED checks (e.g. a probe that found nothing to
 *   test), neither passed nor failed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// The suite parses baselines with the `yaml` package (installed with it in conformance-runner/);
// using the same parser keeps "what the suite reads" and "what we count" the same. The fallback
// reads plain `key:` + `  - item` lists, which is all these files use.
let parseYaml = null;
try {
  ({ parse: parseYaml } = await import('yaml'));
} catch {
  parseYaml = null;
}

/** The string items of a top-level list (`key:` followed by `  - item` lines). */
function yamlList(text, key) {
  if (parseYaml) {
    const doc = parseYaml(text);
    const list = doc && typeof doc === 'object' ? doc[key] : undefined;
    return Array.isArray(list) ? list.filter((item) => item != null).map(String) : [];
  }
  const items = [];
  let inside = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^\S/.test(line)) {
      inside = line.replace(/\s+#.*$/, '').trim() === `${key}:`;
      continue;
    }
    const item = inside && /^\s+-\s+([^\s#]+)/.exec(line);
    if (item) items.push(item[1].replace(/^['"]|['"]$/g, ''));
  }
  return items;
}

const baselineEntries = (file) =>
  file && fs.existsSync(file) ? yamlList(fs.readFileSync(file, 'utf8'), 'server') : [];

const [mode, ...rest] = process.argv.slice(2);

if (mode === 'entries') {
  console.log(baselineEntries(rest[0]).length);
  process.exit(0);
}

if (mode === 'unmatched') {
  const [baselineFile, ...seenFiles] = rest;
  const seen = new Set(
    seenFiles.flatMap((file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : [])),
  );
  for (const entry of baselineEntries(baselineFile)) {
    if (!seen.has(entry)) console.log(entry);
  }
  process.exit(0);
}

if (mode !== 'run') {
  console.error('usage: summarize.mjs run|entries|unmatched ... (see the comment at the top of the file)');
  process.exit(2);
}

const opts = {};
for (let i = 0; i < rest.length; i += 2) {
  if (!rest[i].startsWith('--') || rest[i + 1] === undefined) {
    console.error(`summarize: bad argument ${rest[i]}`);
    process.exit(2);
  }
  opts[rest[i].slice(2)] = rest[i + 1];
}
const label = opts.label ?? opts.dir;

// ---------------------------------------------------------------- which scenarios count
let counted = new Set();
let problem = '';
if (opts.requirements) {
  const file = path.join(
    here,
    'node_modules',
    '@modelcontextprotocol',
    'conformance',
    'requirements',
    `${opts.requirements}.yaml`,
  );
  counted = new Set(fs.existsSync(file) ? yamlList(fs.readFileSync(file, 'utf8'), 'server') : []);
  if (counted.size === 0) problem = `no scored server scenarios found in ${file}`;
} else if (opts.scenarios) {
  counted = new Set(
    fs.existsSync(opts.scenarios)
      ? fs
          .readFileSync(opts.scenarios, 'utf8')
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean)
      : [],
  );
  if (counted.size === 0) problem = `the scenario list ${opts.scenarios} is missing or empty`;
} else {
  console.error('summarize: --requirements or --scenarios is required');
  process.exit(2);
}

// ---------------------------------------------------------------- baseline
const entries = baselineEntries(opts.baseline);
const scenarioEntries = new Set(entries.filter((entry) => !entry.includes(':')));
const checkEntries = new Set(entries.filter((entry) => entry.includes(':')));
const entryFor = (scenario, checkId) =>
  scenarioEntries.has(scenario)
    ? scenario
    : checkEntries.has(`${scenario}:${checkId}`)
      ? `${scenario}:${checkId}`
      : null;

// ---------------------------------------------------------------- results
/** checks.json contents by scenario name (`server-<scenario>-<timestamp>` directories). */
const runs = new Map();
if (opts.dir && fs.existsSync(opts.dir)) {
  for (const dir of fs.readdirSync(opts.dir).sort()) {
    const file = path.join(opts.dir, dir, 'checks.json');
    if (!fs.existsSync(file)) continue;
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    let checks;
    try {
      checks = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (!Array.isArray(checks)) throw new Error('not an array');
    } catch {
      checks = [{ id: scenario, status: 'FAILURE', errorMessage: `unreadable ${file}` }];
    }
    runs.set(scenario, checks);
  }
}

const isFailing = (check) => check.status === 'FAILURE' || check.status === 'WARNING';

/** The suite's view of a scenario's checks for baseline purposes: per id, its worst status. */
function worstById(checks) {
  const rank = (status) => ({ FAILURE: 3, WARNING: 2, SUCCESS: 1 })[status] ?? 0;
  const worst = new Map();
  for (const check of checks) {
    if (check.status === 'INFO') continue;
    if (!worst.has(check.id) || rank(check.status) >= rank(worst.get(check.id))) worst.set(check.id, check.status);
  }
  return worst;
}

const total = { passed: 0, failed: 0, expected: 0 };
const scenarios = { passed: 0, failed: 0, expected: 0, nothing: 0 };
const lines = [];
const notCounted = [];
const seen = new Set();

if (problem) {
  total.failed += 1;
  lines.push(`FAIL  ${problem} (counted as one failure)`);
}

for (const scenario of [...new Set([...counted, ...runs.keys()])]) {
  const checks = runs.get(scenario);
  if (!counted.has(scenario)) {
    const bad = (checks ?? []).filter(isFailing).length;
    notCounted.push(`${bad ? 'fail' : 'ok  '} ${scenario}${bad ? ` (${bad} failing or warning checks)` : ''}`);
    continue;
  }
  if (checks === undefined) {
    total.failed += 1;
    scenarios.failed += 1;
    lines.push(`FAIL  ${scenario}: no results (the scenario did not run or did not finish)`);
    continue;
  }
  const ok = checks.filter((check) => check.status === 'SUCCESS').length;
  const failing = checks.filter(isFailing);
  const unexpected = failing.filter((check) => !entryFor(scenario, check.id));
  for (const check of failing) {
    const entry = entryFor(scenario, check.id);
    if (entry) seen.add(entry);
  }
  total.passed += ok;
  total.failed += unexpected.length;
  total.expected += failing.length - unexpected.length;

  // Stale entries, decided as the suite decides them.
  const stale = [];
  if (scenarioEntries.has(scenario)) {
    if (failing.length === 0) stale.push(scenario);
  } else {
    const worst = worstById(checks);
    for (const entry of checkEntries) {
      const checkId = entry.slice(entry.indexOf(':') + 1);
      if (entry.startsWith(`${scenario}:`) && worst.get(checkId) === 'SUCCESS') stale.push(entry);
    }
  }
  total.failed += stale.length;
  for (const entry of stale) seen.add(entry);

  const ids = (list) =>
    [...new Set(list.map((c) => `${c.id}${c.status === 'WARNING' ? ' (warning)' : ''}`))].join(', ');
  if (failing.length === 0 && ok === 0) {
    scenarios.nothing += 1;
    lines.push(`--    ${scenario}: nothing scored (only INFO/SKIPPED checks)`);
  } else if (failing.length === 0) {
    scenarios.passed += 1;
    lines.push(`ok    ${scenario} (${ok} passed)`);
  } else if (unexpected.length === 0) {
    scenarios.expected += 1;
    lines.push(`xfail ${scenario} (${ok} passed, ${failing.length} expected, in the baseline): ${ids(failing)}`);
  } else {
    scenarios.failed += 1;
    lines.push(
      `FAIL  ${scenario} (${ok} passed, ${unexpected.length} failed, ${failing.length - unexpected.length} expected): ${ids(unexpected)}`,
    );
    for (const check of unexpected) {
      lines.push(
        `        ${check.id} [${check.status}]: ${String(check.errorMessage ?? check.description ?? '')
          .replace(/\s+/g, ' ')
          .slice(0, 240)}`,
      );
    }
  }
  for (const entry of stale) {
    lines.push(`STALE ${entry}: in the baseline but no longer failing; remove it (counted as one failure)`);
  }
}

const baselineNote = opts.baseline
  ? `baseline ${path.basename(opts.baseline)}, ${entries.length} entries`
  : 'no expected failures';
const what = opts.requirements ? `${counted.size} scored scenarios` : `${counted.size} scenarios, all counted`;
console.log(`Conformance, ${label} (${what}; ${baselineNote}):`);
for (const line of lines) console.log(`  ${line}`);
if (notCounted.length > 0) {
  console.log(
    `  run but not scored for ${opts.requirements ?? label} (extension / pending / added after release; not counted):`,
  );
  for (const line of notCounted) console.log(`    ${line}`);
}
const nothing = scenarios.nothing ? `, ${scenarios.nothing} nothing scored` : '';
console.log(
  `  ${label}: scenarios ${scenarios.passed} passed, ${scenarios.failed} failed, ${scenarios.expected} expected${nothing}; ` +
    `checks ${total.passed} passed, ${total.failed} failed, ${total.expected} expected`,
);

if (opts.counts) {
  fs.writeFileSync(
    opts.counts,
    `${total.passed} ${total.failed} ${total.expected} ${scenarios.passed} ${scenarios.failed} ${scenarios.expected} ${scenarios.nothing}\n`,
  );
}
if (opts.seen) {
  fs.writeFileSync(opts.seen, [...seen].map((entry) => `${entry}\n`).join(''));
}
