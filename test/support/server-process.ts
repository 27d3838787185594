/**
 * A server of this repository in a child process of its own, as it runs in production: started
 * from its TypeScript entry, stopped by a real signal. What it writes (stdout and stderr) is
 * kept, so that a test can wait for a line and show the whole output when it fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const TS_NODE = require.resolve('ts-node/dist/bin.js');
const START_TIMEOUT_MS = 60_000;
const LISTENING = /^LISTENING (\d+)$/m;

/**
 * How to run a TypeScript entry of this repository: Node with ts-node (the SWC transpiler, which
 * starts in about a second) and the `nest-mcp` path alias. For clients that spawn the server
 * themselves (stdio).
 */
export function tsEntry(
  entry: string,
  preload: readonly string[] = [],
): { command: string; args: string[]; cwd: string } {
  const required = preload.flatMap((file) => ['-r', join(ROOT, file)]);
  return {
    command: process.execPath,
    args: [TS_NODE, '--swc', '-r', 'tsconfig-paths/register', ...required, join(ROOT, entry)],
    cwd: ROOT,
  };
}

/** How a child process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running server process. */
export interface ServerProcess {
  readonly pid: number;
  /** `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  /** The Streamable HTTP endpoint. */
  readonly url: URL;
  /** Resolves once the process exited. */
  readonly exited: Promise<ProcessExit>;
  /** Everything the process wrote so far, stdout and stderr interleaved as they came. */
  output(): string;
  /** Resolves with the first line matching `pattern` (already written, or to come); rejects after `timeoutMs`. */
  line(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends a signal (SIGTERM by default) and resolves with how it ended and how long that took, in ms. */
  terminate(signal?: NodeJS.Signals, timeoutMs?: number): Promise<ProcessExit & { ms: number }>;
  /** Kills the process if it still runs (SIGKILL); for cleanups. */
  kill(): void;
}

/** Collects what `streams` carry (a child's stdout and stderr), and lets callers wait for a line. */
export function watchOutput(
  ...streams: Array<NodeJS.ReadableStream | null | undefined>
): Pick<ServerProcess, 'output' | 'line'> {
  let text = '';
  const waiters = new Set<() => void>();
  const append = (chunk: Buffer | string): void => {
    text += chunk.toString();
    waiters.forEach((wake) => wake());
  };
  streams.forEach((stream) => stream?.on('data', append));
  return {
    output: () => text,
    line: (pattern, timeoutMs = 5_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const found = text.split('\n').find((line) => pattern.test(line));
          if (found !== undefined) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`No line matching ${pattern} within ${timeoutMs} ms; output:\n${text}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}

/** Resolves once `child` exited (at once if it has). */
export function exitOf(child: ChildProcess): Promise<ProcessExit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/**
 * Sends `signal` to `pid` and waits for `exited`, at most `timeoutMs` (then kills it, and
 * rejects): resolves with how the process ended and the time from the signal to its exit.
 */
export async function terminateProcess(
  pid: number,
  exited: Promise<ProcessExit>,
  signal: NodeJS.Signals = 'SIGTERM',
  timeoutMs = 15_000,
): Promise<ProcessExit & { ms: number }> {
  const started = Date.now();
  process.kill(pid, signal);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      process.kill(pid, 'SIGKILL');
      reject(new Error(`The process did not exit within ${timeoutMs} ms of ${signal}`));
    }, timeoutMs);
  });
  try {
    const exit = await Promise.race([exited, late]);
    return { ...exit, ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts `entry` (a .ts file, from the repository root) with `env` added (a variable given as
 * `undefined` is removed), and waits until it writes a line matching `listening` (by default
 * `LISTENING <port>`), whose first group is the port. `preload`: .ts files (from the repository
 * root) loaded before the entry, such as `test/support/shifted-clock.ts`.
 */
export async function startServerProcess(
  entry: string,
  env: Record<string, string | undefined> = {},
  listening: RegExp = LISTENING,
  preload: readonly string[] = [],
): Promise<ServerProcess> {
  const { command, args, cwd } = tsEntry(entry, preload);
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) {
      delete childEnv[name];
    }
  }
  const child = spawn(command, args, { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const watched = watchOutput(child.stdout, child.stderr);
  const exited = exitOf(child);
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
  };
  const port = await Promise.race([
    watched.line(listening, START_TIMEOUT_MS).then((line) => Number(listening.exec(line)![1])),
    exited.then((exit) => {
      throw new Error(`${entry} exited before it listened (${JSON.stringify(exit)}):\n${watched.output()}`);
    }),
  ]).catch((error: unknown) => {
    kill();
    throw error;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    pid: child.pid!,
    baseUrl,
    url: new URL('/mcp', baseUrl),
    exited,
    ...watched,
    terminate: (signal, timeoutMs) => terminateProcess(child.pid!, exited, signal, timeoutMs),
    kill,
  };
}
