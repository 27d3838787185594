import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { MCP_HTTP_PATHS, MCP_RESOLVED_OPTIONS } from '../../mcp.constants';
import type { ResolvedMcpOptions } from '../../mcp-options.factory';
import { McpEngine, type RequestChannel, type RequestFacts } from '../../protocol/engine';
import {
  classifyMessage,
  ErrorCode,
  failure,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
} from '../../protocol/json-rpc';
import { planBatch, runBatch } from '../../protocol/batch';
import type { McpPrincipal } from '../../protocol/call-context';
import { McpSessionService, SessionLimitError } from '../../sessions/mcp-session.service';
import { SessionChannels, type SessionChannel } from '../../sessions/session-channels';
import type { SessionRecord } from '../../sessions/session-store.interface';
import { DETACHED_RESPONSE, firstHeader, sendEmpty, sendJson, SseStream, type HttpExchange } from './http-exchange';
import { accepts, acceptsPost } from './content-negotiation';
import { readJsonBody } from './request-body';
import { HttpDrain } from '../../shutdown/http-drain';
import { HttpRefusals } from './http-refusals.service';
import { principalOf } from './mcp-http.guard';
import { normalizePath, type McpHttpPaths } from './http-paths';

/** Where the answers and messages of an SSE pair's session go. */
interface PairChannel extends RequestChannel {
  send(message: JsonRpcMessage | readonly JsonRpcMessage[]): boolean;
}

/** One open SSE pair: the session's event stream, which carries every answer and message of the session. */
class PairStream implements SessionChannel, PairChannel {
  constructor(private readonly stream: SseStream) {}

  send(message: JsonRpcMessage | readonly JsonRpcMessage[]): boolean {
    return this.stream.send(message);
  }

  notify(message: JsonRpcNotification): void {
    this.stream.send(message);
  }

  request(message: JsonRpcRequest): boolean {
    return this.stream.send(message);
  }

  close(): void {
    this.stream.end();
  }
}

/**
 * The event stream of a pair open on another instance: messages are sent there, in order, and
 * written by the instance that holds the stream. A batch's answers go one by one.
 */
class RemotePair implements PairChannel {
  constructor(private readonly forward: (message: JsonRpcMessage) => Promise<void>) {}

  send(message: JsonRpcMessage | readonly JsonRpcMessage[]): boolean {
    const messages: readonly JsonRpcMessage[] = Array.isArray(message) ? message : [message as JsonRpcMessage];
    for (const each of messages) {
      // The holder's stream may be gone (the session then ends everywhere): nothing to tell.
      this.forward(each).catch(() => undefined);
    }
    return true;
  }

  notify(message: JsonRpcNotification): void {
    this.send(message);
  }

  request(message: JsonRpcRequest): boolean {
    return this.send(message);
  }
}

/**
 * The HTTP+SSE transport of 2024-11-05, kept for the clients that still speak it. `GET` on the
 * events path opens a session owned by the caller and its event stream, whose first event
 * (`endpoint`) names where to POST: the messages path with `?sessionId=`. Every POST is
 * answered 202 at once and its answer goes on the stream. The session lives as long as its
 * stream: when the stream ends, the session ends and its running calls are aborted. Always the
 * legacy era; `server/discover` is not served, so that clients fall back to the handshake.
 */
@Injectable()
export class LegacySseService implements OnModuleDestroy {
  private readonly logger = new Logger('McpLegacySse');
  /** The pairs open on this instance, by session id. */
  private readonly pairs = new Map<string, PairStream>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    @Inject(MCP_HTTP_PATHS) private readonly paths: McpHttpPaths,
    private readonly refusals: HttpRefusals,
    private readonly drain: HttpDrain,
    private readonly engine: McpEngine,
    private readonly sessions: McpSessionService,
    private readonly channels: SessionChannels,
  ) {}

  /** Ends every open pair: their clients see the stream end and may reconnect. */
  onModuleDestroy(): void {
    this.endPairs();
  }

  /**
   * Ends the open pairs but those `keep` names (by session id); returns how many were ended.
   * The shutdown keeps a pair whose calls still run: their answers can only go on its stream.
   */
  endPairs(keep: (sessionId: string) => boolean = () => false): number {
    let ended = 0;
    for (const [sessionId, pair] of [...this.pairs]) {
      if (!keep(sessionId)) {
        pair.close();
        ended += 1;
      }
    }
    return ended;
  }

  /** How many pairs are open on this instance. */
  get size(): number {
    return this.pairs.size;
  }

  /** GET on the events path: opens a pair (a session and its stream). `McpHttpGuard` has admitted it. */
  async events(exchange: HttpExchange): Promise<void> {
    const { res } = exchange;
    if (!accepts(firstHeader(exchange.headers, 'accept'), 'text/event-stream')) {
      sendJson(
        res,
        406,
        failure(null, ErrorCode.InvalidRequest, 'Not Acceptable: Accept must include text/event-stream'),
      );
      return;
    }
    let record: SessionRecord;
    try {
      record = await this.sessions.open(principalOf(exchange.request));
    } catch (error) {
      if (error instanceof SessionLimitError) {
        sendJson(res, 503, failure(null, ErrorCode.InternalError, error.message), { 'retry-after': '5' });
        return;
      }
      throw error;
    }
    const sessionId = record.id;
    if (res.destroyed) {
      // The client left while the session was being opened.
      await this.sessions.close(sessionId);
      return;
    }
    // A new session has no stream yet: the reservation tells the other instances where it is.
    await this.channels.reserve(sessionId, 'pair');
    const stream = new SseStream(res);
    const pair = new PairStream(stream);
    this.pairs.set(sessionId, pair);
    this.channels.attach(sessionId, pair);
    stream.onClose(() => {
      this.pairs.delete(sessionId);
      this.channels.detach(sessionId, pair);
      // The session is the stream's: it ends with it, and so do its running calls.
      this.sessions.close(sessionId, 'closed').catch((error: unknown) => {
        this.logger.warn(
          `Could not end session ${sessionId}: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    });
    // Keep-alive comments also keep the session from idling out on every instance.
    stream.keepAliveEvery(this.options.http.keepAliveMs, () => {
      this.sessions.touch(sessionId).catch(() => undefined);
    });
    stream.event('endpoint', `${this.messagesUrl(exchange)}?sessionId=${sessionId}`);
  }

  /**
   * The path of the messages endpoint as this client reaches it: the events path the client
   * used, with the events path swapped for the messages path, so that the global prefix and
   * version of the route carry over.
   */
  private messagesUrl(exchange: HttpExchange): string {
    const url = (exchange.req as { originalUrl?: string }).originalUrl ?? exchange.req.url ?? '';
    const pathname = url.split('?')[0].replace(/\/+$/, '');
    const events = normalizePath(this.paths.sse!.events);
    // Express matches routes whatever their case: so does this, keeping the client's spelling of the prefix.
    const base = pathname.toLowerCase().endsWith(events.toLowerCase()) ? pathname.slice(0, -events.length) : '';
    return `${base}${normalizePath(this.paths.sse!.messages)}`;
  }

  /** POST on the messages path: delivers a message, answered on the pair's stream. `McpHttpGuard` has admitted it. */
  async messages(exchange: HttpExchange): Promise<void> {
    if (!acceptsPost(exchange, 'status')) {
      return;
    }
    const { res } = exchange;
    const sessionId = new URL(exchange.req.url ?? '/', 'http://localhost').searchParams.get('sessionId');
    if (sessionId === null || sessionId === '') {
      sendJson(res, 400, failure(null, ErrorCode.InvalidRequest, 'Bad Request: sessionId query parameter required'));
      return;
    }
    const principal = principalOf(exchange.request);
    const pair = await this.pairOf(sessionId);
    const record = pair === undefined ? undefined : await this.sessions.find(sessionId, principal);
    if (pair === undefined || record === undefined) {
      // Unknown, ended, another principal's, or not an SSE pair: all alike to the sender.
      sendJson(res, 404, failure(null, ErrorCode.InvalidRequest, 'Session not found'));
      return;
    }
    const { maxBodyBytes, maxJsonDepth } = this.options.http;
    const body = await readJsonBody(exchange.request, exchange.req, maxBodyBytes, maxJsonDepth);
    if (!body.ok) {
      this.refusals.refuseBody(exchange, body);
      return;
    }
    const refreshing = this.sessions.refresh(record);
    if (refreshing !== undefined) {
      await refreshing;
    }
    const facts = this.facts(exchange, principal, record, pair);
    if (Array.isArray(body.value)) {
      const plan = planBatch(body.value, facts.revision);
      if (plan.type === 'reject') {
        sendJson(res, 400, plan.error);
        return;
      }
      if (plan.type === 'run' && this.drain.refusesWork(exchange, plan.items)) {
        return;
      }
      sendEmpty(res, 202);
      if (plan.type === 'responses') {
        plan.responses.forEach((answer) => this.engine.deliverResponse(sessionId, answer));
        return;
      }
      const answers = await runBatch(this.engine, facts, plan.items);
      if (answers.length > 0) {
        pair.send(answers);
      }
      return;
    }
    const message = classifyMessage(body.value);
    if (this.drain.refusesWork(exchange, message)) {
      return;
    }
    if (message.kind === 'invalid') {
      if (message.isNotification) {
        sendEmpty(res, 202);
      } else {
        sendJson(res, 400, failure(message.id, ErrorCode.InvalidRequest, message.reason));
      }
      return;
    }
    sendEmpty(res, 202);
    if (message.kind === 'response') {
      this.engine.deliverResponse(sessionId, message.message);
      return;
    }
    const outcome = await this.engine.handle(facts, message.message);
    if (outcome.type === 'response') {
      pair.send(outcome.response);
    }
  }

  /**
   * The event stream of a session: open here, or on another instance (its messages are then
   * routed there); `undefined` when the session has no SSE pair.
   */
  private async pairOf(sessionId: string): Promise<PairChannel | undefined> {
    const local = this.pairs.get(sessionId);
    if (local !== undefined) {
      return local;
    }
    const holder = await this.channels.holder(sessionId);
    if (holder?.kind !== 'pair') {
      return undefined;
    }
    return new RemotePair((message) => this.channels.sendVia(holder.instanceId, sessionId, message));
  }

  private facts(
    exchange: HttpExchange,
    principal: McpPrincipal,
    record: SessionRecord,
    pair: PairChannel,
  ): RequestFacts {
    return {
      era: 'legacy',
      transport: 'sse',
      principal,
      revision: record.state.protocolVersion,
      session: this.sessions.handle(record),
      channel: pair,
      cancelScope: record.id,
      // The POST was answered 202 before the call runs: the call's answer goes on the stream.
      native: { request: exchange.request, response: DETACHED_RESPONSE },
    };
  }
}
