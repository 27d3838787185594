import { Inject, Injectable } from '@nestjs/common';
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
} from '../../protocol/json-rpc';
import { decideEra } from '../../protocol/request-meta';
import { headerValue } from '../../protocol/request-headers';
import { DEFAULT_LEGACY_HEADER_REVISION, legacyHeaderRevision } from '../../protocol/revisions';
import { batchRefusedByHeader, planBatch, runBatch } from '../../protocol/batch';
import { abandonment, sendEmpty, sendJson, type HttpExchange } from './http-exchange';
import { acceptsPost } from './content-negotiation';
import { readJsonBody } from './request-body';
import { HttpDrain } from '../../shutdown/http-drain';
import { HttpRefusals } from './http-refusals.service';
import { principalOf } from './mcp-http.guard';

/** Nothing rides along with a simple answer: progress and log messages have no stream and are dropped. */
const NO_STREAM: RequestChannel = { notify: () => undefined };

/**
 * The simple HTTP endpoint: one JSON-RPC message (or a batch) POSTed, one JSON answer, for both
 * eras. No sessions and no streams: legacy requests run without a session (no
 * `resources/subscribe`, no questions to the client), modern ones as on Streamable HTTP
 * (multi round-trip requests included). A call is bounded by `http.simpleCallTimeoutMs`, and a
 * client that goes away cancels it, as nobody is left to read its answer.
 */
@Injectable()
export class SimpleHttpService {
  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly refusals: HttpRefusals,
    private readonly drain: HttpDrain,
    private readonly engine: McpEngine,
  ) {}

  /** POST: one JSON-RPC message (or a batch), one JSON answer. `McpHttpGuard` has admitted it. */
  async post(exchange: HttpExchange): Promise<void> {
    if (!acceptsPost(exchange, 'json')) {
      return;
    }
    const { res, headers } = exchange;
    const { maxBodyBytes, maxJsonDepth } = this.options.http;
    const body = await readJsonBody(exchange.request, exchange.req, maxBodyBytes, maxJsonDepth);
    if (!body.ok) {
      this.refusals.refuseBody(exchange, body);
      return;
    }
    const headerVersion = headerValue(headers, 'mcp-protocol-version');
    if (Array.isArray(body.value)) {
      await this.serveBatch(exchange, body.value, headerVersion);
      return;
    }
    const message = classifyMessage(body.value);
    if (this.drain.refusesWork(exchange, message)) {
      return;
    }
    switch (message.kind) {
      case 'invalid':
        if (message.isNotification) {
          sendEmpty(res, 204);
        } else {
          sendJson(res, 400, failure(message.id, ErrorCode.InvalidRequest, message.reason));
        }
        return;
      case 'response':
        // No session, so no request of this server waits for it.
        sendEmpty(res, 202);
        return;
      default:
        await this.serveMessage(exchange, message.message, headerVersion);
    }
  }

  private async serveMessage(
    exchange: HttpExchange,
    message: JsonRpcRequest | JsonRpcNotification,
    headerVersion: string | undefined,
  ): Promise<void> {
    const { res } = exchange;
    const era = decideEra(message.params, headerVersion);
    const facts = this.facts(exchange, era, headerVersion, 'id' in message ? message.id : null);
    if (facts === undefined) {
      return;
    }
    const outcome = await this.engine.handle(facts, message);
    if (!('id' in message)) {
      sendEmpty(res, 204);
      return;
    }
    if (outcome.type === 'none') {
      // Cancelled: the client went away, or the server is shutting the call down.
      if (!res.destroyed) {
        sendEmpty(res, 204);
      }
      return;
    }
    const { status, headers } = this.refusals.statusOf(outcome.response, era);
    sendJson(res, status, outcome.response, headers);
  }

  /** The facts of a request; answers 400 and returns `undefined` for a bad legacy version header. */
  private facts(
    exchange: HttpExchange,
    era: 'legacy' | 'modern',
    headerVersion: string | undefined,
    id: JsonRpcId | null,
  ): RequestFacts | undefined {
    const base = {
      transport: 'simple-http' as const,
      principal: principalOf(exchange.request),
      cancellation: abandonment(exchange.res),
      channel: NO_STREAM,
      timeoutMs: this.options.http.simpleCallTimeoutMs,
      native: exchange,
    };
    if (era === 'modern') {
      return { ...base, era, headers: exchange.headers };
    }
    const read = legacyHeaderRevision(headerVersion, this.engine.revisionsOf('legacy'));
    if ('error' in read) {
      sendJson(exchange.res, 400, failure(id, ErrorCode.InvalidRequest, read.error));
      return undefined;
    }
    return { ...base, era, revision: read.revision };
  }

  /**
   * A batch, for the revisions that have them: the `MCP-Protocol-Version` header names the
   * revision, 2025-03-26 when absent (there is no session to remember one).
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
    const facts = this.facts(exchange, 'legacy', headerVersion, null);
    if (facts === undefined) {
      return;
    }
    const plan = planBatch(elements, facts.revision ?? DEFAULT_LEGACY_HEADER_REVISION);
    if (plan.type === 'reject') {
      sendJson(res, 400, plan.error);
      return;
    }
    if (plan.type === 'responses') {
      sendEmpty(res, 202);
      return;
    }
    if (this.drain.refusesWork(exchange, plan.items)) {
      return;
    }
    const responses = await runBatch(this.engine, facts, plan.items);
    if (responses.length === 0) {
      sendEmpty(res, 204);
    } else {
      sendJson(res, 200, responses);
    }
  }
}
