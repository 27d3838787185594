import { Inject, Injectable } from '@nestjs/common';
import { MCP_HTTP_SETTINGS } from '../../shared/mcp.constants';
import type { HttpSettings } from './http-settings';
import { McpEngine } from '../../protocol/engine';
import { headerValue } from '../../protocol/messages/request-headers';
import { DEFAULT_LEGACY_HEADER_REVISION } from '../../protocol/messages/revisions';
import {
  InboundDispatcher,
  SESSIONLESS,
  type InboundBinding,
  type InboundResult,
  type OpenedChannel,
} from '../../protocol/inbound';
import { isThenable, type Awaitable } from '../../protocol/messages/thenables';
import { abandonment, type HttpExchange } from './http-exchange';
import { acceptsPost } from './content-negotiation';
import { readJsonBody, type BodyOutcome } from './request-body';
import { HttpDrain } from './http-drain';
import { HttpRefusals } from './http-refusals.service';
import { principalOf } from './mcp-http.guard';
import { writeReply, type AnswerStatus } from './http-reply';
import { simpleReply } from './simple-http.status-table';

/** Nothing rides along with a simple answer: progress and log messages have no stream and are dropped. */
const NO_STREAM: OpenedChannel = Object.freeze({ channel: { notify: () => undefined } });

/**
 * The simple HTTP endpoint: one JSON-RPC message (or a batch) POSTed, one JSON answer, for both
 * eras. No sessions and no streams: legacy requests run without a session (no
 * `resources/subscribe`, no questions to the client), modern ones as on Streamable HTTP
 * (multi round-trip requests included). A call is bounded by `http.simpleCallTimeoutMs`, and a
 * client that goes away cancels it, as nobody is left to read its answer.
 */
@Injectable()
export class SimpleHttpService {
  private readonly dispatcher: InboundDispatcher;
  /** The HTTP status of an answer, made once rather than once per request. */
  private readonly statusOf: AnswerStatus = (response, era) => this.refusals.statusOf(response, era);

  constructor(
    @Inject(MCP_HTTP_SETTINGS) private readonly http: HttpSettings,
    private readonly refusals: HttpRefusals,
    private readonly drain: HttpDrain,
    engine: McpEngine,
  ) {
    this.dispatcher = new InboundDispatcher(engine);
  }

  /**
   * POST: one JSON-RPC message (or a batch), one JSON answer. `McpHttpGuard` has admitted it.
   * Answered synchronously when nothing on the way waits, as Streamable HTTP's POST is.
   */
  post(exchange: HttpExchange): Awaitable<void> {
    if (!acceptsPost(exchange, 'json')) {
      return;
    }
    const { maxBodyBytes, maxJsonDepth } = this.http;
    const read = readJsonBody(exchange.request, exchange.req, maxBodyBytes, maxJsonDepth);
    return read instanceof Promise ? this.serveBodyLater(exchange, read) : this.serveBody(exchange, read);
  }

  /** `serveBody` once the body is read (a continuation of its own: see `Awaitable`). */
  private serveBodyLater(exchange: HttpExchange, read: Promise<BodyOutcome>): Promise<void> {
    return read.then((body) => this.serveBody(exchange, body));
  }

  private serveBody(exchange: HttpExchange, body: BodyOutcome): Awaitable<void> {
    if (!body.ok) {
      this.refusals.refuseBody(exchange, body);
      return;
    }
    const result = this.dispatcher.dispatch(body.value, this.binding(exchange));
    return isThenable<InboundResult>(result) ? this.answerLater(exchange, result) : this.answer(exchange, result);
  }

  /** `answer` once the dispatch settles (a continuation of its own: see `Awaitable`). */
  private answerLater(exchange: HttpExchange, pending: PromiseLike<InboundResult>): Promise<void> {
    return Promise.resolve(pending).then((settled) => this.answer(exchange, settled));
  }

  private answer(exchange: HttpExchange, result: InboundResult): void {
    writeReply(exchange.res, simpleReply(result, this.statusOf));
  }

  /**
   * What this transport knows about one POST. Without a session, a legacy message's revision is
   * the one its `MCP-Protocol-Version` header names; a batch's is 2025-03-26 when there is none.
   */
  private binding(exchange: HttpExchange): InboundBinding {
    return {
      transport: 'simple-http',
      principal: principalOf(exchange.request),
      headers: exchange.headers,
      versionHeader: headerValue(exchange.headers, 'mcp-protocol-version'),
      batchRevision: DEFAULT_LEGACY_HEADER_REVISION,
      cancellation: abandonment(exchange.res),
      timeoutMs: this.http.simpleCallTimeoutMs,
      native: exchange,
      sessions: SESSIONLESS,
      admits: (messages) => !this.drain.refusesWork(exchange, messages),
      channel: () => NO_STREAM,
    };
  }
}
