/**
 * The published package, loaded by real consumer apps: NestJS 11 and 12, each as a CommonJS and
 * an ESM app. The apps are written once, in test/consumers/template/{cjs,esm}, with the modules
 * both share in test/consumers/template/shared; each consumer
 * (test/consumers/nest{11,12}, test/consumers/types/<variant>) is an install, a package.json and
 * its lockfile, and the spec makes a copy of the template apps for each one, outside the
 * repository, linked to the consumer's node_modules (see `copyApps`).
 *
 * The library is built and packed with `npm pack`. Its declarations, as packed, must be the public
 * API on record (api/*.api.md, see scripts/api-report.mjs). Each consumer installs its pinned
 * dependencies with `npm ci` and the tarball with `npm install --no-save`, so nest-mcp resolves
 * the consumer's own @nestjs packages, never the repository's. Each app is compiled with the
 * consumer's TypeScript, started with `node`, and driven with the MCP SDK client. Each app also
 * reports what a deep import of an internal path gives (the exports map refuses it) and what
 * `McpHealthIndicator` says with no @nestjs/terminus installed. And each app runs its own Jest
 * spec (template/spec/app.spec.ts, with the Jest configuration of the README, verbatim), which
 * drives it in-process with `nest-mcp/testing` from the installed package.
 *
 * Each app runs two servers: the default one at /mcp (the `add` tool) and `admin` at /admin
 * behind an API key, with two decorated tools and one its app registers at runtime through
 * `@InjectMcp(McpRegistry, 'admin')`; each server discovers only the module it includes, so the
 * consumer's compiler checks the published typings of the named tokens in CJS and ESM.
 *
 * The published declarations must compile with `skipLibCheck: false` (the apps' tsconfig) wherever
 * an application may build them: TypeScript 5.9 and 7, `@types/node` 20 and the current major,
 * with none of the optional peers installed and with all of them. nest11 and nest12 have no
 * optional peer and `@types/node` 20; test/consumers/types/<variant> install NestJS 12 with
 * `@types/node` 26, the peers, or both. Every consumer has both compilers (`typescript` 5.9 and
 * `typescript-7`), which check its copies of the apps (with types/with-peers.ts beside them where
 * the peers are installed), so that nothing resolves from the repository's own node_modules. For
 * nest11 and nest12, the copies checked are those that run, and the compile of each (TypeScript
 * 5.9, `--preserveSymlinks`) is its 5.9 check.
 *
 * Installs are reused while the consumer's lockfile and the packed tarball are unchanged (a
 * stamp in its node_modules records both), so reruns only build, pack and compile.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { jestConfigBlock } from './support/jest-config-block';

const ROOT = join(__dirname, '..');
const CONSUMERS = join(__dirname, 'consumers');
/** The apps, CommonJS and ESM, that every consumer runs or type-checks a copy of. */
const TEMPLATE = join(CONSUMERS, 'template');
const STAMP = '.nest-mcp-consumer-stamp.json';

/** The admin server's API key, as the apps configure it (admin.tools.ts). */
const ADMIN_KEY = 'consumer-admin-key-0123456789';
/** The admin server's tools, as listed (by name): two decorated, one added at runtime. */
const ADMIN_TOOLS = ['admin_reverse', 'admin_runtime', 'admin_whoami'];

const SETUP_TIMEOUT_MS = 10 * 60_000;
const START_TIMEOUT_MS = 60_000;
/** TypeScript 5.9 checking an app and every declaration it reaches, on a busy machine. */
const TYPE_CHECK_TIMEOUT_MS = 120_000;
/**
 * How many type checks run at once. They start as soon as their consumer is installed, while the
 * apps of the other consumers install, compile and serve (waiting on npm, sockets and child
 * processes), rather than one after another once every app has been tested. One: a compiler takes
 * a core, and on the 2-core machine Jest's other worker needs the other (two at once starved the
 * CPU-bound suites beside this one).
 */
const TYPE_CHECKS_AT_ONCE = 1;

const FORMATS = ['cjs', 'esm'] as const;
type Format = (typeof FORMATS)[number];
/** Each app's Jest configuration file: `.cjs` in the ES module app (its package is "type": "module"). */
const JEST_CONFIG: Record<Format, string> = { cjs: 'jest.config.js', esm: 'jest.config.cjs' };

/** The Jest configuration of the README's Testing section. */
const README_JEST_CONFIG = jestConfigBlock('README.md', readFileSync(join(ROOT, 'README.md'), 'utf8'));

interface RunResult {
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (killed after `timeout` ms, if given); a failure carries the command's output. */
function run(command: string, args: string[], cwd: string, timeout?: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const options = { cwd, env: process.env, maxBuffer: 64 * 1024 * 1024, timeout };
    execFile(command, args, options, (error, stdout, stderr) => {
      if (error) {
        const tail = (text: string) => text.split('\n').slice(-40).join('\n');
        const what = `${command} ${args.join(' ')} (in ${cwd}) failed: ${error.message}`;
        reject(new Error(`${what}\n${tail(stdout)}\n${tail(stderr)}`, { cause: error }));
      } else {
        resolve({ stdout, stderr });
      }
    });
  });
}

/** npm: the one running this test when started by `npm test`, otherwise the one on the PATH. */
function npm(args: string[], cwd: string): Promise<RunResult> {
  const cli = process.env.npm_execpath;
  return cli && /npm-cli\.[cm]?js$/.test(basename(cli))
    ? run(process.execPath, [cli, ...args], cwd)
    : run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, cwd);
}

function sha256(...files: string[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(readFileSync(file));
  return hash.digest('hex');
}

function readJson<T = Record<string, any>>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

interface Packed {
  tarball: string;
  integrity: string;
}

/** Builds the library and packs it into `destination`. */
async function buildAndPack(destination: string): Promise<Packed> {
  // What `npm run build` does: the library, the console's browser files beside it, then the
  // library bundled into dist/index.js.
  await run(
    process.execPath,
    [require.resolve('typescript/bin/tsc', { paths: [ROOT] }), '-p', 'tsconfig.build.json'],
    ROOT,
  );
  await run(process.execPath, [join(ROOT, 'scripts', 'copy-console-ui.mjs')], ROOT);
  await run(process.execPath, [join(ROOT, 'scripts', 'bundle-library.mjs'), 'dist'], ROOT);
  const { stdout } = await npm(['pack', '--json', '--pack-destination', destination], ROOT);
  const [pack] = JSON.parse(stdout) as { filename: string; integrity: string; files: { path: string }[] }[];
  const files = pack.files.map((file) => file.path);
  expect(files).toEqual(
    expect.arrayContaining([
      'package.json',
      'LICENSE',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/console/ui/app.js',
      'dist/console/ui/console.css',
    ]),
  );
  expect(files).not.toContain('dist/console/ui/tsconfig.json');
  expect(files.filter((file) => !file.startsWith('dist/') && !/^(package\.json|README|LICENSE)/i.test(file))).toEqual(
    [],
  );
  return { tarball: join(destination, pack.filename), integrity: pack.integrity };
}

/**
 * scripts/api-report.mjs --check on the declarations just built into dist: the exports of the
 * package as packed, against the committed api/nest-mcp.api.md and api/nest-mcp-stdio.api.md
 * (`npm run api:report` writes them again after a deliberate change).
 */
function checkApiReport(): Promise<{ code: number; output: string }> {
  const script = join(ROOT, 'scripts', 'api-report.mjs');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, '--check', '--declarations', join(ROOT, 'dist')],
      { cwd: ROOT, timeout: TYPE_CHECK_TIMEOUT_MS },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), output: stdout + stderr }),
    );
  });
}

interface Stamp {
  /** The hash of package.json and package-lock.json node_modules was installed from. */
  lock: string;
  /** The integrity of the nest-mcp tarball installed, once it is. */
  tarball?: string;
}

function stampOf(consumer: string): Partial<Stamp> {
  const file = join(consumer, 'node_modules', STAMP);
  return existsSync(file) ? readJson<Stamp>(file) : {};
}

function writeStamp(consumer: string, stamp: Stamp): void {
  writeFileSync(join(consumer, 'node_modules', STAMP), JSON.stringify(stamp));
}

function lockHash(consumer: string): string {
  return sha256(join(consumer, 'package.json'), join(consumer, 'package-lock.json'));
}

/** `npm ci` from the consumer's lockfile, unless node_modules was installed from this lockfile. */
async function installDependencies(consumer: string): Promise<void> {
  const lock = lockHash(consumer);
  if (stampOf(consumer).lock === lock) return;
  await npm(['ci', '--no-audit', '--no-fund', '--prefer-offline'], consumer);
  writeStamp(consumer, { lock });
}

/** `npm install --no-save` of the tarball, unless this very tarball is installed. */
async function installLibrary(consumer: string, packed: Packed): Promise<void> {
  const stamp = stampOf(consumer);
  const lock = lockHash(consumer);
  if (stamp.tarball === packed.integrity && existsSync(join(consumer, 'node_modules', 'nest-mcp', 'package.json'))) {
    return;
  }
  await npm(['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', packed.tarball], consumer);
  // --no-save: what is committed stays as it is.
  expect(lockHash(consumer)).toBe(lock);
  writeStamp(consumer, { lock, tarball: packed.integrity });
}

/**
 * Compiles an app with its consumer's own TypeScript into `<app>/dist`. With `--preserveSymlinks`,
 * as the type checks run (see `copyApps`), so that this compile is also the TypeScript 5.9 check
 * of the app: the copies that run are the copies the matrix checks.
 */
async function compile(consumer: string, appDir: string): Promise<void> {
  rmSync(join(appDir, 'dist'), { recursive: true, force: true });
  const tsc = join(consumer, 'node_modules', 'typescript', 'bin', 'tsc');
  await run(process.execPath, [tsc, '-p', appDir, '--preserveSymlinks'], consumer, TYPE_CHECK_TIMEOUT_MS);
}

/** The optional peers of nest-mcp (peerDependenciesMeta), none of which the apps import. */
const OPTIONAL_PEERS = Object.entries(readJson(join(ROOT, 'package.json')).peerDependenciesMeta as object)
  .filter(([, meta]) => (meta as { optional?: boolean }).optional)
  .map(([name]) => name);

/** The compilers of every consumer: its `typescript` (5.9) and `typescript-7` (an npm alias). */
const COMPILERS = [
  { typescript: 5, bin: join('typescript', 'bin', 'tsc') },
  { typescript: 7, bin: join('typescript-7', 'bin', 'tsc') },
] as const;

/**
 * The type-check matrix: the consumers' installs (what they hold is checked by the tests), whose
 * copies of the template apps are checked by both compilers.
 */
const typeConsumers = [
  { consumer: 'nest11', node: 20, peers: false },
  { consumer: 'nest12', node: 20, peers: false },
  { consumer: 'types/node26', node: 26, peers: false },
  { consumer: 'types/node20-peers', node: 20, peers: true },
  { consumer: 'types/node26-peers', node: 26, peers: true },
] as const;

/**
 * The template apps instantiated for `consumer`: copies under `into`, outside the repository,
 * resolving their packages through a link to `consumer`'s node_modules; types/with-peers.ts is
 * added to their sources when `peers`, and with `withJest` (the consumers that run, whose installs
 * have Jest) the app's Jest spec and the README's Jest configuration. In the repository, the declarations would find what they
 * import in the repository's own node_modules (an ancestor of the consumer's), where every
 * optional peer is. The type checks run with `--preserveSymlinks`, so that resolution walks up
 * from the link, not from where it points; the running apps are compiled and started from copies
 * like these (Node resolves the link to the consumer's own packages).
 */
function copyApps(consumer: string, peers: boolean, into: string, withJest = false): Record<Format, string> {
  mkdirSync(into, { recursive: true });
  symlinkSync(join(consumer, 'node_modules'), join(into, 'node_modules'), 'junction');
  const apps = {} as Record<Format, string>;
  for (const format of FORMATS) {
    apps[format] = join(into, format);
    for (const name of ['package.json', 'tsconfig.json', 'src']) {
      cpSync(join(TEMPLATE, format, name), join(apps[format], name), { recursive: true });
    }
    if (withJest) {
      // The app's own Jest spec, beside the modules it tests, and the README's Jest configuration.
      cpSync(join(TEMPLATE, 'spec', 'app.spec.ts'), join(apps[format], 'src', 'app.spec.ts'));
      writeFileSync(join(apps[format], JEST_CONFIG[format]), README_JEST_CONFIG);
    }
    // The modules both formats compile from the same text (no relative import to spell apart).
    cpSync(join(TEMPLATE, 'shared'), join(apps[format], 'src'), { recursive: true });
    if (peers) cpSync(join(CONSUMERS, 'types', 'with-peers.ts'), join(apps[format], 'src', 'with-peers.ts'));
  }
  return apps;
}

/** The optional peers a module under `dir` resolves: in the node_modules of `dir` or of an ancestor. */
function peersReachableFrom(dir: string): string[] {
  const reachable = new Set<string>();
  for (let at = dir; ; at = dirname(at)) {
    for (const peer of OPTIONAL_PEERS) {
      if (existsSync(join(at, 'node_modules', peer, 'package.json'))) reachable.add(peer);
    }
    if (dirname(at) === at) return OPTIONAL_PEERS.filter((peer) => reachable.has(peer));
  }
}

interface RunningApp {
  child: ChildProcess;
  url: string;
  /** `KEY value` lines the app printed before it listened. */
  facts: Record<string, string>;
  stderr: () => string;
}

/** Apps still running; afterAll stops them. */
const children = new Set<ChildProcess>();

/** Starts `dist/main.js` of an app and waits for its LISTENING line. */
function start(appDir: string): Promise<RunningApp> {
  const child = spawn(process.execPath, [join(appDir, 'dist', 'main.js')], {
    cwd: appDir,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));

  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));

  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${appDir}: ${why}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`no LISTENING line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once('error', (error) => fail(error.message));
    child.once('exit', (code, signal) => fail(`exited early (code ${code}, signal ${signal})`));
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      const listening = /^LISTENING (\S+)$/m.exec(stdout);
      if (!listening) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.once('exit', () => children.delete(child));
      const facts: Record<string, string> = {};
      for (const [, key, value] of stdout.matchAll(/^([A-Z_]+) (.*)$/gm)) facts[key] = value;
      resolve({ child, url: listening[1], facts, stderr: () => stderr });
    });
  });
}

/** An SDK client connected to `url`, sending `headers` on every request. */
async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'nest-mcp-consumers-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** The status of a bare `initialize` POST to `url`, with `headers` added. */
async function initializeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
    }),
  });
  await response.body?.cancel();
  return response.status;
}

/** The text of a tool result's only content item. */
function onlyText(result: Awaited<ReturnType<Client['callTool']>>): string {
  expect(result.isError).toBeFalsy();
  expect(result.content).toEqual([{ type: 'text', text: expect.any(String) }]);
  return (result.content as { text: string }[])[0].text;
}

/** SIGTERM, then SIGKILL if the process has not exited within 5 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

const combinations = [
  { nest: 11, format: 'cjs' },
  { nest: 11, format: 'esm' },
  { nest: 12, format: 'cjs' },
  { nest: 12, format: 'esm' },
] as const;

let workDir: string | undefined;
/** The API report check of the packed declarations (scripts/api-report.mjs --check), once the build is there. */
let apiReport: Promise<{ code: number; output: string }> | undefined;
/** Per combination: resolves with its app's folder once it is installed and compiled, rejects with the cause. */
const prepared = new Map<string, Promise<string>>();
/** Per consumer of the type-check matrix: its apps, once it is installed. */
const typeApps = new Map<string, Promise<Record<Format, string>>>();
/** Per consumer, format and compiler (`typeCheckKey`): the type check, started once the apps are there. */
const typeChecks = new Map<string, Promise<void>>();

const typeCheckKey = (consumer: string, format: Format, typescript: number) => `${consumer} ${format} ${typescript}`;

/** Runs the tasks given to it, at most `width` at a time, in the order given. */
function queue(width: number): (task: () => Promise<void>) => Promise<void> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return (task) =>
    new Promise<void>((resolve, reject) => {
      const go = () => {
        running += 1;
        task()
          .then(resolve, reject)
          .finally(() => {
            running -= 1;
            waiting.shift()?.();
          });
      };
      if (running < width) go();
      else waiting.push(go);
    });
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'nest-mcp-consumers-'));
  // Building the library and installing the consumers' dependencies are independent.
  const packing = buildAndPack(workDir);
  apiReport = packing.then(checkApiReport);
  apiReport.catch(() => undefined);
  const installing = new Map<number, Promise<void>>();
  for (const nest of new Set(combinations.map((c) => c.nest))) {
    const consumer = join(CONSUMERS, `nest${nest}`);
    installing.set(
      nest,
      Promise.all([packing, installDependencies(consumer)]).then(([packed]) => installLibrary(consumer, packed)),
    );
  }
  const typeCheck = queue(TYPE_CHECKS_AT_ONCE);
  const running = new Map<number, Promise<Record<Format, string>>>();
  for (const [nest, installed] of installing) {
    const consumer = join(CONSUMERS, `nest${nest}`);
    running.set(
      nest,
      installed.then(() => copyApps(consumer, false, join(workDir!, 'run', `nest${nest}`), true)),
    );
  }
  for (const { nest, format } of combinations) {
    const consumer = join(CONSUMERS, `nest${nest}`);
    prepared.set(
      `${nest}-${format}`,
      running.get(nest)!.then(async (apps) => {
        await compile(consumer, apps[format]);
        return apps[format];
      }),
    );
  }
  for (const { consumer, peers } of typeConsumers) {
    const dir = join(CONSUMERS, consumer);
    const nest = /^nest(\d+)$/.exec(consumer);
    // The apps that run are copies like any other (no optional peer), so they are the ones checked.
    const apps = nest
      ? running.get(Number(nest[1]))!
      : Promise.all([packing, installDependencies(dir)])
          .then(([packed]) => installLibrary(dir, packed))
          .then(() => copyApps(dir, peers, join(workDir!, 'types', basename(consumer))));
    typeApps.set(consumer, apps);
    for (const format of FORMATS) {
      for (const { typescript, bin } of COMPILERS) {
        const compiled = nest && typescript === 5 ? prepared.get(`${nest[1]}-${format}`) : undefined;
        const check = compiled
          ? // That app's compile (see `compile`) is this check.
            compiled.then(() => undefined)
          : apps.then((ready) =>
              typeCheck(() => {
                const tsc = join(dir, 'node_modules', bin);
                const args = [tsc, '-p', ready[format], '--noEmit', '--preserveSymlinks'];
                return run(process.execPath, args, ready[format], TYPE_CHECK_TIMEOUT_MS).then(() => undefined);
              }),
            );
        // Its test awaits it; until then, a failure is not an unhandled rejection.
        check.catch(() => undefined);
        typeChecks.set(typeCheckKey(consumer, format, typescript), check);
      }
    }
  }
  // A failure is reported by the combinations it concerns: their beforeAll awaits it.
  await Promise.allSettled([...prepared.values(), ...typeApps.values()]);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all([...children].map(stop));
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

it('packs the public API on record: api/nest-mcp.api.md and api/nest-mcp-stdio.api.md', async () => {
  if (!apiReport) throw new Error('the shared setup did not run');
  expect(await apiReport).toEqual({
    code: 0,
    output: expect.stringMatching(/matches api\/nest-mcp\.api\.md\.\n[^]*matches api\/nest-mcp-stdio\.api\.md\./),
  });
});

describe.each(combinations)('nest-mcp in a NestJS $nest $format app', ({ nest, format }) => {
  const consumer = join(CONSUMERS, `nest${nest}`);
  /** The consumer's copy of the template app, compiled. */
  let appDir: string;
  let app: RunningApp | undefined;
  let client: Client | undefined;

  beforeAll(async () => {
    const ready = prepared.get(`${nest}-${format}`);
    if (!ready) throw new Error('the shared setup did not run');
    appDir = await ready;
    app = await start(appDir);
    client = await connect(app.url);
  }, START_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await client?.close();
    if (app) await stop(app.child);
  });

  it(`runs on the consumer's own @nestjs/core ${nest}.x and nest-mcp from the tarball`, () => {
    const installed = readJson(join(consumer, 'node_modules', '@nestjs', 'core', 'package.json'));
    expect(installed.version).toMatch(new RegExp(`^${nest}\\.`));
    // The @nestjs/core that nest-mcp itself resolves, as printed by the app.
    expect(app!.facts.NEST_CORE).toBe(installed.version);
    expect(realpathSync(app!.facts.NEST_MCP)).toBe(
      realpathSync(join(consumer, 'node_modules', 'nest-mcp', 'dist', 'index.js')),
    );
  });

  it(`is really ${format === 'esm' ? 'an ES module' : 'a CommonJS'} app`, () => {
    const main = readFileSync(join(appDir, 'dist', 'main.js'), 'utf8');
    if (format === 'esm') {
      expect(readJson(join(appDir, 'package.json')).type).toBe('module');
      expect(main).toMatch(/^import \{ NestFactory \} from ['"]@nestjs\/core['"];$/m);
      expect(main).not.toMatch(/\brequire\(/);
      expect(app!.facts.FORMAT).toBe('module');
    } else {
      expect(main).toMatch(/require\(["']@nestjs\/core["']\)/);
      expect(app!.facts.FORMAT).toBe('commonjs');
    }
  });

  it(`refuses a deep ${format === 'esm' ? 'import' : 'require'} of an internal path, and serves ./package.json`, () => {
    // The exports map: only the entry point and package.json are importable.
    expect(app!.facts[format === 'esm' ? 'DEEP_IMPORT' : 'DEEP_REQUIRE']).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    expect(app!.facts.PACKAGE_JSON).toBe(readJson(join(ROOT, 'package.json')).version);
  });

  it('gives McpHealthIndicator without @nestjs/terminus installed', () => {
    expect(existsSync(join(consumer, 'node_modules', '@nestjs', 'terminus'))).toBe(false);
    expect(JSON.parse(app!.facts.HEALTH)).toEqual({
      mcp: {
        status: 'up',
        stores: { status: 'up', kind: 'memory', sessions: 0 },
        registry: { status: 'up', loaded: true, tools: 2, resources: 0, resourceTemplates: 0, prompts: 0 },
      },
    });
  });

  it('serves the console from the packed library: the page and its browser files', async () => {
    const page = await fetch(`${app!.url}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<meta name="mcp-endpoint" content="/mcp">');
    expect(html).toContain('<script type="module" src="/mcp/console/assets/app.js"></script>');
    const script = await fetch(`${app!.url}/console/assets/app.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe(readFileSync(join(ROOT, 'console-ui', 'app.js'), 'utf8'));
  });

  it('serves the add tool over Streamable HTTP', async () => {
    expect(client!.getServerVersion()).toMatchObject({ name: `consumer-${format}`, version: '1.0.0' });

    const { tools } = await client!.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'math_double']);
    expect(tools[0].inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });

    const result = await client!.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ sum: 42 });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ sum: 42 }) }]);
  });

  it('shows a REST route as a tool without @nestjs/swagger installed, and calls it through the route', async () => {
    expect(existsSync(join(consumer, 'node_modules', '@nestjs', 'swagger'))).toBe(false);
    const { tools } = await client!.listTools();
    expect(tools.find((tool) => tool.name === 'math_double')).toMatchObject({
      description: 'GET /math/double/:n',
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      annotations: { readOnlyHint: true },
    });
    const result = await client!.callTool({ name: 'math_double', arguments: { n: 21 } });
    expect(result.structuredContent).toEqual({ doubled: 42 });
    const refused = await client!.callTool({ name: 'math_double', arguments: { n: 'x' } });
    expect(refused.isError).toBe(true);
  });

  it('serves the admin server at /admin with its own tools, to a client with its API key', async () => {
    expect(app!.facts.ADMIN_URL).toBe(app!.url.replace(/\/mcp$/, '/admin'));
    const admin = await connect(app!.facts.ADMIN_URL, { 'x-api-key': ADMIN_KEY });
    try {
      expect(admin.getServerVersion()).toMatchObject({ name: 'admin', version: '1.0.0' });
      const { tools } = await admin.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(ADMIN_TOOLS);

      // The principal of the key reaches a decorated handler and the runtime one.
      const whoami = await admin.callTool({ name: 'admin_whoami', arguments: {} });
      expect(whoami.isError).toBeFalsy();
      expect(whoami.structuredContent).toEqual({ id: 'ops' });
      expect(onlyText(await admin.callTool({ name: 'admin_reverse', arguments: { text: 'abc' } }))).toBe('cba');
      expect(onlyText(await admin.callTool({ name: 'admin_runtime', arguments: {} }))).toBe('runtime for ops');

      // The default server's tool is not admin's.
      await expect(admin.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).rejects.toMatchObject({
        code: -32602,
      });
    } finally {
      await admin.close();
    }
  });

  it("keeps the default server at /mcp to its own tools: none of admin's", async () => {
    const { tools } = await client!.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'math_double']);
    for (const name of ADMIN_TOOLS) {
      await expect(client!.callTool({ name, arguments: {} })).rejects.toMatchObject({ code: -32602 });
    }
  });

  it('answers 401 on /admin without the API key or with a wrong one, and admits the key', async () => {
    const url = app!.facts.ADMIN_URL;
    expect(await initializeStatus(url)).toBe(401);
    expect(await initializeStatus(url, { 'x-api-key': `${ADMIN_KEY}-wrong` })).toBe(401);
    // The key admits, and admin's auth is admin's only: /mcp still takes requests without one.
    expect(await initializeStatus(url, { 'x-api-key': ADMIN_KEY })).toBe(200);
    expect(await initializeStatus(app!.url)).toBe(200);
    // The SDK client fails to connect without the key (its error's code is the HTTP status).
    await expect(connect(url)).rejects.toMatchObject({ code: 401 });
  });

  it("gives the admin server's McpHealthIndicator by its named token, counting its runtime tool", () => {
    expect(JSON.parse(app!.facts.ADMIN_HEALTH)).toEqual({
      mcp: {
        status: 'up',
        stores: { status: 'up', kind: 'memory', sessions: 0 },
        registry: { status: 'up', loaded: true, tools: 3, resources: 0, resourceTemplates: 0, prompts: 0 },
      },
    });
  });

  it('wrote nothing to stderr', () => {
    expect(app!.stderr()).toBe('');
  });

  it(
    "runs the app's own Jest spec, which drives it in-process through nest-mcp/testing",
    async () => {
      // The consumer's Jest, in one process, with a cache of its own. It must exit by itself (no
      // --forceExit): a handle the kit left open would keep it running until the timeout. (Not
      // --detectOpenHandles: it made each run 4-5 times longer.)
      const jest = join(consumer, 'node_modules', 'jest', 'bin', 'jest.js');
      const args = [jest, '--ci', '--runInBand', '--config', join(appDir, JEST_CONFIG[format])];
      const cache = ['--cacheDirectory', join(appDir, '.jest-cache')];
      const { stderr } = await run(process.execPath, [...args, ...cache], appDir, START_TIMEOUT_MS - 5_000);
      // Jest reports on stderr.
      expect(stderr).toMatch(/^Tests: {7}3 passed, 3 total$/m);
      expect(stderr).toContain('PASS src/app.spec.ts');
    },
    START_TIMEOUT_MS,
  );

  it(
    'serves the same app over stdio with runMcpStdio, stdout left to JSON-RPC',
    async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(appDir, 'dist', 'stdio.js')],
        cwd: appDir,
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const stdioClient = new Client({ name: 'nest-mcp-consumers-stdio', version: '1.0.0' });
      try {
        await stdioClient.connect(transport);
        expect(stdioClient.getServerVersion()).toMatchObject({ name: `consumer-${format}` });
        const result = await stdioClient.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
        expect(result.structuredContent).toEqual({ sum: 3 });
      } catch (error) {
        throw new Error(`${String(error)}\n--- stderr ---\n${stderr}`, { cause: error });
      } finally {
        await stdioClient.close();
      }
      // Only warnings and errors were asked for, and there were none.
      expect(stderr).toBe('');
    },
    START_TIMEOUT_MS,
  );

  it(
    "serves the admin server over stdio with runMcpStdio(AppModule, { server: 'admin' })",
    async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(appDir, 'dist', 'stdio-admin.js')],
        cwd: appDir,
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const stdioClient = new Client({ name: 'nest-mcp-consumers-stdio', version: '1.0.0' });
      try {
        await stdioClient.connect(transport);
        expect(stdioClient.getServerVersion()).toMatchObject({ name: 'admin' });
        const { tools } = await stdioClient.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(ADMIN_TOOLS);
        expect(onlyText(await stdioClient.callTool({ name: 'admin_reverse', arguments: { text: 'stdio' } }))).toBe(
          'oidts',
        );
      } catch (error) {
        throw new Error(`${String(error)}\n--- stderr ---\n${stderr}`, { cause: error });
      } finally {
        await stdioClient.close();
      }
      expect(stderr).toBe('');
    },
    START_TIMEOUT_MS,
  );
});

describe.each(typeConsumers)(
  'the published types in $consumer: @types/node $node, optional peers installed: $peers',
  ({ consumer, node, peers }) => {
    const dir = join(CONSUMERS, consumer);
    let apps: Record<Format, string> | undefined;

    beforeAll(async () => {
      const ready = typeApps.get(consumer);
      if (!ready) throw new Error('the shared setup did not run');
      apps = await ready;
    });

    it(`holds @types/node ${node}, TypeScript 5.9 and 7, and ${peers ? 'every one' : 'none'} of the optional peers`, () => {
      const version = (name: string) => readJson(join(dir, 'node_modules', name, 'package.json')).version as string;
      expect(version('@types/node')).toMatch(new RegExp(`^${node}\\.`));
      expect(version('typescript')).toMatch(/^5\.9\./);
      expect(version('typescript-7')).toMatch(/^7\./);
      expect(OPTIONAL_PEERS).toEqual(expect.arrayContaining(['ioredis', '@opentelemetry/api', '@nestjs/terminus']));
      for (const format of FORMATS) {
        expect(peersReachableFrom(apps![format])).toEqual(peers ? OPTIONAL_PEERS : []);
      }
    });

    it.each(FORMATS.flatMap((format) => COMPILERS.map((compiler) => ({ format, ...compiler }))))(
      'type-checks the $format app with TypeScript $typescript and skipLibCheck false',
      async ({ format, typescript }) => {
        const appDir = apps![format];
        expect(readJson(join(appDir, 'tsconfig.json')).compilerOptions.skipLibCheck).toBe(false);
        // `tsc -p <app> --noEmit --preserveSymlinks` with the consumer's compiler, started by the
        // shared setup (see TYPE_CHECKS_AT_ONCE); each one is killed after TYPE_CHECK_TIMEOUT_MS.
        const check = typeChecks.get(typeCheckKey(consumer, format, typescript));
        if (!check) throw new Error('the shared setup did not start this type check');
        await check;
      },
      SETUP_TIMEOUT_MS,
    );
  },
);
