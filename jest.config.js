/**
 * The Jest run, in five tiers (Jest projects); `npm test` runs them all, two workers per core.
 *
 *   unit       the specs next to the code in lib/ (`npm run test:unit`)
 *   types      specs that run the TypeScript compiler on typed code (`npm run test:types`)
 *   e2e        the specs in test/, on real sockets with the official MCP clients (`npm run test:e2e`)
 *   browser    the console's specs, driving Chromium (`npm run test:browser`)
 *   consumers  the packed library in the consumer apps (`npm run test:consumers`)
 *
 * Each spec belongs to exactly one tier: unit and e2e take what the other three do not.
 *
 * Nest 12 publishes ESM only; Jest's CommonJS runtime cannot require ESM, so those packages
 * (and the ESM packages they import) are compiled to CommonJS by @swc/jest like our own code.
 */
const { availableParallelism } = require('node:os');

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

/** Specs that run the TypeScript compiler (tens of seconds each): the `types` tier. */
const typeSpecs = [
  'lib/decorators/mcp-typed-tool.decorator.spec.ts',
  // The docs' TypeScript blocks, one compiler run.
  'test/docs-snippets.spec.ts',
  // Calls through the testing kit to typed tools.
  'test/testing-kit/typed-calls.types.spec.ts',
];
/** The console's specs and the other Chromium ones: the `browser` tier. */
const browserSpecs = ['test/console/**/*.{spec,e2e-spec}.ts', 'test/support/browser.e2e-spec.ts'];
/** The packed library in the consumer apps: the `consumers` tier. */
const consumerSpecs = ['test/consumers.e2e-spec.ts'];

/** What every tier shares. */
const base = {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json', 'mjs', 'cjs'],
  moduleNameMapper: {
    '^nest-mcp$': '<rootDir>/lib',
    '^nest-mcp/stdio$': '<rootDir>/lib/stdio',
    '^nest-mcp/testing$': '<rootDir>/lib/testing',
  },
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
  // The consumer apps' own sources and installs.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/consumers/'],
};

const inRoot = (globs) => globs.map((glob) => `<rootDir>/${glob}`);
/** `globs` negated: unit and e2e take what the other tiers do not (Jest maps no <rootDir> after a `!`). */
const except = (globs) => globs.map((glob) => `!${__dirname}/${glob}`);

/** @type {import('jest').Config} */
module.exports = {
  // The longest spec files first, from a committed table of durations when Jest has none (a fresh clone).
  testSequencer: '<rootDir>/jest.sequencer.js',
  // Two workers per core: most specs wait on sockets, child processes and installs rather than
  // compute, so a core idles under one worker. On 2 cores, warm runs of the same tree took 331 s
  // with 2 workers, 284 s with 3 and 266 s with 4, every test passing.
  // (Jest reads a percentage over 100% as a count, hence the number.)
  maxWorkers: 2 * availableParallelism(),
  // A global option: Jest reads no testTimeout in a project.
  testTimeout: 20000,
  // The MCP Apps browser bundles (the console's AppBridge, the sample's view), built once per run.
  globalSetup: '<rootDir>/jest.global-setup.js',
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: [...inRoot(['lib/**/*.{spec,e2e-spec}.ts']), ...except(typeSpecs)],
    },
    { ...base, displayName: 'types', testMatch: inRoot(typeSpecs) },
    {
      ...base,
      displayName: 'e2e',
      testMatch: [
        ...inRoot(['test/**/*.{spec,e2e-spec}.ts']),
        ...except(browserSpecs),
        ...except(consumerSpecs),
        ...except(typeSpecs),
      ],
    },
    { ...base, displayName: 'browser', testMatch: inRoot(browserSpecs) },
    { ...base, displayName: 'consumers', testMatch: inRoot(consumerSpecs) },
  ],
};
