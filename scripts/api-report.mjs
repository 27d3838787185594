// The public API on record: api/nest-mcp.api.md, API Extractor's report of what the package
// exports (every name and signature reachable from lib/index.ts), and one report per secondary
// entry point (api/nest-mcp-stdio.api.md for lib/stdio.ts, `nest-mcp/stdio`;
// api/nest-mcp-testing.api.md for lib/testing/index.ts, `nest-mcp/testing`). A change to the exported
// surface changes the report, so it shows in review; CI fails while the committed report and the
// code disagree (test/consumers.e2e-spec.ts runs this with --check on the declarations it packs).
//
//   node scripts/api-report.mjs           writes the report from the code
//   node scripts/api-report.mjs --check   fails (exit 1) when the committed report is not the code's
//   ... --declarations <dir>              reads the declarations of a build in <dir> (dist) instead
//
// The declarations are compiled on their own into api/.build (git-ignored), so that the check
// needs no build; with --declarations, those of a build are copied there instead (the consumer
// apps' spec checks the declarations it packs, and saves a compiler run).
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { Extractor, ExtractorConfig } = require('@microsoft/api-extractor');

/** API Extractor's log levels that stay off the console. */
const QUIET = new Set(['warning', 'info', 'verbose']);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const build = join(root, 'api', '.build');

const declarationsAt = process.argv.indexOf('--declarations');
const declarations = declarationsAt === -1 ? undefined : resolve(process.argv[declarationsAt + 1]);

rmSync(build, { recursive: true, force: true });
if (declarations) {
  // Only the declarations: API Extractor reads nothing else.
  cpSync(declarations, build, {
    recursive: true,
    filter: (path) => statSync(path).isDirectory() || path.endsWith('.d.ts'),
  });
} else {
  execFileSync(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc'),
      '-p',
      join(root, 'tsconfig.build.json'),
      '--emitDeclarationOnly',
      '--outDir',
      build,
    ],
    { cwd: root, stdio: 'inherit' },
  );
}

/** Each entry point: its API Extractor configuration and its report. */
const ENTRIES = [
  { config: 'api-extractor.json', report: 'api/nest-mcp.api.md' },
  { config: 'api-extractor.stdio.json', report: 'api/nest-mcp-stdio.api.md' },
  { config: 'api-extractor.testing.json', report: 'api/nest-mcp-testing.api.md' },
];

let failed = false;
for (const entry of ENTRIES) {
  const config = ExtractorConfig.loadFileAndPrepare(join(root, entry.config));
  const result = Extractor.invoke(config, {
    localBuild: !check,
    // Its warnings (a public signature that names a type the entry does not export...) are
    // written into the report itself, where review sees them; the console gets only what went
    // wrong.
    messageCallback: (message) => {
      if (!QUIET.has(String(message.logLevel))) {
        return;
      }
      message.handled = true;
    },
  });
  if (check && result.apiReportChanged) {
    process.stderr.write(
      `The public API differs from ${entry.report}. If the change is meant, run \`npm run api:report\` ` +
        'and commit the report (list breaking changes in CHANGELOG.md).\n',
    );
    failed = true;
  } else if (!result.succeeded) {
    process.stderr.write(
      `API Extractor failed on ${entry.report}: ${result.errorCount} error(s), ${result.warningCount} warning(s)\n`,
    );
    failed = true;
  } else {
    process.stdout.write(check ? `The public API matches ${entry.report}.\n` : `Wrote ${entry.report}.\n`);
  }
}
rmSync(build, { recursive: true, force: true });
if (failed) {
  process.exit(1);
}
