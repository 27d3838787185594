/**
 * The bench's held-connection load (bench/held-load.ts), against a real `node:http` server on
 * 127.0.0.1: the connections last from one slice to the next, every answer is counted once with
 * its status and body, and what a misbehaving server does (closing an idle connection, dropping
 * a request, answering half, never answering, answering without content-length) is counted or
 * retried as documented, without hanging the slice.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeldConnections } from '../bench/held-load';
import type { RequestSpec } from '../bench/load';

const SPEC: RequestSpec = { headers: { 'content-type': 'application/json' }, body: '{"ask":"echo"}' };
const ANSWER = '{"ok":true}';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Fixture {
  url: string;
  server: Server;
  connections: number;
  requests: number;
  handler: Handler;
}

function answer(res: ServerResponse, status = 200, body = ANSWER): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function serve(): Promise<Fixture> {
  const server = createServer();
  const fixture: Fixture = { url: '', server, connections: 0, requests: 0, handler: (_req, res) => answer(res) };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      fixture.requests++;
      fixture.handler(req, res, Buffer.concat(chunks).toString());
    });
  });
  server.on('connection', () => fixture.connections++);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  fixture.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/load`;
  return fixture;
}

describe('HeldConnections (bench)', () => {
  let fixture: Fixture;
  let pool: HeldConnections | undefined;

  beforeEach(async () => {
    fixture = await serve();
  });

  afterEach(async () => {
    pool?.close();
    pool = undefined;
    fixture.server.closeAllConnections();
    await new Promise((done) => fixture.server.close(done));
  });

  it('drives the same connections slice after slice and counts every answer once', async () => {
    const seen: string[] = [];
    fixture.handler = (req, res, body) => {
      seen.push(`${req.method} ${req.url} ${req.headers['content-type']} ${body}`);
      answer(res);
    };
    pool = await HeldConnections.open(fixture.url, SPEC, 8);
    const slices = [];
    for (let i = 0; i < 3; i++) {
      slices.push(await pool.run(0.2, ANSWER));
    }
    expect(fixture.connections).toBe(8);
    expect(new Set(seen)).toEqual(new Set([`POST /load application/json ${SPEC.body}`]));
    expect(slices.reduce((sum, slice) => sum + slice.requests, 0)).toBe(fixture.requests);
    for (const slice of slices) {
      expect(slice.requests).toBeGreaterThan(8);
      expect(slice.ok2xx).toBe(slice.requests);
      expect(slice.latencies).toHaveLength(slice.requests);
      expect(Math.min(...slice.latencies)).toBeGreaterThan(0);
      expect(slice.durationS).toBeGreaterThanOrEqual(0.2);
      expect(slice.durationS).toBeLessThan(2);
      expect(slice.errors + slice.timeouts + slice.mismatches + slice.non2xx).toBe(0);
    }
  });

  it('counts other statuses and other bodies', async () => {
    let n = 0;
    let failed = 0;
    let wrong = 0;
    fixture.handler = (_req, res) => {
      n++;
      if (n % 5 === 0) {
        failed++;
        answer(res, 500);
      } else if (n % 7 === 0) {
        wrong++;
        answer(res, 200, '{"ok":false}');
      } else {
        answer(res);
      }
    };
    pool = await HeldConnections.open(fixture.url, SPEC, 4);
    const slice = await pool.run(0.2, ANSWER);
    expect(slice.requests).toBe(n);
    expect(slice.non2xx).toBe(failed);
    expect(slice.ok2xx).toBe(n - failed);
    // A 500 with the expected body is no mismatch; a 200 with another body is one.
    expect(slice.mismatches).toBe(wrong);
    expect(failed).toBeGreaterThan(0);
    expect(wrong).toBeGreaterThan(0);
  });

  it('reconnects the connections a server closes while they rest', async () => {
    pool = await HeldConnections.open(fixture.url, SPEC, 4);
    await pool.run(0.1, ANSWER);
    expect(fixture.connections).toBe(4);
    // As a keep-alive timeout would, only sooner.
    fixture.server.closeIdleConnections();
    for (let waited = 0; fixture.connections < 8 && waited < 2000; waited += 10) {
      await new Promise((done) => setTimeout(done, 10));
    }
    expect(fixture.connections).toBe(8);
    const slice = await pool.run(0.1, ANSWER);
    expect(fixture.connections).toBe(8);
    expect(slice.requests).toBeGreaterThan(4);
    expect(slice.errors).toBe(0);
  });

  it('sends again a first request whose connection closed before any byte of its answer', async () => {
    pool = await HeldConnections.open(fixture.url, SPEC, 4);
    await pool.run(0.05, ANSWER);
    const before = fixture.requests;
    const dropped = new Set<unknown>();
    fixture.handler = (req, res) => {
      // The first request of each old connection is dropped unanswered, as a keep-alive close racing it.
      if (!dropped.has(req.socket) && dropped.size < 4) {
        dropped.add(req.socket);
        req.socket.destroy();
        return;
      }
      answer(res);
    };
    const slice = await pool.run(0.1, ANSWER);
    expect(dropped.size).toBe(4);
    expect(slice.errors).toBe(0);
    expect(slice.ok2xx).toBe(slice.requests);
    // Every request the server answered is counted; the four dropped ones were sent again.
    expect(slice.requests).toBe(fixture.requests - before - 4);
    expect(fixture.connections).toBe(8);
  });

  it('counts an answer cut off halfway as an error and goes on on a new connection', async () => {
    let n = 0;
    fixture.handler = (req, res) => {
      if (++n === 20) {
        res.socket!.write('HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{"half"');
        setTimeout(() => req.socket.destroy(), 10);
        return;
      }
      answer(res);
    };
    pool = await HeldConnections.open(fixture.url, SPEC, 2);
    const slice = await pool.run(0.3, ANSWER);
    expect(n).toBeGreaterThan(20);
    expect(slice.errors).toBe(1);
    expect(slice.requests).toBe(n - 1);
    expect(fixture.connections).toBe(3);
  });

  it('counts a request never answered as timed out, and the slice still ends', async () => {
    let n = 0;
    fixture.handler = (_req, res) => {
      if (++n !== 3) {
        answer(res);
      }
    };
    pool = await HeldConnections.open(fixture.url, SPEC, 2, 0.3);
    const slice = await pool.run(0.5, ANSWER);
    expect(slice.timeouts).toBe(1);
    expect(slice.errors).toBe(0);
    expect(slice.requests).toBe(n - 1);
    expect(slice.durationS).toBeLessThan(1.5);
  });

  it('counts an answer without content-length as an error and says why once', async () => {
    const said = jest.spyOn(console, 'error').mockImplementation(() => {});
    try {
      fixture.handler = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"ok"');
        res.end(':true}');
      };
      pool = await HeldConnections.open(fixture.url, SPEC, 2);
      const slice = await pool.run(0.1, ANSWER);
      expect(slice.requests).toBe(0);
      expect(slice.errors).toBeGreaterThanOrEqual(2);
      expect(said).toHaveBeenCalledTimes(1);
      expect(String(said.mock.calls[0][0])).toMatch(/without content-length: HTTP\/1\.1 200 OK/);
    } finally {
      said.mockRestore();
    }
  });

  it('fails to open when nothing listens', async () => {
    const port = (fixture.server.address() as AddressInfo).port;
    await new Promise((done) => fixture.server.close(done));
    await expect(HeldConnections.open(`http://127.0.0.1:${port}/load`, SPEC, 2)).rejects.toThrow(/ECONNREFUSED/);
    fixture.server = createServer();
    await new Promise<void>((done) => fixture.server.listen(0, '127.0.0.1', done));
  });
});
