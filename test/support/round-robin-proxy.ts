/**
 * A loopback round-robin HTTP proxy: the plainest load balancer there is (no stickiness, no
 * health checks), to put several instances of a server behind one URL in e2e tests and in the
 * bench. Every request goes to the next target in turn; bodies stream both ways, so SSE
 * responses reach the client event by event.
 */
import {
  Agent,
  createServer,
  request,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';

/** A running proxy. */
export interface RoundRobinProxy {
  /** The loopback port it listens on. */
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** How many requests were sent to each target, in the order the targets were given. */
  readonly hits: number[];
  /** Every request answered, in the order the answers began: which target answered, and how. */
  readonly routes: ProxyRoute[];
  /** Stops listening and destroys every open connection, both sides (open SSE streams included). */
  close(): Promise<void>;
}

/** One request the proxy answered. */
export interface ProxyRoute {
  readonly method: string;
  readonly url: string;
  /** The index of the target whose answer the client got; -1 when none answered (502). */
  readonly target: number;
  readonly status: number;
}

export interface RoundRobinProxyOptions {
  /**
   * Behave like a balancer that takes an instance out of rotation while it is unavailable: a
   * request that a target refuses (connection refused or reset before any answer, or HTTP 503)
   * goes to the next target instead, at most once per target. The last refusal is what the
   * client gets when every target refused. Request bodies are then read whole before they are
   * forwarded, so that they can be sent again. A retry goes to a target this request has not
   * tried yet, and a target that refused a connection is left out of the rotation for
   * `downForMs` (a passive health check): a killed instance costs one failed attempt, not one per
   * request. @default false
   */
  readonly failover?: boolean;
  /** With `failover`: how long a target that refused a connection is passed over, in ms. @default 2000 */
  readonly downForMs?: number;
}

/** Where a request is forwarded: a host and port, or a base URL (`http://host:port[/prefix]`). */
export type ProxyTarget = { host: string; port: number } | string;

interface Upstream {
  host: string;
  port: number;
  /** Prepended to the request's path (a base URL's path, without its trailing slash). */
  prefix: string;
}

/**
 * Headers that describe one connection, not the message: the proxy has two connections of its
 * own, and Node frames each message itself (chunked or not).
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function upstreamOf(target: ProxyTarget): Upstream {
  if (typeof target !== 'string') {
    return { host: target.host, port: target.port, prefix: '' };
  }
  const url = new URL(target);
  if (url.protocol !== 'http:') {
    throw new Error(`round-robin proxy: only http:// targets are supported, got ${target}`);
  }
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port || 80),
    prefix: url.pathname.replace(/\/+$/, ''),
  };
}

function endToEnd(headers: IncomingMessage['headers']): OutgoingHttpHeaders {
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) {
      kept[name] = value;
    }
  }
  return kept;
}

function badGateway(res: ServerResponse, target: Upstream, error: NodeJS.ErrnoException): void {
  const body = JSON.stringify({
    error: 'bad gateway',
    target: `${target.host}:${target.port}`,
    code: error.code ?? 'EPROXY',
    message: error.message,
  });
  res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** How a proxy is started. */
export interface RoundRobinProxyOptions {
  /** The loopback port to listen on. @default 0 (a free one, chosen by the kernel) */
  port?: number;
}

/**
 * Starts a proxy on 127.0.0.1 (a random port unless `options.port` is given) in front of
 * `targets`. A target that cannot be reached is answered with 502 and a small JSON body; an
 * upstream that drops its connection mid-response drops the client's, and a client that goes
 * away cancels the upstream request.
 */
export async function startRoundRobinProxy(
  targets: ProxyTarget[],
  options: RoundRobinProxyOptions = {},
): Promise<RoundRobinProxy> {
  if (targets.length === 0) {
    throw new Error('round-robin proxy: at least one target is needed');
  }
  const upstreams = targets.map(upstreamOf);
  const hits = upstreams.map(() => 0);
  const routes: ProxyRoute[] = [];
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  const inFlight = new Set<ReturnType<typeof request>>();
  /** Until when each target is passed over (failover: it refused a connection), in ms since the epoch. */
  const downUntil = upstreams.map(() => 0);
  const downForMs = options.downForMs ?? 2000;
  let next = 0;

  /**
   * The target for a request that `tried` some already: the next one in turn that it has not
   * tried, a target that is up before one that refused lately; `undefined` when it tried them all.
   */
  const pick = (tried: ReadonlySet<number>): number | undefined => {
    const now = Date.now();
    let fallback: number | undefined;
    for (let step = 0; step < upstreams.length; step++) {
      const index = (next + step) % upstreams.length;
      if (tried.has(index)) {
        continue;
      }
      if (downUntil[index] <= now) {
        next = (index + 1) % upstreams.length;
        return index;
      }
      fallback ??= index;
    }
    if (fallback !== undefined) {
      next = (fallback + 1) % upstreams.length;
    }
    return fallback;
  };

  /**
   * Sends the request to the next target; `body` is the whole request body with failover
   * (`undefined`: the body streams from `req`), and `tried` the targets this request was sent to.
   */
  const attempt = (
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer | undefined,
    tried: Set<number>,
    index: number,
  ): void => {
    tried.add(index);
    hits[index]++;
    const target = upstreams[index];
    const headers = endToEnd(req.headers);
    headers.host = `${target.host}:${target.port}`;
    const route = (answered: number, status: number): void => {
      routes.push({ method: req.method ?? 'GET', url: req.url ?? '/', target: answered, status });
    };
    // Only before the client got anything, and once per attempt.
    let retried = false;
    const retry = (): boolean => {
      if (retried || body === undefined || res.headersSent || res.destroyed) {
        return false;
      }
      const other = pick(tried);
      if (other === undefined) {
        return false;
      }
      retried = true;
      attempt(req, res, body, tried, other);
      return true;
    };

    const upstreamReq = request({
      host: target.host,
      port: target.port,
      method: req.method,
      path: `${target.prefix}${req.url ?? '/'}`,
      headers,
      agent,
    });
    inFlight.add(upstreamReq);
    upstreamReq.once('close', () => inFlight.delete(upstreamReq));

    upstreamReq.once('response', (upstreamRes) => {
      if (upstreamRes.statusCode === 503 && retry()) {
        upstreamRes.resume();
        return;
      }
      route(index, upstreamRes.statusCode ?? 502);
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, endToEnd(upstreamRes.headers));
      // SSE: the client must see the headers (and then each event) now, not when a buffer fills.
      res.flushHeaders();
      upstreamRes.pipe(res);
      upstreamRes.once('error', () => res.destroy());
      // The upstream dropped its connection before the end of the body: so does the proxy, the
      // client must not take a truncated body for a complete one.
      upstreamRes.once('close', () => {
        if (!upstreamRes.complete) {
          res.destroy();
        }
      });
    });
    upstreamReq.once('error', (error: NodeJS.ErrnoException) => {
      // Refused, or reset before it answered (a keep-alive connection the target closed).
      if (body !== undefined && error.code === 'ECONNREFUSED') {
        downUntil[index] = Date.now() + downForMs;
      }
      if (retried || retry()) {
        return;
      }
      if (!res.headersSent && !res.destroyed) {
        route(-1, 502);
        badGateway(res, target, error);
      } else {
        res.destroy();
      }
    });
    // The client went away (aborted request, closed SSE stream): the upstream must know it too.
    res.once('close', () => {
      if (!res.writableFinished) {
        upstreamReq.destroy();
      }
    });
    if (body === undefined) {
      req.pipe(upstreamReq);
    } else {
      upstreamReq.end(body);
    }
  };

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    if (options.failover !== true) {
      const index = next;
      next = (next + 1) % upstreams.length;
      attempt(req, res, undefined, new Set(), index);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      const tried = new Set<number>();
      attempt(req, res, Buffer.concat(chunks), tried, pick(tried)!);
    });
  };

  const server = createServer(forward);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;

  let closed: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    hits,
    routes,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) {
          socket.destroy();
        }
        for (const upstreamReq of inFlight) {
          upstreamReq.destroy();
        }
        agent.destroy();
      });
      return closed;
    },
  };
}
