import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { lingerOnClose, type LingerBounds } from './lingering-close';
import { sendBody } from '../../../test/support/chunked-body';
import { waitUntil } from '../../../test/support/waiting';

const LIMIT = 256 * 1024;
/** A chunk of the chunked encoding, 16 KiB of data. */
const CHUNK = `4000\r\n${'y'.repeat(0x4000)}\r\n`;

interface ClosedSocket {
  /** What the server's socket had read when it closed. */
  readonly bytesRead: number;
  /** How long after the request began. */
  readonly afterMs: number;
}
const ANSWER = '{"refused":true}';

/**
 * A server that reads `limit` bytes of a body, then answers 413 with `Connection: close` and
 * leaves the rest unread, as the module does past what it drops; with `bounds`, it lingers.
 */
async function refusingServer(
  bounds?: LingerBounds,
  limit = LIMIT,
): Promise<{ server: Server; port: number; closed: Promise<ClosedSocket> }> {
  let closedSocket!: (closed: ClosedSocket) => void;
  const closed = new Promise<ClosedSocket>((resolve) => (closedSocket = resolve));
  const server = createServer((req, res) => {
    const opened = performance.now();
    req.socket.once('close', () =>
      closedSocket({ bytesRead: req.socket.bytesRead, afterMs: performance.now() - opened }),
    );
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        return;
      }
      req.off('data', onData);
      req.pause();
      if (bounds !== undefined) {
        lingerOnClose(req, bounds);
      }
      res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
      res.end(ANSWER);
    };
    req.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, closed };
}

/** A raw client that sends a chunked request head and one chunk over the limit, then waits. */
async function rawClient(port: number): Promise<{ socket: Socket; received: () => string }> {
  // Half-open allowed: the client keeps its side open after the server's FIN, as a client still
  // sending does.
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  let text = '';
  socket.on('data', (part: Buffer) => (text += part.toString()));
  socket.on('error', () => undefined);
  socket.write('POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
  socket.write(`${(LIMIT + 1).toString(16)}\r\n${'x'.repeat(LIMIT + 1)}\r\n`);
  return { socket, received: () => text };
}

describe('lingerOnClose', () => {
  let server: Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    server = undefined;
  });

  it('lets a client still sending a long chunked body read the answer', async () => {
    // Megabytes in flight when the answer goes out, as past the module's bound: closing at once
    // then resets the connection under a client that is still writing.
    const started = await refusingServer({ ms: 2_000, bytes: 16 * 1024 * 1024 }, 12 * 1024 * 1024);
    server = started.server;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      // Node's client sending a chunked body as fast as it can, stopping once answered.
      const { status, body, error } = await sendBody(`http://127.0.0.1:${started.port}/`, 64 * 1024 * 1024);
      expect({ status, body, error }).toEqual({ status: 413, body: ANSWER });
    }
  });

  it('sends the answer and a FIN, and closes once the client ends its body', async () => {
    const started = await refusingServer({ ms: 60_000, bytes: 16 * 1024 * 1024 });
    server = started.server;
    const client = await rawClient(started.port);
    await waitFor(() => client.received().includes(ANSWER));
    expect(client.received()).toMatch(/^HTTP\/1\.1 413 .*connection: close/is);
    // Still open for what the client sends on: read and dropped, not reset.
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let chunk = 0; chunk < 4; chunk += 1) {
      client.socket.write(CHUNK);
    }
    client.socket.write('0\r\n\r\n');
    const { bytesRead } = await started.closed;
    expect(bytesRead).toBeGreaterThan(LIMIT + 4 * 0x4000);
    client.socket.destroy();
  });

  it('closes after `bytes` more when the client keeps sending', async () => {
    const started = await refusingServer({ ms: 60_000, bytes: 64 * 1024 });
    server = started.server;
    const client = await rawClient(started.port);
    await waitFor(() => client.received().includes(ANSWER));
    let closed: ClosedSocket | undefined;
    void started.closed.then((value) => (closed = value));
    while (closed === undefined && !client.socket.destroyed) {
      client.socket.write(CHUNK);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const { bytesRead } = await started.closed;
    // Read on past the answer by the bound, then closed without waiting for the client.
    expect(bytesRead).toBeGreaterThan(LIMIT + 64 * 1024);
    expect(bytesRead).toBeLessThan(LIMIT + 64 * 1024 + 4 * 1024 * 1024);
    client.socket.destroy();
  });

  it('closes after `ms` when the client sends nothing more and does not close', async () => {
    const started = await refusingServer({ ms: 30, bytes: 16 * 1024 * 1024 });
    server = started.server;
    const client = await rawClient(started.port);
    const { afterMs } = await started.closed;
    expect(afterMs).toBeGreaterThanOrEqual(25);
    await waitFor(() => client.received().includes(ANSWER));
    client.socket.destroy();
  });

  it('leaves a connection that is not closing alone', async () => {
    const agent = new Agent({ keepAlive: true });
    let socketOf: IncomingMessage['socket'] | undefined;
    server = createServer((req, res) => {
      socketOf = req.socket;
      lingerOnClose(req);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const answer = await new Promise<string>((resolve, reject) => {
      const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', path: '/', agent }, (res) => {
        let text = '';
        res.on('data', (part: Buffer) => (text += part.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(answer).toBe('ok');
    expect(socketOf?.destroyed).toBe(false);
    agent.destroy();
  });
});

function waitFor(condition: () => boolean): Promise<void> {
  return waitUntil(condition, 'the condition', 10_000, { intervalMs: 5 });
}
