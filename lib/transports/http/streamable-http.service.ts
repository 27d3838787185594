import { Inject, Injectable, Logger } from '@nestjs/common';
import { MCP_RESOLVED_OPTIONS } from '../../mcp.constants';
import type { ResolvedMcpOptions } from '../../mcp-options.factory';
import { McpEngine, type RequestChannel, type RequestFacts } from '../../protocol/engine';
import {
  classifyMessage,
  ErrorCode,
  failure,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../../protocol/json-rpc';
import { decideEra } from '../../protocol/request-meta';
import { headerValue } from '../../protocol/request-headers';
import {
  DEFAULT_LEGACY_HEADER_REVISION,
  eraOf,
  isRevision,
  legacyHeaderRevision,
  type Revision,
} from '../../protocol/revisions';
import type { McpPrincipal } from '../../protocol/call-context';
import { McpSessionService, SessionLimitError } from '../../sessions/mcp-session.service';
import type { SessionRecord } from '../../sessions/session-store.interface';
import { SessionChannels } from '../../sessions/session-channels';
import {
  firstHeader,
  isAbandoned,
  onAbandoned,
  sendEmpty,
  sendJson,
  SseStream,
  type HttpExchange,
} from './http-exchange';
import type { CancellationSource } from '../../protocol/call-scope';
import { readJsonBody } from './request-body';
import { accepts, acceptsPost } from './content-negotiation';
import { batchRefusedByHeader, planBatch, runBatch } from '../../protocol/batch';
import { HttpDrain } from '../../shutdown/http-drain';
import { HttpRefusals } from './http-refusals.service';
import { principalOf } from './mcp-http.guard';
import { ResumableStream, ResumableStreams } from './resumable-streams.service';

const SESSION_HEADER = 'mcp-session-id';

/** The extra headers of answers that have none (never written to). */
const NO_HEADERS: Record<string, string> = Object.freeze({});

/** A legacy request's session, once found or opened. */
interface LegacySession {
  readonly principal: McpPrincipal;
  readonly record: SessionRecord | undefined;
  /** Whether this request opened the session (`initialize`). */
  readonly minted: boolean;
  readonly revision: Revision | undefined;
}

/**
 * The answer to one JSON-RPC request over HTTP: a JSON body, or an SSE stream opened as soon as
 * the request has something to send before its response (progress, log messages). On a legacy
 * session the stream is resumable (`ResumableStreams`): numbered, buffered, and able to go on
 * without its connection.
 */
class HttpRequestChannel implements RequestChannel, CancellationSource {
  private stream: SseStream | ResumableStream | undefined;
  private finished = false;

  constructor(
    private readonly exchange: HttpExchange,
    readonly headers: Record<string, string> = NO_HEADERS,
    /** Interval of the keep-alive comments of a held stream. */
    private readonly keepAliveMs = 0,
    /** Legacy sessions: opens the answer as a resumable stream of the session. */
    private readonly openResumable?: () => ResumableStream,
  ) {}

  /**
   * Whether messages can still go out. A resumable stream takes them without a connection (the
   * client left, or `closeStream()` let it go): they wait in the replay buffer.
   */
  private get writable(): boolean {
    return !this.finished && (this.stream instanceof ResumableStream || !this.exchange.res.destroyed);
  }

  private open(): SseStream | ResumableStream {
    const resumable = this.openResumable?.();
    if (resumable !== undefined) {
      return resumable;
    }
    const stream = new SseStream(this.exchange.res, this.headers);
    if (this.keepAliveMs > 0) {
      // A long, quiet call is not cut by a proxy's idle timeout.
      stream.keepAliveEvery(this.keepAliveMs);
    }
    return stream;
  }

  /** Modern requests: the client closing the response before it is complete cancels them. */
  isCancelled(): boolean {
    return isAbandoned(this.exchange.res);
  }

  onCancel(listener: (reason: unknown) => void): () => void {
    return onAbandoned(this.exchange.res, listener);
  }

  notify(message: JsonRpcNotification): void {
    this.send(message);
  }

  /** Legacy: a request to the client rides the call's stream, like its notifications. */
  request(message: JsonRpcRequest): boolean {
    return this.send(message);
  }

  /** Sends on the call's stream, opening it first; returns whether the stream took the message. */
  private send(message: JsonRpcRequest | JsonRpcNotification): boolean {
    if (!this.writable) {
      return false;
    }
    this.stream ??= this.open();
    this.stream.send(message);
    return true;
  }

  /** A long-lived request (`subscriptions/listen`): its stream opens now and carries keep-alive comments. */
  hold(): void {
    if (this.finished || this.exchange.res.destroyed || this.stream !== undefined) {
      return;
    }
    this.stream = this.open();
  }

  respond(status: number, response: JsonRpcResponse, headers?: Record<string, string>): void {
    this.finished = true;
    if (this.stream !== undefined) {
      this.stream.send(response);
      this.stream.end();
    } else {
      sendJson(
        this.exchange.res,
        status,
        response,
        headers === undefined ? this.headers : { ...this.headers, ...headers },
      );
    }
  }

  /**
   * Legacy sessions (2025-11-25): ends the connection, not the stream; the client resumes it
   * with `Last-Event-ID`. An answer still pending as JSON becomes a stream first, so that the
   * client holds the priming event's id.
   */
  closeStream(): void {
    if (this.finished || this.openResumable === undefined) {
      return;
    }
    this.stream ??= this.open();
    if (this.stream instanceof ResumableStream) {
      this.stream.disconnect();
    }
  }

  /** Ends the exchange without a JSON-RPC response (a cancelled request). */
  end(): void {
    this.finished = true;
    if (this.stream instanceof ResumableStream) {
      // It outlives its connection, so it ends whether or not the client is still there.
      this.stream.end();
      return;
    }
    if (this.exchange.res.destroyed) {
      return;
    }
    // A request must be answered with JSON or a stream; a stream that ends without a message is
    // how "no response" is said.
    (this.stream ?? new SseStream(this.exchange.res, this.headers)).end();
  }
}

/**
 * The Streamable HTTP transport (2025-03-26 and later) for both eras on one endpoint: the
 * framing, sessions and streams of HTTP. Every protocol decision is the engine's.
 */
@Injectable()
export class StreamableHttpService {
  private readonly logger = new Logger('McpStreamableHttp');

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly refusals: HttpRefusals,
    private readonly drain: HttpDrain,
    private readonly engine: McpEngine,
    private readonly sessions: McpSessionService,
    private readonly streams: ResumableStreams,
    private readonly channels: SessionChannels,
  ) {}

  /** POST: one JSON-RPC message (or a batch), answered with JSON or an SSE stream. `McpHttpGuard` has admitted it. */
  async post(exchange: HttpExchange): Promise<void> {
    const { request } = exchange;
    const { headers, res } = exchange;
    if (!acceptsPost(exchange, 'json-and-sse')) {
      return;
    }
    const body = await readJsonBody(
      request,
      exchange.req,
      this.options.http.maxBodyBytes,
      this.options.http.maxJsonDepth,
    );
    if (!body.ok) {
      this.refusals.refuseBody(exchange, body);
      return;
    }
    if (Array.isArray(body.value)) {
      await this.serveBatch(exchange, body.value, headerValue(headers, 'mcp-protocol-version'));
      return;
    }
    const message = classifyMessage(body.value);
    if (this.drain.refusesWork(exchange, message)) {
      return;
    }
    switch (message.kind) {
      case 'invalid':
        sendJson(res, 400, failure(message.id, ErrorCode.InvalidRequest, message.reason));
        return;
      case 'response':
        await this.deliverResponses(exchange, [message.message]);
        return;
      case 'notification':
      case 'request': {
        const headerVersion = headerValue(headers, 'mcp-protocol-version');
        const era = decideEra(message.message.params, headerVersion);
        if (era === 'modern') {
          await this.serveModern(exchange, message.message);
        } else {
          await this.serveLegacy(exchange, message.message, headerVersion);
        }
      }
    }
  }

  /**
   * Answers a client POSTed to one of this server's requests (legacy sessions only). Always 202:
   * an answer for an unknown id, or from a principal that does not own the session, is dropped
   * without telling the sender anything it could probe with.
   */
  private async deliverResponses(exchange: HttpExchange, responses: JsonRpcResponse[]): Promise<void> {
    const sessionId = firstHeader(exchange.headers, SESSION_HEADER);
    const record =
      sessionId === undefined ? undefined : await this.sessions.find(sessionId, principalOf(exchange.request));
    if (record !== undefined) {
      this.deliverTo(record.id, responses);
    }
    sendEmpty(exchange.res, 202, record === undefined ? NO_HEADERS : { [SESSION_HEADER]: record.id });
  }

  /** Hands a session's answers to the requests waiting for them; the others are dropped. */
  private deliverTo(sessionId: string, responses: readonly JsonRpcResponse[]): void {
    for (const response of responses) {
      if (!this.engine.deliverResponse(sessionId, response)) {
        this.logger.debug(`Dropped a client response for unknown request ${String(response.id)}`);
      }
    }
  }

  private async serveModern(exchange: HttpExchange, message: JsonRpcRequest | JsonRpcNotification): Promise<void> {
    const channel = new HttpRequestChannel(exchange, NO_HEADERS, this.options.http.keepAliveMs);
    const facts: RequestFacts = {
      era: 'modern',
      transport: 'streamable-http',
      principal: principalOf(exchange.request),
      headers: exchange.headers,
      cancellation: channel,
      channel,
      native: exchange,
    };
    const outcome = await this.engine.handle(facts, message);
    if (!('id' in message)) {
      sendEmpty(exchange.res, 202);
      return;
    }
    this.answer(channel, outcome, 'modern');
  }

  /**
   * Finds (or, for `initialize`, opens) the session of a legacy request and settles its revision.
   * Answers 400, 404 or 503 itself and returns `undefined` when the request cannot go on.
   */
  private async legacySession(
    exchange: HttpExchange,
    id: JsonRpcId | null,
    method: string | undefined,
    headerVersion: string | undefined,
  ): Promise<LegacySession | undefined> {
    const { res } = exchange;
    const principal = principalOf(exchange.request);
    const sessionId = firstHeader(exchange.headers, SESSION_HEADER);
    let record: SessionRecord | undefined;
    let minted = false;
    // Only an initialize *request* opens a session: a notification of that name is answered like
    // any other message without one, and holds no session against the cap.
    if (method === 'initialize' && id !== null && sessionId === undefined) {
      try {
        record = await this.sessions.open(principal);
        minted = true;
      } catch (error) {
        if (error instanceof SessionLimitError) {
          sendJson(res, 503, failure(id, ErrorCode.InternalError, error.message), { 'retry-after': '5' });
          return undefined;
        }
        throw error;
      }
    } else if (sessionId === undefined) {
      if (method !== 'server/discover') {
        sendJson(res, 400, failure(id, ErrorCode.InvalidRequest, 'Bad Request: Mcp-Session-Id header required'));
        return undefined;
      }
    } else {
      record = await this.sessions.find(sessionId, principal);
      if (record === undefined) {
        sendJson(res, 404, failure(id, ErrorCode.InvalidRequest, 'Session not found'));
        return undefined;
      }
    }

    let revision: Revision | undefined = record?.state.protocolVersion;
    if (headerVersion !== undefined && method !== 'initialize') {
      const read = legacyHeaderRevision(headerVersion, this.engine.revisionsOf('legacy'));
      if ('error' in read) {
        if (minted && record !== undefined) {
          await this.sessions.close(record.id);
        }
        sendJson(res, 400, failure(id, ErrorCode.InvalidRequest, read.error));
        return undefined;
      }
      revision = read.revision;
    }
    if (revision === undefined && record !== undefined && method !== 'initialize') {
      revision = DEFAULT_LEGACY_HEADER_REVISION;
    }
    if (record !== undefined && !minted) {
      const refreshing = this.sessions.refresh(record);
      if (refreshing !== undefined) {
        await refreshing;
      }
    }
    return { principal, record, minted, revision };
  }

  private legacyFacts(exchange: HttpExchange, session: LegacySession, channel: RequestChannel): RequestFacts {
    const { record } = session;
    return {
      era: 'legacy',
      transport: 'streamable-http',
      principal: session.principal,
      revision: session.revision,
      session: record === undefined ? undefined : this.sessions.handle(record),
      headers: exchange.headers,
      channel,
      cancelScope: record?.id,
      native: exchange,
    };
  }

  private async serveLegacy(
    exchange: HttpExchange,
    message: JsonRpcRequest | JsonRpcNotification,
    headerVersion: string | undefined,
  ): Promise<void> {
    const id: JsonRpcId | null = 'id' in message ? message.id : null;
    const session = await this.legacySession(exchange, id, message.method, headerVersion);
    if (session === undefined) {
      return;
    }
    const { record, minted } = session;
    const headers: Record<string, string> = record === undefined ? {} : { [SESSION_HEADER]: record.id };
    const channel = new HttpRequestChannel(
      exchange,
      headers,
      this.options.http.keepAliveMs,
      record === undefined
        ? undefined
        : () => this.streams.openRequestStream(record.id, session.revision, exchange.res, headers),
    );
    const outcome = await this.engine.handle(this.legacyFacts(exchange, session, channel), message);
    if (id === null) {
      sendEmpty(exchange.res, 202, channel.headers);
      return;
    }
    if (minted && record !== undefined && outcome.type === 'response' && 'error' in outcome.response) {
      // A failed handshake leaves no session behind.
      await this.sessions.close(record.id);
      delete channel.headers[SESSION_HEADER];
    }
    this.answer(channel, outcome, 'legacy');
  }

  /**
   * A JSON-RPC batch (2024-11-05 and 2025-03-26 only): served within the session the headers
   * name, never opening one. Every request is answered in one JSON array; notifications sent
   * while the batch runs (progress, logs) have no stream to ride and are dropped.
   */
  private async serveBatch(
    exchange: HttpExchange,
    elements: unknown[],
    headerVersion: string | undefined,
  ): Promise<void> {
    const { res } = exchange;
    const refused = batchRefusedByHeader(headerVersion);
    if (refused !== undefined) {
      sendJson(res, 400, refused);
      return;
    }
    const session = await this.legacySession(exchange, null, undefined, headerVersion);
    if (session === undefined) {
      return;
    }
    const headers: Record<string, string> = session.record === undefined ? {} : { [SESSION_HEADER]: session.record.id };
    const plan = planBatch(elements, session.revision);
    if (plan.type === 'reject') {
      sendJson(res, 400, plan.error, headers);
      return;
    }
    if (plan.type === 'responses') {
      if (session.record !== undefined) {
        this.deliverTo(session.record.id, plan.responses);
      }
      sendEmpty(res, 202, headers);
      return;
    }
    if (this.drain.refusesWork(exchange, plan.items)) {
      return;
    }
    // The batch is answered in one JSON array: its calls' progress and logs have no stream to
    // ride and are dropped, and their requests to the client go out on the session's GET stream
    // when the client holds one.
    const sessionId = session.record?.id;
    const facts = this.legacyFacts(exchange, session, {
      notify: () => undefined,
      request: (message) => sessionId !== undefined && this.channels.route(sessionId, message),
    });
    const responses = await runBatch(this.engine, facts, plan.items);
    if (responses.length === 0) {
      sendEmpty(res, 202, headers);
    } else {
      sendJson(res, 200, responses, headers);
    }
  }

  private answer(
    channel: HttpRequestChannel,
    outcome: Awaited<ReturnType<McpEngine['handle']>>,
    era: 'legacy' | 'modern',
  ): void {
    if (outcome.type === 'none') {
      channel.end();
      return;
    }
    const { status, headers } = this.refusals.statusOf(outcome.response, era);
    channel.respond(status, outcome.response, headers);
  }

  /** GET: a legacy session's stream (or its resumption). `McpHttpGuard` has admitted it. */
  async get(exchange: HttpExchange): Promise<void> {
    const { headers, res } = exchange;
    const headerVersion = headerValue(headers, 'mcp-protocol-version');
    if (eraOf(headerVersion) === 'modern') {
      sendJson(res, 405, failure(null, ErrorCode.InvalidRequest, 'Method Not Allowed'), { allow: 'POST' });
      return;
    }
    if (!accepts(firstHeader(headers, 'accept'), 'text/event-stream')) {
      sendJson(
        res,
        406,
        failure(null, ErrorCode.InvalidRequest, 'Not Acceptable: Accept must include text/event-stream'),
      );
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
      sendJson(exchange.res, 405, failure(null, ErrorCode.InvalidRequest, 'Method Not Allowed'), { allow: 'POST' });
      return;
    }
    const record = await this.sessionOf(exchange);
    if (record === undefined) {
      return;
    }
    await this.sessions.close(record.id, 'deleted');
    sendEmpty(exchange.res, 204);
  }

  /** The session a GET or DELETE names, answering 400 or 404 when there is none. */
  private async sessionOf(exchange: HttpExchange): Promise<SessionRecord | undefined> {
    const sessionId = firstHeader(exchange.headers, SESSION_HEADER);
    if (sessionId === undefined) {
      sendJson(
        exchange.res,
        400,
        failure(null, ErrorCode.InvalidRequest, 'Bad Request: Mcp-Session-Id header required'),
      );
      return undefined;
    }
    const record = await this.sessions.find(sessionId, principalOf(exchange.request));
    if (record === undefined) {
      sendJson(exchange.res, 404, failure(null, ErrorCode.InvalidRequest, 'Session not found'));
    }
    return record;
  }
}
