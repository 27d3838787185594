/**
 * The version of this package, as package.json says it: the instrumentation scope's version.
 * A constant rather than a read of package.json at run time: the bundle (dist/index.js) sits
 * where no relative path is the same as in the sources, and a startup read costs a file access.
 * package-version.spec.ts fails when the two differ: bump both together.
 */
export const PACKAGE_VERSION = '0.1.0';
