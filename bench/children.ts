/**
 * Starting, talking to and stopping the server child processes.
 *
 * Why child processes: the machine has 2 cores. autocannon generates load from the bench's own
 * event loop; a server in that same process would share one thread with its load generator and
 * the numbers would measure both. With the server alone in its own process, the load generator
 * and the server each get a core, like a real client and server.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { ChildMessage, ParentMessage } from './child-runtime';

const ROOT = resolve(__dirname, '..');
const live = new Set<ChildServer>();

export interface ChildOptions {
  env?: Record<string, string>;
}

export class ChildServer {
  /** Errors the child reported (logged errors, uncaught exceptions, startup failures). */
  readonly errors: string[] = [];
  port = 0;
  /** What the child said when it was ready. */
  ready: Extract<ChildMessage, { type: 'ready' }> | undefined;
  private exitCode: number | null | undefined;
  private readonly exited: Promise<void>;
  private stopping = false;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((done) => {
      child.once('exit', (code, signal) => {
        this.exitCode = code;
        live.delete(this);
        if (!this.stopping) {
          this.errors.push(`${name} exited unexpectedly (code ${code}, signal ${signal})`);
        }
        done();
      });
    });
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'server-error') {
        this.errors.push(message.message);
      }
    });
    child.on('error', (error) => {
      this.errors.push(`${name}: ${error.message}`);
    });
  }

  /** Forks `script` (a .ts file under bench/) and waits until it listens. */
  static async start(name: string, script: string, options: ChildOptions = {}): Promise<ChildServer> {
    const execArgv = ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'];
    const child = fork(join(__dirname, script), [], {
      cwd: ROOT,
      execArgv,
      env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...options.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const server = new ChildServer(name, child);
    live.add(server);
    server.ready = await server.next('ready', 60_000);
    server.port = server.ready.port;
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/${this.ready?.path ?? 'mcp'}`;
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  send(message: ParentMessage): void {
    if (!this.child.connected) {
      throw new Error(`${this.name} is not running (${this.errors.join('; ') || 'no IPC channel'})`);
    }
    this.child.send(message);
  }

  /** The next message of a type, failing on timeout or if the child exits first. */
  next<T extends ChildMessage['type']>(type: T, timeoutMs = 10_000): Promise<Extract<ChildMessage, { type: T }>> {
    return new Promise((done, fail) => {
      const onMessage = (message: ChildMessage): void => {
        if (message.type === type) {
          cleanup();
          done(message as Extract<ChildMessage, { type: T }>);
        }
      };
      const onExit = (): void => {
        cleanup();
        fail(new Error(`${this.name} exited before sending '${type}': ${this.errors.join('; ')}`));
      };
      const timer = setTimeout(() => {
        cleanup();
        fail(new Error(`${this.name} did not send '${type}' within ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
      };
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
    });
  }

  /** CPU time the child has used so far (user + system), in µs. */
  async cpuUs(): Promise<number> {
    if (!this.alive) {
      return NaN;
    }
    const reply = this.next('cpu');
    this.send({ type: 'cpu' });
    const usage = await reply;
    return usage.userUs + usage.systemUs;
  }

  /** What the telemetry child's OpenTelemetry SDK recorded so far (its batch processor flushed first). */
  async telemetry(): Promise<Omit<Extract<ChildMessage, { type: 'telemetry' }>, 'type'>> {
    const reply = this.next('telemetry');
    this.send({ type: 'telemetry' });
    const { type: _type, ...counts } = await reply;
    return counts;
  }

  /** The memory of a child started with the heap probe (bench/heap-probe.ts), after full collections. */
  async heap(timeoutMs = 30_000): Promise<Extract<ChildMessage, { type: 'heap' }>> {
    const reply = this.next('heap', timeoutMs);
    this.send({ type: 'heap' });
    return reply;
  }

  /** Starts the child's CPU profiler, or stops it and writes the profile to `file`. */
  async profile(action: 'start' | 'stop', file = ''): Promise<void> {
    const ack = this.next('ack');
    this.send(action === 'start' ? { type: 'profile', action } : { type: 'profile', action, file });
    await ack;
  }

  /** Asks the child to close its app and exit; kills it if it takes too long. */
  async stop(timeoutMs = 5000): Promise<void> {
    if (!this.alive) {
      return;
    }
    this.stopping = true;
    if (this.child.connected) {
      this.child.send({ type: 'shutdown' } satisfies ParentMessage);
    } else {
      this.child.kill('SIGTERM');
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Last resort, synchronous (process 'exit' handlers cannot wait). */
  kill(): void {
    if (this.alive) {
      this.stopping = true;
      this.child.kill('SIGKILL');
    }
  }
}

/** Stops every child still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((child) => child.stop()));
}

// Whatever happens to the bench, no server outlives it.
process.on('exit', () => {
  for (const child of live) {
    child.kill();
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stopAll().finally(() => process.exit(130));
  });
}
