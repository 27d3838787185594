import { Injectable } from '@nestjs/common';
import {
  McpErrorCode,
  failure,
  type ClassifiedMessage,
  type JSONRPCErrorResponse,
  type RequestId,
} from '../../protocol/messages/json-rpc';
import { SHUTTING_DOWN } from '../../shared/mcp.messages';
import { sendJson, type HttpExchange } from './http-exchange';
import { isThenable, type Awaitable } from '../../protocol/messages/thenables';

/** How long a refused client should wait before it retries (here or, behind a balancer, elsewhere). */
const RETRY_AFTER_S = '1';

/**
 * The HTTP side of a shutdown. While the server drains, the MCP endpoints take no new work: a
 * GET (a session's stream, a resume, an SSE pair) and a POSTed JSON-RPC request are answered
 * 503 with `Retry-After` and a JSON-RPC error, so that the client, or its balancer, goes to
 * another instance. A POST that carries only answers to this server's questions (elicitation,
 * sampling, roots) or notifications (cancellations) is still served: the calls in flight may be
 * waiting for it. So are a session's DELETE and CORS preflights, which start nothing.
 *
 * Every answer given while draining asks for `Connection: close`: keep-alive clients open their
 * next connection elsewhere, and the HTTP server has fewer idle connections to close.
 */
@Injectable()
export class HttpDrain {
  private active = false;
  /** MCP HTTP requests whose handler has not returned (a held stream's returns once the stream is open). */
  private serving = 0;
  private quietWaiters: Array<() => void> = [];

  /** Starts draining; there is no way back (the application is closing). */
  begin(): void {
    this.active = true;
  }

  /** Whether the server is draining. */
  get draining(): boolean {
    return this.active;
  }

  /**
   * What every MCP HTTP request passes first, without being counted. While draining, its answer
   * closes the connection and a GET is not served (the caller refuses it with `refusal()`, after
   * the Host/Origin check every refusal passes first). Returns whether the request goes on.
   */
  passes(exchange: Pick<HttpExchange, 'req' | 'res'>): boolean {
    if (!this.active) {
      return true;
    }
    if (exchange.req.httpVersionMajor < 2) {
      // HTTP/2 has no such header (and refuses it): its streams are not kept-alive connections.
      exchange.res.setHeader('connection', 'close');
    }
    return exchange.req.method !== 'GET';
  }

  /**
   * Serves a request that passed: `serve(exchange)`, counted as being served until it returns,
   * or until the promise it returns settles. The exchange is passed along rather than captured,
   * so that a caller needs no closure of its own per request.
   */
  track<A, T>(serve: (exchange: A) => Awaitable<T>, exchange: A): Awaitable<T> {
    this.serving += 1;
    let served: Awaitable<T>;
    try {
      served = serve(exchange);
    } catch (error) {
      this.done();
      throw error;
    }
    if (!isThenable(served)) {
      this.done();
      return served;
    }
    // Counted off beside the caller's own wait, rather than through one more async frame that
    // every request would pay for; the caller still sees `served` settle (or reject) as it does.
    served.then(this.onServed, this.onServed);
    return served;
  }

  private readonly onServed = (): void => this.done();

  /** The answer to a request the drain does not serve: 503, `Retry-After` and a JSON-RPC error. */
  refusal(id: RequestId | null = null): { status: 503; body: JSONRPCErrorResponse; headers: Record<string, string> } {
    return {
      status: 503,
      body: failure(id, McpErrorCode.InternalError, SHUTTING_DOWN),
      headers: { 'retry-after': RETRY_AFTER_S },
    };
  }

  /** Answers a request the drain does not serve: 503 with `Retry-After`. */
  refuse(exchange: Pick<HttpExchange, 'res'>, id: RequestId | null = null): void {
    const { status, body, headers } = this.refusal(id);
    sendJson(exchange.res, status, body, headers);
  }

  /** The handler of a tracked request returned. */
  private done(): void {
    this.serving -= 1;
    if (this.serving === 0 && this.quietWaiters.length > 0) {
      const waiters = this.quietWaiters;
      this.quietWaiters = [];
      waiters.forEach((wake) => wake());
    }
  }

  /**
   * Resolves once no tracked request is being served: those that began before the drain have
   * opened what they were opening (a stream, a pair), or answered.
   */
  whenQuiet(): Promise<void> {
    if (this.serving === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.quietWaiters.push(resolve));
  }

  /**
   * A POSTed message, or the items of a batch, about to be served: refused with 503 while
   * draining when it holds a request. Returns whether it was refused (and answered).
   */
  refusesWork(exchange: HttpExchange, messages: ClassifiedMessage | readonly ClassifiedMessage[]): boolean {
    if (!this.active) {
      return false;
    }
    const single = !Array.isArray(messages);
    const items: readonly ClassifiedMessage[] = single ? [messages as ClassifiedMessage] : messages;
    const request = items.find((item): item is ClassifiedMessage & { kind: 'request' } => item.kind === 'request');
    if (request === undefined) {
      return false;
    }
    // A single request's refusal carries its id, as any answer to it would; a batch's cannot.
    this.refuse(exchange, single ? request.message.id : null);
    return true;
  }
}
