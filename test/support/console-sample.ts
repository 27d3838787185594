/**
 * The sample app (sample/main.ts) in a child process, as `npm start` runs it, for the console's
 * browser tests: on a free loopback port, with the sample's defaults (no authentication, state in
 * memory) plus the `env` a test adds (`MCP_CONSOLE=1`, `MCP_AUTH`...).
 */
import { spawn } from 'node:child_process';
import { exitOf, terminateProcess, tsEntry, watchOutput } from './server-process';

/** The line sample/main.ts logs once it listens (PORT=0 lets the system choose the port). */
const LISTENING = /MCP server listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/;
const START_TIMEOUT_MS = 60_000;

/** A running sample. */
export interface SampleProcess {
  /** `http://127.0.0.1:<port>`: the page's origin. */
  readonly baseUrl: string;
  /** `<baseUrl>/mcp/console`. */
  readonly consoleUrl: string;
  /** Everything the process wrote so far. */
  output(): string;
  /** Stops it (SIGTERM, then SIGKILL if it lingers). */
  stop(): Promise<void>;
}

/** Starts the sample with `env` added to the environment, and waits until it listens. */
export async function startSample(env: Record<string, string> = {}): Promise<SampleProcess> {
  const { command, args, cwd } = tsEntry('sample/main.ts');
  const childEnv: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: '0', NO_COLOR: '1' };
  // The sample's defaults, whatever the shell running the tests has set.
  for (const name of ['MCP_CONSOLE', 'MCP_AUTH', 'MCP_AUTH_SECRET', 'MCP_REDIS_URL', 'MCP_PAGE_SIZE', 'NODE_ENV']) {
    delete childEnv[name];
  }
  for (const name of Object.keys(process.env).filter((key) => key.startsWith('OTEL_'))) {
    delete childEnv[name];
  }
  const child = spawn(command, args, { cwd, env: { ...childEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const watched = watchOutput(child.stdout, child.stderr);
  const exited = exitOf(child);
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
  };
  const port = await Promise.race([
    watched.line(LISTENING, START_TIMEOUT_MS).then((line) => Number(LISTENING.exec(line)![1])),
    exited.then((exit) => {
      throw new Error(`The sample exited before it listened (${JSON.stringify(exit)}):\n${watched.output()}`);
    }),
  ]).catch((error: unknown) => {
    kill();
    throw error;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    consoleUrl: `${baseUrl}/mcp/console`,
    output: watched.output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        await terminateProcess(child.pid!, exited).catch(kill);
      }
    },
  };
}
