// Copies the MCP console's browser files (console-ui/) to dist/console/ui after `tsc`, where
// lib/console/console-assets.ts looks for them (join(__dirname, 'ui')) in the built package.
// tsc does not do it: they are plain ES modules served as they are (no bundler, no compilation),
// and tsconfig.build.json compiles TypeScript only. Their own tsconfig.json (the browser type
// check of `npm run lint`) stays behind: it is not a file the console serves.
import { copyFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'console-ui');
const to = join(root, 'dist', 'console', 'ui');

mkdirSync(to, { recursive: true });
let copied = 0;
for (const name of readdirSync(from)) {
  if (name === 'tsconfig.json' || !statSync(join(from, name)).isFile()) {
    continue;
  }
  copyFileSync(join(from, name), join(to, name));
  copied += 1;
}
process.stdout.write(`copied ${copied} console file(s) to ${to}\n`);
