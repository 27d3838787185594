// Bundles the library's compiled JavaScript (the tsc output in <dir>, dist by default) into one
// file, <dir>/index.js, and removes the other compiled files (the declarations stay beside it).
//
// Why: an application loading the library paid for each of its ~170 files (resolving, reading
// and compiling each one): about 60-80 ms of its startup, against about 10 for the same code in
// one file. esbuild bundles tsc's output, not the TypeScript, because Nest's injection needs the
// decorator metadata tsc emits (esbuild does not emit it). Packages stay external: they are the
// application's (peer and runtime dependencies), resolved from its node_modules. Each module
// stays in its own function scope (tsc's output is CommonJS), so no name is ever renamed: Nest and
// the module's messages, which name classes, read the same names. The entry's exports keep the
// form tsc gives them, which Node's cjs-module-lexer reads for `import { McpModule } from
// 'nest-mcp'` in an ES module app.
//
//   node scripts/bundle-library.mjs [dir] [--out <file>]
//
// --out writes the bundle there instead and leaves the compiled files as they are (the
// cold-start bench: tsc builds it incrementally, and its app imports one of them).
import { build } from 'esbuild';
import { readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import process from 'node:process';

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt === -1 ? undefined : resolve(args[outAt + 1]);
const dir = resolve(args.find((arg, index) => !arg.startsWith('--') && index !== outAt + 1) ?? 'dist');
const entry = join(dir, 'index.js');
const bundled = out ?? join(dir, 'index.bundle.js');

await build({
  entryPoints: [entry],
  outfile: bundled,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});

/** Every compiled module under `from`, but the console's browser files (served as they are). */
function compiledModules(from) {
  const found = [];
  for (const name of readdirSync(from)) {
    const path = join(from, name);
    if (statSync(path).isDirectory()) {
      if (path !== join(dir, 'console', 'ui')) {
        found.push(...compiledModules(path));
      }
    } else if (name.endsWith('.js') && path !== bundled) {
      found.push(path);
    }
  }
  return found;
}

if (out === undefined) {
  for (const file of compiledModules(dir)) {
    rmSync(file);
  }
  renameSync(bundled, entry);
}
const written = out ?? entry;
process.stdout.write(`bundled the library into ${written} (${statSync(written).size} bytes)\n`);
