/**
 * One server's OpenTelemetry: the engine's watcher (`EngineObserver`). It makes a SERVER span
 * per message, a CLIENT span per question to the client, a span per task, and records the
 * `mcp.server.*` metrics. It exists only when a tracer or meter provider is there to take them
 * (`telemetry.factory.ts`); otherwise the engine has no watcher and spends nothing.
 */
import type { Context, Histogram, Link, Meter, Span, SpanContext, TextMapPropagator, Tracer } from '@opentelemetry/api';
import type { EngineObserver, ObservedQuestion, ObservedTask } from '../protocol/calls/engine-observer';
import type { EngineOutcome, RequestFacts, ResolvedRequest } from '../protocol/engine';
import type { InputRequest } from '../protocol/messages/client-requests';
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
  TOOL_ERROR,
  transportAttributes,
  type Attributes,
  type ClientAddressSource,
} from './mcp-attributes';
import type { OpenTelemetryApi } from './open-telemetry';
import { formatTraceparent, parseTraceparent } from './traceparent';

/** The buckets the conventions give both duration histograms, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** What the telemetry of one server is made of. */
export interface TelemetryParts {
  readonly api: OpenTelemetryApi;
  readonly tracer: Tracer;
  /** Absent: no meter provider, no metrics. */
  readonly meter?: Meter;
  readonly propagator: TextMapPropagator;
  readonly captureArguments: boolean;
  /** Where `client.address` comes from. @default 'socket' */
  readonly clientAddress?: ClientAddressSource;
  /** Whether the notifications the server sends get spans. @default false */
  readonly traceNotifications?: boolean;
}

/** What the telemetry reads of its server: the counts the gauges report, and its catalog. */
export interface TelemetrySources {
  /** Modern `subscriptions/listen` streams open on this instance. */
  listenStreams(): number;
  /** Legacy standalone streams (GET, the SSE pair) open on this instance. */
  standaloneStreams(): number;
  /** Whether the server has the tool (`tools/call`) or prompt (`prompts/get`) a request names. */
  knows(method: string, name: string): boolean;
}

/** A legacy session opened here, until it ends. */
interface OpenSession {
  readonly start: number;
  readonly attributes: Attributes;
}

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

export class McpTelemetry implements EngineObserver {
  private readonly operationDuration: Histogram | undefined;
  private readonly sessionDuration: Histogram | undefined;
  private readonly sessions = new Map<string, OpenSession>();
  /** The live tasks watched here, by id: what the task gauge counts. */
  private readonly tasks = new Map<string, McpTaskStatus>();
  private pendingQuestions = 0;
  private sources: TelemetrySources | undefined;
  /** Present only with `traceNotifications`: the engine reads once whether it is there. */
  readonly notification?: (message: JSONRPCNotification, sessionId?: string) => JSONRPCNotification;

  constructor(private readonly parts: TelemetryParts) {
    if (parts.traceNotifications === true) {
      this.notification = (message, sessionId) => this.notified(message, sessionId);
    }
    const { meter } = parts;
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
    this.gauges(meter);
  }

  /** Where the gauges read their counts and names are checked; set once the engine exists. */
  watch(sources: TelemetrySources): void {
    this.sources = sources;
  }

  message(
    facts: RequestFacts,
    message: JSONRPCRequest | JSONRPCNotification,
    handle: () => Promise<EngineOutcome>,
  ): Promise<EngineOutcome> {
    const { api, tracer, captureArguments } = this.parts;
    const start = performance.now();
    const target = messageAttributes(facts, message, this.parts.clientAddress);
    const { attributes } = target;
    // A name the server does not have comes from the client alone: kept as an attribute of the
    // span, but out of its name and the metrics, which it would flood with one series per guess.
    const unknown = target.name !== undefined && this.sources?.knows(message.method, target.name) === false;
    const spanName = unknown ? message.method : target.spanName;
    const { parent, links } = this.parentOf(message);
    const span = tracer.startSpan(spanName, { kind: api.SpanKind.SERVER, attributes, links }, parent);
    if (captureArguments && message.method === 'tools/call' && isJsonObject(message.params)) {
      span.setAttribute(ATTR.toolArguments, JSON.stringify(message.params.arguments ?? {}));
    }
    let pending: Promise<EngineOutcome>;
    try {
      pending = api.context.with(api.trace.setSpan(parent, span), handle);
    } catch (error) {
      this.failed(span, attributes, start, error, unknown);
      throw error;
    }
    return pending.then(
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
    const { api, tracer, propagator } = this.parts;
    const attributes: Attributes = {
      [ATTR.method]: question.method,
      ...transportAttributes(request.facts, this.parts.clientAddress),
    };
    if (request.revision !== undefined) {
      attributes[ATTR.protocolVersion] = request.revision;
    }
    if (request.facts.session !== undefined) {
      attributes[ATTR.sessionId] = request.facts.session.id;
    }
    const active = api.context.active();
    const span = tracer.startSpan(question.method, { kind: api.SpanKind.CLIENT, attributes }, active);
    const meta: Record<string, unknown> = { ...metaOf(question.params) };
    propagator.inject(api.trace.setSpan(active, span), meta, api.defaultTextMapSetter);
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
    const { api, tracer } = this.parts;
    const creator = api.trace.getSpanContext(api.context.active());
    const attributes: Attributes = {
      [ATTR.operation]: 'execute_tool',
      [ATTR.toolName]: record.name,
      [ATTR.taskId]: record.id,
      [ATTR.method]: request.method,
    };
    if (request.facts.session !== undefined) {
      attributes[ATTR.sessionId] = request.facts.session.id;
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
    tasks.set(record.id, 'working');
    span.addEvent('mcp.task.status', { [ATTR.taskStatus]: 'working' });
    const status = (next: McpTaskStatus, message?: string, errorType = '_OTHER'): void => {
      if (!tasks.has(record.id)) {
        return;
      }
      const event: Attributes = { [ATTR.taskStatus]: next };
      if (message !== undefined) {
        event['mcp.task.status_message'] = message;
      }
      span.addEvent('mcp.task.status', event);
      if (!isTerminal(next)) {
        tasks.set(record.id, next);
        return;
      }
      tasks.delete(record.id);
      span.setAttribute(ATTR.taskStatus, next);
      if (next === 'failed') {
        span.setAttribute(ATTR.errorType, errorType);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message });
      }
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
    const { api, tracer, propagator } = this.parts;
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
    const meta: Record<string, unknown> = { ...metaOf(params) };
    propagator.inject(api.trace.setSpan(active, span), meta, api.defaultTextMapSetter);
    span.end();
    return { ...message, params: { ...params, _meta: meta } };
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
    const all = { ...attributes, ...ended.attributes };
    this.operationDuration?.record(secondsSince(start), metricAttributes(all, unknown));
    if (message.method === 'initialize' && facts.session !== undefined && ended.error === undefined) {
      this.sessions.set(facts.session.id, {
        start,
        attributes: metricAttributes({
          [ATTR.protocolVersion]: all[ATTR.protocolVersion],
          ...transportAttributes(facts, this.parts.clientAddress),
        }),
      });
    }
  }

  private failed(span: Span, attributes: Attributes, start: number, error: unknown, unknown: boolean): void {
    const errorType = errorTypeOf(error);
    span.recordException(error instanceof Error ? error : messageOf(error));
    span.setAttribute(ATTR.errorType, errorType);
    span.setStatus({ code: this.parts.api.SpanStatusCode.ERROR, message: messageOf(error) });
    span.end();
    this.operationDuration?.record(
      secondsSince(start),
      metricAttributes({ ...attributes, [ATTR.errorType]: errorType }, unknown),
    );
  }

  /** The gauges a team runs the service by; read only when the metrics are collected. */
  private gauges(meter: Meter): void {
    meter
      .createObservableGauge('mcp.server.sessions.active', {
        unit: '{session}',
        description: 'Legacy sessions initialized on this instance and not ended',
      })
      .addCallback((result) => result.observe(this.sessions.size));
    meter
      .createObservableGauge('mcp.server.tasks.active', {
        unit: '{task}',
        description: 'Tasks whose work runs on this instance and has not ended, by status',
      })
      .addCallback((result) => {
        const counts: Record<'working' | 'input_required', number> = { working: 0, input_required: 0 };
        for (const status of this.tasks.values()) {
          if (status === 'working' || status === 'input_required') {
            counts[status] += 1;
          }
        }
        for (const [status, count] of Object.entries(counts)) {
          result.observe(count, { [ATTR.taskStatus]: status });
        }
      });
    meter
      .createObservableGauge('mcp.server.streams.open', {
        unit: '{stream}',
        description: 'Streams held open on this instance: modern listen streams, legacy standalone streams',
      })
      .addCallback((result) => {
        if (this.sources !== undefined) {
          result.observe(this.sources.listenStreams(), { [ATTR.streamKind]: 'listen' });
          result.observe(this.sources.standaloneStreams(), { [ATTR.streamKind]: 'standalone' });
        }
      });
    meter
      .createObservableGauge('mcp.server.client_requests.pending', {
        unit: '{request}',
        description: 'Questions sent to clients (elicitation, sampling, roots) waiting for their answers',
      })
      .addCallback((result) => result.observe(this.pendingQuestions));
  }
}
