/**
 * Jest's globalSetup: builds the MCP Apps browser bundles (the console's AppBridge vendor file and
 * the sample's view) once per run, before any worker starts, so that a spec or a sample process
 * finds them, from a fresh clone as after an edit (scripts/build-browser-bundles.mjs; well under
 * a second).
 */
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

module.exports = function buildBrowserBundles() {
  execFileSync(process.execPath, [join(__dirname, 'scripts', 'build-browser-bundles.mjs')], {
    stdio: 'inherit',
  });
};
