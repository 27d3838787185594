/**
 * OpenTelemetry traces and metrics, after the MCP semantic conventions.
 *
 * The types are structural (the few members the module uses), so that an application without
 * `@opentelemetry/api` compiles; pass the SDK's own objects.
 *
 * @publicApi
 */
export interface McpTelemetryOptions {
  /**
   * Where the server's spans go. Default: the global tracer provider (what
   * `NodeSDK.start()` or `provider.register()` set), when one is registered before the
   * application is created.
   */
  tracerProvider?: McpTracerProviderLike;
  /**
   * Where the server's metrics go. Default: the global meter provider, when one is registered
   * before the application is created.
   */
  meterProvider?: McpMeterProviderLike;
  /**
   * How trace context is read from a request's `params._meta` and written into the `_meta` of
   * the server's requests to the client. Default: the global propagator (W3C trace context and
   * baggage with the Node SDK).
   */
  propagator?: McpTextMapPropagatorLike;
  /**
   * Records a tool call's arguments and result on its span (`gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`). They may hold personal data: off unless you opt in. Credentials
   * (headers, tokens) are never recorded.
   * @default false
   */
  captureArguments?: boolean;
  /**
   * Where a span's `client.address` comes from. `'socket'`: the TCP peer, which behind a
   * reverse proxy or a load balancer is the proxy. `'platform'`: the address the HTTP platform
   * computes with its own trusted-proxy setting (Express `req.ip` after
   * `app.set('trust proxy', …)`, Fastify `request.ip` with `trustProxy`), falling back to the
   * socket's; `client.port` is then left out for a forwarded address (the socket's port is the
   * proxy's). Trust only proxies you run: a client can write `X-Forwarded-For` itself.
   * @default 'socket'
   * @example
   * ```ts
   * app.set('trust proxy', 'loopback'); // Express
   * McpModule.forRoot({ name: 'api', version: '1.0.0', telemetry: { clientAddress: 'platform' } });
   * ```
   * @see https://expressjs.com/en/guide/behind-proxies.html
   */
  clientAddress?: 'socket' | 'platform';
  /**
   * Traces the notifications the server sends (`notifications/progress`, `notifications/message`,
   * the `list_changed` notifications, `notifications/resources/updated`, task status): a
   * PRODUCER span each, named by the method, a child of the active span (the progress of a
   * tool call is a child of the call's span), whose context the notification carries in
   * `params._meta`. A list change or resource update is one span per event, whatever the
   * number of listeners. Off by default: a chatty tool's progress makes many spans.
   * @default false
   */
  traceNotifications?: boolean;
}

/** An OpenTelemetry `TracerProvider` (`@opentelemetry/api`). */
export interface McpTracerProviderLike {
  /** Returns the tracer of an instrumentation scope, by name and version. */
  getTracer(name: string, version?: string): unknown;
}

/** An OpenTelemetry `MeterProvider` (`@opentelemetry/api`). */
export interface McpMeterProviderLike {
  /** Returns the meter of an instrumentation scope, by name and version. */
  getMeter(name: string, version?: string): unknown;
}

/** An OpenTelemetry `TextMapPropagator` (`@opentelemetry/api`). */
export interface McpTextMapPropagatorLike {
  /** Writes the context into a carrier (outgoing headers). */
  inject(context: unknown, carrier: unknown, setter?: unknown): void;
  /** Reads a context from a carrier (incoming headers), on top of the given one. */
  extract(context: unknown, carrier: unknown, getter?: unknown): unknown;
  /** The names of the carrier fields (headers) the propagator uses. */
  fields(): string[];
}
