/**
 * The sample app (sample/main.ts) in a child process, as `npm start` runs it, for the console's
 * browser tests: on a free loopback port, with the sample's defaults (no authentication, state in
 * memory) plus the `env` a test adds (`MCP_CONSOLE=1`, `MCP_AUTH`...).
 */
import { startServerProcess } from './server-process';

/** The line sample/main.ts logs once it listens (PORT=0 lets the system choose the port). */
const LISTENING = /MCP server listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/;

/** A running sample. */
export interface SampleProcess {
  /** The process id (to read its memory from `/proc`). */
  readonly pid: number;
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
  // The sample's defaults, whatever the shell running the tests has set.
  const unset: Record<string, undefined> = {};
  for (const name of ['MCP_CONSOLE', 'MCP_AUTH', 'MCP_AUTH_SECRET', 'MCP_REDIS_URL', 'MCP_PAGE_SIZE', 'NODE_ENV']) {
    unset[name] = undefined;
  }
  for (const name of Object.keys(process.env).filter((key) => key.startsWith('OTEL_'))) {
    unset[name] = undefined;
  }
  const server = await startServerProcess(
    'sample/main.ts',
    { ...unset, HOST: '127.0.0.1', PORT: '0', NO_COLOR: '1', ...env },
    LISTENING,
  );
  return {
    pid: server.pid,
    baseUrl: server.baseUrl,
    consoleUrl: `${server.baseUrl}/mcp/console`,
    output: server.output,
    stop: async () => {
      await server.terminate().catch(() => server.kill());
    },
  };
}
