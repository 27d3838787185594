/**
 * The library's own directory, for what it finds on disk or in stack traces: lib/ in the
 * sources, and in the published package dist/, where the bundle (scripts/bundle-library.mjs) is
 * this file's code too. Kept in a file at the root of lib/ so that `__dirname` is that
 * directory either way.
 */
export const LIBRARY_DIRECTORY = __dirname;
