/**
 * The one writer of a stdio connection's output. Every message is written whole, as
 * `JSON.stringify(message) + '\n'` in a single `write()`, so two messages never interleave.
 * When the reader falls behind (a `write()` returned `false` and `'drain'` has not come yet),
 * answers still queue but notifications beyond a bound are dropped: a client that stops reading
 * must not make the server hold an unbounded backlog of progress and change notifications.
 */
import type { Writable } from 'node:stream';
import { McpErrorCode, failure, type RequestId, type JSONRPCMessage } from '../../protocol/messages/json-rpc';
import { logText } from '../../protocol/bounds/log-text';

/** Where the writer reports what went wrong. */
export interface StdioOutputLogger {
  warn(message: string): void;
  error(message: string, trace?: string): void;
}

/** How often, at most, dropped notifications are reported. */
const DROP_WARNING_INTERVAL_MS = 5_000;

export class StdioOutput {
  /** A write returned `false` and `'drain'` has not come yet. */
  private congested = false;
  /** Notifications written since the output became congested. */
  private backlog = 0;
  private dropped = 0;
  private lastDropWarning = -Infinity;
  /** The stream failed or was destroyed: nothing more can be written. */
  private broken = false;
  private readonly drainListeners = new Set<() => void>();

  private readonly onDrain = (): void => {
    this.congested = false;
    this.backlog = 0;
    this.drainListeners.forEach((listener) => listener());
  };

  private readonly onError = (error: Error): void => {
    if (!this.broken) {
      this.broken = true;
      this.logger.error(`The output failed; nothing more is written: ${error.message}`);
    }
  };

  constructor(
    private readonly stream: Writable,
    private readonly maxPendingNotifications: number,
    private readonly logger: StdioOutputLogger,
  ) {
    stream.on('drain', this.onDrain);
    stream.on('error', this.onError);
  }

  /** Whether the reader is behind (writes are being buffered). */
  get isCongested(): boolean {
    return this.congested;
  }

  /** Calls `listener` each time a congested output drains. */
  onDrained(listener: () => void): () => void {
    this.drainListeners.add(listener);
    return () => this.drainListeners.delete(listener);
  }

  /** Writes an answer or a request to the client: never dropped while the stream can be written. */
  send(message: JSONRPCMessage | readonly JSONRPCMessage[]): boolean {
    let line: string;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      // A result that cannot be serialized (a BigInt, a cycle) still gets an answer.
      const id = Array.isArray(message) ? null : ((message as { id?: RequestId | null }).id ?? null);
      this.logger.error(
        `Could not serialize a message for request ${logText(id)}: ${error instanceof Error ? error.message : String(error)}`,
      );
      line = JSON.stringify(failure(id, McpErrorCode.InternalError, 'Internal error'));
    }
    return this.write(line);
  }

  /** Writes a notification, or drops it when too many are already waiting behind a slow reader. */
  notify(message: JSONRPCMessage): boolean {
    if (this.congested) {
      if (this.backlog >= this.maxPendingNotifications) {
        this.drop();
        return false;
      }
      this.backlog += 1;
    }
    return this.send(message);
  }

  private drop(): void {
    this.dropped += 1;
    const now = Date.now();
    if (now - this.lastDropWarning >= DROP_WARNING_INTERVAL_MS) {
      this.lastDropWarning = now;
      this.logger.warn(
        `The client reads stdout too slowly: dropping notifications beyond ${this.maxPendingNotifications} waiting (${this.dropped} dropped since the last warning)`,
      );
      this.dropped = 0;
    }
  }

  private write(line: string): boolean {
    if (this.broken || this.stream.destroyed || this.stream.writableEnded) {
      return false;
    }
    if (!this.stream.write(`${line}\n`)) {
      this.congested = true;
    }
    return true;
  }

  /**
   * Resolves once everything written so far has left the stream (its write callback ran), or
   * after `timeoutMs`: a reader that never drains must not keep the process from exiting.
   */
  flush(timeoutMs: number): Promise<void> {
    const { stream } = this;
    if (this.broken || stream.destroyed || stream.writableEnded) {
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined = undefined;
      const done = (): void => {
        clearTimeout(timer);
        stream.off('close', done);
        resolve();
      };
      timer = setTimeout(() => {
        this.logger.warn(`The output did not drain within ${timeoutMs} ms; exiting without waiting for it`);
        done();
      }, timeoutMs);
      stream.once('close', done);
      // An empty write queues behind every earlier one: its callback runs once they are out.
      stream.write('', () => done());
    });
  }

  /** Stops listening to the stream (the connection is over). */
  release(): void {
    this.stream.off('drain', this.onDrain);
    this.stream.off('error', this.onError);
    this.drainListeners.clear();
  }
}
