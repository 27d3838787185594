/**
 * The MCP engine: given the facts a transport gathered about one message and the message
 * itself, it returns what to answer. Every transport calls it; it knows nothing of HTTP, stdio
 * or Nest.
 *
 * The order of checks for a request is fixed here, in one place:
 *   legacy: method served by the era? → handler
 *   modern: `_meta` envelope complete? (-32602) → headers agree with the body? (-32020)
 *           → version supported? (-32022) → method served by the era? (-32601) → handler
 *           → cache hints → `resultType` and `serverInfo`.
 */
import { eraOf, hasFeature, isRevision, type Era, type Revision } from './revisions';
import {
  ErrorCode,
  failure,
  isJsonObject,
  notification,
  success,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from './json-rpc';
import { McpStoreUnavailableError } from '../errors/mcp-store-unavailable.error';
import { STORE_UNAVAILABLE } from '../mcp.messages';
import { McpError, newElicitationId } from './mcp-error';
import type { Catalog } from './catalog';
import { ANONYMOUS_PRINCIPAL, type McpCallContext, type McpPrincipal, type TransportKind } from './call-context';
import { passesLevel, type LogLevel } from './log-levels';
import type { ClientCapabilities, Implementation, CacheScope } from './mcp-types';
import { checkStandardHeaders, headerValue, type HeaderBag } from './request-headers';
import { META_KEYS, metaOf, progressTokenOf, readModernEnvelope } from './request-meta';
import type { SessionHandle } from './session-handle';
import { servesMethod, CACHEABLE_METHODS, LONG_LIVED_METHODS, SELF_TIMED_METHODS } from './method-table';
import { renderImplementation } from './render';
import { handleInitialize, handleDiscover, handleSetLevel, handlePing } from './handlers/lifecycle.handler';
import { handleToolsList, handleToolsCall } from './handlers/tools.handler';
import {
  handleResourcesList,
  handleResourcesRead,
  handleTemplatesList,
  handleSubscribe,
  handleUnsubscribe,
} from './handlers/resources.handler';
import { handlePromptsList, handlePromptsGet } from './handlers/prompts.handler';
import { handleComplete } from './handlers/completion.handler';
import { handleListen } from './handlers/subscriptions.handler';
import { SubscriptionHub } from './subscription-hub';
import { ListCache } from './list-cache';
import { CallScope, CallStoppedError, Deadlines, type CancellationSource } from './call-scope';
import { RunningCalls } from './running-calls';
import {
  capabilityError,
  invalidAnswer,
  missingCapability,
  paramsFor,
  revisionKnows,
  type AskOptions,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitParams,
  type ElicitResult,
  type InputRequest,
  type ListRootsResult,
} from './client-requests';
import { ClientRequestAbandoned, ClientRequestTable } from './client-request-table';
import { INPUT_METHODS, InputRound, readRoundInputs, type RoundInputs } from './input-round';
import { RequestStateSealer, type RoundState } from './request-state';
import {
  handleTasksCancel,
  handleTasksGet,
  handleTasksList,
  handleTasksResult,
  handleTasksUpdate,
} from './handlers/tasks.handler';
import type { TaskCall } from './task-calls';
import type { TaskRelay } from '../tasks/task-relay';
import type { McpTaskService } from '../tasks/mcp-task.service';

/** Where the notifications related to one request go (its SSE stream, stdio...). */
export interface RequestChannel {
  notify(message: JsonRpcNotification): void;
  /**
   * Marks the request long-lived (`subscriptions/listen`): its stream opens now and is kept
   * alive until the request is answered or cancelled. Absent where there is nothing to keep alive.
   */
  hold?(): void;
  /**
   * Legacy era: sends a request to the client on the same stream (elicitation, sampling,
   * roots). Returns `false` when the stream can no longer carry it. Absent where a transport has
   * no way to reach the client during a call.
   */
  request?(message: JsonRpcRequest): boolean | Promise<boolean>;
  /**
   * Legacy era, resumable streams (SEP-1699): ends the connection of the request's SSE stream
   * but not the stream; its later messages wait in the session's replay buffer for the client
   * to resume with `Last-Event-ID`. Absent where streams cannot be resumed.
   */
  closeStream?(): void;
}

/** The transport objects of a request, for handlers that run in a framework pipeline. */
export interface NativeExchange {
  readonly request?: unknown;
  readonly response?: unknown;
}

/** What a transport knows about one incoming message. */
export interface RequestFacts {
  readonly era: Era;
  readonly transport: TransportKind;
  readonly principal?: McpPrincipal;
  /** Legacy: the revision resolved from the version header or the session. */
  readonly revision?: Revision;
  /** Legacy: the session the message belongs to. */
  readonly session?: SessionHandle;
  /** HTTP only: the request headers, lower-cased, for the modern header checks. */
  readonly headers?: HeaderBag;
  /** Tells when the transport loses the request (modern: the client closed the stream); never by default. */
  readonly cancellation?: CancellationSource;
  readonly channel: RequestChannel;
  /** Scope of `notifications/cancelled` (the session or connection id); none means not cancellable. */
  readonly cancelScope?: string;
  /** The transport's own deadline for the request in ms, instead of `callTimeoutMs`; 0 disables it. */
  readonly timeoutMs?: number;
  readonly native?: NativeExchange;
}

/** What to answer to one message. */
export type EngineOutcome =
  | { readonly type: 'response'; readonly response: JsonRpcResponse }
  /** Nothing to send: a notification, or a request that was cancelled. */
  | { readonly type: 'none' };

/** The engine's logger: errors from handlers are logged here, never sent to clients. */
export interface EngineLogger {
  error(message: string, trace?: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

/** How long clients may cache a result, and who may share it (2026-07-28). */
export interface CacheHint {
  ttlMs: number;
  scope: CacheScope;
}

/** The engine's settings, resolved from the module options. */
export interface EngineOptions {
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  /** The revisions advertised and accepted, newest first. */
  readonly revisions: readonly Revision[];
  /** Page size of the list methods; 0 returns everything in one page. */
  readonly pageSize: number;
  readonly cacheHints: CacheHint;
  readonly discoverCacheHints: CacheHint;
  /** Deadline of a handler call in ms; 0 disables it. */
  readonly callTimeoutMs: number;
  /** The log level of a legacy session that never sent `logging/setLevel`. */
  readonly defaultLogLevel: LogLevel;
  /** Legacy era: how long a request to the client (elicitation, sampling, roots) waits for its answer; 0 = no limit. */
  readonly clientRequestTimeoutMs: number;
  /** Modern era: the key `requestState` is signed with (random per process when absent) and its lifetime. */
  readonly requestState: { readonly secret?: string | Buffer; readonly ttlMs: number };
  readonly logger: EngineLogger;
}

/** A request once its era and envelope are settled, as handlers see it. */
export interface ResolvedRequest {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: JsonObject;
  readonly facts: RequestFacts;
  readonly era: Era;
  readonly revision: Revision | undefined;
  readonly principal: McpPrincipal;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** The log threshold of this request; `undefined` means send no logs. */
  readonly logLevel: LogLevel | undefined;
  /** Cancellation, disconnect, session end and deadline of the request. */
  readonly scope: CallScope;
  /** A modern retry (`tools/call`, `prompts/get`, `resources/read`): its answers and state. */
  readonly inputs?: RoundInputs;
  /** The request's multi round-trip round, made by the engine when the handler first needs it. */
  round?: InputRound;
  /** A modern call that may leave its request for a task: the hand-off of its outcome. */
  relay?: TaskRelay<JsonObject, TaskCall>;
  /** The task the call runs as, once it left its request. */
  task?: TaskCall;
}

/** What the engine reaches beyond the protocol: the tasks, and the legacy sessions' streams. */
export interface EngineHooks {
  /** The task service; without it no call becomes a task and the `tasks/*` methods are not served. */
  readonly tasks?: McpTaskService;
  /**
   * Sends a message on a legacy session's standalone stream, wherever it is held; resolves
   * `false` when the session has none.
   */
  readonly sendToSession?: (sessionId: string, message: JsonRpcMessage) => boolean | Promise<boolean>;
  /** The other instances of the server, when there may be some. */
  readonly cluster?: EngineCluster;
}

/**
 * Legacy sessions served by several instances: a client's answer, or its `notifications/cancelled`,
 * may reach an instance that does not run the request it is about.
 */
export interface EngineCluster {
  /**
   * Prefix of the ids of this instance's requests to clients (ids become strings), so that the
   * instance an answer reaches knows where to send it.
   */
  readonly requestIdPrefix: string;
  /** Sends an answer to the instance whose request it answers; `false` when no instance is named by its id. */
  forwardResponse(scope: string, response: JsonRpcResponse): boolean;
  /** Tells the other instances to cancel a request of `scope` that does not run here. */
  forwardCancel(scope: string, requestId: JsonRpcId, reason: string): void;
  /**
   * Legacy: opens a `tasks/result` request's stream to a task whose work runs on another
   * instance, so that its questions reach the client; returns how to close it.
   */
  attachTaskStream(taskId: string, channel: RequestChannel): () => void;
}

type Handler = (engine: McpEngine, request: ResolvedRequest) => Promise<JsonObject>;

const HANDLERS: Readonly<Record<string, Handler>> = {
  initialize: handleInitialize,
  ping: handlePing,
  'server/discover': handleDiscover,
  'logging/setLevel': handleSetLevel,
  'tools/list': handleToolsList,
  'tools/call': handleToolsCall,
  'resources/list': handleResourcesList,
  'resources/read': handleResourcesRead,
  'resources/templates/list': handleTemplatesList,
  'resources/subscribe': handleSubscribe,
  'resources/unsubscribe': handleUnsubscribe,
  'prompts/list': handlePromptsList,
  'prompts/get': handlePromptsGet,
  'completion/complete': handleComplete,
  'subscriptions/listen': handleListen,
  'tasks/get': handleTasksGet,
  'tasks/result': handleTasksResult,
  'tasks/list': handleTasksList,
  'tasks/cancel': handleTasksCancel,
  'tasks/update': handleTasksUpdate,
};

const NOTHING_TO_SEND: Promise<EngineOutcome> = Promise.resolve({ type: 'none' });

/** How a round interrupts its request's run when the handler waits for answers the client has not given. */
const INPUT_REQUIRED = new Error('Input required');

/** Property under which the call context keeps the transport objects for pipeline wrappers. */
export const NATIVE_EXCHANGE = Symbol('nest-mcp:native-exchange');

export class McpEngine {
  /** Rendered lists, per catalog version and revision. */
  readonly lists = new ListCache();
  /** The modern `subscriptions/listen` streams open on this instance. */
  readonly subscriptions = new SubscriptionHub();
  /** Running cancellable requests, by cancel scope (session, connection) and request id. */
  private readonly inflight = new Map<string, Map<JsonRpcId, CallScope>>();
  /** Every running request, cancellable or not: what a shutdown drains. */
  readonly running = new RunningCalls();
  /** The deadline of every running request. */
  private readonly deadlines: Deadlines;
  /** The modern `_meta` stamp (`serverInfo`) rendered per revision. */
  private readonly metaByRevision = new Map<string | undefined, JsonObject>();
  /** Legacy era: requests sent to clients, waiting for their answers. */
  readonly clientRequests: ClientRequestTable;
  private readonly sealer: RequestStateSealer;
  /** The calls running as tasks in this process, by task id. */
  private readonly taskCalls = new Map<string, TaskCall>();
  readonly tasks: McpTaskService | undefined;

  private readonly revisionsByEra: Readonly<Record<Era, readonly Revision[]>>;

  constructor(
    readonly options: EngineOptions,
    readonly catalog: Catalog,
    private readonly hooks: EngineHooks = {},
  ) {
    this.tasks = hooks.tasks;
    this.clientRequests = new ClientRequestTable(hooks.cluster?.requestIdPrefix);
    this.deadlines = new Deadlines(options.callTimeoutMs);
    this.sealer = new RequestStateSealer(options.requestState.secret, options.requestState.ttlMs);
    this.revisionsByEra = {
      legacy: options.revisions.filter((revision) => eraOf(revision) === 'legacy'),
      modern: options.revisions.filter((revision) => eraOf(revision) === 'modern'),
    };
  }

  /** The advertised revisions of one era, newest first. */
  revisionsOf(era: Era): readonly Revision[] {
    return this.revisionsByEra[era];
  }

  /** Handles one request or notification. */
  handle(facts: RequestFacts, message: JsonRpcRequest | JsonRpcNotification): Promise<EngineOutcome> {
    if (!('id' in message)) {
      this.handleNotification(facts, message);
      return NOTHING_TO_SEND;
    }
    return this.handleRequest(facts, message);
  }

  /** Sends a message on a legacy session's standalone stream, wherever it is held; `false` when there is none. */
  sendToSession(sessionId: string, message: JsonRpcMessage): boolean | Promise<boolean> {
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

  /** @internal */
  rememberTaskCall(call: TaskCall): void {
    this.taskCalls.set(call.id, call);
  }

  /** @internal */
  forgetTaskCall(call: TaskCall): void {
    if (this.taskCalls.get(call.id) === call) {
      this.taskCalls.delete(call.id);
    }
  }

  /** How many requests of a scope (a session, a connection) run now. */
  runningIn(scope: string): number {
    return this.inflight.get(scope)?.size ?? 0;
  }

  /** Aborts every running request of a scope (a session that ended, a closed connection). */
  abortScope(scope: string, reason = 'Session ended'): void {
    const running = this.inflight.get(scope);
    this.inflight.delete(scope);
    running?.forEach((call) => call.abort(new McpError(ErrorCode.InternalError, reason)));
    this.clientRequests.failScope(scope, reason);
  }

  /**
   * Legacy era: delivers a JSON-RPC response a client sent for one of this server's requests,
   * within `scope` (its session). Returns `false` when nothing waits for it (dropped).
   */
  deliverResponse(scope: string, response: JsonRpcResponse, forward = true): boolean {
    if (this.clientRequests.deliver(scope, response)) {
      return true;
    }
    return forward && (this.hooks.cluster?.forwardResponse(scope, response) ?? false);
  }

  /**
   * Cancels request `requestId` of `scope` (`notifications/cancelled`) if it runs here, else
   * (with `forward`) wherever it runs. Returns whether it ran here.
   */
  cancelRequest(scope: string, requestId: JsonRpcId, reason: string, forward = true): boolean {
    const running = this.inflight.get(scope)?.get(requestId);
    if (running !== undefined) {
      running.abort(new McpError(ErrorCode.InternalError, reason));
      return true;
    }
    if (forward) {
      this.hooks.cluster?.forwardCancel(scope, requestId, reason);
    }
    return false;
  }

  private handleNotification(facts: RequestFacts, message: JsonRpcNotification): void {
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

  private handleRequest(facts: RequestFacts, message: JsonRpcRequest): Promise<EngineOutcome> {
    const params = message.params ?? {};
    let resolved: ResolvedRequest | McpError;
    try {
      resolved =
        facts.era === 'modern'
          ? this.resolveModern(facts, message, params)
          : this.resolveLegacy(facts, message, params);
    } catch (error) {
      resolved = error instanceof McpError ? error : new McpError(ErrorCode.InternalError, 'Internal error');
    }
    if (resolved instanceof McpError) {
      return Promise.resolve(this.respondError(message.id, resolved));
    }
    return this.run(resolved, message);
  }

  private resolveModern(facts: RequestFacts, message: JsonRpcRequest, params: JsonObject): ResolvedRequest | McpError {
    const envelope = readModernEnvelope(params);
    if (typeof envelope === 'string') {
      return new McpError(ErrorCode.InvalidParams, envelope);
    }
    if (facts.headers !== undefined) {
      const headerVersion = headerValue(facts.headers, 'mcp-protocol-version');
      if (headerVersion === undefined) {
        return new McpError(ErrorCode.HeaderMismatch, 'Header mismatch: MCP-Protocol-Version header is required');
      }
      if (headerVersion !== envelope.protocolVersion) {
        return new McpError(
          ErrorCode.HeaderMismatch,
          `Header mismatch: MCP-Protocol-Version header value '${headerVersion}' does not match _meta value '${envelope.protocolVersion}'`,
        );
      }
      const mismatch = checkStandardHeaders(facts.headers, message.method, params);
      if (mismatch !== undefined) {
        return new McpError(ErrorCode.HeaderMismatch, mismatch);
      }
    }
    const modern = this.revisionsOf('modern');
    if (!isRevision(envelope.protocolVersion) || !modern.includes(envelope.protocolVersion)) {
      return new McpError(
        ErrorCode.UnsupportedProtocolVersion,
        `Unsupported protocol version: ${envelope.protocolVersion}`,
        {
          supported: modern,
          requested: envelope.protocolVersion,
        },
      );
    }
    if (!servesMethod('modern', message.method, facts.transport)) {
      return new McpError(ErrorCode.MethodNotFound, `Method not found: ${message.method}`);
    }
    const principal = facts.principal ?? ANONYMOUS_PRINCIPAL;
    let inputs: RoundInputs | undefined;
    if (
      (params.inputResponses !== undefined || params.requestState !== undefined) &&
      INPUT_METHODS.has(message.method)
    ) {
      const opened = this.openRound(message.method, params, principal);
      if (opened instanceof McpError) {
        return opened;
      }
      inputs = opened;
    }
    return {
      id: message.id,
      method: message.method,
      params,
      facts,
      era: 'modern',
      revision: envelope.protocolVersion,
      principal,
      clientCapabilities: envelope.clientCapabilities,
      clientInfo: envelope.clientInfo,
      logLevel: envelope.logLevel,
      scope: new CallScope(),
      inputs,
    };
  }

  /**
   * The inputs of a multi round-trip request: its `inputResponses`, and the answers and state
   * of earlier rounds from its `requestState`. State that was not sealed here for this principal
   * and this request, or that expired, is refused (-32602) and the handler never runs.
   */
  private openRound(method: string, params: JsonObject, principal: McpPrincipal): RoundInputs | McpError {
    const sealed = params.requestState;
    let previous: RoundState | undefined;
    if (sealed !== undefined) {
      previous =
        typeof sealed === 'string'
          ? this.sealer.open(sealed, { principalId: principal.id, method, params })
          : undefined;
      if (previous === undefined) {
        this.options.logger.warn(`${method}: refused a requestState that is invalid, expired or not this request's`);
        return new McpError(ErrorCode.InvalidParams, 'Invalid requestState');
      }
    }
    return readRoundInputs(params, previous);
  }

  private resolveLegacy(facts: RequestFacts, message: JsonRpcRequest, params: JsonObject): ResolvedRequest | McpError {
    const state = facts.session?.state;
    const revision = facts.revision ?? state?.protocolVersion;
    if (!servesMethod('legacy', message.method, facts.transport, revision)) {
      return new McpError(ErrorCode.MethodNotFound, `Method not found: ${message.method}`);
    }
    return {
      id: message.id,
      method: message.method,
      params,
      facts,
      era: 'legacy',
      revision,
      principal: facts.principal ?? ANONYMOUS_PRINCIPAL,
      clientCapabilities: state?.clientCapabilities ?? {},
      clientInfo: state?.clientInfo,
      logLevel: state?.logLevel ?? this.options.defaultLogLevel,
      scope: new CallScope(),
    };
  }

  /** Runs the handler with cancellation and deadline, then finishes the result for the era. */
  private async run(request: ResolvedRequest, message: JsonRpcRequest): Promise<EngineOutcome> {
    const handler = HANDLERS[request.method];
    if (handler === undefined) {
      return this.respondError(
        message.id,
        new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`),
      );
    }
    const { scope } = request;
    if (request.facts.cancellation?.isCancelled() === true) {
      // Lost before it started (the client went away while the body was read): never run it.
      return { type: 'none' };
    }
    scope.cancelledBy(request.facts.cancellation);
    this.running.add(scope, request.method);
    const cancelScope = request.facts.cancelScope;
    let running: Map<JsonRpcId, CallScope> | undefined;
    if (cancelScope !== undefined) {
      running = this.inflight.get(cancelScope);
      if (running === undefined) {
        running = new Map();
        this.inflight.set(cancelScope, running);
      }
      // Map keys keep 1 and "1" apart, as JSON-RPC ids must be.
      running.set(request.id, scope);
    }
    if (!LONG_LIVED_METHODS.has(request.method)) {
      // A method that waits by a limit of its own is bound only by the transport's.
      const limitMs = SELF_TIMED_METHODS.has(request.method) ? (request.facts.timeoutMs ?? 0) : request.facts.timeoutMs;
      this.deadlines.watch(scope, limitMs);
    }
    try {
      let result = await scope.run(() => handler(this, request));
      if (scope.aborted && !(scope.reason instanceof CallStoppedError)) {
        // Cancelled by the client as the result came: it no longer waits for it.
        return { type: 'none' };
      }
      if (request.round !== undefined && request.round.pending.size > 0) {
        // The handler returned although questions are unanswered (it did not await them).
        result = this.endRound(request, request.round);
      }
      return this.respondResult(request, result);
    } catch (error) {
      if (error === INPUT_REQUIRED && request.round !== undefined) {
        return this.respondResult(request, this.endRound(request, request.round));
      }
      if (scope.aborted && scope.reason instanceof CallStoppedError) {
        // Stopped by the server (a deadline, a shutdown), not by the client: the client is told.
        const code = request.era === 'modern' ? ErrorCode.InternalError : ErrorCode.ServerError;
        return this.respondError(request.id, new McpError(code, scope.reason.message));
      }
      if (scope.aborted) {
        return { type: 'none' };
      }
      if (error instanceof McpError) {
        return this.respondError(request.id, error);
      }
      if (error instanceof McpStoreUnavailableError) {
        // The shared store is away: a condition to retry after, not a bug in the handler.
        this.options.logger.warn(`${request.method} (request ${String(request.id)}): ${error.message}`);
        return this.respondError(request.id, new McpError(ErrorCode.InternalError, STORE_UNAVAILABLE));
      }
      this.logFailure(request, error);
      return this.respondError(request.id, new McpError(ErrorCode.InternalError, 'Internal error'));
    } finally {
      scope.finish();
      this.deadlines.forget(scope);
      this.running.delete(scope);
      if (running !== undefined && running.get(request.id) === scope) {
        running.delete(request.id);
        if (running.size === 0 && this.inflight.get(cancelScope!) === running) {
          this.inflight.delete(cancelScope!);
        }
      }
    }
  }

  /**
   * The multi round-trip round of a modern `tools/call`, `prompts/get` or `resources/read`,
   * made on first use; `undefined` for other requests. Once the handler has asked all it can ask
   * without answers, the round interrupts the request's run: the engine answers `input_required`.
   */
  roundOf(request: ResolvedRequest): InputRound | undefined {
    if (request.round === undefined && request.era === 'modern' && INPUT_METHODS.has(request.method)) {
      request.round = new InputRound(request.inputs, () => request.scope.interrupt(INPUT_REQUIRED));
    }
    return request.round;
  }

  /**
   * Ends a round with `input_required`: every question asked so far and the sealed state of the
   * round. The handler's signal is aborted: its work is abandoned, and it runs again from the
   * start on the retry.
   */
  private endRound(request: ResolvedRequest, round: InputRound): JsonObject {
    request.scope.abandon(new McpError(ErrorCode.InternalError, 'Input required: the request ends this round'));
    // Throws when the state outgrew what a retry may bring back: better a failed call now than a
    // round the client can never complete.
    const requestState = this.sealer.seal(
      { principalId: request.principal.id, method: request.method, params: request.params },
      round.toState(),
    );
    return { resultType: 'input_required', inputRequests: round.inputRequests(), requestState };
  }

  /** Adds cache hints and, in the modern era, `resultType` and `serverInfo`. */
  private finish(request: ResolvedRequest, result: JsonObject): JsonObject {
    if (request.era !== 'modern') {
      return result;
    }
    // Handlers return objects of their own making (a handler's CallToolResult is copied when it
    // is read), so the result is completed in place.
    const finished = result;
    if (finished.resultType === undefined) {
      finished.resultType = 'complete';
    }
    if (finished.resultType === 'complete' && CACHEABLE_METHODS.has(request.method)) {
      const hint = request.method === 'server/discover' ? this.options.discoverCacheHints : this.options.cacheHints;
      if (finished.ttlMs === undefined) {
        finished.ttlMs = hint.ttlMs;
      }
      if (finished.cacheScope === undefined) {
        finished.cacheScope = hint.scope;
      }
    }
    let stamp = this.metaByRevision.get(request.revision);
    if (stamp === undefined) {
      stamp = { [META_KEYS.serverInfo]: renderImplementation(this.options.serverInfo, request.revision) };
      this.metaByRevision.set(request.revision, stamp);
    }
    // Results without a `_meta` of their own share one (it is only ever serialized).
    finished._meta = isJsonObject(finished._meta) ? { ...finished._meta, ...stamp } : stamp;
    return finished;
  }

  private respondResult(request: ResolvedRequest, result: JsonObject): EngineOutcome {
    return { type: 'response', response: success(request.id, this.finish(request, result)) };
  }

  private respondError(id: JsonRpcId, error: McpError): EngineOutcome {
    return { type: 'response', response: failure(id, error.code, error.message, error.data) };
  }

  /**
   * Logs a handler failure once, with what finds it (the method and its target, the request id,
   * the caller) and the stack; the client only sees a generic error.
   */
  logFailure(request: ResolvedRequest, error: unknown): void {
    const detail = error instanceof Error ? error.message : String(error);
    const { name, uri } = request.params;
    const target = typeof name === 'string' ? ` ${name}` : typeof uri === 'string' ? ` ${uri}` : '';
    this.options.logger.error(
      `${request.method}${target} failed (request ${String(request.id)}, principal ${request.principal.id}): ${detail}`,
      error instanceof Error ? error.stack : undefined,
    );
  }

  /**
   * Builds the context handed to a tool, resource, prompt or completion handler, with progress
   * and logging bound to the request's channel.
   */
  createCallContext(request: ResolvedRequest, name: string | undefined): McpCallContext {
    return new EngineCallContext(this, request, name);
  }

  /**
   * Legacy era: sends a request to the client on the call's stream and waits for the answer the
   * client POSTs on its session.
   */
  async askClient<T>(
    request: ResolvedRequest,
    question: InputRequest,
    timeoutMs: number | undefined,
    channel: RequestChannel = request.facts.channel,
  ): Promise<T> {
    const scope = request.facts.cancelScope;
    if (scope === undefined || channel.request === undefined) {
      throw new McpError(ErrorCode.InternalError, `${question.method} needs a session and a stream to the client`);
    }
    const id = this.clientRequests.newId();
    const answer = this.clientRequests.wait(
      scope,
      id,
      question.method,
      timeoutMs ?? this.options.clientRequestTimeoutMs,
      request.scope.signal,
    );
    const sent = await channel.request({
      jsonrpc: '2.0',
      id,
      method: question.method,
      params: paramsFor(question, request.revision),
    });
    if (!sent) {
      this.clientRequests.deliver(scope, failure(id, ErrorCode.InternalError, 'The stream to the client is closed'));
    }
    let result: JsonObject;
    try {
      result = await answer;
    } catch (error) {
      if (error instanceof ClientRequestAbandoned) {
        // The client may still be showing the question to its user: tell it to stop.
        channel.notify(notification('notifications/cancelled', { requestId: id, reason: error.message }));
      }
      throw error;
    }
    const invalid = invalidAnswer(question.method, result);
    if (invalid !== undefined) {
      throw new McpError(ErrorCode.InternalError, `The client's answer to ${question.method} is invalid: ${invalid}`);
    }
    return result as T;
  }
}

/**
 * The `McpCallContext` of one call. A class (shared methods and getters) rather than a literal
 * with closures: one is made per call.
 */
class EngineCallContext implements McpCallContext {
  readonly requestId: JsonRpcId;
  readonly method: string;
  readonly era: Era;
  readonly revision: Revision | undefined;
  readonly transport: TransportKind;
  readonly principal: McpPrincipal;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly meta: Readonly<JsonObject>;
  readonly [NATIVE_EXCHANGE]: NativeExchange | undefined;
  private lastProgress = -Infinity;
  private localState: JsonObject | undefined;

  constructor(
    private readonly engine: McpEngine,
    private readonly request: ResolvedRequest,
    readonly name: string | undefined,
  ) {
    this.requestId = request.id;
    this.method = request.method;
    this.era = request.era;
    this.revision = request.revision;
    this.transport = request.facts.transport;
    this.principal = request.principal;
    this.clientCapabilities = request.clientCapabilities;
    this.clientInfo = request.clientInfo;
    this.meta = metaOf(request.params);
    this[NATIVE_EXCHANGE] = request.facts.native;
  }

  get signal(): AbortSignal {
    return this.request.scope.signal;
  }

  get sessionId(): string | undefined {
    return this.request.facts.session?.id;
  }

  get taskId(): string | undefined {
    return this.request.task?.id;
  }

  get headers(): HeaderBag | undefined {
    return this.request.facts.headers;
  }

  get state(): JsonObject {
    return this.engine.roundOf(this.request)?.state ?? (this.localState ??= {});
  }

  elicit(params: ElicitParams, options?: AskOptions): Promise<ElicitResult> {
    let sent: ElicitParams = params;
    if (params.mode === 'url') {
      // 2025-11-25 correlates URL elicitations with notifications/elicitation/complete; the
      // modern era has no such notification and no elicitationId.
      const { elicitationId, ...rest } = params;
      sent = this.era === 'legacy' ? { ...rest, elicitationId: elicitationId ?? newElicitationId() } : rest;
    }
    return this.ask({ method: 'elicitation/create', params: sent as unknown as JsonObject }, options);
  }

  sample(params: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult> {
    return this.ask({ method: 'sampling/createMessage', params: params }, options);
  }

  listRoots(options?: AskOptions): Promise<ListRootsResult> {
    return this.ask({ method: 'roots/list', params: {} }, options);
  }

  /** One question to the client, in the way of the request's era. */
  private ask<T>(question: InputRequest, options: AskOptions | undefined): Promise<T> {
    const { request } = this;
    if (this.closed) {
      return Promise.reject(new McpError(ErrorCode.InternalError, `${question.method}: the request is over`));
    }
    if (!revisionKnows(question, request.revision)) {
      return Promise.reject(
        new McpError(ErrorCode.InternalError, `${question.method} is not available in revision ${request.revision}`),
      );
    }
    const missing = missingCapability(question, request.clientCapabilities);
    if (missing !== undefined) {
      return Promise.reject(capabilityError(question, missing));
    }
    if (request.task !== undefined) {
      return request.task.ask<T>(question, options);
    }
    if (request.era === 'legacy') {
      return this.engine.askClient<T>(request, question, options?.timeoutMs);
    }
    const round = this.engine.roundOf(request);
    if (round === undefined) {
      return Promise.reject(
        new McpError(ErrorCode.InternalError, `${request.method} cannot ask the client for input (${question.method})`),
      );
    }
    const key = round.keyFor(question, options?.key);
    const { relay } = request;
    if (relay !== undefined && !round.has(key) && !relay.claimInline()) {
      // The call left (or is leaving) its request: the question goes through its task.
      return relay.task().then((task) => task.ask<T>(question, options));
    }
    return round.ask<T>(key, question);
  }

  /**
   * Progress and log messages stop with the request: nothing after its answer or cancellation.
   * A call that became a task goes on until the task ends.
   */
  private get closed(): boolean {
    const { task, relay, scope } = this.request;
    if (task !== undefined) {
      return task.closed;
    }
    if (relay?.handedOff === true) {
      return false;
    }
    return scope.aborted || scope.finished;
  }

  /** Sends a notification of the call: on its request's channel, or through its task. */
  private emit(message: JsonRpcNotification): void {
    const { task } = this.request;
    if (task !== undefined) {
      task.notify(message);
    } else {
      this.request.facts.channel.notify(message);
    }
  }

  progress(progress: number, total?: number, text?: string): void {
    const token = progressTokenOf(this.request.params);
    // A modern task has no stream: its progress is its status message, asked for or not.
    const describesTask = this.request.task !== undefined && this.era === 'modern';
    if ((token === undefined && !describesTask) || this.closed || !Number.isFinite(progress)) {
      return;
    }
    if (progress <= this.lastProgress) {
      this.engine.options.logger.debug(
        `progress ${progress} dropped for request ${String(this.requestId)}: not above ${this.lastProgress}`,
      );
      return;
    }
    this.lastProgress = progress;
    if (describesTask) {
      this.request.task!.describe(progress, total, text);
      return;
    }
    const params: JsonObject = { progressToken: token!, progress };
    if (total !== undefined) {
      params.total = total;
    }
    if (text !== undefined && this.revision !== '2024-11-05') {
      params.message = text;
    }
    this.emit(notification('notifications/progress', params));
  }

  log(level: LogLevel, data: unknown, loggerName?: string): void {
    const threshold = this.request.logLevel;
    if (threshold === undefined || this.closed || !passesLevel(level, threshold)) {
      return;
    }
    const params: JsonObject = { level, data };
    if (loggerName !== undefined) {
      params.logger = loggerName;
    }
    this.emit(notification('notifications/message', params));
  }

  closeStream(): void {
    // Polling needs the priming event, which clients expect from 2025-11-25 on only.
    if (this.closed || !hasFeature(this.revision, 'ssePolling')) {
      return;
    }
    this.request.facts.channel.closeStream?.();
  }
}
