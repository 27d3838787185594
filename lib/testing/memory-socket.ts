/**
 * A connection in memory: two linked duplex streams that stand for the two ends of a TCP socket,
 * so that a request goes through Node's own HTTP parser and the application's own server
 * without a port. What one end writes the other reads; ending one end ends the other's reading,
 * and destroying one end closes the other (a client that aborts looks like a closed socket).
 */
import { Duplex } from 'node:stream';

const LOOPBACK = '127.0.0.1';
let nextPort = 40000;

/** One end of an in-memory connection, with the few socket members Node's HTTP code calls. */
export class MemorySocket extends Duplex {
  peer!: MemorySocket;
  readonly remoteAddress = LOOPBACK;
  readonly remoteFamily = 'IPv4';
  readonly localAddress = LOOPBACK;
  readonly connecting = false;
  readonly readyState = 'open';
  readonly encrypted = false;
  bytesWritten = 0;

  constructor(
    readonly localPort: number,
    readonly remotePort: number,
  ) {
    super({ allowHalfOpen: true });
  }

  override _read(): void {
    // Data arrives when the peer writes.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.bytesWritten += chunk.length;
    if (!this.peer.destroyed) {
      this.peer.push(chunk);
    }
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.peer.destroyed) {
      this.peer.push(null);
    }
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.peer.destroyed) {
      this.peer.destroy();
    }
    callback(error);
  }

  /** No idle timer: an in-memory connection never idles out. */
  setTimeout(_ms: number, callback?: () => void): this {
    if (callback !== undefined) {
      this.once('timeout', callback);
    }
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  /** Ends once what was written is flushed (Node's HTTP server calls it after a response). */
  destroySoon(): void {
    if (this.writableFinished) {
      this.destroy();
    } else {
      this.end(() => this.destroy());
    }
  }

  address(): { address: string; family: string; port: number } {
    return { address: LOOPBACK, family: 'IPv4', port: this.localPort };
  }
}

/** A linked pair: `client` for `http.request`'s `createConnection`, `server` for the HTTP server. */
export function memoryConnection(serverPort = 80): { client: MemorySocket; server: MemorySocket } {
  const clientPort = nextPort;
  nextPort = nextPort >= 60000 ? 40000 : nextPort + 1;
  const client = new MemorySocket(clientPort, serverPort);
  const server = new MemorySocket(serverPort, clientPort);
  client.peer = server;
  server.peer = client;
  return { client, server };
}
