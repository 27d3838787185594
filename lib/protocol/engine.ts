/**
 * The MCP engine: given the facts a transport gathered about one message and the message
 * itself, it returns what to answer. Every transport calls it; it knows nothing of HTTP, stdio
 * or Nest.
 *
 * A facade: a request goes through the resolver (the check ladder, `request-resolver.ts`), its
 * handler from the method table (`methods.ts`) runs within its call scope (`inflight-requests.ts`:
 * cancellation, deadline, shutdown), and the result finisher (`result-finisher.ts`) completes
 * the answer: cache hints, then `resultType` and `serverInfo`. The call context, the legacy
 * client requests, the multi round-trip rounds and the task calls each live in a file of their own.
 */
import type { McpEra, McpRevision } from './messages/revisions';
import {
  McpErrorCode,
  type JSONObject,
  type RequestId,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from './messages/json-rpc';
import { McpError } from './messages/mcp-error';
import type { Catalog } from './calls/catalog';
import { RequestCallContext, type CallContextHost, type McpCallContext } from './calls/call-context';
import type { InputRequest } from './messages/client-requests';
import { ClientRequestTable } from './calls/client-request-table';
import { ClientRequester } from './calls/client-requester';
import { QuestionLimit } from './bounds/question-limit';
import type { EngineOptions } from './calls/engine-options';
import type { HandlerContext } from './handlers/handler-context';
import { InflightRequests } from './inflight-requests';
import type { InputRound } from './calls/input-round';
import { ListCache } from './calls/list-cache';
import { MethodTable, type MethodGate } from './methods';
import { extensionMethodEntries } from './extension-methods';
import { RequestResolver } from './request-resolver';
import type { ResolvedRequest } from './calls/resolved-request';
import { logFailure, NO_OUTCOME, ResultFinisher } from './result-finisher';
import { RoundTrips } from './round-trips';
import { SubscriptionHub } from './calls/subscription-hub';
import { CallStoppedError } from './calls/call-scope';
import { TaskCalls, type TaskCall } from './task-calls';
import type { TaskPort } from './tasks/task-port';
import { TASKS_EXTENSION } from './tasks/task-mode';
import { ExtensionTable } from './extensions/extensions';
import { APPS_EXTENSION, isUiResource } from './apps/apps';
import { skillsExtension } from './skills/skill-entry';
import type { EngineHooks, EngineOutcome, RequestChannel, RequestFacts } from './calls/transport-contract';
import type { EngineObserver } from './calls/engine-observer';
import { isThenable, type Awaitable } from './messages/thenables';

export type {
  EngineCluster,
  EngineHooks,
  EngineOutcome,
  McpNativeExchange,
  RequestChannel,
  RequestFacts,
} from './calls/transport-contract';
export type { CacheHint, EngineLogger, EngineOptions } from './calls/engine-options';
export type { EngineObserver, ObservedQuestion, ObservedTask } from './calls/engine-observer';
export type { ResolvedRequest } from './calls/resolved-request';

export class McpEngine {
  /** Rendered lists, per catalog version and revision. */
  readonly lists = new ListCache();
  /** The modern `subscriptions/listen` streams open on this instance. */
  readonly subscriptions = new SubscriptionHub();
  /** Every running request, cancellable or not: what a shutdown drains. */
  readonly running: InflightRequests;
  /** Legacy era: requests sent to clients, waiting for their answers. */
  readonly clientRequests: ClientRequestTable;
  readonly tasks: TaskPort | undefined;
  /**
   * The methods this engine serves: the built-in ones and those its extensions add, joined at
   * construction. Transports and the observer ask it too (long-lived? known?).
   */
  readonly methods: MethodTable;
  private readonly requester: ClientRequester;
  private readonly rounds: RoundTrips;
  private readonly resolver: RequestResolver;
  private readonly finisher: ResultFinisher;
  /** The calls running as tasks in this process. */
  private readonly taskCalls: TaskCalls;
  /** What handlers see of the engine. */
  private readonly handlers: HandlerContext;
  private readonly callHost: CallContextHost;
  /**
   * How the server's notifications are watched before they are sent (`EngineObserver.notification`);
   * `undefined`, decided here once, when they are not: senders then only check this property.
   */
  readonly watchNotification: ((message: JSONRPCNotification, sessionId?: string) => JSONRPCNotification) | undefined;

  constructor(
    readonly options: EngineOptions,
    readonly catalog: Catalog,
    private readonly hooks: EngineHooks = {},
    /** What watches the engine's work (telemetry); without one nothing is watched, and nothing spent on it. */
    private readonly observer?: EngineObserver,
  ) {
    this.tasks = hooks.tasks;
    const { skills } = hooks;
    const extensions = [
      ...(this.tasks === undefined ? [] : [TASKS_EXTENSION]),
      ...(skills === undefined ? [] : [skillsExtension(skills.directoryRead)]),
      ...(options.extensions ?? []),
    ];
    const gates = new Set<MethodGate>(
      skills === undefined ? [] : skills.directoryRead ? ['skills', 'directoryRead'] : ['skills'],
    );
    this.methods = new MethodTable(extensionMethodEntries(extensions, options.extensionMethods ?? []), gates);
    this.running = new InflightRequests(options.callTimeoutMs, this.methods);
    this.clientRequests = new ClientRequestTable(hooks.cluster?.requestIdPrefix);
    const questions = new QuestionLimit(options.maxPendingQuestions, options.logger);
    this.requester = new ClientRequester(this.clientRequests, options.clientRequestTimeoutMs, questions);
    this.rounds = new RoundTrips(
      options.requestState,
      options.logger,
      this.methods,
      observer?.roundTrace === undefined ? undefined : () => observer.roundTrace?.(),
    );
    this.watchNotification =
      observer?.notification === undefined
        ? undefined
        : (message, sessionId) => observer.notification!(message, sessionId);
    this.resolver = new RequestResolver(options.revisions, options.defaultLogLevel, this.rounds, this.methods);
    this.finisher = new ResultFinisher(options, this.methods, (request, error) => this.logFailure(request, error));
    this.taskCalls = new TaskCalls({
      logger: options.logger,
      observer,
      questions,
      askClient: (request, question, timeoutMs, channel) => this.askClient(request, question, timeoutMs, channel),
      isWaiting: (scope, id) => this.clientRequests.isWaiting(scope, id),
      sendToSession: (sessionId, message) => this.sendToSession(sessionId, message),
      logFailure: (request, error) => this.logFailure(request, error),
    });
    this.callHost = {
      logger: options.logger,
      observer,
      watchNotification: this.watchNotification,
      roundOf: (request) => this.rounds.roundOf(request),
      askClient: (request, question, timeoutMs) => this.askClient(request, question, timeoutMs),
    };
    this.handlers = {
      catalog,
      options,
      lists: this.lists,
      subscriptions: this.subscriptions,
      tasks: this.tasks,
      taskCalls: this.taskCalls,
      extensions: new ExtensionTable(extensions, [
        {
          extension: APPS_EXTENSION,
          // Views may be registered at runtime: asked per catalog version, not once.
          when: () => this.lists.memo('has views', catalog.version, () => catalog.listResources().some(isUiResource)),
        },
      ]),
      skills,
      revisionsOf: (era) => this.revisionsOf(era),
      servesMethod: (era, method, transport) => this.methods.serves(era, method, transport),
      createCallContext: (request, name) => this.createCallContext(request, name),
      logFailure: (request, error) => this.logFailure(request, error),
      attachTaskStream: (taskId, channel) => this.attachTaskStream(taskId, channel),
    };
  }

  /** The advertised revisions of one era, newest first. */
  revisionsOf(era: McpEra): readonly McpRevision[] {
    return this.resolver.revisionsOf(era);
  }

  /**
   * Handles one request or notification: its outcome, synchronously when its handler answered
   * synchronously (a promise of it otherwise), with or without an observer.
   */
  handle(facts: RequestFacts, message: JSONRPCRequest | JSONRPCNotification): Awaitable<EngineOutcome> {
    const { observer } = this;
    return observer === undefined ? this.handleMessage(facts, message) : this.handleObserved(observer, facts, message);
  }

  /** `handleMessage` under the observer (a function of its own for its closure: see `Awaitable`). */
  private handleObserved(
    observer: EngineObserver,
    facts: RequestFacts,
    message: JSONRPCRequest | JSONRPCNotification,
  ): Awaitable<EngineOutcome> {
    return observer.message(facts, message, () => this.handleMessage(facts, message));
  }

  private handleMessage(facts: RequestFacts, message: JSONRPCRequest | JSONRPCNotification): Awaitable<EngineOutcome> {
    if (!('id' in message)) {
      this.handleNotification(facts, message);
      return NO_OUTCOME;
    }
    return this.handleRequest(facts, message);
  }

  /** Sends a message on a legacy session's standalone stream, wherever it is held; `false` when there is none. */
  sendToSession(sessionId: string, message: JSONRPCMessage): boolean | Promise<boolean> {
    return this.hooks.sendToSession?.(sessionId, message) ?? false;
  }

  /** The call running as task `taskId` in this process, if any. */
  taskCall(taskId: string): TaskCall | undefined {
    return this.taskCalls.get(taskId);
  }

  /**
   * Legacy: opens a `tasks/result` request's stream to the messages of task `taskId` (its
   * questions, progress and logs), wherever its work runs; returns how to close it.
   */
  attachTaskStream(taskId: string, channel: RequestChannel): () => void {
    return (
      this.taskCalls.get(taskId)?.attach(channel) ??
      this.hooks.cluster?.attachTaskStream(taskId, channel) ??
      (() => undefined)
    );
  }

  /** How many requests of a scope (a session, a connection) run now. */
  runningIn(scope: string): number {
    return this.running.runningIn(scope);
  }

  /** Aborts every running request of a scope (a session that ended, a closed connection). */
  abortScope(scope: string, reason = 'Session ended'): void {
    this.running.abortScope(scope, new McpError(McpErrorCode.InternalError, reason));
    this.clientRequests.failScope(scope, reason);
  }

  /**
   * Legacy era: delivers a JSON-RPC response a client sent for one of this server's requests,
   * within `scope` (its session). Returns `false` when nothing waits for it (dropped).
   */
  deliverResponse(scope: string, response: JSONRPCResponse, forward = true): boolean {
    if (this.clientRequests.deliver(scope, response)) {
      return true;
    }
    return forward && (this.hooks.cluster?.forwardResponse(scope, response) ?? false);
  }

  /**
   * Cancels request `requestId` of `scope` (`notifications/cancelled`) if it runs here, else
   * (with `forward`) wherever it runs. Returns whether it ran here.
   */
  cancelRequest(scope: string, requestId: RequestId, reason: string, forward = true): boolean {
    const running = this.running.find(scope, requestId);
    if (running !== undefined) {
      running.abort(new McpError(McpErrorCode.InternalError, reason));
      return true;
    }
    if (forward) {
      this.hooks.cluster?.forwardCancel(scope, requestId, reason);
    }
    return false;
  }

  /** The multi round-trip round of a modern `tools/call`, `prompts/get` or `resources/read`, made on first use. */
  roundOf(request: ResolvedRequest): InputRound | undefined {
    return this.rounds.roundOf(request);
  }

  /**
   * Logs a handler failure once, with what finds it, and hands it to the observer within the
   * observation of its task, if the call runs as one (the work of an escalated call still runs
   * in its request's context, whose span ended with the hand-off); the client only sees a
   * generic error.
   */
  logFailure(request: ResolvedRequest, error: unknown): void {
    logFailure(this.options.logger, request, error);
    const observer = this.observer;
    if (observer?.exception !== undefined) {
      const { task } = request;
      if (task === undefined) {
        observer.exception(error);
      } else {
        task.run(() => observer.exception!(error));
      }
    }
  }

  /** The context handed to a tool, resource, prompt or completion handler, bound to the request's channel. */
  createCallContext(request: ResolvedRequest, name: string | undefined): McpCallContext {
    return new RequestCallContext(this.callHost, request, name);
  }

  /** Legacy era: sends a request to the client on the call's stream and waits for the answer. */
  askClient<T>(
    request: ResolvedRequest,
    question: InputRequest,
    timeoutMs: number | undefined,
    channel: RequestChannel = request.facts.channel,
  ): Promise<T> {
    return this.requester.ask<T>(request, question, timeoutMs, channel);
  }

  private handleNotification(facts: RequestFacts, message: JSONRPCNotification): void {
    if (message.method === 'notifications/cancelled' && facts.cancelScope !== undefined) {
      const requestId = message.params?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') {
        const reason = typeof message.params?.reason === 'string' ? message.params.reason : 'Cancelled by the client';
        this.cancelRequest(facts.cancelScope, requestId, reason);
      }
    }
    // notifications/initialized, progress, roots/list_changed and unknown notifications need
    // nothing from the server; notifications are never answered.
  }

  private handleRequest(facts: RequestFacts, message: JSONRPCRequest): Awaitable<EngineOutcome> {
    let resolved: ResolvedRequest | McpError;
    try {
      resolved = this.resolver.resolve(facts, message);
    } catch (error) {
      resolved = error instanceof McpError ? error : new McpError(McpErrorCode.InternalError, 'Internal error');
    }
    if (resolved instanceof McpError) {
      return this.finisher.error(message.id, resolved);
    }
    return this.run(resolved);
  }

  /**
   * Runs the handler with cancellation and deadline, then finishes the result for the era. A
   * handler that answers synchronously is finished synchronously: no promise, no turn of the
   * microtask queue.
   */
  private run(request: ResolvedRequest): Awaitable<EngineOutcome> {
    // The resolver let only served methods through: every one has its handler in the table.
    const { handler } = this.methods.entry(request.method)!;
    const { scope } = request;
    if (request.facts.cancellation?.isCancelled() === true) {
      // Lost before it started (the client went away while the body was read): never run it.
      return NO_OUTCOME;
    }
    scope.cancelledBy(request.facts.cancellation);
    this.running.track(request);
    let result: Awaitable<JSONObject>;
    try {
      result = scope.run(handler, this.handlers, request);
    } catch (error) {
      return this.failed(request, error);
    }
    return isThenable<JSONObject>(result) ? this.completedLater(request, result) : this.completed(request, result);
  }

  /** `completed` or `failed` once the handler settles (a continuation of its own: see `Awaitable`). */
  private completedLater(request: ResolvedRequest, pending: PromiseLike<JSONObject>): Promise<EngineOutcome> {
    return Promise.resolve(pending).then(
      (value) => this.completed(request, value),
      (error: unknown) => this.failed(request, error),
    );
  }

  /** The outcome of a handler that returned; the request is over either way. */
  private completed(request: ResolvedRequest, result: JSONObject): EngineOutcome {
    const { scope } = request;
    try {
      if (scope.aborted && !(scope.reason instanceof CallStoppedError)) {
        // Cancelled by the client as the result came: it no longer waits for it.
        return NO_OUTCOME;
      }
      if (this.rounds.unanswered(request)) {
        // The handler returned although questions are unanswered (it did not await them).
        return this.finisher.result(request, this.rounds.end(request));
      }
      return this.finisher.result(request, result);
    } catch (error) {
      return this.failure(request, error);
    } finally {
      scope.finish();
      this.running.untrack(request);
    }
  }

  /** The outcome of a handler that threw (or rejected); the request is over either way. */
  private failed(request: ResolvedRequest, error: unknown): EngineOutcome {
    try {
      return this.failure(request, error);
    } finally {
      request.scope.finish();
      this.running.untrack(request);
    }
  }

  private failure(request: ResolvedRequest, error: unknown): EngineOutcome {
    if (this.rounds.interrupted(request, error)) {
      return this.finisher.result(request, this.rounds.end(request));
    }
    return this.finisher.failure(request, error);
  }
}
