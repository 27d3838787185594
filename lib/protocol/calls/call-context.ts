/**
 * The per-call context a tool, resource, prompt or completion handler receives (`@McpCtx()`):
 * the class the engine makes one of per call. Its public shape is `McpCallContext`
 * (`call-context.interface.ts`), re-exported here with the principal and transport kinds.
 */
import { hasFeature, type McpEra, type McpRevision } from '../messages/revisions';
import {
  McpErrorCode,
  notification,
  type JSONObject,
  type RequestId,
  type JSONRPCNotification,
} from '../messages/json-rpc';
import { McpError, newElicitationId } from '../messages/mcp-error';
import { passesLevel, type LoggingLevel } from '../messages/log-levels';
import type { ClientCapabilities, Implementation } from '../messages/mcp-types';
import type { McpHeaderBag } from '../messages/request-headers';
import { metaOf, progressTokenOf } from '../messages/request-meta';
import {
  capabilityError,
  missingCapability,
  revisionKnows,
  type McpAskOptions,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestParams,
  type ElicitResult,
  type InputRequest,
  type ListRootsResult,
} from '../messages/client-requests';
import type { McpPrincipal } from '../bounds/principal';
import type { McpTransportKind } from './transport-contract';
import type { EngineLogger } from './engine-options';
import type { InputRound } from './input-round';
import type { McpCallContext } from './call-context.interface';
import type { ResolvedRequest } from './resolved-request';
import { logText } from '../bounds/log-text';
import { clientSupports, extensionRequired } from '../extensions/extensions';
import type { EngineObserver } from './engine-observer';

export { ANONYMOUS_PRINCIPAL, type McpPrincipal } from '../bounds/principal';
export type { McpTransportKind } from './transport-contract';
export type { McpCallContext } from './call-context.interface';

/** What a call context needs of the engine: the rounds of modern requests and the way to a legacy client. */
export interface CallContextHost {
  readonly logger: EngineLogger;
  readonly observer?: EngineObserver;
  /** Watches a notification before it is sent (`McpEngine.watchNotification`); absent when none is. */
  readonly watchNotification?: (message: JSONRPCNotification, sessionId?: string) => JSONRPCNotification;
  /** The multi round-trip round of a modern request, made on first use; `undefined` where there is none. */
  roundOf(request: ResolvedRequest): InputRound | undefined;
  /** Legacy era: sends a request to the client on the call's stream and waits for its answer. */
  askClient<T>(request: ResolvedRequest, question: InputRequest, timeoutMs: number | undefined): Promise<T>;
}

/**
 * The `McpCallContext` of one call. A class (shared methods and getters) rather than a literal
 * with closures: one is made per call. Its facts are read from the request when asked, not
 * copied at construction: most handlers never ask.
 */
export class RequestCallContext implements McpCallContext {
  /** The last progress sent; `undefined` before the first. */
  private lastProgress: number | undefined;
  private localState: JSONObject | undefined;
  private metaRead: Readonly<JSONObject> | undefined;

  constructor(
    private readonly host: CallContextHost,
    private readonly request: ResolvedRequest,
    readonly name: string | undefined,
  ) {}

  get requestId(): RequestId {
    return this.request.id;
  }

  get method(): string {
    return this.request.method;
  }

  get era(): McpEra {
    return this.request.era;
  }

  get revision(): McpRevision | undefined {
    return this.request.revision;
  }

  get transport(): McpTransportKind {
    return this.request.facts.transport;
  }

  get principal(): McpPrincipal {
    return this.request.principal;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.request.clientCapabilities;
  }

  clientSupports(id: string): boolean {
    return clientSupports(this.request.clientCapabilities, id);
  }

  requireExtension(id: string): void {
    if (!clientSupports(this.request.clientCapabilities, id)) {
      throw extensionRequired(id);
    }
  }

  get clientInfo(): Implementation | undefined {
    return this.request.clientInfo;
  }

  /** The request's `_meta`; the same object on every read. */
  get meta(): Readonly<JSONObject> {
    return (this.metaRead ??= metaOf(this.request.params));
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

  get headers(): McpHeaderBag | undefined {
    return this.request.facts.headers;
  }

  get state(): JSONObject {
    return this.host.roundOf(this.request)?.state ?? (this.localState ??= {});
  }

  elicit(params: ElicitRequestParams, options?: McpAskOptions): Promise<ElicitResult> {
    let sent: ElicitRequestParams = params;
    if (params.mode === 'url') {
      // 2025-11-25 correlates URL elicitations with notifications/elicitation/complete; the
      // modern era has no such notification and no elicitationId.
      const { elicitationId, ...rest } = params;
      sent = this.era === 'legacy' ? { ...rest, elicitationId: elicitationId ?? newElicitationId() } : rest;
    }
    return this.ask({ method: 'elicitation/create', params: sent as unknown as JSONObject }, options);
  }

  sample(params: CreateMessageRequestParams, options?: McpAskOptions): Promise<CreateMessageResult> {
    return this.ask({ method: 'sampling/createMessage', params: params }, options);
  }

  listRoots(options?: McpAskOptions): Promise<ListRootsResult> {
    return this.ask({ method: 'roots/list', params: {} }, options);
  }

  /** One question to the client, in the way of the request's era. */
  private ask<T>(question: InputRequest, options: McpAskOptions | undefined): Promise<T> {
    const { request } = this;
    if (this.closed) {
      return Promise.reject(new McpError(McpErrorCode.InternalError, `${question.method}: the request is over`));
    }
    if (!revisionKnows(question, request.revision)) {
      return Promise.reject(
        new McpError(McpErrorCode.InternalError, `${question.method} is not available in revision ${request.revision}`),
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
      return this.observed(question, (sent) => this.host.askClient<T>(request, sent, options?.timeoutMs));
    }
    const round = this.host.roundOf(request);
    if (round === undefined) {
      return Promise.reject(
        new McpError(
          McpErrorCode.InternalError,
          `${request.method} cannot ask the client for input (${question.method})`,
        ),
      );
    }
    const key = round.keyFor(question, options?.key);
    const { relay } = request;
    if (relay !== undefined && !round.has(key) && !relay.claimInline()) {
      // The call left (or is leaving) its request: the question goes through its task.
      return relay.task().then((task) => task.ask<T>(question, options));
    }
    const { observer } = this.host;
    if (observer === undefined || round.has(key)) {
      // An answered question was asked in an earlier round: nothing is sent now.
      return round.ask<T>(key, question);
    }
    // The question travels in the `input_required` answer; its answer comes with the client's
    // retry, a request of its own. Watching it ends as it is sent.
    const observed = observer.question(request, question);
    observed.end();
    return round.ask<T>(key, observed.question);
  }

  /** Sends a question the client answers on this request's exchange (legacy), watched when there is a watcher. */
  private observed<T>(question: InputRequest, send: (question: InputRequest) => Promise<T>): Promise<T> {
    const { observer } = this.host;
    if (observer === undefined) {
      return send(question);
    }
    const observed = observer.question(this.request, question);
    return send(observed.question).then(
      (answer) => {
        observed.end();
        return answer;
      },
      (error: unknown) => {
        observed.end(error);
        throw error;
      },
    );
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
  private emit(message: JSONRPCNotification): void {
    const { task, facts } = this.request;
    const watch = this.host.watchNotification;
    const sent = watch === undefined ? message : watch(message, facts.session?.id);
    if (task !== undefined) {
      task.notify(sent);
    } else {
      facts.channel.notify(sent);
    }
  }

  progress(progress: number, total?: number, text?: string): void {
    const token = progressTokenOf(this.request.params);
    // A modern task has no stream: its progress is its status message, asked for or not.
    const describesTask = this.request.task !== undefined && this.era === 'modern';
    if ((token === undefined && !describesTask) || this.closed || !Number.isFinite(progress)) {
      return;
    }
    if (this.lastProgress !== undefined && progress <= this.lastProgress) {
      this.host.logger.debug(
        `progress ${progress} dropped for request ${logText(this.requestId)}: not above ${this.lastProgress}`,
      );
      return;
    }
    this.lastProgress = progress;
    if (describesTask) {
      this.request.task!.describe(progress, total, text);
      return;
    }
    const params: JSONObject = { progressToken: token!, progress };
    if (total !== undefined) {
      params.total = total;
    }
    if (text !== undefined && this.revision !== '2024-11-05') {
      params.message = text;
    }
    this.emit(notification('notifications/progress', params));
  }

  log(level: LoggingLevel, data: unknown, loggerName?: string): void {
    const threshold = this.request.logLevel;
    if (threshold === undefined || this.closed || !passesLevel(level, threshold)) {
      return;
    }
    const params: JSONObject = { level, data };
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
