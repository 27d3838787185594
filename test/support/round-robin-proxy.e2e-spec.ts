/**
 * The round-robin proxy of the multi-instance e2e tests and the bench, against tiny node:http
 * upstreams: alternation, what is forwarded, streaming, cancellation both ways, 502, close().
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type RoundRobinProxy, startRoundRobinProxy } from './round-robin-proxy';

interface Upstream {
  readonly server: Server;
  readonly port: number;
  close(): Promise<void>;
}

async function startUpstream(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Upstream> {
  const server = createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        sockets.forEach((socket) => socket.destroy());
      }),
  };
}

/** Resolves with `promise`, or fails once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads an SSE body chunk by chunk, one complete event (`\n\n`-terminated) at a time. */
class EventReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** The next event's text, or undefined when the stream ended. */
  async next(): Promise<string | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const event = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        return event;
      }
      const { done, value } = await this.reader.read();
      if (done) {
        return undefined;
      }
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }
}

/** A promise and the function that resolves it. */
function signal<T = void>(): { promise: Promise<T>; fire: (value: T) => void } {
  let fire!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (fire = resolve));
  return { promise, fire };
}

describe('startRoundRobinProxy', () => {
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    while (cleanups.length > 0) {
      await cleanups.pop()!();
    }
  });

  async function upstream(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Upstream> {
    const started = await startUpstream(handler);
    cleanups.push(() => started.close());
    return started;
  }

  async function proxy(...args: Parameters<typeof startRoundRobinProxy>): Promise<RoundRobinProxy> {
    const started = await startRoundRobinProxy(...args);
    cleanups.push(() => started.close());
    return started;
  }

  function named(name: string): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(name);
    };
  }

  it('sends each request to the next target in turn and counts the hits', async () => {
    const a = await upstream(named('a'));
    const b = await upstream(named('b'));
    const rr = await proxy([
      { host: '127.0.0.1', port: a.port },
      { host: '127.0.0.1', port: b.port },
    ]);
    expect(rr.url).toBe(`http://127.0.0.1:${rr.port}`);

    const answers: string[] = [];
    for (let i = 0; i < 5; i++) {
      answers.push(await (await fetch(`${rr.url}/x`)).text());
    }

    expect(answers).toEqual(['a', 'b', 'a', 'b', 'a']);
    expect(rr.hits).toEqual([3, 2]);
  });

  it('takes base URLs and prepends their path', async () => {
    const seen: string[] = [];
    const a = await upstream((req, res) => {
      seen.push(req.url ?? '');
      res.end();
    });
    const rr = await proxy([`http://127.0.0.1:${a.port}/base/`]);

    await (await fetch(`${rr.url}/mcp?x=1`)).text();

    expect(seen).toEqual(['/base/mcp?x=1']);
  });

  it('listens on the port it is given', async () => {
    const a = await upstream(named('a'));
    // A port that was free a moment ago: the one a first proxy got from the kernel.
    const first = await startRoundRobinProxy([`http://127.0.0.1:${a.port}`]);
    const port = first.port;
    await first.close();

    const rr = await proxy([`http://127.0.0.1:${a.port}`], { port });

    expect(rr.port).toBe(port);
    expect(await (await fetch(`${rr.url}/x`)).text()).toBe('a');
  });

  it('forwards method, path and query, headers and body; and status, headers and body back', async () => {
    let received: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string } | undefined;
    const a = await upstream((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() };
        res.writeHead(201, 'Made', {
          'content-type': 'application/json',
          'mcp-session-id': 'session-from-upstream',
          'set-cookie': ['a=1', 'b=2'],
        });
        res.end(JSON.stringify({ echoed: received.body.length }));
      });
    });
    const rr = await proxy([{ host: '127.0.0.1', port: a.port }]);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { text: 'é'.repeat(5000) } });

    const response = await fetch(`${rr.url}/mcp/path?q=1&r=two`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'mcp-session-id': 'abc123',
        'last-event-id': 'stream:42',
        authorization: 'Bearer token-1',
        origin: 'http://localhost:3000',
        'x-custom': 'kept',
      },
      body,
    });

    expect(received).toBeDefined();
    expect(received!.method).toBe('POST');
    expect(received!.url).toBe('/mcp/path?q=1&r=two');
    expect(received!.body).toBe(body);
    expect(received!.headers).toMatchObject({
      host: `127.0.0.1:${a.port}`,
      'content-type': 'application/json',
      'mcp-session-id': 'abc123',
      'last-event-id': 'stream:42',
      authorization: 'Bearer token-1',
      origin: 'http://localhost:3000',
      'x-custom': 'kept',
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.headers.get('mcp-session-id')).toBe('session-from-upstream');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ echoed: body.length });
  });

  it('streams SSE events one by one, before the upstream ends the response', async () => {
    const upstreamGone = signal();
    let release = signal();
    const a = await upstream((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      res.on('close', () => upstreamGone.fire());
      void (async () => {
        for (let i = 1; i <= 3; i++) {
          // Each event is written only after the client saw the previous one through the proxy.
          await release.promise;
          release = signal();
          res.write(`id: ${i}\ndata: event ${i}\n\n`);
        }
        res.end();
      })();
    });
    const rr = await proxy([{ host: '127.0.0.1', port: a.port }]);

    const response = await within(fetch(`${rr.url}/sse`), 2000, 'headers before the first event');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = new EventReader(response.body!);
    for (let i = 1; i <= 3; i++) {
      release.fire();
      expect(await within(events.next(), 2000, `event ${i}`)).toBe(`id: ${i}\ndata: event ${i}`);
    }
    expect(await within(events.next(), 2000, 'end of stream')).toBeUndefined();
    await within(upstreamGone.promise, 2000, 'upstream response closed');
  });

  it('cancels the upstream request when the client aborts', async () => {
    const upstreamSawClose = signal();
    const a = await upstream((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: open\n\n');
      res.on('close', () => upstreamSawClose.fire());
    });
    const rr = await proxy([{ host: '127.0.0.1', port: a.port }]);
    const controller = new AbortController();

    const response = await fetch(`${rr.url}/sse`, { signal: controller.signal });
    expect(await within(new EventReader(response.body!).next(), 2000, 'first event')).toBe('data: open');
    controller.abort();

    await within(upstreamSawClose.promise, 2000, 'upstream close after the client aborted');
  });

  it('ends the client response when the upstream drops its connection mid-stream', async () => {
    const a = await upstream((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n', () => setTimeout(() => req.socket.destroy(), 20));
    });
    const rr = await proxy([{ host: '127.0.0.1', port: a.port }]);

    const response = await fetch(`${rr.url}/sse`);
    const events = new EventReader(response.body!);
    expect(await within(events.next(), 2000, 'first event')).toBe('data: first');

    // A truncated chunked body is an error for the client, not a clean end.
    await expect(within(events.next(), 2000, 'end after the upstream dropped')).rejects.toThrow(/terminated|aborted/i);
  });

  it('answers 502 with a JSON body when the target refuses the connection, and keeps rotating', async () => {
    const dead = await startUpstream(named('never'));
    await dead.close();
    const live = await upstream(named('live'));
    const rr = await proxy([
      { host: '127.0.0.1', port: dead.port },
      { host: '127.0.0.1', port: live.port },
    ]);

    const refused = await fetch(`${rr.url}/mcp`, { method: 'POST', body: '{}' });
    const served = await fetch(`${rr.url}/mcp`);

    expect(refused.status).toBe(502);
    expect(refused.headers.get('content-type')).toBe('application/json');
    expect(await refused.json()).toMatchObject({
      error: 'bad gateway',
      target: `127.0.0.1:${dead.port}`,
      code: 'ECONNREFUSED',
    });
    expect(served.status).toBe(200);
    expect(await served.text()).toBe('live');
    expect(rr.hits).toEqual([1, 1]);
  });

  it('with failover, sends a request a target refuses (503, connection refused) to the next, body included', async () => {
    const dead = await startUpstream(named('never'));
    await dead.close();
    const draining = await upstream((req, res) => {
      req.resume();
      res.writeHead(503, { 'retry-after': '1' });
      res.end('draining');
    });
    const bodies: string[] = [];
    const live = await upstream((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        bodies.push(body);
        res.end('live');
      });
    });
    const rr = await proxy(
      [
        { host: '127.0.0.1', port: draining.port },
        { host: '127.0.0.1', port: dead.port },
        { host: '127.0.0.1', port: live.port },
      ],
      { failover: true },
    );

    const first = await fetch(`${rr.url}/mcp`, { method: 'POST', body: '{"n":1}' });
    expect(first.status).toBe(200);
    expect(await first.text()).toBe('live');
    expect(bodies).toEqual(['{"n":1}']);
    expect(rr.hits).toEqual([1, 1, 1]);
    expect(rr.routes).toEqual([{ method: 'POST', url: '/mcp', target: 2, status: 200 }]);

    // Every target refusing: the client gets the last refusal.
    await live.close();
    const none = await fetch(`${rr.url}/mcp`, { method: 'POST', body: '{}' });
    expect(none.status).toBe(502);
    expect(rr.routes.at(-1)).toMatchObject({ target: -1, status: 502 });
  });

  /** A failover proxy in front of a killed instance (first) and a live one. */
  async function deadThenLive(): Promise<RoundRobinProxy> {
    const dead = await startUpstream(named('never'));
    await dead.close();
    const live = await upstream(named('live'));
    return proxy(
      [
        { host: '127.0.0.1', port: dead.port },
        { host: '127.0.0.1', port: live.port },
      ],
      { failover: true },
    );
  }

  it('with failover, retries on a target this request has not tried, whatever other requests do meanwhile', async () => {
    const rr = await deadThenLive();

    // Requests at once: each retry must go to the instance it has not tried yet, not to the next
    // one in the shared rotation (which concurrent requests move on, back to the dead one).
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, n) => fetch(`${rr.url}/mcp`, { method: 'POST', body: `{"n":${n}}` })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(rr.routes.every((route) => route.target === 1)).toBe(true);
  });

  it('with failover, leaves a target that refused connections out of the rotation for a while', async () => {
    const rr = await deadThenLive();

    for (let n = 0; n < 6; n++) {
      expect((await fetch(`${rr.url}/mcp`, { method: 'POST', body: '{}' })).status).toBe(200);
    }
    // Tried once, then passed over: a balancer's passive health check.
    expect(rr.hits).toEqual([1, 6]);
  });

  it('close() ends open streams instead of waiting for them', async () => {
    const upstreamSawClose = signal();
    const a = await upstream((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: open\n\n');
      res.on('close', () => upstreamSawClose.fire());
    });
    const rr = await startRoundRobinProxy([{ host: '127.0.0.1', port: a.port }]);
    const response = await fetch(`${rr.url}/sse`);
    const events = new EventReader(response.body!);
    expect(await within(events.next(), 2000, 'first event')).toBe('data: open');

    await within(rr.close(), 2000, 'close() with an open stream');

    await expect(within(events.next(), 2000, 'client stream after close()')).rejects.toThrow(/terminated/i);
    await within(upstreamSawClose.promise, 2000, 'upstream close after close()');
    await expect(fetch(`${rr.url}/x`)).rejects.toThrow();
  });

  it('refuses an empty target list', async () => {
    await expect(startRoundRobinProxy([])).rejects.toThrow(/at least one target/);
  });
});
