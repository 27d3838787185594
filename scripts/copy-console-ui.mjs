// Copies the MCP console's browser files (console-ui/) to dist/console/ui after `tsc`, where
// lib/console/console-assets.ts looks for them (join(__dirname, 'ui')) in the built package.
// tsc does not do it: they are plain ES modules served as they are (no bundler, no compilation),
// and tsconfig.build.json compiles TypeScript only. Their own tsconfig.json (the browser type
// check of `npm run lint`) stays behind: it is not a file the console serves. The bundles of
// vendor/ (scripts/build-browser-bundles.mjs, which the build runs first) go to dist/console/ui/vendor,
// their type declarations stay behind.
import { copyFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'console-ui');
const to = join(root, 'dist', 'console', 'ui');

let copied = 0;
/** Copies the files of `source` that `keep` accepts into `target`. */
function copyFiles(source, target, keep) {
  mkdirSync(target, { recursive: true });
  for (const name of readdirSync(source)) {
    if (!keep(name) || !statSync(join(source, name)).isFile()) {
      continue;
    }
    copyFileSync(join(source, name), join(target, name));
    copied += 1;
  }
}
copyFiles(from, to, (name) => name !== 'tsconfig.json');
copyFiles(join(from, 'vendor'), join(to, 'vendor'), (name) => name.endsWith('.js'));
process.stdout.write(`copied ${copied} console file(s) to ${to}\n`);
