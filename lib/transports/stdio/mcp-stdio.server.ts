import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Readable, Writable } from 'node:stream';
import { format } from 'node:util';
import { ModuleRef } from '@nestjs/core';
import { McpConfigurationError } from '../../errors/mcp-configuration.error';
import { MCP_HTTP_SETTINGS, MCP_SERVER_IDENTITY, MCP_STDIO_SETTINGS } from '../../shared/mcp.constants';
import { namedServerToken } from '../../identity/named-token';
import type { McpServerIdentity } from '../../identity/server-identity';
import type { HttpSettings } from '../http/http-settings';
import type { StdioSettings } from './stdio-settings';
import { McpEngine } from '../../protocol/engine';
import { ANONYMOUS_PRINCIPAL, type McpPrincipal } from '../../protocol/calls/call-context';
import { LegacySessionResolver } from '../../sessions/legacy-session.resolver';
import { SessionChannels } from '../../sessions/session-channels';
import type { StdioConnection } from './stdio-connection';
import type * as StdioConnectionModule from './stdio-connection';
import { McpLogger } from '../../telemetry/mcp.logger';

/**
 * Where and as whom `McpStdioServer.listen()` serves.
 *
 * @publicApi
 */
export interface McpStdioListenOptions {
  /**
   * The server to serve, by name, in an application with several: the one this `McpStdioServer`
   * belongs to without it.
   * @example { server: 'admin' }
   */
  server?: string;
  /** @default process.stdin */
  input?: Readable;
  /** @default process.stdout */
  output?: Writable;
  /** The principal every message of the connection is served as. @default the anonymous principal */
  principal?: McpPrincipal;
  /**
   * Sends `console.log`, `console.info` and `console.debug` to stderr while the server listens,
   * so that a stray `console.log` in application code cannot corrupt the JSON-RPC stream; the
   * console is restored when the server stops.
   * @default true when `output` is `process.stdout`, false otherwise
   */
  redirectConsole?: boolean;
}

/** How long the end of a connection waits for stdout to drain. */
const FLUSH_TIMEOUT_MS = 5_000;

/**
 * Serves the module over stdio: newline-delimited JSON-RPC on stdin and stdout, both eras,
 * one client per process (the client spawned this process). Logs must stay off stdout: give
 * the application `McpStderrLogger`, or start it with `runMcpStdio()`, which does.
 *
 * What a connection does:
 * - one JSON message per line, at most `stdio.maxFrameBytes` (longer lines are answered with
 *   -32600 and skipped); batches where the negotiated revision has them (2024-11-05, 2025-03-26);
 * - at most `stdio.maxWorkers` requests run and `stdio.maxQueue` wait; beyond, -32603
 *   "Server is overloaded". A request id already in flight is refused; `notifications/cancelled`
 *   drops a waiting request and aborts a running one (`ctx.signal`);
 * - legacy requests share one session for the connection, opened by the first of them, which
 *   receives list changes and resource updates; server-to-client requests (elicitation,
 *   sampling, roots) are written to stdout and their answers read from stdin;
 * - `subscriptions/listen` (modern) holds no worker, at most `stdio.maxSubscriptions` at once;
 * - when stdin ends: open listens end, questions to the client fail, the requests in flight
 *   finish and are answered, the session closes, stdout is flushed, and `listen()` resolves.
 *
 * @example
 * ```ts
 * const app = await NestFactory.createApplicationContext(AppModule, { logger: new McpStderrLogger() });
 * await app.get(McpStdioServer).listen();
 * await app.close();
 * ```
 * @publicApi
 */
@Injectable()
export class McpStdioServer implements OnApplicationShutdown {
  private readonly logger = new McpLogger('McpStdio');
  private readonly connections = new Set<StdioConnection>();
  private draining = false;
  private closing = false;

  /** @internal */
  constructor(
    @Inject(MCP_STDIO_SETTINGS) private readonly stdio: StdioSettings,
    @Inject(MCP_HTTP_SETTINGS) private readonly http: HttpSettings,
    private readonly engine: McpEngine,
    private readonly resolver: LegacySessionResolver,
    private readonly channels: SessionChannels,
    @Inject(MCP_SERVER_IDENTITY) private readonly identity: McpServerIdentity,
    private readonly moduleRef: ModuleRef,
  ) {}

  /**
   * Whether `close()` was called (by the application's shutdown, or directly): a `listen()`
   * that resolved after it ended because of it, not because its input ended.
   */
  get closed(): boolean {
    return this.closing;
  }

  /** Serves until the input ends; resolves once every answer is written. */
  async listen(options: McpStdioListenOptions = {}): Promise<void> {
    if (options.server !== undefined && options.server !== this.identity.name) {
      return this.serverNamed(options.server).listen(options);
    }
    const input = options.input ?? process.stdin;
    const output = options.output ?? process.stdout;
    const { stdio } = this;
    // Loaded by the first listen(): an application that serves HTTP alone never runs it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { StdioConnection } = require('./stdio-connection') as typeof StdioConnectionModule;
    const connection = new StdioConnection(
      input,
      output,
      options.principal ?? ANONYMOUS_PRINCIPAL,
      {
        maxFrameBytes: stdio.maxFrameBytes,
        maxWorkers: stdio.maxWorkers,
        maxQueue: stdio.maxQueue,
        maxSubscriptions: stdio.maxSubscriptions,
        maxPendingNotifications: stdio.maxPendingNotifications,
        maxJsonDepth: this.http.maxJsonDepth,
        flushTimeoutMs: FLUSH_TIMEOUT_MS,
      },
      { engine: this.engine, resolver: this.resolver, channels: this.channels, logger: this.logger },
    );
    const restoreConsole =
      (options.redirectConsole ?? output === process.stdout) ? redirectConsoleToStderr() : () => undefined;
    this.connections.add(connection);
    try {
      const served = connection.serve();
      if (this.closing) {
        void connection.stop();
      } else if (this.draining) {
        connection.drain();
      }
      await served;
    } finally {
      this.connections.delete(connection);
      restoreConsole();
    }
  }

  /** The `McpStdioServer` of another server of the application. */
  serverNamed(server: string): McpStdioServer {
    try {
      return this.moduleRef.get<McpStdioServer>(namedServerToken(server, McpStdioServer.name), { strict: false });
    } catch {
      throw new McpConfigurationError(`No MCP server is named "${server}": McpStdioServer.listen() cannot serve it.`);
    }
  }

  /**
   * Shutdown: every connection, and any started from now on, takes no new request and ends its
   * listens, while its requests in flight finish; `close()` then ends them.
   *
   * @internal the shutdown's
   */
  drain(): void {
    this.draining = true;
    this.connections.forEach((connection) => connection.drain());
  }

  /**
   * Stops every `listen()` as if its input had ended: requests in flight finish and are
   * answered, then each connection closes. Resolves once they all did. Called by the
   * application's shutdown; a `listen()` started afterwards stops at once.
   */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.connections].map((connection) => connection.stop()));
  }

  /** Closes every `listen()` as {@link McpStdioServer.close} does. */
  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }
}

/** How many listens redirect the console now: the first redirects it, the last restores it. */
let consoleRedirects = 0;
let restoreConsoleMethods: (() => void) | undefined;

/** Sends console.log/info/debug to stderr; returns the function that undoes it (once). */
/* eslint-disable no-console -- moving the console off stdout is the point here */
function redirectConsoleToStderr(): () => void {
  if (consoleRedirects === 0) {
    const saved = { log: console.log, info: console.info, debug: console.debug };
    const toStderr = (...args: unknown[]): void => {
      process.stderr.write(`${format(...args)}\n`);
    };
    console.log = toStderr;
    console.info = toStderr;
    console.debug = toStderr;
    restoreConsoleMethods = () => {
      // Someone replaced them in the meantime: theirs stay.
      if (console.log === toStderr) console.log = saved.log;
      if (console.info === toStderr) console.info = saved.info;
      if (console.debug === toStderr) console.debug = saved.debug;
    };
  }
  consoleRedirects += 1;
  let undone = false;
  return () => {
    if (undone) {
      return;
    }
    undone = true;
    consoleRedirects -= 1;
    if (consoleRedirects === 0) {
      restoreConsoleMethods?.();
      restoreConsoleMethods = undefined;
    }
  };
}
/* eslint-enable no-console */
