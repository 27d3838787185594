import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { freePort } from './ports';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A redis-server process started for a test file. */
export interface RedisServerHandle {
  /** Its temporary working directory (removed by `stop()`). */
  readonly dir: string;
  /** The loopback port it listens on (kept across `stop()` and `start()`). */
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** Kills the server (SIGTERM, SIGKILL after 2 s) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts the server again on the same port after `stop()`. */
  start(): Promise<void>;
}

const READY_DEADLINE_MS = 5000;
const KILL_GRACE_MS = 2000;
const PORT_ATTEMPTS = 5;

function serverBinary(): string {
  return process.env.REDIS_SERVER ?? 'redis-server';
}

/** How to start a process other than a plain redis-server (a cluster node, a replica, a sentinel). */
export interface RedisProcessOptions {
  /** Arguments after the defaults (port, loopback, no persistence, its own dir). */
  readonly args?: readonly string[];
  /**
   * A configuration file, written into the process's dir at each start and given first:
   * redis-sentinel needs one it can rewrite.
   */
  readonly config?: (port: number) => string;
  /** @default redis-server (or `REDIS_SERVER`) */
  readonly binary?: string;
}

/**
 * redis-server is not installed (or `REDIS_SERVER` names no file). The message says what to
 * install: a bare spawn ENOENT would leave whoever runs the suites guessing.
 */
export class RedisServerNotFoundError extends Error {
  constructor(binary: string) {
    super(
      binary !== serverBinary()
        ? `${binary} was not found on the PATH: install it (Debian/Ubuntu: apt-get install ${binary}) ` +
            'to run the Redis high-availability suites'
        : process.env.REDIS_SERVER === undefined
          ? 'redis-server was not found on the PATH: install it (Debian/Ubuntu: apt-get install redis-server) ' +
            'to run the Redis suites, or set REDIS_SERVER to its path'
          : `redis-server was not found at ${binary} (REDIS_SERVER): install it (Debian/Ubuntu: ` +
            'apt-get install redis-server) to run the Redis suites, or point REDIS_SERVER at it',
    );
    this.name = 'RedisServerNotFoundError';
  }
}

/**
 * Sends one inline command over a raw socket and resolves what came back once `complete` says
 * it is whole, or undefined when nothing whole came within `timeoutMs`. (A raw socket leaves no
 * reconnection timers behind, unlike a client library.)
 */
async function inlineCommand(
  host: string,
  port: number,
  command: string,
  complete: (received: string) => boolean,
  timeoutMs: number,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    let received = '';
    const finish = (reply: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.once('error', () => finish(undefined));
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (complete(received)) {
        finish(received);
      }
    });
  });
}

/** The first line of a reply, once it came. */
function firstLine(received: string): boolean {
  return received.includes('\r\n');
}

const PROCESS_ID = /process_id:(\d+)\r\n/;

/**
 * The process id of the server answering on `port`: ours is ready only when it is the one that
 * answers (another server may have taken the port between the probe and the spawn).
 */
async function answeringPid(port: number, timeoutMs: number): Promise<number | undefined> {
  const reply = await inlineCommand(
    '127.0.0.1',
    port,
    'INFO server',
    (received) => PROCESS_ID.test(received) || (firstLine(received) && received.startsWith('-')),
    timeoutMs,
  );
  const match = reply === undefined ? null : PROCESS_ID.exec(reply);
  return match === null ? undefined : Number(match[1]);
}

interface Running {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  readonly output: () => string;
}

/** Spawns redis-server on `port`; resolves once it answers, rejects if it exits first. */
async function launch(port: number, dir: string, options: RedisProcessOptions): Promise<Running> {
  const binary = options.binary ?? serverBinary();
  const config: string[] = [];
  if (options.config !== undefined) {
    config.push(join(dir, 'redis.conf'));
    writeFileSync(config[0], options.config(port));
  }
  const child = spawn(
    binary,
    [
      ...config,
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
      '--dir',
      dir,
      ...(options.args ?? []),
    ],
    // The PATH is looked up in `env`: passed on explicitly, because Node's default is the real
    // process environment, which differs from the `process.env` a Jest test sees and sets.
    { stdio: ['ignore', 'pipe', 'pipe'], env: process.env },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let spawnError: Error | undefined;
  let hasExited = false;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      spawnError = error;
      hasExited = true;
      resolve();
    });
    child.once('exit', () => {
      hasExited = true;
      resolve();
    });
  });
  const deadline = Date.now() + READY_DEADLINE_MS;
  while (Date.now() < deadline) {
    if (hasExited) {
      break;
    }
    if (child.pid !== undefined && (await answeringPid(port, 250)) === child.pid) {
      return { child, exited, output: () => output };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  if (spawnError !== undefined) {
    const code = (spawnError as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new RedisServerNotFoundError(binary);
    }
    throw spawnError;
  }
  if (!hasExited) {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`${binary} on port ${port} did not answer within ${READY_DEADLINE_MS} ms:\n${output}`);
  }
  throw new Error(`${binary} on port ${port} exited before it was ready:\n${output}`);
}

async function terminate(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) {
    await running.exited;
    return;
  }
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), KILL_GRACE_MS);
  await running.exited;
  clearTimeout(timer);
}

/**
 * Starts a private redis-server on a free loopback port, without persistence (its `--dir` is
 * a fresh temporary directory, removed when the server stops). Tests need Redis: if the binary
 * is missing this throws `RedisServerNotFoundError` (saying what to install) rather than skip.
 */
export async function startRedisServer(options: RedisProcessOptions = {}): Promise<RedisServerHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'nest-mcp-redis-'));
  let running: Running | undefined;
  let port = 0;
  let lastError: unknown;
  for (let attempt = 0; attempt < PORT_ATTEMPTS && running === undefined; attempt++) {
    port = await freePort();
    try {
      running = await launch(port, dir, options);
    } catch (error) {
      // Another port cannot help a missing binary.
      if (error instanceof RedisServerNotFoundError) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      lastError = error;
    }
  }
  if (running === undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw lastError instanceof Error ? lastError : new Error(String(lastError));
  }
  const finalPort = port;
  return {
    dir,
    port: finalPort,
    url: `redis://127.0.0.1:${finalPort}`,
    async stop() {
      if (running !== undefined) {
        const current = running;
        running = undefined;
        await terminate(current);
      }
      rmSync(dir, { recursive: true, force: true });
    },
    async start() {
      if (running !== undefined) {
        return;
      }
      // The same working directory is used across restarts (stop() removed it).
      mkdirSync(dir, { recursive: true });
      // The port may be held for a moment after the previous server exited.
      const deadline = Date.now() + READY_DEADLINE_MS;
      for (;;) {
        try {
          running = await launch(finalPort, dir, options);
          return;
        } catch (error) {
          if (Date.now() > deadline || error instanceof RedisServerNotFoundError) {
            throw error;
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
  };
}

/** Removes every key of the server at `url` (FLUSHALL); rejects when it does not answer. */
export async function flushRedis(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const reply = await inlineCommand(hostname, Number(port || 6379), 'FLUSHALL', firstLine, READY_DEADLINE_MS);
  if (reply !== '+OK\r\n') {
    throw new Error(`FLUSHALL on ${url} failed: ${reply?.trim() ?? 'no answer'}`);
  }
}
