/**
 * A connection in memory: two linked duplex streams that stand for the two ends of a TCP socket,
 * so that a request goes through Node's own HTTP parser and the application's own server
 * without a port. What one end writes the other reads; ending one end ends the other's reading,
 * and destroying one end closes the other (a client that aborts looks like a closed socket).
 *
 * Two users: the testing kit's in-process exchanges (lib/testing, which may import this file and
 * no other internal one: it uses node built-ins only) and route tools' requests (lib/routes).
 */
import { Duplex } from 'node:stream';

const LOOPBACK = '127.0.0.1';
/** The port an in-memory connection reaches: HTTP's, as a request's `Host: localhost` says. */
const SERVER_PORT = 80;
let nextPort = 40000;

/** One end of an in-memory connection, with the few socket members Node's HTTP code calls. */
export class MemorySocket extends Duplex {
  peer!: MemorySocket;
  readonly remoteFamily: string;
  readonly localAddress = LOOPBACK;
  readonly connecting = false;
  readonly readyState = 'open';
  readonly encrypted = false;
  bytesWritten = 0;

  /** @param remoteAddress the address the other end's owner sees this connection come from */
  constructor(
    readonly localPort: number,
    readonly remotePort: number,
    readonly remoteAddress: string = LOOPBACK,
  ) {
    super({ allowHalfOpen: true });
    this.remoteFamily = remoteAddress.includes(':') ? 'IPv6' : 'IPv4';
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

/**
 * A linked pair: `client` for `http.request`'s `createConnection`, `server` for the HTTP server.
 * `remoteAddress` is where the server sees the request come from (loopback by default): a route
 * tool passes the MCP caller's own address, so that a route's address checks (allow-lists, rate
 * limits per address) judge the caller, never this process's loopback.
 */
export function memoryConnection(remoteAddress?: string): { client: MemorySocket; server: MemorySocket } {
  const clientPort = nextPort;
  nextPort = nextPort >= 60000 ? 40000 : nextPort + 1;
  const client = new MemorySocket(clientPort, SERVER_PORT);
  const server = new MemorySocket(SERVER_PORT, clientPort, remoteAddress);
  client.peer = server;
  server.peer = client;
  return { client, server };
}
