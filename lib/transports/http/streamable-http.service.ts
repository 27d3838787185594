import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MCP_HTTP_PATH, MCP_RESOLVED_OPTIONS } from '../../mcp.constants';
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
import { httpStatusForError } from '../../protocol/error-status';
import { decideEra } from '../../protocol/request-meta';
import { headerValue } from '../../protocol/request-headers';
import { DEFAULT_LEGACY_HEADER_REVISION, eraOf, isRevision, type Revision } from '../../protocol/revisions';
import { ANONYMOUS_PRINCIPAL, type McpPrincipal } from '../../protocol/call-context';
import { McpSessionService, SessionLimitError } from '../../sessions/mcp-session.service';
import type { SessionRecord } from '../../sessions/session-store.interface';
import { SessionChannels } from '../../sessions/session-channels';
import { firstHeader, sendEmpty, sendJson, SseStream, toExchange, type HttpExchange } from './http-exchange';
import type { CancellationSource } from '../../protocol/call-scope';
import { passesHostAndOrigin } from './host-origin';
import { readJsonBody } from './request-body';
import { planBatch } from '../../protocol/batch';
import { installBodyErrorBridge } from './body-error.bridge';
import { ResumableStream, ResumableStreams } from './resumable-streams.service';

/** Property of the platform request where authentication leaves the caller's principal. */
export const MCP_PRINCIPAL_PROPERTY = 'mcpPrincipal';

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
 * Verdicts on header values seen before: clients send the same Accept and Content-Type on every
 * request, so each distinct value is parsed once. Bounded, as header values come from clients.
 */
class VerdictCache {
  private readonly verdicts = new Map<string, boolean>();

  constructor(private readonly decide: (value: string) => boolean) {}

  get(value: string): boolean {
    let verdict = this.verdicts.get(value);
    if (verdict === undefined) {
      verdict = this.decide(value);
      if (this.verdicts.size >= 256) {
        this.verdicts.clear();
      }
      this.verdicts.set(value, verdict);
    }
    return verdict;
  }
}

const POST_ACCEPT = new VerdictCache(
  (accept) => accepts(accept, 'application/json') && accepts(accept, 'text/event-stream'),
);
const JSON_CONTENT_TYPE = new VerdictCache((contentType) =>
  /^application\/(.+\+)?json\s*(;|$)/i.test(contentType.trim()),
);

/** Whether an Accept header admits a type (a missing header admits everything). */
function accepts(accept: string | undefined, type: string): boolean {
  if (accept === undefined || accept.trim() === '') {
    return true;
  }
  const [major] = type.split('/');
  return accept
    .split(',')
    .map((part) => part.split(';')[0].trim().toLowerCase())
    .some((range) => range === type || range === '*/*' || range === `${major}/*`);
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
    return this.openResumable?.() ?? new SseStream(this.exchange.res, this.headers);
  }

  /** Modern requests: the client closing the response before it is complete cancels them. */
  isCancelled(): boolean {
    return this.exchange.res.destroyed && !this.exchange.res.writableFinished;
  }

  onCancel(listener: (reason: unknown) => void): () => void {
    const { res } = this.exchange;
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
    this.stream = new SseStream(this.exchange.res, this.headers);
    if (this.keepAliveMs > 0) {
      this.stream.keepAliveEvery(this.keepAliveMs);
    }
  }

  respond(status: number, response: JsonRpcResponse): void {
    this.finished = true;
    if (this.stream !== undefined) {
      this.stream.send(response);
      this.stream.end();
    } else {
      sendJson(this.exchange.res, status, response, this.headers);
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
export class StreamableHttpService implements OnModuleInit {
  private readonly logger = new Logger('McpStreamableHttp');
  /** Whether the platform wraps Node's request and response (Fastify) or hands them over (Express). */
  private wrapped = true;
  /** Host/Origin verdicts per (local address, Host, Origin): clients repeat the same values. */
  private readonly admissions = new Map<string, boolean>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    @Inject(MCP_HTTP_PATH) private readonly path: string,
    private readonly engine: McpEngine,
    private readonly sessions: McpSessionService,
    private readonly streams: ResumableStreams,
    private readonly channels: SessionChannels,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    installBodyErrorBridge(this.adapterHost, this.path);
    this.wrapped = this.adapterHost?.httpAdapter?.getType() !== 'express';
  }

  private principalOf(request: unknown): McpPrincipal {
    const principal = (request as Record<string, unknown>)[MCP_PRINCIPAL_PROPERTY] as McpPrincipal | undefined;
    return principal ?? ANONYMOUS_PRINCIPAL;
  }

  /** Host and Origin checks (DNS rebinding); answers 403 and returns false on failure. */
  private admit(exchange: HttpExchange): boolean {
    const { headers } = exchange;
    const localAddress = exchange.req.socket?.localAddress;
    const key = `${localAddress}\n${String(headers.host)}\n${String(headers.origin)}`;
    let admitted = this.admissions.get(key);
    if (admitted === undefined) {
      admitted = passesHostAndOrigin(headers, localAddress, this.options.http);
      if (this.admissions.size >= 256) {
        this.admissions.clear();
      }
      this.admissions.set(key, admitted);
    }
    if (admitted) {
      return true;
    }
    sendJson(exchange.res, 403, failure(null, ErrorCode.InvalidRequest, 'Forbidden: Host or Origin not allowed'));
    return false;
  }

  /**
   * Logs a failure nobody answered (a store that went away...) and answers it with a generic
   * 500, never with its details.
   */
  private failed(exchange: HttpExchange, error: unknown): void {
    this.logger.error(
      `${exchange.req.method ?? 'request'} failed: ${error instanceof Error ? error.message : String(error)}`,
      error instanceof Error ? error.stack : undefined,
    );
    if (!exchange.res.headersSent) {
      sendJson(exchange.res, 500, failure(null, ErrorCode.InternalError, 'Internal error'));
    } else if (!exchange.res.writableEnded) {
      exchange.res.end();
    }
  }

  async post(request: unknown, response: unknown): Promise<void> {
    const exchange = toExchange(request, response, this.wrapped);
    try {
      await this.servePost(exchange);
    } catch (error) {
      this.failed(exchange, error);
    }
  }

  private async servePost(exchange: HttpExchange): Promise<void> {
    const { request } = exchange;
    if (!this.admit(exchange)) {
      return;
    }
    const { headers, res } = exchange;
    const accept = firstHeader(headers, 'accept');
    if (accept !== undefined && !POST_ACCEPT.get(accept)) {
      sendJson(
        res,
        406,
        failure(
          null,
          ErrorCode.InvalidRequest,
          'Not Acceptable: Accept must include application/json and text/event-stream',
        ),
      );
      return;
    }
    const contentType = firstHeader(headers, 'content-type');
    if (contentType !== undefined && !JSON_CONTENT_TYPE.get(contentType)) {
      sendJson(
        res,
        415,
        failure(null, ErrorCode.InvalidRequest, 'Unsupported Media Type: Content-Type must be application/json'),
      );
      return;
    }
    const body = await readJsonBody(
      request,
      exchange.req,
      this.options.http.maxBodyBytes,
      this.options.http.maxJsonDepth,
    );
    if (!body.ok) {
      sendJson(res, body.status, body.error);
      return;
    }
    if (Array.isArray(body.value)) {
      await this.serveBatch(exchange, body.value, headerValue(headers, 'mcp-protocol-version'));
      return;
    }
    const message = classifyMessage(body.value);
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
      sessionId === undefined ? undefined : await this.sessions.find(sessionId, this.principalOf(exchange.request));
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
      principal: this.principalOf(exchange.request),
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
    const principal = this.principalOf(exchange.request);
    const sessionId = firstHeader(exchange.headers, SESSION_HEADER);
    let record: SessionRecord | undefined;
    let minted = false;
    if (method === 'initialize' && sessionId === undefined) {
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
      const supported = this.engine.revisionsOf('legacy');
      if (!isRevision(headerVersion) || eraOf(headerVersion) !== 'legacy' || !supported.includes(headerVersion)) {
        if (minted && record !== undefined) {
          await this.sessions.close(record.id);
        }
        const message = `Bad Request: unsupported MCP-Protocol-Version ${headerVersion}; supported: ${supported.join(', ')}`;
        sendJson(res, 400, failure(id, ErrorCode.InvalidRequest, message));
        return undefined;
      }
      revision = headerVersion;
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
    if (eraOf(headerVersion) === 'modern') {
      sendJson(res, 400, failure(null, ErrorCode.InvalidRequest, 'Batch requests are not supported'));
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
    // The batch is answered in one JSON array: its calls' progress and logs have no stream to
    // ride and are dropped, and their requests to the client go out on the session's GET stream
    // when the client holds one.
    const sessionId = session.record?.id;
    const facts = this.legacyFacts(exchange, session, {
      notify: () => undefined,
      request: (message) => sessionId !== undefined && this.channels.send(sessionId, message),
    });
    const answers = await Promise.all(
      plan.items.map(async (item): Promise<JsonRpcResponse | undefined> => {
        if (item.kind === 'invalid') {
          return item.isNotification ? undefined : failure(item.id, ErrorCode.InvalidRequest, item.reason);
        }
        if (item.kind === 'response') {
          return undefined;
        }
        const outcome = await this.engine.handle(facts, item.message);
        return outcome.type === 'response' ? outcome.response : undefined;
      }),
    );
    const responses = answers.filter((answer): answer is JsonRpcResponse => answer !== undefined);
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
    const response = outcome.response;
    const status = 'error' in response ? httpStatusForError(response.error.code, era) : 200;
    channel.respond(status, response);
  }

  async get(request: unknown, response: unknown): Promise<void> {
    const exchange = toExchange(request, response, this.wrapped);
    try {
      await this.serveGet(exchange);
    } catch (error) {
      this.failed(exchange, error);
    }
  }

  private async serveGet(exchange: HttpExchange): Promise<void> {
    if (!this.admit(exchange)) {
      return;
    }
    const { headers, res } = exchange;
    if (eraOf(headerValue(headers, 'mcp-protocol-version')) === 'modern') {
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
    const headerVersion = headerValue(headers, 'mcp-protocol-version');
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

  async delete(request: unknown, response: unknown): Promise<void> {
    const exchange = toExchange(request, response, this.wrapped);
    try {
      await this.serveDelete(exchange);
    } catch (error) {
      this.failed(exchange, error);
    }
  }

  private async serveDelete(exchange: HttpExchange): Promise<void> {
    if (!this.admit(exchange)) {
      return;
    }
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

  /** Any other verb. */
  other(request: unknown, response: unknown): void {
    const exchange = toExchange(request, response, this.wrapped);
    const allow = 'GET, POST, DELETE';
    if (exchange.req.method === 'OPTIONS') {
      sendEmpty(exchange.res, 204, { allow });
      return;
    }
    sendJson(exchange.res, 405, failure(null, ErrorCode.InvalidRequest, 'Method Not Allowed'), { allow });
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
    const record = await this.sessions.find(sessionId, this.principalOf(exchange.request));
    if (record === undefined) {
      sendJson(exchange.res, 404, failure(null, ErrorCode.InvalidRequest, 'Session not found'));
    }
    return record;
  }
}
