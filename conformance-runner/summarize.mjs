#!/usr/bin/env node
/**
 * Summarizes one `conformance server --requirements <revision> -o <dir>` run from its
 * checks.json files: one line per scenario (ok / FAIL), then the check totals. Used by .ci/run.
 *
 *   node conformance-runner/summarize.mjs <results-dir> <revision> [baseline.yml] [counts-out]
 *
 * Counting (the same rules .ci/run documents for its closing line):
 * - Only scenarios the revision's requirement set scores are counted. Scenarios the suite runs
 *   without scoring (`not_scored`: extensions such as tasks-*, pending, added-after-release)
 *   are listed for information and counted nowhere.
 * - SUCCESS counts as passed; FAILURE counts as failed; WARNING counts as failed too, because a
 *   run with a baseline fails on an unlisted warning exactly as on a failure.
 * - INFO and SKIPPED count as neither.
 * - Failures listed in the baseline (features of a later issue, not built yet) are counted
 *   apart as "expected", neither passed nor failed; any other failure counts as failed.
 * - A scored scenario without a checks.json (the suite never got to it) counts as one failure.
 *
 * Writes `<passed> <failed> <expected>` to counts-out when given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [resultsDir, revision, baselinePath, countsOut] = process.argv.slice(2);
if (!resultsDir || !revision) {
  console.error('usage: summarize.mjs <results-dir> <revision> [baseline.yml] [counts-out]');
  process.exit(2);
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** The items of a top-level YAML list (`key:` followed by `  - item` lines); enough for these files. */
function yamlList(text, key) {
  const items = [];
  let inside = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^\S/.test(line)) {
      inside = line.replace(/\s+#.*$/, '').trim() === `${key}:`;
      continue;
    }
    const item = inside && /^\s+-\s+([^\s#]+)/.exec(line);
    if (item) {
      items.push(item[1].replace(/^['"]|['"]$/g, ''));
    }
  }
  return items;
}

const requirementsFile = path.join(
  here,
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'requirements',
  `${revision}.yaml`,
);
const scored = new Set(
  fs.existsSync(requirementsFile) ? yamlList(fs.readFileSync(requirementsFile, 'utf8'), 'server') : [],
);
if (scored.size === 0) {
  console.error(`summarize: no scored server scenarios found in ${requirementsFile}`);
}

const baseline =
  baselinePath && fs.existsSync(baselinePath) ? yamlList(fs.readFileSync(baselinePath, 'utf8'), 'server') : [];
const expectedScenarios = new Set(baseline.filter((entry) => !entry.includes(':')));
const expectedChecks = new Set(baseline.filter((entry) => entry.includes(':')));
const isExpected = (scenario, checkId) =>
  expectedScenarios.has(scenario) || expectedChecks.has(`${scenario}:${checkId}`);

/** checks.json files by scenario name (`server-<scenario>-<timestamp>`). */
const runs = new Map();
if (fs.existsSync(resultsDir)) {
  for (const dir of fs.readdirSync(resultsDir).sort()) {
    const file = path.join(resultsDir, dir, 'checks.json');
    if (!fs.existsSync(file)) continue;
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    let checks;
    try {
      checks = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      checks = [{ id: scenario, status: 'FAILURE', errorMessage: `unreadable ${file}` }];
    }
    runs.set(scenario, checks);
  }
}

let passed = 0;
let failed = 0;
let expected = 0;
let scenariosOk = 0;
let scenariosFailing = 0;
const lines = [];
const notScored = [];

for (const scenario of [...new Set([...scored, ...runs.keys()])]) {
  const checks = runs.get(scenario);
  if (!scored.has(scenario)) {
    const bad = (checks ?? []).filter((check) => check.status === 'FAILURE').length;
    notScored.push(`${bad ? 'fail' : 'ok  '} ${scenario}`);
    continue;
  }
  if (checks === undefined) {
    failed += 1;
    scenariosFailing += 1;
    lines.push(`FAIL  ${scenario}: no results (the scenario did not run)`);
    continue;
  }
  const count = (status) => checks.filter((check) => check.status === status).length;
  const ok = count('SUCCESS');
  const failing = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
  passed += ok;
  const unexpected = failing.filter((check) => !isExpected(scenario, check.id)).length;
  failed += unexpected;
  expected += failing.length - unexpected;
  if (failing.length === 0) {
    scenariosOk += 1;
    lines.push(`ok    ${scenario} (${ok} passed)`);
    continue;
  }
  scenariosFailing += 1;
  const allExpected = failing.every((check) => isExpected(scenario, check.id));
  const ids = [...new Set(failing.map((check) => `${check.id}${check.status === 'WARNING' ? ' (warning)' : ''}`))];
  lines.push(
    `FAIL  ${scenario} (${ok} passed, ${failing.length} failed${allExpected ? ', expected: in the baseline' : ''}): ${ids.join(', ')}`,
  );
  if (!allExpected) {
    for (const check of failing.filter((c) => !isExpected(scenario, c.id))) {
      lines.push(`        ${check.id}: ${String(check.errorMessage ?? '').slice(0, 240)}`);
    }
  }
}

console.log(`Conformance, requirements ${revision}:`);
for (const line of lines) console.log(`  ${line}`);
if (notScored.length > 0) {
  console.log(`  not scored for ${revision} (extension / pending / added after release; not counted):`);
  for (const line of notScored) console.log(`    ${line}`);
}
console.log(
  `  scenarios: ${scenariosOk} ok, ${scenariosFailing} failing; checks: ${passed} passed, ${failed} failed, ${expected} expected failures from the baseline (requirements ${revision})`,
);

if (countsOut) {
  fs.writeFileSync(countsOut, `${passed} ${failed} ${expected}\n`);
}
