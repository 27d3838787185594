/**
 * The single messages of a stdio connection: requests admitted line by line to the worker pool
 * (or refused), served through the inbound dispatcher once a worker takes them; notifications
 * handed over; `notifications/cancelled`, which drops a waiting request and aborts a running
 * one; and the connection's listens, ended from the server side at shutdown.
 */
import type { McpEngine, RequestChannel, RequestFacts } from '../../protocol/engine';
import {
  McpErrorCode,
  failure,
  type RequestId,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
} from '../../protocol/messages/json-rpc';
import { decideEra } from '../../protocol/messages/request-meta';
import { inboundFacts, type FactsInput, type InboundDispatcher, type InboundResult } from '../../protocol/inbound';
import type { McpPrincipal } from '../../protocol/calls/call-context';
import type { SessionHandle } from '../../protocol/messages/session-handle';
import { SHUTTING_DOWN } from '../../shared/mcp.messages';
import { logText } from '../../protocol/bounds/log-text';
import { DUPLICATE_ID_MESSAGE, OVERLOADED_MESSAGE, type StdioBatchHost } from './stdio-batch';
import type { StdioOutput } from './stdio-output';
import type { StdioSession } from './stdio-session';
import type { RequestWork, StdioWorkers } from './stdio-workers';
import { stdioFrame } from './stdio.status-table';

/** What the requests of a connection work with. */
export interface StdioRequestsDeps {
  readonly engine: McpEngine;
  readonly dispatcher: InboundDispatcher;
  readonly workers: StdioWorkers;
  readonly session: StdioSession;
  readonly output: StdioOutput;
  readonly principal: McpPrincipal;
  /** The cancel scope of requests served before (or without) a legacy session. */
  readonly connectionId: string;
  readonly debug: (message: string) => void;
  /** Whether the client closed its input: no answer to a question can come back any more. */
  readonly inputEnded: () => boolean;
}

/** The channel of notifications, which the engine never answers on. */
const SILENT = Object.freeze({ channel: { notify: () => undefined } });

export class StdioRequests implements StdioBatchHost {
  /** Shutting down: new requests are refused, answers and cancellations still read. */
  draining = false;

  /** The channel of every request: notifications and requests to the client go to the output. */
  readonly channel: RequestChannel = {
    notify: (message) => {
      this.deps.output.notify(message);
    },
    // Once the input is closed no answer can come back: the engine fails the question at once.
    request: (message) => !this.deps.inputEnded() && this.deps.output.send(message),
    hold: () => undefined,
  };

  constructor(private readonly deps: StdioRequestsDeps) {}

  get engine(): McpEngine {
    return this.deps.engine;
  }

  get dispatcher(): InboundDispatcher {
    return this.deps.dispatcher;
  }

  get workers(): StdioWorkers {
    return this.deps.workers;
  }

  get session(): StdioSession {
    return this.deps.session;
  }

  send(message: JSONRPCMessage | readonly JSONRPCMessage[]): void {
    this.deps.output.send(message);
  }

  /** Writes what the status table says a result writes. */
  write(result: InboundResult): void {
    const frame = stdioFrame(result);
    if (frame.send !== undefined) {
      this.deps.output.send(frame.send);
    }
    if (frame.debug !== undefined) {
      this.deps.debug(frame.debug);
    }
  }

  /** What the connection knows about a message starting now; cancelled within the session if there is one. */
  private factsInput(): FactsInput {
    const { principal, connectionId } = this.deps;
    return { transport: 'stdio', principal, cancelScope: this.deps.session.handle?.id ?? connectionId };
  }

  /** The facts of a batch's requests, within the connection's session. */
  facts(session: SessionHandle): RequestFacts {
    const legacy = { session, revision: session.state.protocolVersion };
    return inboundFacts(this.factsInput(), 'legacy', { channel: this.channel }, legacy);
  }

  /** Admits a request: started, queued, or refused at once. */
  accept(message: JSONRPCRequest): void {
    const { output, workers } = this.deps;
    if (this.draining) {
      output.send(failure(message.id, McpErrorCode.InternalError, SHUTTING_DOWN));
      return;
    }
    if (workers.inflight.has(message.id)) {
      output.send(failure(message.id, McpErrorCode.InvalidRequest, DUPLICATE_ID_MESSAGE));
      return;
    }
    const era = decideEra(message.params, undefined);
    const listen = era === 'modern' && this.engine.methods.entry(message.method)?.longLived === true;
    const work: RequestWork = {
      kind: 'request',
      message,
      era,
      listen,
      state: 'queued',
      handed: false,
      cancelled: false,
    };
    const admitted = listen ? workers.listen(work) : workers.admit(work);
    if (!admitted) {
      output.send(failure(message.id, McpErrorCode.InternalError, OVERLOADED_MESSAGE));
      return;
    }
    if (!listen) {
      workers.inflight.set(message.id, work);
    }
  }

  /** Serves a request a worker took, unless it was cancelled before the engine had it. */
  async run(work: RequestWork): Promise<void> {
    try {
      const result = await this.deps.dispatcher.serve(work.message, {
        ...this.factsInput(),
        era: work.era,
        sessions: this.deps.session,
        channel: () => ({ channel: this.channel }),
        beforeHandle: () => !work.cancelled,
        onHanded: (scope) => {
          // The engine registered the request under its scope: it cancels it from now on.
          work.scope = scope;
          work.handed = true;
        },
      });
      this.write(result);
    } finally {
      this.deps.workers.inflight.delete(work.message.id);
    }
  }

  /**
   * A notification: `notifications/cancelled` is the connection's (the request may still wait
   * in its queue); the others (initialized, progress, roots/list_changed...) go to the engine,
   * which answers none of them and needs no session for them.
   */
  notification(message: JSONRPCNotification): void {
    if (message.method === 'notifications/cancelled') {
      this.cancel(message);
      return;
    }
    void this.serveNotification(message);
  }

  private async serveNotification(message: JSONRPCNotification): Promise<void> {
    try {
      await this.deps.dispatcher.serve(message, {
        ...this.factsInput(),
        sessions: this.deps.session,
        channel: () => SILENT,
      });
    } catch (error) {
      this.deps.debug(`A notification failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * `notifications/cancelled`: a queued request leaves the queue, a running one is aborted by
   * the engine; neither is answered.
   */
  private cancel(message: JSONRPCNotification): void {
    const requestId = message.params?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') {
      return;
    }
    const { workers } = this.deps;
    const work = workers.inflight.get(requestId);
    if (work === undefined) {
      this.deps.debug(`notifications/cancelled for request ${logText(requestId)}, which is not in flight`);
      return;
    }
    const reason = typeof message.params?.reason === 'string' ? message.params.reason : undefined;
    if (work.kind === 'batch') {
      if (work.handed) {
        this.abortInEngine(work.scope, requestId, reason);
      } else {
        work.cancelled.add(requestId);
        workers.inflight.delete(requestId);
      }
      return;
    }
    if (work.state === 'queued') {
      workers.inflight.delete(requestId);
      workers.dequeue(work);
      return;
    }
    if (!work.handed) {
      // Still waiting for its session: it is dropped before the engine sees it.
      work.cancelled = true;
      return;
    }
    this.abortInEngine(work.scope, requestId, reason);
    if (work.listen) {
      // The engine removed the subscription synchronously: its place is free for the next line.
      workers.unlist(work);
    }
  }

  private abortInEngine(scope: string | undefined, id: RequestId, reason: string | undefined): void {
    if (scope !== undefined) {
      this.deps.engine.cancelRequest(scope, id, reason ?? 'Cancelled by the client');
    }
  }

  /** Ends the connection's listens from the server side: each listen request is answered. */
  endListens(): void {
    this.deps.engine.subscriptions.closeFor(this.channel);
    for (const [, work] of [...this.deps.workers.inflight]) {
      if (work.kind === 'request' && work.listen && !work.handed) {
        // Not subscribed yet (waiting for nothing but the engine): it never will be.
        work.cancelled = true;
      }
    }
  }
}
