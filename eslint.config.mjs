// @ts-check
import eslint from '@eslint/js';
import eslintPluginPrettierRecommended from 'eslint-plugin-prettier/recommended';
import tseslint from 'typescript-eslint';

/**
 * lib/protocol is the framework-free core: it imports nothing outside itself but node built-ins
 * (test/architecture.spec.ts checks the same, and the cycles). No package at all (no @nestjs/*,
 * rxjs, reflect-metadata...), and no relative path that climbs out of lib/protocol: how many
 * `../` leave it depends on how deep the file is.
 */
const PROTOCOL_PACKAGES = {
  regex: '^(?!node:|\\.\\.?(/|$))',
  message: 'lib/protocol is framework-free: it may import node built-ins (node:*) but no package.',
};
const protocolBoundary = (depth) => ({
  files: [`lib/protocol/${'*/'.repeat(depth)}*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          PROTOCOL_PACKAGES,
          {
            regex: `^(\\.\\./){${depth}}\\.\\.(/|$)`,
            message: 'lib/protocol imports nothing outside itself: move the code in, or invert the dependency.',
          },
        ],
      },
    ],
  },
});

/**
 * lib/testing (the `nest-mcp/testing` entry) uses the library as an application does: its own
 * files, the public API (`../index` for values; `nest-mcp` for types, so that its published
 * declarations name the root entry's types as an application does rather than repeat them),
 * node built-ins and the Nest peers; nothing internal (test/architecture.spec.ts checks the same)
 * but the in-memory socket (lib/shared/memory-connection.ts, node built-ins only), which route
 * tools use too: one copy of it.
 */
const testingBoundary = {
  files: ['lib/testing/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: '^(?!node:|@nestjs/common$|@nestjs/core$|nest-mcp$|\\.\\.?/)',
            message: 'lib/testing may import node built-ins, the Nest peers and nest-mcp (types), no other package.',
          },
          {
            regex: '^\\.\\./(?!index$|shared/memory-connection$)',
            message:
              'lib/testing imports the public API only (../index), as an application would (and the node-only in-memory socket).',
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'test/consumers/**',
      'conformance-runner/**',
      // What `npm run bench` writes: results, profiles and the cold-start build (compiled JS).
      'bench/results/**',
      // ajv's standalone code for the meta-schemas, written by scripts/generate-meta-validators.ts.
      'lib/schema/meta/**',
      'eslint.config.mjs',
      'jest.config.js',
      'jest.sequencer.js',
      'jest.global-setup.js',
      // The browser bundles scripts/build-browser-bundles.mjs writes (esbuild's minified output).
      'console-ui/vendor/*.js',
      'sample/notes/view/dist/**',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  eslintPluginPrettierRecommended,
  {
    // The console's browser modules (and the sample's view): plain ES modules, type-checked by
    // console-ui/tsconfig.json (DOM lib, checkJs), which is also what knows the browser's globals.
    files: ['console-ui/**/*.js', 'sample/notes/view/*.js'],
    rules: { 'no-undef': 'off' },
  },
  {
    languageOptions: {
      parserOptions: {
        // scripts/*.mjs (the build's small Node scripts) belong to no tsconfig: linted with the defaults.
        projectService: { allowDefaultProject: ['scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-floating-promises': 'warn',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      'no-console': 'warn',
    },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts', 'bench/**/*.ts', 'sample/**/*.ts'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      'no-console': 'off',
    },
  },
  protocolBoundary(0),
  protocolBoundary(1),
  protocolBoundary(2),
  testingBoundary,
);
