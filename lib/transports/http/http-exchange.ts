/**
 * The raw Node request and response behind whatever the HTTP platform hands a controller
 * (Express objects are the raw ones; Fastify wraps them), and the few ways MCP answers on them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '../../protocol/messages/json-rpc';
import type { McpHeaderBag } from '../../protocol/messages/request-headers';
import type { CancellationSource } from '../../protocol/calls/call-scope';
import { copyOf } from '../../protocol/messages/object-copies';
import { fastifyReplyHeaders } from './platform-fastify';

export interface HttpExchange {
  /** The platform's request object (what guards and `REQUEST` see). */
  readonly request: unknown;
  /** The platform's response object. */
  readonly response: unknown;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly headers: McpHeaderBag;
}

/** The extra headers of answers that have none (never written to). */
export const NO_HEADERS: Record<string, string> = Object.freeze({});

/** The first value of a header (Node gives repeated headers as an array). */
export function firstHeader(headers: McpHeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Wraps the platform's request and response. Express hands the raw Node objects over; Fastify
 * wraps them, and its reply is taken over so that it does not send a reply of its own after ours.
 */
export function toExchange(request: unknown, response: unknown, wrapped: boolean): HttpExchange {
  if (!wrapped) {
    const req = request as IncomingMessage;
    return { request, response, req, res: response as ServerResponse, headers: req.headers };
  }
  const platformReq = request as { raw?: IncomingMessage };
  const platformRes = response as {
    raw?: ServerResponse;
    hijack?: () => void;
    getHeaders?: () => Record<string, unknown>;
  };
  const req = platformReq.raw ?? (request as IncomingMessage);
  const res = platformRes.raw ?? (response as ServerResponse);
  platformRes.hijack?.();
  if (res !== response && typeof platformRes.getHeaders === 'function') {
    keepPlatformHeaders(res, platformRes as PlatformReply);
  }
  return { request, response, req, res, headers: req.headers };
}

/** A platform reply that keeps headers of its own (Fastify's). */
interface PlatformReply {
  getHeaders(): Record<string, unknown>;
}

/** Where a hijacked Node response keeps its platform reply and the `writeHead` it had before. */
const PLATFORM_REPLY = Symbol('nest-mcp:platform-reply');
const OWN_WRITE_HEAD = Symbol('nest-mcp:own-write-head');

interface PlatformBackedResponse extends ServerResponse {
  [PLATFORM_REPLY]: PlatformReply;
  [OWN_WRITE_HEAD]: ServerResponse['writeHead'];
}

/**
 * The answer is written on the Node response under a hijacked platform reply (Fastify): headers
 * set on the reply (by a guard such as ThrottlerGuard, a hook, a CORS plugin) are added when the
 * head is written, unless the answer sets its own. One shared function for every response,
 * rather than a bound copy and a closure per request.
 */
function keepPlatformHeaders(res: ServerResponse, reply: PlatformReply): void {
  const backed = res as PlatformBackedResponse;
  backed[PLATFORM_REPLY] = reply;
  if (res.writeHead === writeHeadWithPlatformHeaders) {
    // Taken over once already (a refusal answered after the exchange was made): wrapping our
    // own function again would make it call itself.
    return;
  }
  // The response's own method, called back with the response as `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  backed[OWN_WRITE_HEAD] = res.writeHead;
  res.writeHead = writeHeadWithPlatformHeaders;
}

// Node's `writeHead(status, [reason], [headers])`, passed on as it came (no rest array per call).
function writeHeadWithPlatformHeaders(
  this: PlatformBackedResponse,
  status: number,
  second?: unknown,
  third?: unknown,
): ServerResponse {
  const headers = fastifyReplyHeaders(this[PLATFORM_REPLY]);
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !this.hasHeader(name)) {
      this.setHeader(name, value as string);
    }
  }
  return (this[OWN_WRITE_HEAD] as (status: number, second?: unknown, third?: unknown) => ServerResponse).call(
    this,
    status,
    second,
    third,
  );
}

/**
 * The response guards and interceptors see for a message whose HTTP answer is already sent (the
 * SSE pair answers a POST 202 at once; its result goes on the stream): headers set on it have
 * nowhere to go and are dropped.
 */
export const DETACHED_RESPONSE: Readonly<Record<string, unknown>> = (() => {
  const detached: Record<string, unknown> = { headersSent: true };
  const self = () => detached;
  Object.assign(detached, {
    header: self,
    set: self,
    status: self,
    code: self,
    setHeader: self,
    getHeader: () => undefined,
    getHeaders: () => ({}),
    hasHeader: () => false,
    removeHeader: self,
  });
  return Object.freeze(detached);
})();

/** Whether the client closed the response before it was complete (it went away). */
export function isAbandoned(res: ServerResponse): boolean {
  return res.destroyed && !res.writableFinished;
}

/**
 * Calls `listener` once if the client closes the response before it is complete; returns a
 * function that stops listening.
 */
export function onAbandoned(res: ServerResponse, listener: (reason: unknown) => void): () => void {
  const onClose = (): void => {
    if (!res.writableFinished) {
      listener(new Error('Client disconnected'));
    }
  };
  if (res.destroyed) {
    onClose();
    return () => undefined;
  }
  res.once('close', onClose);
  return () => res.off('close', onClose);
}

/** The cancellation of a request whose answer is the response itself: the client going away. */
export function abandonment(res: ServerResponse): CancellationSource {
  return { isCancelled: () => isAbandoned(res), onCancel: (listener) => onAbandoned(res, listener) };
}

/** Sends a JSON body. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = NO_HEADERS,
): void {
  if (res.headersSent || res.writableEnded || res.destroyed) {
    return;
  }
  const payload = JSON.stringify(body);
  // Most answers have no extra headers: their head is built as a literal, not copied.
  const head: Record<string, string | number> = headers === NO_HEADERS ? {} : copyOf(headers);
  head['content-type'] = 'application/json';
  head['content-length'] = Buffer.byteLength(payload);
  res.writeHead(status, head);
  res.end(payload);
}

/** Sends a status without a body. */
export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.writableEnded || res.destroyed) {
    return;
  }
  res.writeHead(status, headers);
  res.end();
}

/** The bound on what an SSE stream's client leaves unread (`http.maxUnreadBytes`), and who hears of it. */
export interface UnreadBound {
  /** The bytes a stream may hold unread (written, not yet taken by its socket) when more is written. */
  readonly maxUnreadBytes: number;
  /** The stream on `res` is let go: its client left more than `maxUnreadBytes` unread. */
  exceeded(res: ServerResponse): void;
}

/**
 * An open SSE response. Messages are `data:` events; held streams also carry keep-alive
 * comments so that proxies and clients do not time them out.
 *
 * Every write goes through one check: Node keeps whatever the socket does not take, so a client
 * that does not read would make the server hold all the stream is sent. When the server has
 * more to write and more than the bound is still unread, the stream is let go instead: its
 * connection is reset, which releases what it held, and its close is what every owner of a
 * stream already handles as the client going away. Checked before a write rather than after,
 * so that one message larger than the bound still reaches a client that keeps up.
 */
export class SseStream {
  private keepAlive: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly closeListeners = new Set<() => void>();

  constructor(
    private readonly res: ServerResponse,
    headers: Record<string, string>,
    private readonly bound: UnreadBound,
  ) {
    const head = copyOf(headers);
    head['content-type'] = 'text/event-stream';
    head['cache-control'] = 'no-cache, no-transform';
    head['x-accel-buffering'] = 'no';
    res.writeHead(200, head);
    res.socket?.setNoDelay(true);
    res.flushHeaders();
    res.on('close', () => this.markClosed());
  }

  /** Whether the stream can still be written. */
  get open(): boolean {
    return !this.closed && !this.res.writableEnded && !this.res.destroyed;
  }

  /**
   * Writes one message (or the answers of a batch) as an SSE event, with an optional event id;
   * `data` is the message as JSON when the caller has it already. Returns false when the
   * connection is closed or its buffer is full (see {@link drained}).
   */
  send(message: JSONRPCMessage | readonly JSONRPCMessage[], id?: string, data?: string): boolean {
    if (!this.open) {
      return false;
    }
    return this.write(`${id === undefined ? '' : `id: ${id}\n`}data: ${data ?? JSON.stringify(message)}\n\n`);
  }

  /**
   * Resolves true once the connection takes more writes (at once when its buffer is not full),
   * false once it is closed: a writer that waits for it holds no more than a socket buffer.
   */
  drained(): Promise<boolean> {
    if (!this.open) {
      return Promise.resolve(false);
    }
    if (!this.res.writableNeedDrain) {
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const settle = (drained: boolean): void => {
        this.res.off('drain', onDrain);
        this.closeListeners.delete(onClose);
        resolve(drained);
      };
      const onDrain = (): void => settle(true);
      const onClose = (): void => settle(false);
      this.res.on('drain', onDrain);
      this.closeListeners.add(onClose);
    });
  }

  /** Writes a named event with plain-text data (the `endpoint` event of the 2024-11-05 SSE pair). */
  event(name: string, data: string): boolean {
    return this.open && this.write(`event: ${name}\ndata: ${data}\n\n`);
  }

  /**
   * Writes a priming event (SEP-1699): an id with empty data, so that the client holds a
   * `Last-Event-ID` before any message; with the reconnection delay when `retryMs` is above 0.
   */
  prime(id: string, retryMs: number): boolean {
    if (!this.open) {
      return false;
    }
    return this.write(`id: ${id}\n${retryMs > 0 ? `retry: ${retryMs}\n` : ''}data: \n\n`);
  }

  /** Sets the client's reconnection delay: a `retry` field alone, which dispatches no event. */
  retry(ms: number): boolean {
    return this.open && this.write(`retry: ${ms}\n\n`);
  }

  /** Sends a comment every `intervalMs` until the stream ends. */
  keepAliveEvery(intervalMs: number, onTick?: () => void): void {
    this.keepAlive = setInterval(() => {
      if (this.open) {
        // A stream left past the bound is let go here at the latest, however quiet it is.
        this.write(': keep-alive\n\n');
        if (this.open) {
          onTick?.();
        }
      }
    }, intervalMs);
    this.keepAlive.unref();
  }

  /** Calls `listener` once when the stream ends, whoever ends it. */
  onClose(listener: () => void): void {
    if (this.closed) {
      listener();
    } else {
      this.closeListeners.add(listener);
    }
  }

  /** Ends the stream. */
  end(): void {
    if (!this.res.writableEnded) {
      this.res.end();
    }
    this.markClosed();
  }

  /** Writes `chunk`, or lets the stream go when its client left more than the bound unread. */
  private write(chunk: string): boolean {
    const res = this.res;
    if (res.writableLength > this.bound.maxUnreadBytes) {
      this.letGo();
      return false;
    }
    return res.write(chunk);
  }

  /**
   * Resets the connection: the kernel drops what it holds for the client too, rather than
   * keeping it for a client that does not read. Its close comes as the client's going away does.
   */
  private letGo(): void {
    const { res } = this;
    this.bound.exceeded(res);
    const socket = res.socket;
    if (socket !== null && !socket.destroyed) {
      try {
        socket.resetAndDestroy();
      } catch {
        // Not a TCP socket (TLS, a pipe): destroyed below, without the reset.
      }
    }
    res.destroy();
  }

  private markClosed(): void {
    if (this.closed) {
      return;
    }
    this.closed = true;
    clearInterval(this.keepAlive);
    for (const listener of this.closeListeners) {
      listener();
    }
    this.closeListeners.clear();
  }
}
