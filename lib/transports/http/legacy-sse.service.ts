import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { MCP_HTTP_PATHS, MCP_HTTP_SETTINGS, MCP_OWN_SESSIONS } from '../../shared/mcp.constants';
import type { HttpSettings } from './http-settings';
import { McpEngine } from '../../protocol/engine';
import { McpErrorCode, failure } from '../../protocol/messages/json-rpc';
import { InboundDispatcher } from '../../protocol/inbound';
import { McpSessionService } from '../../sessions/mcp-session.service';
import { LegacySessionResolver, SESSION_NOT_FOUND } from '../../sessions/legacy-session.resolver';
import { SessionChannels } from '../../sessions/session-channels';
import { isSessionId } from '../../sessions/session-id';
import { DETACHED_RESPONSE, firstHeader, sendJson, SseStream, type HttpExchange } from './http-exchange';
import { accepts, acceptsPost } from './content-negotiation';
import { readJsonBody } from './request-body';
import { HttpDrain } from './http-drain';
import { HttpRefusals } from './http-refusals.service';
import { principalOf } from './mcp-http.guard';
import { normalizePath, type McpHttpPaths } from '../../identity/http-paths';
import { refusalReply, writeReply } from './http-reply';
import { ACCEPTED, pairReply } from './legacy-sse.status-table';
import { PairStream, RemotePair, type PairChannel } from './legacy-sse.pair';
import { McpLogger } from '../../telemetry/mcp.logger';
import { HeldStreams } from './held-streams.service';
import { SlowReaders } from './slow-readers.service';

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
  private readonly logger = new McpLogger('McpLegacySse');
  /** The pairs open on this instance, by session id. */
  private readonly pairs = new Map<string, PairStream>();

  private readonly dispatcher: InboundDispatcher;

  constructor(
    @Inject(MCP_HTTP_SETTINGS) private readonly http: HttpSettings,
    @Inject(MCP_HTTP_PATHS) private readonly paths: McpHttpPaths,
    private readonly refusals: HttpRefusals,
    private readonly drain: HttpDrain,
    engine: McpEngine,
    @Inject(MCP_OWN_SESSIONS) private readonly sessions: McpSessionService,
    private readonly resolver: LegacySessionResolver,
    private readonly channels: SessionChannels,
    private readonly held: HeldStreams,
    private readonly slowReaders: SlowReaders,
  ) {
    this.dispatcher = new InboundDispatcher(engine);
  }

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
        failure(null, McpErrorCode.InvalidRequest, 'Not Acceptable: Accept must include text/event-stream'),
      );
      return;
    }
    const principal = principalOf(exchange.request);
    // Counted before the session is opened: a refused pair leaves nothing behind.
    if (!this.held.admit(exchange, principal)) {
      return;
    }
    const opened = await this.resolver.open(principal);
    if (!opened.ok) {
      writeReply(res, refusalReply(opened.reason, failure(null, McpErrorCode.InternalError, opened.message)));
      return;
    }
    const sessionId = opened.record.id;
    if (res.destroyed) {
      // The client left while the session was being opened.
      await this.sessions.close(sessionId);
      return;
    }
    // A new session has no stream yet: the reservation tells the other instances where it is.
    await this.channels.reserve(sessionId, 'pair');
    const stream = new SseStream(res, {}, this.slowReaders);
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
    stream.keepAliveEvery(this.http.keepAliveMs, () => {
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
      sendJson(res, 400, failure(null, McpErrorCode.InvalidRequest, 'Bad Request: sessionId query parameter required'));
      return;
    }
    const principal = principalOf(exchange.request);
    // Not an id the module made: refused before the stream claims (a store) are asked.
    const pair = isSessionId(sessionId) ? await this.pairOf(sessionId) : undefined;
    const found = pair === undefined ? undefined : await this.resolver.find(sessionId, principal);
    if (pair === undefined || found?.ok !== true) {
      // Unknown, ended, another principal's, or not an SSE pair: all alike to the sender.
      writeReply(res, refusalReply('unknown-session', failure(null, McpErrorCode.InvalidRequest, SESSION_NOT_FOUND)));
      return;
    }
    const { maxBodyBytes, maxJsonDepth } = this.http;
    const body = await readJsonBody(exchange.request, exchange.req, maxBodyBytes, maxJsonDepth);
    if (!body.ok) {
      this.refusals.refuseBody(exchange, body);
      return;
    }
    await this.resolver.refresh(found.record);
    const result = await this.dispatcher.dispatch(body.value, {
      transport: 'sse',
      era: 'legacy',
      principal,
      // The POST was answered 202 before the call runs: the call's answer goes on the stream.
      native: { request: exchange.request, response: DETACHED_RESPONSE },
      sessions: this.resolver.of(found.record),
      admits: (messages) => !this.drain.refusesWork(exchange, messages),
      beforeHandle: () => writeReply(res, ACCEPTED),
      channel: () => ({ channel: pair }),
    });
    const { reply, stream } = pairReply(result);
    writeReply(res, reply);
    if (stream !== undefined) {
      pair.send(stream);
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
}
