// Builds the two browser bundles of the MCP Apps extension (`io.modelcontextprotocol/ui`) with
// esbuild; neither is committed (both are in .gitignore), and nothing of them is a runtime
// dependency of the library:
//
//   console-ui/vendor/ext-apps-bridge.js   the host side of @modelcontextprotocol/ext-apps (its
//       AppBridge and PostMessageTransport) as one ES module the console serves
//       (`<console>/assets/vendor/ext-apps-bridge.js`) and console-ui/app-view.js imports when a
//       tool has a view. The build copies it to dist/console/ui/vendor (copy-console-ui.mjs).
//   sample/notes/view/dist/note-card.html  the sample's view: sample/notes/view/note-card.html with
//       note-card.js (the view side of the same package, its App class) bundled and inlined, one
//       self-contained file (no request leaves it), which the sample serves as `ui://notes/note-card`.
//
// `npm start` (prestart), `npm run build` and Jest (its globalSetup) run it; it takes well under
// a second. Each file is written beside its place and renamed over it, so a reader (a sample
// starting in another Jest worker) sees the old file or the new one, never half of one.
//
// Both bundles set zod's `jitless` first (scripts/zod-jitless.mjs).
import { build } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Imported first, so evaluated before the package's schemas are made (see zod-jitless.mjs).
const JITLESS = `import ${JSON.stringify(join(root, 'scripts', 'zod-jitless.mjs'))};\n`;
const MARKER = '<!-- view script -->';

/** Writes `text` to `file` through a temporary file beside it and a rename. */
function writeAtomically(file, text) {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

/**
 * zod's translated error messages: every bundle would carry all of them (about 250 KB of its
 * 650), through the `locales` namespace zod re-exports, for messages no view or host shows. Only
 * English (the one zod configures itself with) is kept.
 */
const englishOnly = {
  name: 'zod-english-only',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export { default as en } from './en.js';\n",
      loader: 'js',
    }));
  },
};

/** One ES module bundled from `contents` (its imports resolved from `resolveDir`), minified, as text. */
async function bundle(contents, resolveDir) {
  const result = await build({
    stdin: { contents, resolveDir, sourcefile: 'entry.js', loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
    plugins: [englishOnly],
  });
  return result.outputFiles[0].text;
}

const bridge = await bundle(
  `${JITLESS}export { AppBridge, PostMessageTransport, buildAllowAttribute } from '@modelcontextprotocol/ext-apps/app-bridge';\n`,
  root,
);
writeAtomically(
  join(root, 'console-ui', 'vendor', 'ext-apps-bridge.js'),
  `// Bundled by scripts/build-browser-bundles.mjs from @modelcontextprotocol/ext-apps (app-bridge),\n` +
    `// @modelcontextprotocol/client and @modelcontextprotocol/core (Apache-2.0, MIT for older parts)\n` +
    `// and zod (MIT); their licences are in their packages.\n${bridge}`,
);

const viewDirectory = join(root, 'sample', 'notes', 'view');
const viewScript = await bundle(`${JITLESS}import './note-card.js';\n`, viewDirectory);
const template = readFileSync(join(viewDirectory, 'note-card.html'), 'utf8');
if (template.split(MARKER).length !== 2) {
  throw new Error(`sample/notes/view/note-card.html must hold ${MARKER} exactly once`);
}
// Inlined in a <script> element: no `</script` may end it early (esbuild escapes it in strings).
if (/<\/script/i.test(viewScript)) {
  throw new Error('The view bundle holds "</script": it cannot be inlined');
}
writeAtomically(
  join(viewDirectory, 'dist', 'note-card.html'),
  template.replace(MARKER, () => `<script type="module">${viewScript}</script>`),
);
