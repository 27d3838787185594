import { Inject, Injectable } from '@nestjs/common';
import { MCP_HTTP_SETTINGS } from '../../shared/mcp.constants';
import type { HttpSettings } from './http-settings';
import { McpErrorCode, failure, type RequestId } from '../../protocol/messages/json-rpc';
import { quotaKeyOf, type McpPrincipal } from '../../protocol/bounds/principal';
import { tooMany } from '../../protocol/bounds/refusal-log';
import { sendJson, type HttpExchange } from './http-exchange';
import { HttpRefusals } from './http-refusals.service';

/** How long a refused client is asked to wait: a held stream frees its place only when it ends. */
const RETRY_AFTER = { 'retry-after': '5' };

/**
 * The streams the HTTP transports hold open for their callers, which each keep a connection
 * (a file descriptor) for as long as the client wants: modern `subscriptions/listen` streams,
 * legacy `GET` streams (and their resumptions) and 2024-11-05 SSE pairs. They are counted
 * together, per caller (`quotaKeyOf`: an anonymous caller by its address) and for the whole
 * instance, so that one client cannot take the descriptors every other client needs.
 *
 * A stream is admitted before anything is opened for it (a session, a subscription, a stream),
 * and counts until its response closes, whoever ends it (the client, the server, the session's
 * end, a shutdown): the close of the response is the one event every way of ending shares.
 * Counts are this instance's own: with several instances, each holds its bounds.
 */
@Injectable()
export class HeldStreams {
  private readonly perCaller: number;
  private readonly max: number;
  private total = 0;
  /** Streams held per caller; a caller holding none has no entry. */
  private readonly byCaller = new Map<string, number>();

  constructor(
    @Inject(MCP_HTTP_SETTINGS) http: HttpSettings,
    private readonly refusals: HttpRefusals,
  ) {
    this.perCaller = http.maxStreamsPerPrincipal;
    this.max = http.maxStreams;
  }

  /** How many streams are held on this instance. */
  get size(): number {
    return this.total;
  }

  /** How many streams `principal` holds on this instance. */
  heldBy(principal: McpPrincipal): number {
    return this.byCaller.get(quotaKeyOf(principal)) ?? 0;
  }

  /**
   * Admits a stream about to be held on the response of `exchange` for `principal`, counted
   * until that response closes. Past a bound the request is answered, before anything is opened:
   * 429 (the caller's bound) or 503 (the instance's), with `Retry-After` and a JSON-RPC error
   * carrying `id`. Returns whether the stream may go on.
   */
  admit(exchange: HttpExchange, principal: McpPrincipal, id: RequestId | null = null): boolean {
    const { res } = exchange;
    if (res.destroyed) {
      // The client left already: nothing will be held, and the close that would count it off is past.
      return true;
    }
    const key = quotaKeyOf(principal);
    const held = this.byCaller.get(key) ?? 0;
    if (held >= this.perCaller) {
      const message = tooMany('open streams for this caller', this.perCaller, 'http.maxStreamsPerPrincipal');
      this.refuse(exchange, id, 429, message, `caller ${key}`);
      return false;
    }
    if (this.total >= this.max) {
      this.refuse(exchange, id, 503, tooMany('open streams on this server', this.max, 'http.maxStreams'), 'the server');
      return false;
    }
    this.byCaller.set(key, held + 1);
    this.total += 1;
    res.once('close', () => this.release(key));
    return true;
  }

  private release(key: string): void {
    this.total -= 1;
    const held = (this.byCaller.get(key) ?? 1) - 1;
    if (held === 0) {
      this.byCaller.delete(key);
    } else {
      this.byCaller.set(key, held);
    }
  }

  private refuse(
    exchange: HttpExchange,
    id: RequestId | null,
    status: 429 | 503,
    message: string,
    whose: string,
  ): void {
    this.refusals.boundReached(exchange.req, status === 429 ? 'streams-per-caller' : 'streams', status, message, whose);
    sendJson(exchange.res, status, failure(id, McpErrorCode.InternalError, message), RETRY_AFTER);
  }
}
