/**
 * JSON-RPC batches on stdio, where the connection's negotiated legacy revision has them
 * (2024-11-05, 2025-03-26): every element is admitted at once, line by line like single
 * requests, and the batch runs in one worker and is answered as one array.
 */
import type { McpEngine, RequestFacts } from '../../protocol/engine';
import {
  McpErrorCode,
  failure,
  type ClassifiedMessage,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCResponse,
} from '../../protocol/messages/json-rpc';
import { planBatch } from '../../protocol/batch';
import type { InboundDispatcher } from '../../protocol/inbound';
import type { SessionHandle } from '../../protocol/messages/session-handle';
import { SHUTTING_DOWN } from '../../shared/mcp.messages';
import type { StdioSession } from './stdio-session';
import type { BatchWork, StdioWorkers } from './stdio-workers';

export const OVERLOADED_MESSAGE = 'Server is overloaded';
export const DUPLICATE_ID_MESSAGE = 'Duplicate request id';

/** What a batch works with: the connection's pool, session and output. */
export interface StdioBatchHost {
  readonly engine: McpEngine;
  readonly dispatcher: InboundDispatcher;
  readonly workers: StdioWorkers;
  readonly session: StdioSession;
  readonly draining: boolean;
  send(message: JSONRPCMessage | readonly JSONRPCMessage[]): void;
  /** A notification of the batch, served like a single one. */
  notification(message: JSONRPCNotification): void;
  /** The facts of the batch's requests, within the connection's session. */
  facts(session: SessionHandle): RequestFacts;
}

/** Admits a batch: refused, delivered (only responses), answered at once, or handed to a worker. */
export function acceptBatch(host: StdioBatchHost, elements: readonly unknown[]): void {
  const plan = planBatch(elements, host.session.handle?.state.protocolVersion);
  if (plan.type === 'reject') {
    host.send(plan.error);
    return;
  }
  if (plan.type === 'responses') {
    void host.dispatcher.deliver(plan.responses, host.session);
    return;
  }
  const batch: BatchWork = {
    kind: 'batch',
    early: [],
    requests: [],
    state: 'queued',
    handed: false,
    cancelled: new Set(),
  };
  for (const item of plan.items) {
    acceptItem(host, batch, item);
  }
  if (batch.requests.length === 0) {
    sendAnswers(host, batch.early);
    return;
  }
  if (!host.workers.admit(batch)) {
    for (const request of batch.requests) {
      host.workers.inflight.delete(request.id);
      batch.early.push(failure(request.id, McpErrorCode.InternalError, OVERLOADED_MESSAGE));
    }
    sendAnswers(host, batch.early);
  }
}

function acceptItem(host: StdioBatchHost, batch: BatchWork, item: ClassifiedMessage): void {
  switch (item.kind) {
    case 'invalid':
      if (!item.isNotification) {
        batch.early.push(failure(item.id, McpErrorCode.InvalidRequest, item.reason));
      }
      return;
    case 'response':
      // planBatch never mixes responses with requests.
      return;
    case 'notification':
      host.notification(item.message);
      return;
    case 'request':
      if (host.draining) {
        batch.early.push(failure(item.message.id, McpErrorCode.InternalError, SHUTTING_DOWN));
        return;
      }
      if (host.workers.inflight.has(item.message.id)) {
        batch.early.push(failure(item.message.id, McpErrorCode.InvalidRequest, DUPLICATE_ID_MESSAGE));
        return;
      }
      host.workers.inflight.set(item.message.id, batch);
      batch.requests.push(item.message);
  }
}

/** Runs a batch's requests side by side; answers them, with the early answers, in one array. */
export async function runBatch(host: StdioBatchHost, batch: BatchWork): Promise<void> {
  try {
    // A batch is admitted only once a revision was negotiated, so the session is open.
    const session = host.session.handle;
    const facts = session === undefined ? undefined : host.facts(session);
    batch.scope = facts?.cancelScope;
    const outcomes = batch.requests.map((request) => {
      if (batch.cancelled.has(request.id)) {
        return undefined;
      }
      return facts === undefined
        ? Promise.resolve({
            type: 'response' as const,
            response: failure(request.id, McpErrorCode.InternalError, 'Session closed'),
          })
        : host.engine.handle(facts, request);
    });
    batch.handed = true;
    const answers = [...batch.early];
    for (const outcome of outcomes) {
      const answer = await outcome;
      if (answer?.type === 'response') {
        answers.push(answer.response);
      }
    }
    sendAnswers(host, answers);
  } finally {
    for (const request of batch.requests) {
      if (host.workers.inflight.get(request.id) === batch) {
        host.workers.inflight.delete(request.id);
      }
    }
  }
}

/** Shutdown: a queued batch's requests, which never started, are answered as refused. */
export function refuseQueuedBatch(host: StdioBatchHost, batch: BatchWork): void {
  const refusals = batch.requests
    .filter((request) => !batch.cancelled.has(request.id))
    .map((request) => {
      host.workers.inflight.delete(request.id);
      return failure(request.id, McpErrorCode.InternalError, SHUTTING_DOWN);
    });
  sendAnswers(host, [...batch.early, ...refusals]);
}

function sendAnswers(host: StdioBatchHost, answers: readonly JSONRPCResponse[]): void {
  if (answers.length > 0) {
    host.send(answers);
  }
}
