/**
 * A connection in memory: two linked duplex streams standing for the two ends of a TCP socket,
 * so that a route tool's request goes through Node's HTTP parser and the application's own
 * server (Express or Fastify) without a port. The testing kit keeps its own copy: it may import
 * the public API only.
 */
import { Duplex } from 'node:stream';

const LOOPBACK = '127.0.0.1';

/** One end of an in-memory connection, with the few socket members Node's HTTP code calls. */
export class MemorySocket extends Duplex {
  peer!: MemorySocket;
  readonly remoteFamily: string;
  readonly localAddress = LOOPBACK;
  readonly remotePort = 0;
  readonly localPort = 0;
  readonly connecting = false;
  readonly readyState = 'open';
  readonly encrypted = false;
  bytesWritten = 0;

  /** @param remoteAddress the address the application sees this connection come from */
  constructor(readonly remoteAddress: string = LOOPBACK) {
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
 * `remoteAddress` is where the application sees the request come from: the MCP caller's own
 * address, so that a route's address checks (allow-lists, rate limits per address) judge the
 * caller, never this process's loopback.
 */
export function memoryConnection(remoteAddress?: string): { client: MemorySocket; server: MemorySocket } {
  const client = new MemorySocket();
  const server = new MemorySocket(remoteAddress);
  client.peer = server;
  server.peer = client;
  return { client, server };
}
