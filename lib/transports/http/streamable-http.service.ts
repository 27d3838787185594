import { Inject, Injectable } from '@nestjs/common';
import { MCP_HTTP_SETTINGS } from '../../shared/mcp.constants';
import type { HttpSettings } from './http-settings';
import { McpEngine } from '../../protocol/engine';
import { McpErrorCode, failure } from '../../protocol/messages/json-rpc';
import { headerValue } from '../../protocol/messages/request-headers';
import { DEFAULT_LEGACY_HEADER_REVISION, eraOf, isRevision, type McpRevision } from '../../protocol/messages/revisions';
import {
  InboundDispatcher,
  type ChannelTarget,
  type InboundBinding,
  type InboundResult,
  type LegacySessionPort,
  type OpenedChannel,
} from '../../protocol/inbound';
import type { McpPrincipal } from '../../protocol/calls/call-context';
import type { RequestChannel } from '../../protocol/engine';
import type { ClassifiedMessage } from '../../protocol/messages/json-rpc';
import type { McpHeaderBag } from '../../protocol/messages/request-headers';
import { isThenable, type Awaitable } from '../../protocol/messages/thenables';
import { LegacySessionResolver } from '../../sessions/legacy-session.resolver';
import type { McpSessionRecord } from '../../interfaces/session-store.interface';
import { SessionChannels } from '../../sessions/session-channels';
import { firstHeader, sendEmpty, sendJson, type HttpExchange } from './http-exchange';
import { readJsonBody, type BodyOutcome } from './request-body';
import { accepts, acceptsPost } from './content-negotiation';
import { HttpDrain } from './http-drain';
import { HttpRefusals } from './http-refusals.service';
import { principalOf } from './mcp-http.guard';
import { ResumableStream, ResumableStreams } from './resumable-streams.service';
import { answerOn, HttpRequestChannel, type RequestStreamSettings } from './http-request-channel';
import { refusalReply, writeReply, type AnswerStatus } from './http-reply';
import { SESSION_HEADER, sessionHeaders, streamableReply } from './streamable-http.status-table';
import { McpLogger } from '../../telemetry/mcp.logger';
import type { MethodTable } from '../../protocol/methods';
import { HeldStreams } from './held-streams.service';
import { SlowReaders } from './slow-readers.service';

/**
 * The Streamable HTTP transport (2025-03-26 and later) for both eras on one endpoint: the
 * framing, sessions and streams of HTTP. Every protocol decision is the engine's.
 */
@Injectable()
export class StreamableHttpService {
  private readonly dispatcher: InboundDispatcher;
  /** What the binding of every POST reaches. */
  private readonly parts: BindingParts;
  /** The HTTP status of an answer, made once rather than once per request. */
  private readonly statusOf: AnswerStatus = (response, era) => this.refusals.statusOf(response, era);

  constructor(
    @Inject(MCP_HTTP_SETTINGS) private readonly http: HttpSettings,
    private readonly refusals: HttpRefusals,
    drain: HttpDrain,
    engine: McpEngine,
    private readonly resolver: LegacySessionResolver,
    private readonly streams: ResumableStreams,
    channels: SessionChannels,
    private readonly held: HeldStreams,
    slowReaders: SlowReaders,
  ) {
    this.dispatcher = new InboundDispatcher(engine, new McpLogger('McpStreamableHttp'));
    this.parts = {
      requestStreams: { keepAliveMs: http.keepAliveMs, unread: slowReaders },
      drain,
      resolver,
      streams,
      channels,
      held,
      methods: engine.methods,
    };
  }

  /**
   * POST: one JSON-RPC message (or a batch), answered with JSON or an SSE stream. `McpHttpGuard`
   * has admitted it. Answered synchronously when nothing on the way waits (a body the platform
   * parsed, a modern call whose tool answers at once): no turn of the microtask queue for it.
   */
  post(exchange: HttpExchange): Awaitable<void> {
    if (!acceptsPost(exchange, 'json-and-sse')) {
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
    const result = this.dispatcher.dispatch(body.value, new StreamableHttpBinding(exchange, this.parts));
    return isThenable<InboundResult<HttpRequestChannel>>(result)
      ? this.answerLater(exchange, result)
      : this.answer(exchange, result);
  }

  /** `answer` once the dispatch settles (a continuation of its own: see `Awaitable`). */
  private answerLater(exchange: HttpExchange, pending: PromiseLike<InboundResult<HttpRequestChannel>>): Promise<void> {
    return Promise.resolve(pending).then((settled) => this.answer(exchange, settled));
  }

  private answer(exchange: HttpExchange, result: InboundResult<HttpRequestChannel>): void {
    const reply = streamableReply(result, this.statusOf);
    if (result.kind === 'answered') {
      answerOn(result.channel, reply, result.session === undefined);
    } else {
      writeReply(exchange.res, reply);
    }
  }

  /** GET: a legacy session's stream (or its resumption). `McpHttpGuard` has admitted it. */
  async get(exchange: HttpExchange): Promise<void> {
    const { headers, res } = exchange;
    const headerVersion = headerValue(headers, 'mcp-protocol-version');
    if (eraOf(headerVersion) === 'modern') {
      sendJson(res, 405, failure(null, McpErrorCode.InvalidRequest, 'Method Not Allowed'), { allow: 'POST' });
      return;
    }
    if (!accepts(firstHeader(headers, 'accept'), 'text/event-stream')) {
      sendJson(
        res,
        406,
        failure(null, McpErrorCode.InvalidRequest, 'Not Acceptable: Accept must include text/event-stream'),
      );
      return;
    }
    // Counted before the session is read: a refused stream costs no store round trip.
    if (!this.held.admit(exchange, principalOf(exchange.request))) {
      return;
    }
    const record = await this.sessionOf(exchange);
    if (record === undefined) {
      return;
    }
    const revision =
      isRevision(headerVersion) && eraOf(headerVersion) === 'legacy'
        ? headerVersion
        : (record.state.protocolVersion ?? DEFAULT_LEGACY_HEADER_REVISION);
    await this.streams.serveGet(
      res,
      { [SESSION_HEADER]: record.id },
      record.id,
      revision,
      firstHeader(headers, 'last-event-id'),
    );
  }

  /** DELETE: ends a legacy session. `McpHttpGuard` has admitted it. */
  async delete(exchange: HttpExchange): Promise<void> {
    if (eraOf(headerValue(exchange.headers, 'mcp-protocol-version')) === 'modern') {
      sendJson(exchange.res, 405, failure(null, McpErrorCode.InvalidRequest, 'Method Not Allowed'), { allow: 'POST' });
      return;
    }
    const record = await this.sessionOf(exchange);
    if (record === undefined) {
      return;
    }
    await this.resolver.close(record.id, 'deleted');
    sendEmpty(exchange.res, 204);
  }

  /** The session a GET or DELETE names, answering 400 or 404 when there is none. */
  private async sessionOf(exchange: HttpExchange): Promise<McpSessionRecord | undefined> {
    const found = await this.resolver.find(
      firstHeader(exchange.headers, SESSION_HEADER),
      principalOf(exchange.request),
    );
    if (!found.ok) {
      writeReply(exchange.res, refusalReply(found.reason, failure(null, McpErrorCode.InvalidRequest, found.message)));
      return undefined;
    }
    return found.record;
  }
}

/** What a POST's binding reaches, made once per transport. */
interface BindingParts {
  readonly requestStreams: RequestStreamSettings;
  readonly drain: HttpDrain;
  readonly resolver: LegacySessionResolver;
  readonly streams: ResumableStreams;
  readonly channels: SessionChannels;
  readonly held: HeldStreams;
  /** The engine's methods: which hold their stream open (`subscriptions/listen`). */
  readonly methods: MethodTable;
}

/**
 * How a legacy request's answer opens as a resumable stream of its session. Made apart from
 * `channel`, so that a modern request pays nothing for the closure (see `Awaitable`).
 */
function resumableOpener(
  streams: ResumableStreams,
  sessionId: string,
  revision: McpRevision | undefined,
  exchange: HttpExchange,
  headers: Record<string, string>,
): () => ResumableStream {
  return () => streams.openRequestStream(sessionId, revision, exchange.res, headers);
}

/**
 * What this transport knows about one POST, for the inbound dispatcher. A class rather than a
 * literal of closures: this is made for every POST, and its methods are then shared.
 */
class StreamableHttpBinding implements InboundBinding<HttpRequestChannel> {
  readonly transport = 'streamable-http';
  readonly headersInLegacy = true;
  readonly principal: McpPrincipal;
  readonly headers: McpHeaderBag;
  readonly versionHeader: string | undefined;
  private sessionPort: LegacySessionPort | undefined;

  constructor(
    readonly native: HttpExchange,
    private readonly parts: BindingParts,
  ) {
    const headers = native.headers;
    this.principal = principalOf(native.request);
    this.headers = headers;
    this.versionHeader = headerValue(headers, 'mcp-protocol-version');
  }

  /** The session the `Mcp-Session-Id` header names; made when a legacy message first asks (a modern one never does). */
  get sessions(): LegacySessionPort {
    return (this.sessionPort ??= this.parts.resolver.byHeader(
      firstHeader(this.headers, SESSION_HEADER),
      this.principal,
    ));
  }

  /**
   * Whether the message is served: not while draining, and a long-lived request
   * (`subscriptions/listen`), which holds its response open, only within the stream bounds.
   */
  admits(messages: ClassifiedMessage | readonly ClassifiedMessage[]): boolean {
    const { drain, held } = this.parts;
    if (drain.refusesWork(this.native, messages)) {
      return false;
    }
    // A batch has no `kind`: batches are legacy, where no method is long-lived.
    const single = messages as ClassifiedMessage;
    return (
      single.kind !== 'request' ||
      this.parts.methods.entry(single.message.method)?.longLived !== true ||
      held.admit(this.native, this.principal, single.message.id)
    );
  }

  /**
   * The answer channel of a message: a modern request is cancelled when the client closes it;
   * a legacy one streams resumably within its session.
   */
  channel(target: ChannelTarget): OpenedChannel<HttpRequestChannel> {
    const { requestStreams, streams } = this.parts;
    const { session } = target;
    const exchange = this.native;
    if (target.era === 'modern') {
      const channel = new HttpRequestChannel(exchange, requestStreams);
      return { channel, cancellation: channel };
    }
    const headers = sessionHeaders(session);
    const channel = new HttpRequestChannel(
      exchange,
      requestStreams,
      headers,
      session === undefined ? undefined : resumableOpener(streams, session.id, target.revision, exchange, headers),
    );
    return { channel };
  }

  /**
   * A batch is answered in one JSON array: its calls' progress and logs have no stream to ride
   * and are dropped, and their requests to the client go out on the session's GET stream when
   * the client holds one.
   */
  batchChannel({ session }: ChannelTarget): RequestChannel {
    const { channels } = this.parts;
    return {
      notify: () => undefined,
      request: (message) => session !== undefined && channels.route(session.id, message),
    };
  }
}
