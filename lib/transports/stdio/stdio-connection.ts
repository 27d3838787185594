/**
 * One stdio connection: the lines read from its input, the bounded pool of workers that serves
 * its requests, and the writer of its output. Every protocol decision is the engine's; this
 * class only frames, admits, routes and writes.
 *
 * Admission is decided synchronously, line by line, so that its outcome does not depend on
 * timing: a request either starts, waits in the queue, or is refused ("Server is overloaded",
 * "Duplicate request id") before the next line is read.
 */
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { McpEngine, RequestChannel, RequestFacts } from '../../protocol/engine';
import {
  classifyMessage,
  ErrorCode,
  failure,
  type ClassifiedMessage,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../../protocol/json-rpc';
import { decideEra } from '../../protocol/request-meta';
import { planBatch } from '../../protocol/batch';
import { LONG_LIVED_METHODS } from '../../protocol/method-table';
import type { Era } from '../../protocol/revisions';
import type { McpPrincipal } from '../../protocol/call-context';
import type { SessionHandle } from '../../protocol/session-handle';
import { type McpSessionService, SessionLimitError } from '../../sessions/mcp-session.service';
import type { SessionChannel, SessionChannels } from '../../sessions/session-channels';
import { LISTEN_CLOSED_BY_SHUTDOWN, SHUTTING_DOWN } from '../../mcp.messages';
import { exceedsDepth } from '../http/request-body';
import { BODY_TOO_DEEP } from '../../mcp.messages';
import { StdioFrameReader } from './stdio-frames';
import { StdioOutput } from './stdio-output';

/** The connection's logger (Nest's `Logger` fits). */
export interface StdioLogger {
  error(message: string, trace?: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

/** The limits of one connection. */
export interface StdioLimits {
  readonly maxFrameBytes: number;
  readonly maxWorkers: number;
  readonly maxQueue: number;
  readonly maxSubscriptions: number;
  readonly maxPendingNotifications: number;
  readonly maxJsonDepth: number;
  /** How long the end of the connection waits for the output to drain. */
  readonly flushTimeoutMs: number;
}

/** What a connection works with. */
export interface StdioConnectionDeps {
  readonly engine: McpEngine;
  readonly sessions: McpSessionService;
  readonly channels: SessionChannels;
  readonly logger: StdioLogger;
}

export const OVERSIZE_MESSAGE = 'Request exceeds the maximum frame size';
export const OVERLOADED_MESSAGE = 'Server is overloaded';
export const DUPLICATE_ID_MESSAGE = 'Duplicate request id';
const INPUT_ENDED_REASON = 'The client closed its input';

/** A single request, from admission to its answer. */
interface RequestWork {
  readonly kind: 'request';
  readonly message: JsonRpcRequest;
  readonly era: Era;
  /** `subscriptions/listen`: holds no worker slot, counted against `maxSubscriptions`. */
  readonly listen: boolean;
  /** A listen that no longer counts against `maxSubscriptions`. */
  unlisted?: boolean;
  state: 'queued' | 'running';
  /** Handed to the engine: from then on the engine cancels it. */
  handed: boolean;
  /** Cancelled before the engine had it: it is never handed over, nor answered. */
  cancelled: boolean;
  /** The `cancelScope` it runs under. */
  scope?: string;
}

/** A legacy JSON-RPC batch: runs in one worker, answered as one array. */
interface BatchWork {
  readonly kind: 'batch';
  /** Answers known at admission (invalid elements, duplicate ids), in element order. */
  readonly early: JsonRpcResponse[];
  readonly requests: JsonRpcRequest[];
  state: 'queued' | 'running';
  handed: boolean;
  /** Requests of the batch cancelled before they were handed to the engine. */
  readonly cancelled: Set<JsonRpcId>;
  scope?: string;
}

type Work = RequestWork | BatchWork;

/** Facts of a notification passed to the engine only to reach a cancel scope. */
const SILENT_CHANNEL: RequestChannel = { notify: () => undefined };

export class StdioConnection {
  /** The cancel scope of requests served before (or without) a legacy session. */
  readonly connectionId = `mcp_${randomBytes(16).toString('hex')}`;
  private readonly output: StdioOutput;
  private readonly reader: StdioFrameReader;
  /** Requests admitted and not yet answered, by id (queued, running, listening, in a batch). */
  private readonly inflight = new Map<JsonRpcId, Work>();
  private readonly queue: Work[] = [];
  private running = 0;
  private listening = 0;
  /** Everything started and not yet settled: workers, listens. */
  private readonly tasks = new Set<Promise<void>>();
  private session: SessionHandle | undefined;
  private opening: Promise<SessionHandle> | undefined;
  private closingSession = false;
  private inputEnded = false;
  /** Shutting down: new requests are refused, answers and cancellations still read. */
  private draining = false;
  private served: Deferred | undefined;
  private ending = false;
  private detachInput: (() => void) | undefined;
  private wakeOnIdle: (() => void) | undefined;

  /** The channel of every request: notifications and requests to the client go to the output. */
  private readonly channel: RequestChannel = {
    notify: (message) => {
      this.output.notify(message);
    },
    // Once the input is closed no answer can come back: the engine fails the question at once.
    request: (message) => !this.inputEnded && this.output.send(message),
    hold: () => undefined,
  };

  /** The legacy session's stream: list changes, resource updates, elicitation completions. */
  private readonly sessionChannel: SessionChannel = {
    send: (message) => {
      this.output.notify(message);
    },
    close: () => {
      if (!this.closingSession) {
        this.deps.logger.warn(`Session ${this.session?.id ?? '?'} was closed by the server; a new one opens on demand`);
        this.session = undefined;
        this.opening = undefined;
      }
    },
  };

  constructor(
    private readonly input: Readable,
    output: Writable,
    private readonly principal: McpPrincipal,
    private readonly limits: StdioLimits,
    private readonly deps: StdioConnectionDeps,
  ) {
    this.output = new StdioOutput(output, limits.maxPendingNotifications, deps.logger);
    this.reader = new StdioFrameReader(limits.maxFrameBytes, {
      frame: (line) => this.onLine(line),
      oversize: () => this.output.send(failure(null, ErrorCode.InvalidRequest, OVERSIZE_MESSAGE)),
    });
  }

  /** Reads the input until it ends (or `stop()`), then resolves once every answer is written. */
  serve(): Promise<void> {
    if (this.served !== undefined) {
      return this.served.promise;
    }
    const served = deferred();
    this.served = served;
    const { input } = this;
    const onData = (chunk: Buffer | string): void => {
      this.reader.push(chunk);
      // A client that does not read its answers slows its own input down rather than making
      // them pile up here.
      if (this.output.isCongested && !this.inputEnded) {
        input.pause();
      }
    };
    const stopDrainWatch = this.output.onDrained(() => {
      if (!this.inputEnded) {
        input.resume();
      }
    });
    const onEnd = (): void => this.end(true);
    const onError = (error: Error): void => {
      this.deps.logger.error(`The input failed: ${error.message}`);
      this.end(true);
    };
    this.detachInput = () => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('close', onEnd);
      input.off('error', onError);
      stopDrainWatch();
      this.detachInput = undefined;
    };
    input.on('data', onData);
    input.once('end', onEnd);
    // Destroyed without an 'end' (a broken pipe): over all the same.
    input.once('close', onEnd);
    input.once('error', onError);
    if (input.readableEnded) {
      this.end(true);
    }
    return served.promise;
  }

  /**
   * Shutdown: the connection takes no new request (each is answered with an error at once), nor
   * the queued ones, which have not started (the same answer: the client may send them again),
   * and its listens end, told and answered. The input is still read: the client's answers to
   * this server's questions and its cancellations let the requests in flight finish. `stop()`
   * ends the connection.
   */
  drain(): void {
    if (this.draining || this.ending) {
      return;
    }
    this.draining = true;
    for (const work of this.queue.splice(0)) {
      this.refuseQueued(work);
    }
    this.wake();
    this.endListens(LISTEN_CLOSED_BY_SHUTDOWN);
  }

  /** Answers the requests of queued work, which never started, as refused by the shutdown. */
  private refuseQueued(work: Work): void {
    const requests =
      work.kind === 'batch' ? work.requests.filter((request) => !work.cancelled.has(request.id)) : [work.message];
    const refusals = requests.map((request) => {
      this.inflight.delete(request.id);
      return failure(request.id, ErrorCode.InternalError, SHUTTING_DOWN);
    });
    if (work.kind === 'batch') {
      this.sendBatchAnswers([...work.early, ...refusals]);
    } else {
      this.output.send(refusals[0]);
    }
  }

  /** Stops reading as if the input had ended; resolves once the connection is over. */
  stop(): Promise<void> {
    if (this.served === undefined) {
      return Promise.resolve();
    }
    this.end(false);
    return this.served.promise;
  }

  /**
   * The end of the connection, once: no more input; open listens end; questions to the client
   * fail (no answer can come); queued and running requests finish and are answered; then the
   * session closes and the output is flushed.
   */
  private end(atEof: boolean): void {
    if (this.ending) {
      return;
    }
    this.ending = true;
    const served = this.served!;
    this.shutdown(atEof).then(served.resolve, served.reject);
  }

  private async shutdown(atEof: boolean): Promise<void> {
    this.detachInput?.();
    if (atEof) {
      // A last line without its newline is still a message.
      this.reader.end();
    } else {
      this.input.pause();
    }
    this.inputEnded = true;
    // The client may still read stdout: its listens end as at shutdown, told and answered.
    this.endListens(INPUT_ENDED_REASON);
    if (this.session !== undefined) {
      this.deps.engine.clientRequests.failScope(this.session.id, INPUT_ENDED_REASON);
    }
    await this.idle();
    try {
      await this.opening?.catch(() => undefined);
      if (this.session !== undefined) {
        this.closingSession = true;
        await this.deps.sessions.close(this.session.id);
      }
    } catch (error) {
      this.deps.logger.error(`Could not close the session: ${error instanceof Error ? error.message : String(error)}`);
    }
    await this.output.flush(this.limits.flushTimeoutMs);
    this.output.release();
  }

  /** Ends the connection's listens from the server side: each is told, then answered. */
  private endListens(reason: string): void {
    this.deps.engine.subscriptions.closeFor(this.channel, reason);
    for (const [, work] of [...this.inflight]) {
      if (work.kind === 'request' && work.listen && !work.handed) {
        // Not subscribed yet (waiting for nothing but the engine): it never will be.
        work.cancelled = true;
      }
    }
  }

  /** Resolves once nothing is queued or running. */
  private async idle(): Promise<void> {
    while (this.tasks.size > 0 || this.queue.length > 0) {
      await new Promise<void>((resolve) => (this.wakeOnIdle = resolve));
    }
  }

  private onLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.output.send(failure(null, ErrorCode.ParseError, 'Parse error'));
      return;
    }
    if (exceedsDepth(value, this.limits.maxJsonDepth)) {
      this.output.send(failure(idOf(value), ErrorCode.InvalidRequest, BODY_TOO_DEEP(this.limits.maxJsonDepth)));
      return;
    }
    if (Array.isArray(value)) {
      this.acceptBatch(value);
      return;
    }
    const message = classifyMessage(value);
    switch (message.kind) {
      case 'invalid':
        if (message.isNotification) {
          this.deps.logger.debug(`Dropped an invalid notification: ${message.reason}`);
        } else {
          this.output.send(failure(message.id, ErrorCode.InvalidRequest, message.reason));
        }
        return;
      case 'response':
        this.deliver([message.message]);
        return;
      case 'notification':
        this.acceptNotification(message.message);
        return;
      case 'request':
        this.acceptRequest(message.message);
    }
  }

  /** Client answers to this server's requests (legacy elicitation, sampling, roots). */
  private deliver(responses: readonly JsonRpcResponse[]): void {
    const route = (session: SessionHandle | undefined): void => {
      for (const response of responses) {
        if (session === undefined || !this.deps.engine.deliverResponse(session.id, response)) {
          this.deps.logger.debug(`Dropped a client response for unknown request ${String(response.id)}`);
        }
      }
    };
    if (this.session === undefined && this.opening !== undefined) {
      this.opening.then(route, () => route(undefined));
      return;
    }
    route(this.session);
  }

  private acceptNotification(message: JsonRpcNotification): void {
    if (message.method === 'notifications/cancelled') {
      this.cancel(message);
      return;
    }
    // initialized, progress, roots/list_changed...: nothing the engine answers, nothing that needs a session.
    void this.deps.engine.handle(this.notificationFacts(decideEra(message.params, undefined), this.scope()), message);
  }

  private notificationFacts(era: Era, scope: string | undefined): RequestFacts {
    return { era, transport: 'stdio', principal: this.principal, channel: SILENT_CHANNEL, cancelScope: scope };
  }

  /** The cancel scope of a request starting now: the legacy session when there is one. */
  private scope(): string {
    return this.session?.id ?? this.connectionId;
  }

  /**
   * `notifications/cancelled`: a queued request leaves the queue, a running one is aborted by
   * the engine; neither is answered.
   */
  private cancel(message: JsonRpcNotification): void {
    const requestId = message.params?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') {
      return;
    }
    const work = this.inflight.get(requestId);
    if (work === undefined) {
      this.deps.logger.debug(`notifications/cancelled for request ${String(requestId)}, which is not in flight`);
      return;
    }
    const reason = typeof message.params?.reason === 'string' ? message.params.reason : undefined;
    if (work.kind === 'batch') {
      if (work.handed) {
        this.abortInEngine(work.scope, message);
      } else {
        work.cancelled.add(requestId);
        this.inflight.delete(requestId);
      }
      return;
    }
    if (work.state === 'queued') {
      this.queue.splice(this.queue.indexOf(work), 1);
      this.inflight.delete(requestId);
      this.wake();
      return;
    }
    this.cancelRunning(work, requestId, reason);
  }

  private cancelRunning(work: RequestWork, id: JsonRpcId, reason: string | undefined): void {
    if (!work.handed) {
      // Still waiting for its session: it is dropped before the engine sees it.
      work.cancelled = true;
      return;
    }
    const params = reason === undefined ? { requestId: id } : { requestId: id, reason };
    this.abortInEngine(work.scope, { jsonrpc: '2.0', method: 'notifications/cancelled', params });
    if (work.listen) {
      // The engine removed the subscription synchronously: its place is free for the next line.
      this.unlist(work);
    }
  }

  private unlist(work: RequestWork): void {
    if (!work.unlisted) {
      work.unlisted = true;
      this.listening -= 1;
    }
  }

  private abortInEngine(scope: string | undefined, message: JsonRpcNotification): void {
    void this.deps.engine.handle(this.notificationFacts('legacy', scope), message);
  }

  private acceptRequest(message: JsonRpcRequest): void {
    if (this.draining) {
      this.output.send(failure(message.id, ErrorCode.InternalError, SHUTTING_DOWN));
      return;
    }
    if (this.inflight.has(message.id)) {
      this.output.send(failure(message.id, ErrorCode.InvalidRequest, DUPLICATE_ID_MESSAGE));
      return;
    }
    const era = decideEra(message.params, undefined);
    const listen = era === 'modern' && LONG_LIVED_METHODS.has(message.method);
    const work: RequestWork = {
      kind: 'request',
      message,
      era,
      listen,
      state: 'queued',
      handed: false,
      cancelled: false,
    };
    if (listen) {
      if (this.listening >= this.limits.maxSubscriptions) {
        this.output.send(failure(message.id, ErrorCode.InternalError, OVERLOADED_MESSAGE));
        return;
      }
      this.inflight.set(message.id, work);
      this.listening += 1;
      this.start(work, () => this.unlist(work));
      return;
    }
    if (!this.admit(work)) {
      this.output.send(failure(message.id, ErrorCode.InternalError, OVERLOADED_MESSAGE));
      return;
    }
    this.inflight.set(message.id, work);
  }

  /** Starts `work` on a free worker or queues it; `false` when both are full. */
  private admit(work: Work): boolean {
    if (this.running < this.limits.maxWorkers) {
      this.running += 1;
      this.start(work, () => this.release());
      return true;
    }
    if (this.queue.length < this.limits.maxQueue) {
      this.queue.push(work);
      return true;
    }
    return false;
  }

  /** A worker is free: the next queued work takes it. */
  private release(): void {
    const next = this.queue.shift();
    if (next === undefined) {
      this.running -= 1;
      return;
    }
    this.start(next, () => this.release());
  }

  private start(work: Work, done: () => void): void {
    work.state = 'running';
    const task: Promise<void> = (work.kind === 'batch' ? this.runBatch(work) : this.runRequest(work))
      .catch((error: unknown) => {
        this.deps.logger.error(
          `A request failed outside the engine: ${error instanceof Error ? error.message : String(error)}`,
          error instanceof Error ? error.stack : undefined,
        );
        if (work.kind === 'request') {
          this.output.send(failure(work.message.id, ErrorCode.InternalError, 'Internal error'));
        }
      })
      .finally(() => {
        this.tasks.delete(task);
        done();
        this.wake();
      });
    this.tasks.add(task);
  }

  private wake(): void {
    if (this.tasks.size === 0 && this.queue.length === 0) {
      this.wakeOnIdle?.();
    }
  }

  private async runRequest(work: RequestWork): Promise<void> {
    const { message } = work;
    try {
      let facts: RequestFacts;
      if (work.era === 'modern') {
        facts = {
          era: 'modern',
          transport: 'stdio',
          principal: this.principal,
          channel: this.channel,
          cancelScope: this.scope(),
        };
      } else {
        const session = await this.legacySession(message.id);
        if (session === undefined) {
          return;
        }
        facts = this.legacyFacts(session);
      }
      if (work.cancelled) {
        return;
      }
      work.scope = facts.cancelScope;
      const outcome = this.deps.engine.handle(facts, message);
      // The engine registered the request under its scope synchronously: it cancels it from now on.
      work.handed = true;
      const answer = await outcome;
      if (answer.type === 'response') {
        this.output.send(answer.response);
      }
    } finally {
      this.inflight.delete(message.id);
    }
  }

  private legacyFacts(session: SessionHandle): RequestFacts {
    return {
      era: 'legacy',
      transport: 'stdio',
      principal: this.principal,
      revision: session.state.protocolVersion,
      session,
      channel: this.channel,
      cancelScope: session.id,
    };
  }

  /**
   * The connection's legacy session, opened by its first legacy request. Answers the request
   * itself and returns `undefined` when none can be opened.
   */
  private async legacySession(id: JsonRpcId): Promise<SessionHandle | undefined> {
    this.opening ??= this.openSession();
    try {
      return await this.opening;
    } catch (error) {
      this.opening = undefined;
      if (error instanceof SessionLimitError) {
        this.output.send(failure(id, ErrorCode.InternalError, error.message));
        return undefined;
      }
      throw error;
    }
  }

  private async openSession(): Promise<SessionHandle> {
    const record = await this.deps.sessions.open(this.principal);
    const session = this.deps.sessions.handle(record);
    // With a stream attached, McpNotifier reaches the session and the idle sweep keeps it. A
    // fresh session has no other stream: the reservation only tells the other instances.
    await this.deps.channels.reserve(record.id, 'get');
    this.deps.channels.attach(record.id, this.sessionChannel);
    this.session = session;
    return session;
  }

  /** A JSON-RPC batch: only where the negotiated legacy revision has batching. */
  private acceptBatch(elements: unknown[]): void {
    const session = this.session;
    const plan = planBatch(elements, session?.state.protocolVersion);
    if (plan.type === 'reject') {
      this.output.send(plan.error);
      return;
    }
    if (plan.type === 'responses') {
      this.deliver(plan.responses);
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
      this.acceptBatchItem(batch, item);
    }
    if (batch.requests.length === 0) {
      this.sendBatchAnswers(batch.early);
      return;
    }
    if (!this.admit(batch)) {
      for (const request of batch.requests) {
        this.inflight.delete(request.id);
        batch.early.push(failure(request.id, ErrorCode.InternalError, OVERLOADED_MESSAGE));
      }
      this.sendBatchAnswers(batch.early);
    }
  }

  private acceptBatchItem(batch: BatchWork, item: ClassifiedMessage): void {
    switch (item.kind) {
      case 'invalid':
        if (!item.isNotification) {
          batch.early.push(failure(item.id, ErrorCode.InvalidRequest, item.reason));
        }
        return;
      case 'response':
        // planBatch never mixes responses with requests.
        return;
      case 'notification':
        this.acceptNotification(item.message);
        return;
      case 'request':
        if (this.draining) {
          batch.early.push(failure(item.message.id, ErrorCode.InternalError, SHUTTING_DOWN));
          return;
        }
        if (this.inflight.has(item.message.id)) {
          batch.early.push(failure(item.message.id, ErrorCode.InvalidRequest, DUPLICATE_ID_MESSAGE));
          return;
        }
        this.inflight.set(item.message.id, batch);
        batch.requests.push(item.message);
    }
  }

  private async runBatch(batch: BatchWork): Promise<void> {
    try {
      // A batch is admitted only once a revision was negotiated, so the session is open.
      const session = this.session;
      const facts: RequestFacts | undefined = session === undefined ? undefined : this.legacyFacts(session);
      batch.scope = facts?.cancelScope;
      const outcomes = batch.requests.map((request) => {
        if (batch.cancelled.has(request.id)) {
          return undefined;
        }
        return facts === undefined
          ? Promise.resolve({
              type: 'response' as const,
              response: failure(request.id, ErrorCode.InternalError, 'Session closed'),
            })
          : this.deps.engine.handle(facts, request);
      });
      batch.handed = true;
      const answers = [...batch.early];
      for (const outcome of outcomes) {
        const answer = await outcome;
        if (answer?.type === 'response') {
          answers.push(answer.response);
        }
      }
      this.sendBatchAnswers(answers);
    } finally {
      for (const request of batch.requests) {
        if (this.inflight.get(request.id) === batch) {
          this.inflight.delete(request.id);
        }
      }
    }
  }

  private sendBatchAnswers(answers: JsonRpcResponse[]): void {
    if (answers.length > 0) {
      this.output.send(answers);
    }
  }
}

/** The id of a decoded message, when it has a usable one. */
function idOf(value: unknown): JsonRpcId | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return null;
  }
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}
