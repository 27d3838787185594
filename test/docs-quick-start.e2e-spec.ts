/**
 * The quick start of README.md pastes and runs: its three blocks
 * (`<!-- file: src/app.module.ts -->`, `<!-- file: src/<name>.service.ts -->`,
 * `<!-- file: src/main.ts -->`) are written into a fresh app directory outside the repository,
 * started as a user starts it (`src/main.ts`, PORT set to a free port, on 127.0.0.1), and driven
 * with the official SDK client: it lists the README's tool, with the description of a field of
 * its DTO, calls it with valid arguments made from its input schema, and gets the validation
 * error for arguments that leave a required field out.
 *
 * The app is what `nest new` makes, in short: a CommonJS package with its own tsconfig.json
 * (strict, decorators with metadata), run by ts-node (SWC) with `nest-mcp` resolved to the
 * package's source entry (lib/index.ts, through `paths`) and its other packages to the
 * repository's node_modules (a link). That the published package works in such an app is
 * test/consumers.e2e-spec.ts's part; that the blocks compile, docs-snippets.spec.ts's.
 *
 * The page's Jest spec (a `<!-- file: test/<name>.spec.ts -->` block, README.md's Testing section)
 * then runs in that app with the page's Jest configuration (`<!-- jest-config -->`), `nest-mcp`
 * and `nest-mcp/testing` mapped to the repository's source as the app's `paths` map them.
 *
 * `QUICK_START_PAGE=test/fixtures/docs/quick-start.md` runs another page's quick start.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { extractSnippets, type Snippet } from '../scripts/check-doc-snippets';
import { jestConfigBlock } from './support/jest-config-block';
import { freePort } from './support/ports';
import { exitOf, terminateProcess, watchOutput, type ProcessExit } from './support/server-process';

const ROOT = resolve(__dirname, '..');
const PAGE = process.env.QUICK_START_PAGE ?? 'README.md';
const START_TIMEOUT_MS = 60_000;

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minItems?: number;
  items?: JsonSchema;
  format?: string;
  pattern?: string;
};

/** The quick start's files, by path: exactly the three the docs conventions name. */
export function quickStartFiles(page: string, markdown: string): Map<string, Snippet> {
  const files = new Map(
    extractSnippets(page, markdown)
      .filter((snippet) => snippet.named && snippet.file.startsWith('src/'))
      .map((snippet) => [snippet.file, snippet]),
  );
  const services = [...files.keys()].filter((file) => /^src\/[\w.-]+\.service\.ts$/.test(file));
  const missing = ['src/app.module.ts', 'src/main.ts'].filter((file) => !files.has(file));
  if (missing.length > 0 || services.length !== 1) {
    throw new Error(
      `${page}: the quick start is three blocks marked <!-- file: src/app.module.ts -->, ` +
        `<!-- file: src/<name>.service.ts --> and <!-- file: src/main.ts -->; ` +
        `found ${[...files.keys()].join(', ') || 'none'}`,
    );
  }
  return files;
}

/**
 * Arguments that satisfy `schema`: each required property with the smallest value its keywords
 * allow. A keyword it cannot satisfy (`pattern`) fails the test, naming it.
 */
export function validValue(schema: JsonSchema, path = 'arguments'): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      if (schema.pattern !== undefined) {
        throw new Error(`${path}: cannot make a string for the pattern ${schema.pattern}`);
      }
      if (schema.format === 'email') return 'someone@example.com';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/';
      if (schema.format !== undefined) throw new Error(`${path}: cannot make a string of format ${schema.format}`);
      return 'x'.repeat(Math.min(Math.max(schema.minLength ?? 1, 1), schema.maxLength ?? Infinity));
    }
    case 'number':
    case 'integer': {
      const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
      return Math.min(Math.ceil(low), schema.maximum ?? Infinity);
    }
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, (_, index) =>
        validValue(schema.items ?? {}, `${path}[${index}]`),
      );
    case 'object':
    case undefined:
      return Object.fromEntries(
        (schema.required ?? []).map((name) => [name, validValue(schema.properties?.[name] ?? {}, `${path}.${name}`)]),
      );
    default:
      throw new Error(`${path}: cannot make a value of type ${String(type)}`);
  }
}

/** A fresh app directory with the quick start's files, as a user's new Nest app holds them. */
function writeApp(files: Map<string, Snippet>): string {
  const app = mkdtempSync(join(tmpdir(), 'nest-mcp-quick-start-'));
  for (const [file, snippet] of files) {
    mkdirSync(dirname(join(app, file)), { recursive: true });
    writeFileSync(join(app, file), snippet.code);
  }
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'quick-start', version: '0.0.0', private: true, type: 'commonjs' }, null, 2),
  );
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          module: 'commonjs',
          target: 'ES2022',
          lib: ['ES2022'],
          types: ['node'],
          strict: true,
          esModuleInterop: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          skipLibCheck: true,
          outDir: 'dist',
          paths: { 'nest-mcp': [join(ROOT, 'lib', 'index.ts')] },
        },
        include: ['src'],
      },
      null,
      2,
    ),
  );
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(app, 'node_modules'), 'junction');
  return app;
}

/** Resolves once something answers HTTP at `url`; rejects when `exited` settles first or after the timeout. */
async function answering(url: string, exited: Promise<ProcessExit>, output: () => string): Promise<void> {
  let exit: ProcessExit | undefined;
  void exited.then((value) => (exit = value));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exit !== undefined) {
      throw new Error(`src/main.ts exited before it answered (${JSON.stringify(exit)}):\n${output()}`);
    }
    try {
      const response = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      return;
    } catch {
      if (Date.now() > deadline) {
        throw new Error(`src/main.ts did not answer at ${url} within ${START_TIMEOUT_MS} ms:\n${output()}`);
      }
      await new Promise((wake) => setTimeout(wake, 200));
    }
  }
}

/** The page's Jest specs (`<!-- file: test/<name>.spec.ts -->` blocks), by path. */
function jestSpecs(page: string, markdown: string): Snippet[] {
  return extractSnippets(page, markdown).filter(
    (snippet) => snippet.named && /^test\/[\w.-]+\.spec\.ts$/.test(snippet.file),
  );
}

/** Runs the repository's Jest in `app` with `config` written as its jest.config.js; resolves with its exit code and report. */
function runJest(app: string, config: string): Promise<{ code: number; report: string }> {
  writeFileSync(join(app, 'jest.config.js'), config);
  const jest = require.resolve('jest/bin/jest', { paths: [ROOT] });
  const args = [
    jest,
    '--ci',
    '--runInBand',
    '--config',
    join(app, 'jest.config.js'),
    '--cacheDirectory',
    join(app, '.jest'),
  ];
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd: app, timeout: START_TIMEOUT_MS }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : Number(error.code ?? 1), report: `${stdout}${stderr}` }),
    );
  });
}

describe(`the quick start of ${PAGE}`, () => {
  let files: Map<string, Snippet>;
  let app: string | undefined;
  let server: ChildProcess | undefined;
  let client: Client | undefined;

  beforeAll(async () => {
    files = quickStartFiles(PAGE, readFileSync(resolve(ROOT, PAGE), 'utf8'));
    app = writeApp(files);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [require.resolve('ts-node/dist/bin.js'), '--swc', '-r', 'tsconfig-paths/register', 'src/main.ts'],
      { cwd: app, env: { ...process.env, PORT: String(port), TS_NODE_PROJECT: join(app, 'tsconfig.json') } },
    );
    server = child;
    const watched = watchOutput(child.stdout, child.stderr);
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    await answering(url.href, exitOf(child), watched.output);
    client = new Client({ name: 'nest-mcp-quick-start-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
  }, START_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    try {
      await client?.close();
    } finally {
      if (server !== undefined && server.exitCode === null && server.signalCode === null) {
        await terminateProcess(server.pid!, exitOf(server));
      }
      if (app !== undefined) {
        rmSync(app, { recursive: true, force: true });
      }
    }
  });

  /** The quick start's one tool, as listed. */
  async function theTool() {
    const { tools } = await client!.listTools();
    expect(tools).toHaveLength(1);
    return tools[0];
  }

  it('lists its tool, with a description for a field of its DTO', async () => {
    const tool = await theTool();
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
    expect(Object.values(properties).some((property) => typeof property.description === 'string')).toBe(true);
    expect(tool.inputSchema.required?.length).toBeGreaterThan(0);
  });

  it('calls its tool with valid arguments', async () => {
    const tool = await theTool();
    const args = validValue(tool.inputSchema) as Record<string, unknown>;
    const result = await client!.callTool({ name: tool.name, arguments: args });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'text' })]));
  });

  it('refuses arguments without a required field, with the validation error', async () => {
    const tool = await theTool();
    const result = await client!.callTool({ name: tool.name, arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ type: string; text?: string }>).map((item) => item.text ?? '').join('\n');
    expect(text).toContain(`Invalid arguments for tool ${tool.name}`);
    // The field left out is named (a DTO's message: `/sku: sku is required`).
    expect(text).toContain(`/${tool.inputSchema.required![0]}`);
  });

  const markdown = readFileSync(resolve(ROOT, PAGE), 'utf8');
  const specs = jestSpecs(PAGE, markdown);
  (specs.length > 0 ? it : it.skip)(
    "passes its Jest spec, with the page's Jest configuration",
    async () => {
      for (const spec of specs) {
        mkdirSync(dirname(join(app!, spec.file)), { recursive: true });
        writeFileSync(join(app!, spec.file), spec.code);
      }
      // The app resolves nest-mcp to the repository's source (its tsconfig's paths); so does Jest.
      const mapped = JSON.stringify({
        '^nest-mcp$': join(ROOT, 'lib'),
        '^nest-mcp/testing$': join(ROOT, 'lib', 'testing'),
      });
      const config = `${jestConfigBlock(PAGE, markdown)}Object.assign((module.exports.moduleNameMapper ??= {}), ${mapped});\n`;
      const { code, report } = await runJest(app!, config);
      expect({ code, report }).toEqual({ code: 0, report: expect.stringMatching(/^Tests: +\d+ passed, \d+ total$/m) });
    },
    START_TIMEOUT_MS + 10_000,
  );
});
