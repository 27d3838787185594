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
// The secondary entry point, <dir>/stdio.js (`nest-mcp/stdio`), is bundled into the same file:
// its classes must be the very ones the root entry's module registers (McpStdioServer is a
// provider token), so the bundle carries the stdio entry's exports under a registered symbol,
// and stdio.js is rewritten to a few lines that read them from there, in tsc's export form.
//
// The testing entry, <dir>/testing/index.js (`nest-mcp/testing`), is a bundle of its own that
// keeps the root entry external (its `../index` stays `require("../index.js")`): the kit uses the
// very module the application imports, and an application that never imports the kit never
// loads it.
//
//   node scripts/bundle-library.mjs [dir] [--out <file>]
//
// --out writes the bundle there instead and leaves the compiled files as they are (the
// cold-start bench: tsc builds it incrementally, and its app imports one of them).
import { build } from 'esbuild';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import process from 'node:process';

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt === -1 ? undefined : resolve(args[outAt + 1]);
const dir = resolve(args.find((arg, index) => !arg.startsWith('--') && index !== outAt + 1) ?? 'dist');
const entry = join(dir, 'index.js');
const bundled = out ?? join(dir, 'index.bundle.js');
/** The secondary entry points, by file under `dir`: each bundled into the root entry's file. */
const SECONDARY = ['stdio.js'].filter((file) => existsSync(join(dir, file)));
/** Where the bundle keeps a secondary entry's exports (registered, so every copy agrees). */
const entryKey = (file) => `nest-mcp:entry:${file.replace(/\.js$/, '')}`;

/** The names a tsc-compiled CommonJS entry exports, in the order tsc wrote them. */
function exportedNames(file) {
  const names = [];
  for (const match of readFileSync(file, 'utf8').matchAll(/Object\.defineProperty\(exports, "(\w+)"/g)) {
    if (match[1] !== '__esModule' && !names.includes(match[1])) {
      names.push(match[1]);
    }
  }
  return names;
}
const secondaryNames = new Map(SECONDARY.map((file) => [file, exportedNames(join(dir, file))]));

/** Appends to the root entry: the secondary entries' exports, under their registered symbols. */
const carrySecondaryEntries = {
  name: 'carry-secondary-entries',
  setup(builder) {
    builder.onLoad({ filter: /\.js$/ }, (args) => {
      if (resolve(args.path) !== entry) {
        return undefined;
      }
      const carried = SECONDARY.map(
        (file) =>
          `Object.defineProperty(exports, Symbol.for(${JSON.stringify(entryKey(file))}), { value: require("./${file}") });`,
      );
      return { contents: [readFileSync(entry, 'utf8'), ...carried].join('\n'), loader: 'js', resolveDir: dir };
    });
  },
};

/** A secondary entry, rewritten: its exports read from the bundle, in tsc's form. */
function secondaryEntry(file) {
  const lines = [
    '"use strict";',
    'Object.defineProperty(exports, "__esModule", { value: true });',
    `const entry_1 = require("./index.js")[Symbol.for(${JSON.stringify(entryKey(file))})];`,
  ];
  for (const name of secondaryNames.get(file)) {
    lines.push(
      `Object.defineProperty(exports, "${name}", { enumerable: true, get: function () { return entry_1.${name}; } });`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** How each entry is bundled: CommonJS for Node 20, every package left to the application. */
const bundling = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
};

await build({ ...bundling, entryPoints: [entry], outfile: bundled, plugins: [carrySecondaryEntries] });

/** `nest-mcp/testing`: bundled on its own, the root entry left external. */
const testingEntry = join(dir, 'testing', 'index.js');
const testingBundled = join(dir, 'testing.bundle.js');
const bundlesTesting = out === undefined && existsSync(testingEntry);
/** Leaves the root entry (`../index` from lib/testing) to be required at run time. */
const keepRootExternal = {
  name: 'keep-root-external',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/index(\.js)?$/ }, (args) =>
      resolve(args.resolveDir, '..', 'index.js') === entry ? { path: '../index.js', external: true } : undefined,
    );
  },
};
if (bundlesTesting) {
  await build({ ...bundling, entryPoints: [testingEntry], outfile: testingBundled, plugins: [keepRootExternal] });
}

/** Every compiled module under `from`, but the console's browser files (served as they are). */
function compiledModules(from) {
  const found = [];
  for (const name of readdirSync(from)) {
    const path = join(from, name);
    if (statSync(path).isDirectory()) {
      if (path !== join(dir, 'console', 'ui')) {
        found.push(...compiledModules(path));
      }
    } else if (name.endsWith('.js') && path !== bundled && path !== testingBundled) {
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
  for (const file of SECONDARY) {
    writeFileSync(join(dir, file), secondaryEntry(file));
  }
  if (bundlesTesting) {
    renameSync(testingBundled, testingEntry);
  }
}
const written = out ?? entry;
process.stdout.write(`bundled the library into ${written} (${statSync(written).size} bytes)\n`);
