/**
 * One server's OpenTelemetry: the engine's watcher (`EngineObserver`). It makes a SERVER span
 * per message, a CLIENT span per question to the client, a span per task, and records the
 * `mcp.server.*` metrics of the conventions and the module's own `nest_mcp.server.*` ones. It
 * exists only when a tracer or meter provider is there to take them (`telemetry.factory.ts`);
 * otherwise the engine has no watcher and spends nothing.
 */
import type { Context, Histogram, Link, Meter, Span, SpanContext, TextMapPropagator, Tracer } from '@opentelemetry/api';
import type { EngineObserver, ObservedQuestion, ObservedTask } from '../protocol/calls/engine-observer';
import type { EngineOutcome, RequestFacts, ResolvedRequest } from '../protocol/engine';
import type { InputRequest } from '../protocol/messages/client-requests';
import { isThenable, type Awaitable } from '../protocol/messages/thenables';
import { isJsonObject, type JSONRPCNotification, type JSONRPCRequest } from '../protocol/messages/json-rpc';
import { McpError, messageOf } from '../protocol/messages/mcp-error';
import { metaOf } from '../protocol/messages/request-meta';
import { sealedTrace } from '../protocol/messages/request-state';
import { isTerminal, type McpTaskRecord, type McpTaskStatus } from '../protocol/tasks/task-record';
import {
  ATTR,
  messageAttributes,
  metricAttributes,
  outcomeAttributes,
  TASK_STATUS_EVENT,
  TOOL_ERROR,
  transportAttributes,
  type Attributes,
  type ClientAddressSource,
} from './mcp-attributes';
import type { OpenTelemetryApi } from './open-telemetry';
import { formatTraceparent, parseTraceparent } from './traceparent';

/** The buckets the conventions give both duration histograms (and the task duration), in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** What the telemetry of one server is made of. */
export interface TelemetryParts {
  readonly api: OpenTelemetryApi;
  readonly tracer: Tracer;
  /** Absent: no meter provider, no metrics. */
  readonly meter?: Meter;
  readonly propagator: TextMapPropagator;
  readonly captureArguments: boolean;
  /** `nest_mcp.server.name` of every span and metric point: only when the application has several servers. */
  readonly serverName?: string;
  /** Where `client.address` comes from. @default 'socket' */
  readonly clientAddress?: ClientAddressSource;
  /** Whether the notifications the server sends get spans. @default false */
  readonly traceNotifications?: boolean;
}

/** What the telemetry reads of its server: the live counts it reports, and its catalog. */
export interface TelemetrySources {
  /** Modern `subscriptions/listen` streams open on this instance. */
  listenStreams(): number;
  /** Legacy standalone streams (GET, the SSE pair) open on this instance. */
  standaloneStreams(): number;
  /** Whether the server has the tool (`tools/call`) or prompt (`prompts/get`) a request names. */
  knows(method: string, name: string): boolean;
  /** Whether the server knows `method` (its engine's method table, extensions' methods included). */
  readonly knowsMethod: (method: string) => boolean;
}

/** A legacy session opened here, until it ends. */
interface OpenSession {
  readonly start: number;
  readonly attributes: Attributes;
}

/** A task whose work runs here, until it ends. */
interface LiveTask {
  status: McpTaskStatus;
  /** Its span, which the requests about it link to. */
  readonly span: SpanContext;
}

/**
 * How many ended tasks' spans are kept for the requests that come after the end (most
 * `tasks/result` and many `tasks/get` do): the oldest is forgotten first. A span context is a few
 * dozen bytes, so the bound is about 100 KB per server.
 */
export const ENDED_TASK_LINKS = 1024;

/** Seconds since a `performance.now()` reading. */
function secondsSince(start: number): number {
  return (performance.now() - start) / 1000;
}

/** The low-cardinality `error.type` of a failure that is not a JSON-RPC answer. */
function errorTypeOf(error: unknown): string {
  if (error instanceof McpError) {
    return String(error.code);
  }
  return error instanceof Error && error.name !== 'Error' ? error.name : '_OTHER';
}

/** What `recordException` takes of a thrown value: the error itself (its stack), or its message. */
function exceptionOf(error: unknown): Error | string {
  return error instanceof Error ? error : messageOf(error);
}

export class McpTelemetry implements EngineObserver {
  private readonly operationDuration: Histogram | undefined;
  private readonly sessionDuration: Histogram | undefined;
  private readonly taskDuration: Histogram | undefined;
  private readonly sessions = new Map<string, OpenSession>();
  /**
   * The live tasks watched here, by id: what the tasks counter counts, and the span each request
   * about one links to. Bounded by the tasks running here: an entry goes at its task's end.
   */
  private readonly tasks = new Map<string, LiveTask>();
  /** The spans of the last tasks that ended here (at most `ENDED_TASK_LINKS`), oldest first. */
  private readonly endedTasks = new Map<string, SpanContext>();
  private pendingQuestions = 0;
  private sources: TelemetrySources | undefined;
  /** What every live count's point carries: the server's name, when there are several. */
  private readonly countAttributes: Attributes;
  /** Present only with `traceNotifications`: the engine reads once whether it is there. */
  readonly notification?: (message: JSONRPCNotification, sessionId?: string) => JSONRPCNotification;

  constructor(private readonly parts: TelemetryParts) {
    if (parts.traceNotifications === true) {
      this.notification = (message, sessionId) => this.notified(message, sessionId);
    }
    const { meter, serverName } = parts;
    this.countAttributes = serverName === undefined ? {} : { [ATTR.serverName]: serverName };
    if (meter === undefined) {
      return;
    }
    this.operationDuration = meter.createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description: 'MCP request or notification duration as observed on the receiver',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.sessionDuration = meter.createHistogram('mcp.server.session.duration', {
      unit: 's',
      description: 'The duration of the MCP session as observed on the MCP server',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.taskDuration = meter.createHistogram('nest_mcp.server.task.duration', {
      unit: 's',
      description: 'The run time of a task whose work ran on this instance, from its creation to its end',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.liveCounts(meter);
  }

  /** Where the live counts are read and names are checked; set once the engine exists. */
  watch(sources: TelemetrySources): void {
    this.sources = sources;
  }

  message(
    facts: RequestFacts,
    message: JSONRPCRequest | JSONRPCNotification,
    handle: () => Awaitable<EngineOutcome>,
  ): Awaitable<EngineOutcome> {
    const { api, tracer, captureArguments } = this.parts;
    const start = performance.now();
    const target = messageAttributes(facts, message, this.parts.clientAddress, this.sources?.knowsMethod);
    const { attributes } = target;
    if (this.parts.serverName !== undefined) {
      attributes[ATTR.serverName] = this.parts.serverName;
    }
    // A name the server does not have comes from the client alone: kept as an attribute of the
    // span, but out of its name and the metrics, which it would flood with one series per guess.
    const unknown = target.name !== undefined && this.sources?.knows(message.method, target.name) === false;
    const spanName = unknown ? message.method : target.spanName;
    const { parent, links } = this.parentOf(message);
    const taskId = attributes[ATTR.taskId];
    if (taskId !== undefined) {
      // A task another instance ran, or one that ended long ago, has no span here: its id alone
      // says which task it is.
      const task = this.tasks.get(taskId as string)?.span ?? this.endedTasks.get(taskId as string);
      if (task !== undefined) {
        links.push({ context: task });
      }
    }
    const span = tracer.startSpan(spanName, { kind: api.SpanKind.SERVER, attributes, links }, parent);
    if (captureArguments && message.method === 'tools/call' && isJsonObject(message.params)) {
      span.setAttribute(ATTR.toolArguments, JSON.stringify(message.params.arguments ?? {}));
    }
    let pending: Awaitable<EngineOutcome>;
    try {
      pending = api.context.with(api.trace.setSpan(parent, span), handle);
    } catch (error) {
      this.failed(span, attributes, start, error, unknown);
      throw error;
    }
    if (!isThenable<EngineOutcome>(pending)) {
      // Answered synchronously: ended now, without a promise (each one costs the context
      // manager's async hooks, on top of the microtask).
      this.answered(span, facts, message, pending, attributes, start, unknown);
      return pending;
    }
    return Promise.resolve(pending).then(
      (outcome) => {
        this.answered(span, facts, message, outcome, attributes, start, unknown);
        return outcome;
      },
      (error: unknown) => {
        this.failed(span, attributes, start, error, unknown);
        throw error;
      },
    );
  }

  question(request: ResolvedRequest, question: InputRequest): ObservedQuestion {
    const { api, tracer } = this.parts;
    const attributes: Attributes = {
      [ATTR.method]: question.method,
      ...transportAttributes(request.facts, this.parts.clientAddress),
    };
    if (request.revision !== undefined) {
      attributes[ATTR.protocolVersion] = request.revision;
    }
    if (this.parts.serverName !== undefined) {
      attributes[ATTR.serverName] = this.parts.serverName;
    }
    if (request.facts.session !== undefined) {
      attributes[ATTR.sessionId] = request.facts.session.id;
    }
    const active = api.context.active();
    const span = tracer.startSpan(question.method, { kind: api.SpanKind.CLIENT, attributes }, active);
    const meta = this.metaWith(question.params, active, span);
    this.pendingQuestions += 1;
    let ended = false;
    return {
      question: { method: question.method, params: { ...question.params, _meta: meta } },
      end: (error) => {
        if (ended) {
          return;
        }
        ended = true;
        this.pendingQuestions -= 1;
        if (error !== undefined) {
          span.setAttribute(ATTR.errorType, errorTypeOf(error));
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: messageOf(error) });
        }
        span.end();
      },
    };
  }

  task(request: ResolvedRequest, record: McpTaskRecord): ObservedTask {
    const { api, tracer, serverName } = this.parts;
    const start = performance.now();
    // The call that created the task is being served: its span is the active one.
    const creatorSpan = api.trace.getSpan(api.context.active());
    creatorSpan?.setAttribute(ATTR.taskId, record.id);
    const creator = creatorSpan?.spanContext();
    const attributes: Attributes = {
      [ATTR.operation]: 'execute_tool',
      [ATTR.toolName]: record.name,
      [ATTR.taskId]: record.id,
      [ATTR.method]: request.method,
    };
    if (request.facts.session !== undefined) {
      attributes[ATTR.sessionId] = request.facts.session.id;
    }
    if (serverName !== undefined) {
      attributes[ATTR.serverName] = serverName;
    }
    // A task outlives the request that made it: its span starts a trace of its own, linked to
    // the request's, rather than stretching the request's trace for hours.
    const span = tracer.startSpan(`execute_tool ${record.name}`, {
      kind: api.SpanKind.INTERNAL,
      attributes,
      links: creator !== undefined && api.trace.isSpanContextValid(creator) ? [{ context: creator }] : [],
      root: true,
    });
    const tasks = this.tasks;
    const live: LiveTask = { status: 'working', span: span.spanContext() };
    tasks.set(record.id, live);
    span.addEvent(TASK_STATUS_EVENT, { [ATTR.taskStatus]: 'working' });
    const status = (next: McpTaskStatus, message?: string, errorType = '_OTHER'): void => {
      if (tasks.get(record.id) !== live) {
        return;
      }
      const event: Attributes = { [ATTR.taskStatus]: next };
      if (message !== undefined) {
        event[ATTR.taskStatusMessage] = message;
      }
      span.addEvent(TASK_STATUS_EVENT, event);
      if (!isTerminal(next)) {
        live.status = next;
        return;
      }
      tasks.delete(record.id);
      this.rememberEnded(record.id, live.span);
      span.setAttribute(ATTR.taskStatus, next);
      const ended: Attributes = { [ATTR.taskStatus]: next, [ATTR.toolName]: record.name };
      if (next === 'failed') {
        span.setAttribute(ATTR.errorType, errorType);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message });
        ended[ATTR.errorType] = errorType;
      }
      if (serverName !== undefined) {
        ended[ATTR.serverName] = serverName;
      }
      this.taskDuration?.record(secondsSince(start), ended);
      span.end();
    };
    return {
      run: (work) => api.context.with(api.trace.setSpan(api.context.active(), span), work),
      status,
      // A failed task says why as the request would have: its JSON-RPC code, or a tool error.
      settled: (stored) =>
        status(
          stored.status,
          stored.statusMessage,
          stored.error !== undefined
            ? String(stored.error.code)
            : stored.result?.isError === true
              ? TOOL_ERROR
              : undefined,
        ),
    };
  }

  /** Keeps an ended task's span for the requests about it that come later, within the bound. */
  private rememberEnded(taskId: string, span: SpanContext): void {
    const ended = this.endedTasks;
    if (ended.size >= ENDED_TASK_LINKS) {
      ended.delete(ended.keys().next().value!);
    }
    ended.set(taskId, span);
  }

  /**
   * A handler's unexpected failure (logged by the engine, answered with a generic error): an
   * `exception` event on the span it ran in, the request's or its task's, which the engine made
   * active. Its type, message and stack stay on the trace, never on the wire.
   */
  exception(error: unknown): void {
    this.parts.api.trace.getActiveSpan()?.recordException(exceptionOf(error));
  }

  /** The active span's `traceparent`, sealed into a round's `requestState` (see `parentOf`). */
  roundTrace(): string | undefined {
    const { api } = this.parts;
    const span = api.trace.getSpanContext(api.context.active());
    return span !== undefined && api.trace.isSpanContextValid(span) ? formatTraceparent(span) : undefined;
  }

  /**
   * A PRODUCER span per notification the server sends, its context in the notification's
   * `_meta`. PRODUCER rather than CLIENT: a notification is a one-way message that no answer
   * ends (CLIENT is for the server's questions, which wait for one), and one event's
   * notification may go to many listeners, as a message published to many consumers. It ends
   * as it is made: what happens to it on the wire is the transport's.
   */
  private notified(message: JSONRPCNotification, sessionId: string | undefined): JSONRPCNotification {
    const { api, tracer } = this.parts;
    const attributes: Attributes = { [ATTR.method]: message.method };
    const params = message.params;
    if (message.method === 'notifications/resources/updated' && typeof params?.uri === 'string') {
      attributes[ATTR.resourceUri] = params.uri;
    } else if (typeof params?.taskId === 'string') {
      attributes[ATTR.taskId] = params.taskId;
    }
    if (sessionId !== undefined) {
      attributes[ATTR.sessionId] = sessionId;
    }
    const active = api.context.active();
    const span = tracer.startSpan(message.method, { kind: api.SpanKind.PRODUCER, attributes }, active);
    const meta = this.metaWith(params, active, span);
    span.end();
    return { ...message, params: { ...params, _meta: meta } };
  }

  /** A copy of the `_meta` of `params` carrying `span`'s context, for the message the span sends. */
  private metaWith(params: JSONRPCNotification['params'], active: Context, span: Span): Record<string, unknown> {
    const { api, propagator } = this.parts;
    const meta: Record<string, unknown> = { ...metaOf(params) };
    propagator.inject(api.trace.setSpan(active, span), meta, api.defaultTextMapSetter);
    return meta;
  }

  /** A legacy session ended (here or on another instance): its duration, if it opened here. */
  sessionEnded(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (session !== undefined) {
      this.sessions.delete(sessionId);
      this.sessionDuration?.record(secondsSince(session.start), session.attributes);
    }
  }

  /**
   * The parent of a message's span: the context the client propagated in `params._meta`, the
   * HTTP request's span then linked; without one, the ambient context (the HTTP span, if the
   * platform is instrumented). The retry of a multi round-trip request continues the trace of
   * the round that asked (sealed in its `requestState` by `roundTrace`): that round is its
   * parent when the client propagated nothing (the ambient span then linked), and is linked
   * when it did (the client's trace wins).
   */
  private parentOf(message: JSONRPCRequest | JSONRPCNotification): { parent: Context; links: Link[] } {
    const { api, propagator } = this.parts;
    const ambient = api.context.active();
    const meta = metaOf(message.params);
    const remote = propagator.extract(api.ROOT_CONTEXT, meta, api.defaultTextMapGetter);
    const remoteSpan = api.trace.getSpanContext(remote);
    const round = this.roundOf(message);
    if (remoteSpan === undefined || !api.trace.isSpanContextValid(remoteSpan)) {
      // Baggage may come without a trace context: the handler still sees it.
      const baggage = api.propagation.getBaggage(remote);
      const context = baggage === undefined ? ambient : api.propagation.setBaggage(ambient, baggage);
      if (round === undefined) {
        return { parent: context, links: [] };
      }
      return { parent: api.trace.setSpanContext(context, round), links: this.linkTo(ambient) };
    }
    const links = this.linkTo(ambient);
    if (round !== undefined) {
      links.push({ context: round });
    }
    return { parent: remote, links };
  }

  /** The span of the round a retry continues, from its `requestState` (unchecked: see `sealedTrace`). */
  private roundOf(message: JSONRPCRequest | JSONRPCNotification): SpanContext | undefined {
    const params = message.params;
    if (params?.requestState === undefined) {
      return undefined;
    }
    const span = parseTraceparent(sealedTrace(params.requestState));
    return span !== undefined && this.parts.api.trace.isSpanContextValid(span) ? span : undefined;
  }

  /** A link to the span of `context`, if it has a valid one. */
  private linkTo(context: Context): Link[] {
    const { api } = this.parts;
    const span = api.trace.getSpanContext(context);
    return span !== undefined && api.trace.isSpanContextValid(span) ? [{ context: span }] : [];
  }

  private answered(
    span: Span,
    facts: RequestFacts,
    message: JSONRPCRequest | JSONRPCNotification,
    outcome: EngineOutcome,
    attributes: Attributes,
    start: number,
    unknown: boolean,
  ): void {
    const ended = outcomeAttributes(message, outcome);
    span.setAttributes(ended.attributes);
    if (ended.error !== undefined) {
      span.setStatus({ code: this.parts.api.SpanStatusCode.ERROR, message: ended.error });
    }
    if (this.parts.captureArguments && ended.result !== undefined) {
      const result = ended.result as { structuredContent?: unknown; content?: unknown };
      span.setAttribute(ATTR.toolResult, JSON.stringify(result.structuredContent ?? result.content ?? null));
    }
    span.end();
    // The outcome's attributes are all metric attributes: added to the point as they are.
    const point = Object.assign(metricAttributes(attributes, unknown), ended.attributes);
    this.operationDuration?.record(secondsSince(start), point);
    if (message.method === 'initialize' && facts.session !== undefined && ended.error === undefined) {
      this.sessions.set(facts.session.id, {
        start,
        attributes: metricAttributes({
          [ATTR.protocolVersion]: point[ATTR.protocolVersion],
          [ATTR.serverName]: point[ATTR.serverName],
          ...transportAttributes(facts, this.parts.clientAddress),
        }),
      });
    }
  }

  private failed(span: Span, attributes: Attributes, start: number, error: unknown, unknown: boolean): void {
    const errorType = errorTypeOf(error);
    span.recordException(exceptionOf(error));
    span.setAttribute(ATTR.errorType, errorType);
    span.setStatus({ code: this.parts.api.SpanStatusCode.ERROR, message: messageOf(error) });
    span.end();
    this.operationDuration?.record(
      secondsSince(start),
      metricAttributes({ ...attributes, [ATTR.errorType]: errorType }, unknown),
    );
  }

  /**
   * The live counts a team runs the service by, read only when the metrics are collected. Each is
   * an up-down counter (a sum, not a gauge): the counts of several instances add up. The names
   * are the module's own, out of the `mcp.*` namespace the conventions own.
   */
  private liveCounts(meter: Meter): void {
    const server = this.countAttributes;
    meter
      .createObservableUpDownCounter('nest_mcp.server.sessions.active', {
        unit: '{session}',
        description: 'Legacy sessions initialized on this instance and not ended',
      })
      .addCallback((result) => result.observe(this.sessions.size, server));
    meter
      .createObservableUpDownCounter('nest_mcp.server.tasks.active', {
        unit: '{task}',
        description: 'Tasks whose work runs on this instance and has not ended, by status',
      })
      .addCallback((result) => {
        const counts: Record<'working' | 'input_required', number> = { working: 0, input_required: 0 };
        for (const { status } of this.tasks.values()) {
          if (status === 'working' || status === 'input_required') {
            counts[status] += 1;
          }
        }
        for (const [status, count] of Object.entries(counts)) {
          result.observe(count, { ...server, [ATTR.taskStatus]: status });
        }
      });
    meter
      .createObservableUpDownCounter('nest_mcp.server.streams.open', {
        unit: '{stream}',
        description: 'Streams held open on this instance: modern listen streams, legacy standalone streams',
      })
      .addCallback((result) => {
        if (this.sources !== undefined) {
          result.observe(this.sources.listenStreams(), { ...server, [ATTR.streamKind]: 'listen' });
          result.observe(this.sources.standaloneStreams(), { ...server, [ATTR.streamKind]: 'standalone' });
        }
      });
    meter
      .createObservableUpDownCounter('nest_mcp.server.client_requests.pending', {
        unit: '{request}',
        description: 'Questions sent to clients (elicitation, sampling, roots) waiting for their answers',
      })
      .addCallback((result) => result.observe(this.pendingQuestions, server));
  }
}
