/**
 * The inbound sequence, once for every transport: classify the body; hand responses to the
 * questions waiting for them; plan a batch where the revision has batches; decide the era of a
 * message; resolve its legacy session (found, opened, or refused); build its facts; run it
 * through the engine. The outcome is a closed `InboundResult` the transport maps to its wire.
 *
 * The transport keeps what only it knows: framing, the channel of an answer, its admission of
 * work (shutdown), and its own status table.
 */
import { batchRefusedByHeader, planBatch, runBatch } from './batch';
import type { EngineLogger, EngineOutcome, McpEngine, RequestChannel } from './engine';
import { inboundFacts, type LegacyFacts } from './inbound-facts';
import type {
  InboundBinding,
  InboundResult,
  LegacyResolution,
  LegacySessionPort,
  LegacyTarget,
  RefusalReason,
} from './inbound-types';
import {
  classifyMessage,
  McpErrorCode,
  failure,
  type JSONRPCErrorResponse,
  type RequestId,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from './messages/json-rpc';
import { decideEra } from './messages/request-meta';
import { hasFeature, legacyHeaderRevision, type McpEra } from './messages/revisions';
import type { SessionHandle } from './messages/session-handle';
import { isThenable, settledAs, type Awaitable } from './messages/thenables';
import { logText } from './bounds/log-text';

export * from './inbound-types';
export { inboundFacts, sessionRevision, type LegacyFacts } from './inbound-facts';

const NOT_ADMITTED = Object.freeze({ kind: 'refused', reason: 'not-admitted' } as const);
const WITHDRAWN = Object.freeze({ kind: 'refused', reason: 'withdrawn' } as const);

/**
 * The session port of a transport without sessions (simple HTTP): a legacy message is served
 * with the revision its version header names, and answers reach no question.
 */
export const SESSIONLESS: LegacySessionPort = Object.freeze({
  resolve(target: LegacyTarget): LegacyResolution {
    const read = legacyHeaderRevision(target.versionHeader, target.supported);
    return 'error' in read ? { ok: false, reason: 'bad-version', message: read.error } : { ok: true, ...read };
  },
  current: () => undefined,
  discard: () => Promise.resolve(),
});

/** The legacy part of a message handed to the engine: its session and revision, and whether this message opened the session. */
type HandedLegacy = LegacyFacts & { readonly opened?: boolean };

/** A request's id; `null` for a notification. */
function idOf(message: JSONRPCRequest | JSONRPCNotification): RequestId | null {
  return 'id' in message ? message.id : null;
}

/**
 * The JSON-RPC error of a refusal, with the message's id: a session cap reached and a store that
 * cannot serve are the server's refusals, the rest the client's errors.
 */
function refusal(reason: RefusalReason, id: RequestId | null, message: string): InboundResult<never> {
  const code =
    reason === 'session-limit' || reason === 'session-quota' || reason === 'store-unavailable'
      ? McpErrorCode.InternalError
      : McpErrorCode.InvalidRequest;
  return { kind: 'refused', reason, error: failure(id, code, message) };
}

/** Runs inbound bodies through one engine; see the file's header for the sequence. */
export class InboundDispatcher {
  constructor(
    private readonly engine: McpEngine,
    private readonly logger?: Pick<EngineLogger, 'debug'>,
  ) {}

  /**
   * One parsed body (a message or a batch), start to end: synchronously when nothing on the way
   * waits (a modern request whose handler answers at once), a promise otherwise.
   */
  dispatch<C extends RequestChannel>(body: unknown, binding: InboundBinding<C>): Awaitable<InboundResult<C>> {
    if (Array.isArray(body)) {
      return this.dispatchBatch(body, binding);
    }
    const message = classifyMessage(body);
    if (binding.admits?.(message) === false) {
      return NOT_ADMITTED;
    }
    switch (message.kind) {
      case 'invalid':
        return {
          kind: 'invalid',
          error: failure(message.id, McpErrorCode.InvalidRequest, message.reason),
          notification: message.isNotification,
        };
      case 'response':
        binding.beforeHandle?.();
        return this.deliver([message.message], binding.sessions);
      default:
        return this.serve(message.message, binding);
    }
  }

  /**
   * Hands client answers to this server's questions in the port's current session; answers for
   * no known question are dropped without a word to the sender. Synchronous when the session is.
   */
  deliver(responses: readonly JSONRPCResponse[], sessions: LegacySessionPort): Promise<InboundResult<never>> {
    const current = sessions.current();
    return isThenable<SessionHandle | undefined>(current)
      ? current.then((session) => this.deliverTo(session, responses))
      : Promise.resolve(this.deliverTo(current, responses));
  }

  private deliverTo(session: SessionHandle | undefined, responses: readonly JSONRPCResponse[]): InboundResult<never> {
    for (const response of responses) {
      if (session === undefined || !this.engine.deliverResponse(session.id, response)) {
        this.logger?.debug(`Dropped a client response for unknown request ${logText(response.id)}`);
      }
    }
    return { kind: 'delivered', session };
  }

  /** One request or notification: its era, its legacy session, its facts, the engine. */
  serve<C extends RequestChannel>(
    message: JSONRPCRequest | JSONRPCNotification,
    binding: InboundBinding<C>,
  ): Awaitable<InboundResult<C>> {
    const era = binding.era ?? decideEra(message.params, binding.versionHeader);
    if (era === 'modern') {
      return this.handOver(message, binding, era, undefined);
    }
    const resolved = binding.sessions.resolve(this.target(idOf(message), message.method, binding));
    return isThenable<LegacyResolution>(resolved)
      ? this.serveLegacyLater(message, binding, resolved)
      : this.serveLegacy(message, binding, resolved);
  }

  /** `serveLegacy` once the session is resolved (a continuation of its own: see `Awaitable`). */
  private serveLegacyLater<C extends RequestChannel>(
    message: JSONRPCRequest | JSONRPCNotification,
    binding: InboundBinding<C>,
    resolved: PromiseLike<LegacyResolution>,
  ): Promise<InboundResult<C>> {
    return Promise.resolve(resolved).then((legacy) => this.serveLegacy(message, binding, legacy));
  }

  private serveLegacy<C extends RequestChannel>(
    message: JSONRPCRequest | JSONRPCNotification,
    binding: InboundBinding<C>,
    resolved: LegacyResolution,
  ): Awaitable<InboundResult<C>> {
    if (!resolved.ok) {
      return refusal(resolved.reason, idOf(message), resolved.message);
    }
    return this.handOver(message, binding, 'legacy', resolved);
  }

  /** Hands the message to the engine, on the channel the transport opens for it. */
  private handOver<C extends RequestChannel>(
    message: JSONRPCRequest | JSONRPCNotification,
    binding: InboundBinding<C>,
    era: McpEra,
    legacy: HandedLegacy | undefined,
  ): Awaitable<InboundResult<C>> {
    if (binding.beforeHandle?.() === false) {
      return WITHDRAWN;
    }
    const opened = binding.channel({ era, session: legacy?.session, revision: legacy?.revision });
    const facts = inboundFacts(binding, era, opened, legacy);
    const pending = this.engine.handle(facts, message);
    binding.onHanded?.(facts.cancelScope);
    const id = idOf(message);
    return isThenable<EngineOutcome>(pending)
      ? this.answeredLater(binding, id, era, legacy, opened.channel, pending)
      : this.answered(binding, id, era, legacy, opened.channel, pending);
  }

  /** `answered` once the engine's outcome settles (a continuation of its own: see `Awaitable`). */
  private answeredLater<C extends RequestChannel>(
    binding: InboundBinding<C>,
    id: RequestId | null,
    era: McpEra,
    legacy: HandedLegacy | undefined,
    channel: C,
    pending: PromiseLike<EngineOutcome>,
  ): Promise<InboundResult<C>> {
    return Promise.resolve(pending).then((outcome) => this.answered(binding, id, era, legacy, channel, outcome));
  }

  /** The result of a message the engine handled: a notification accepted, a request answered. */
  private answered<C extends RequestChannel>(
    binding: InboundBinding<C>,
    id: RequestId | null,
    era: McpEra,
    legacy: HandedLegacy | undefined,
    channel: C,
    outcome: EngineOutcome,
  ): Awaitable<InboundResult<C>> {
    const session = legacy?.session;
    if (id === null) {
      return { kind: 'accepted', era, session };
    }
    if (
      legacy?.opened === true &&
      session !== undefined &&
      outcome.type === 'response' &&
      'error' in outcome.response
    ) {
      // A failed handshake leaves no session behind.
      const answer = { kind: 'answered', era, outcome, channel, session: undefined } as const;
      return settledAs(binding.sessions.discard(session), answer);
    }
    return { kind: 'answered', era, outcome, channel, session };
  }

  /**
   * A JSON-RPC batch (2024-11-05 and 2025-03-26 only): served within the session the port
   * names, never opening one; answered as one array.
   */
  private async dispatchBatch<C extends RequestChannel>(
    elements: readonly unknown[],
    binding: InboundBinding<C>,
  ): Promise<InboundResult<C>> {
    const byHeader = batchRefusedByHeader(binding.versionHeader);
    if (byHeader !== undefined) {
      return { kind: 'refused', reason: 'batch-not-supported', error: byHeader };
    }
    const resolved = await binding.sessions.resolve(this.target(null, undefined, binding));
    if (!resolved.ok) {
      return refusal(resolved.reason, null, resolved.message);
    }
    const { session } = resolved;
    const revision = resolved.revision ?? binding.batchRevision;
    const plan = planBatch(elements, revision);
    if (plan.type === 'reject') {
      return this.rejected(plan.error, hasFeature(revision, 'batch'), session);
    }
    if (plan.type === 'responses') {
      binding.beforeHandle?.();
      return this.deliverTo(session, plan.responses);
    }
    if (binding.admits?.(plan.items) === false) {
      return NOT_ADMITTED;
    }
    binding.beforeHandle?.();
    const target = { era: 'legacy', session, revision } as const;
    const channel = binding.batchChannel?.(target) ?? binding.channel(target).channel;
    const facts = inboundFacts(binding, 'legacy', { channel }, resolved);
    const answers = await runBatch(this.engine, facts, plan.items);
    return { kind: 'batch', answers, session };
  }

  private rejected(
    error: JSONRPCErrorResponse,
    batches: boolean,
    session: SessionHandle | undefined,
  ): InboundResult<never> {
    return batches
      ? { kind: 'invalid', error, notification: false, session }
      : { kind: 'refused', reason: 'batch-not-supported', error, session };
  }

  private target(
    id: RequestId | null,
    method: string | undefined,
    binding: InboundBinding<RequestChannel>,
  ): LegacyTarget {
    return { id, method, versionHeader: binding.versionHeader, supported: this.engine.revisionsOf('legacy') };
  }
}
