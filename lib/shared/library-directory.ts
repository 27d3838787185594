/**
 * The library's own directory, for what it finds on disk or in stack traces: lib/ in the
 * sources, and in the published package dist/, where the bundle (scripts/bundle-library.mjs) is
 * this file's code too. This file sits in lib/shared/ (dist/shared/ before bundling), one level
 * below that directory; in the bundle, `__filename` is dist/index.js, already at that level.
 */
import { dirname } from 'node:path';

export const LIBRARY_DIRECTORY = /library-directory\.[jt]s$/.test(__filename) ? dirname(__dirname) : __dirname;
