/**
 * One Jest run for unit specs (next to the code in lib/) and e2e specs (test/).
 *
 * Nest 12 publishes ESM only; Jest's CommonJS runtime cannot require ESM, so those packages
 * (and the ESM packages they import) are compiled to CommonJS by @swc/jest like our own code.
 */
const esmPackages = [
  '@nestjs',
  'file-type',
  'uid',
  'load-esm',
  'strtok3',
  'token-types',
  '@tokenizer',
  'uint8array-extras',
  'jose',
  '@borewit',
];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/lib', '<rootDir>/test'],
  testRegex: '\\.(spec|e2e-spec)\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json', 'mjs', 'cjs'],
  moduleNameMapper: { '^nest-mcp$': '<rootDir>/lib' },
  transform: {
    '^.+\\.(t|j|mj)s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  testPathIgnorePatterns: ['/node_modules/', '/test/consumers/'],
  testTimeout: 20000,
};
