/**
 * One stdio connection: the lines read from its input, the bounded pool of workers that serves
 * its requests (`StdioWorkers`), its legacy session (`StdioSession`), and the writer of its
 * output. Every message goes through the inbound dispatcher; this class only frames, admits,
 * routes and writes, what to write being its status table's (`stdioFrame`).
 *
 * Admission is decided synchronously, line by line, so that its outcome does not depend on
 * timing: a request either starts, waits in the queue, or is refused ("Server is overloaded",
 * "Duplicate request id") before the next line is read.
 */
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { McpEngine } from '../../protocol/engine';
import { classifyMessage, McpErrorCode, failure, type RequestId } from '../../protocol/messages/json-rpc';
import { InboundDispatcher } from '../../protocol/inbound';
import type { McpPrincipal } from '../../protocol/calls/call-context';
import { logMessage, logStack } from '../../protocol/bounds/log-text';
import type { LegacySessionResolver } from '../../sessions/legacy-session.resolver';
import type { SessionChannels } from '../../sessions/session-channels';
import { BODY_TOO_DEEP, SHUTTING_DOWN } from '../../shared/mcp.messages';
import { exceedsDepth } from '../http/request-body';
import { StdioFrameReader } from './stdio-frames';
import { StdioOutput } from './stdio-output';
import { StdioSession } from './stdio-session';
import { StdioWorkers } from './stdio-workers';
import { acceptBatch, refuseQueuedBatch, runBatch } from './stdio-batch';
import { StdioRequests } from './stdio-requests';

export { DUPLICATE_ID_MESSAGE, OVERLOADED_MESSAGE } from './stdio-batch';

/** The connection's logger (Nest's `Logger` fits). */
export interface StdioLogger {
  error(message: string, trace?: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

/** The limits of one connection. */
export interface StdioLimits {
  readonly maxFrameBytes: number;
  readonly maxWorkers: number;
  readonly maxQueue: number;
  readonly maxSubscriptions: number;
  readonly maxPendingNotifications: number;
  readonly maxJsonDepth: number;
  /** How long the end of the connection waits for the output to drain. */
  readonly flushTimeoutMs: number;
}

/** What a connection works with. */
export interface StdioConnectionDeps {
  readonly engine: McpEngine;
  readonly resolver: LegacySessionResolver;
  readonly channels: SessionChannels;
  readonly logger: StdioLogger;
}

export const OVERSIZE_MESSAGE = 'Request exceeds the maximum frame size';
const INPUT_ENDED_REASON = 'The client closed its input';

export class StdioConnection {
  /** The cancel scope of requests served before (or without) a legacy session. */
  readonly connectionId = `mcp_${randomBytes(16).toString('hex')}`;
  private readonly output: StdioOutput;
  private readonly reader: StdioFrameReader;
  private readonly workers: StdioWorkers;
  private readonly session: StdioSession;
  private readonly requests: StdioRequests;
  private inputEnded = false;
  private served: Deferred | undefined;
  private ending = false;
  private detachInput: (() => void) | undefined;

  constructor(
    private readonly input: Readable,
    output: Writable,
    principal: McpPrincipal,
    private readonly limits: StdioLimits,
    private readonly deps: StdioConnectionDeps,
  ) {
    this.output = new StdioOutput(output, limits.maxPendingNotifications, deps.logger);
    this.reader = new StdioFrameReader(limits.maxFrameBytes, {
      frame: (line) => this.onLine(line),
      oversize: () => this.output.send(failure(null, McpErrorCode.InvalidRequest, OVERSIZE_MESSAGE)),
    });
    this.workers = new StdioWorkers(limits, {
      run: (work) => (work.kind === 'batch' ? runBatch(this.requests, work) : this.requests.run(work)),
      failed: (work, error) => {
        this.deps.logger.error(`A request failed outside the engine: ${logMessage(error)}`, logStack(error));
        if (work.kind === 'request') {
          this.output.send(failure(work.message.id, McpErrorCode.InternalError, 'Internal error'));
        }
      },
    });
    this.session = new StdioSession(principal, {
      resolver: deps.resolver,
      channels: deps.channels,
      notify: (message) => {
        this.output.notify(message);
      },
      warn: (message) => deps.logger.warn(message),
    });
    this.requests = new StdioRequests({
      engine: deps.engine,
      dispatcher: new InboundDispatcher(deps.engine, deps.logger),
      workers: this.workers,
      session: this.session,
      output: this.output,
      principal,
      connectionId: this.connectionId,
      debug: (message) => deps.logger.debug(message),
      inputEnded: () => this.inputEnded,
    });
  }

  /** Reads the input until it ends (or `stop()`), then resolves once every answer is written. */
  serve(): Promise<void> {
    if (this.served !== undefined) {
      return this.served.promise;
    }
    const served = deferred();
    this.served = served;
    const { input } = this;
    const onData = (chunk: Buffer | string): void => {
      this.reader.push(chunk);
      // A client that does not read its answers slows its own input down rather than making
      // them pile up here.
      if (this.output.isCongested && !this.inputEnded) {
        input.pause();
      }
    };
    const stopDrainWatch = this.output.onDrained(() => {
      if (!this.inputEnded) {
        input.resume();
      }
    });
    const onEnd = (): void => this.end(true);
    const onError = (error: Error): void => {
      this.deps.logger.error(`The input failed: ${error.message}`);
      this.end(true);
    };
    this.detachInput = () => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('close', onEnd);
      input.off('error', onError);
      stopDrainWatch();
      this.detachInput = undefined;
    };
    input.on('data', onData);
    input.once('end', onEnd);
    // Destroyed without an 'end' (a broken pipe): over all the same.
    input.once('close', onEnd);
    input.once('error', onError);
    if (input.readableEnded) {
      this.end(true);
    }
    return served.promise;
  }

  /**
   * Shutdown: the connection takes no new request (each is answered with an error at once), nor
   * the queued ones, which have not started (the same answer: the client may send them again),
   * and its listens end, told and answered. The input is still read: the client's answers to
   * this server's questions and its cancellations let the requests in flight finish. `stop()`
   * ends the connection.
   */
  drain(): void {
    if (this.requests.draining || this.ending) {
      return;
    }
    this.requests.draining = true;
    for (const work of this.workers.takeQueue()) {
      if (work.kind === 'batch') {
        refuseQueuedBatch(this.requests, work);
      } else {
        this.workers.inflight.delete(work.message.id);
        this.output.send(failure(work.message.id, McpErrorCode.InternalError, SHUTTING_DOWN));
      }
    }
    this.requests.endListens();
  }

  /** Stops reading as if the input had ended; resolves once the connection is over. */
  stop(): Promise<void> {
    if (this.served === undefined) {
      return Promise.resolve();
    }
    this.end(false);
    return this.served.promise;
  }

  /**
   * The end of the connection, once: no more input; open listens end; questions to the client
   * fail (no answer can come); queued and running requests finish and are answered; then the
   * session closes and the output is flushed.
   */
  private end(atEof: boolean): void {
    if (this.ending) {
      return;
    }
    this.ending = true;
    const served = this.served!;
    this.shutdown(atEof).then(served.resolve, served.reject);
  }

  private async shutdown(atEof: boolean): Promise<void> {
    this.detachInput?.();
    if (atEof) {
      // A last line without its newline is still a message.
      this.reader.end();
    } else {
      this.input.pause();
    }
    this.inputEnded = true;
    // The client may still read stdout: its listens end as at shutdown, answered.
    this.requests.endListens();
    const session = this.session.handle;
    if (session !== undefined) {
      this.deps.engine.clientRequests.failScope(session.id, INPUT_ENDED_REASON);
    }
    await this.workers.idle();
    try {
      await this.session.close();
    } catch (error) {
      this.deps.logger.error(`Could not close the session: ${error instanceof Error ? error.message : String(error)}`);
    }
    await this.output.flush(this.limits.flushTimeoutMs);
    this.output.release();
  }

  private onLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.output.send(failure(null, McpErrorCode.ParseError, 'Parse error'));
      return;
    }
    if (exceedsDepth(value, this.limits.maxJsonDepth)) {
      this.output.send(failure(idOf(value), McpErrorCode.InvalidRequest, BODY_TOO_DEEP(this.limits.maxJsonDepth)));
      return;
    }
    if (Array.isArray(value)) {
      acceptBatch(this.requests, value);
      return;
    }
    const message = classifyMessage(value);
    switch (message.kind) {
      case 'invalid':
        this.requests.write({
          kind: 'invalid',
          error: failure(message.id, McpErrorCode.InvalidRequest, message.reason),
          notification: message.isNotification,
        });
        return;
      case 'response':
        // Client answers to this server's requests (legacy elicitation, sampling, roots).
        void this.requests.dispatcher.deliver([message.message], this.session);
        return;
      case 'notification':
        this.requests.notification(message.message);
        return;
      case 'request':
        this.requests.accept(message.message);
    }
  }
}
/** The id of a decoded message, when it has a usable one. */
function idOf(value: unknown): RequestId | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return null;
  }
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}
