import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { RequestFacts } from '../protocol/engine';
import { PACKAGE_VERSION } from '../shared/package-version';
import { McpTelemetry } from './mcp-telemetry';
import { createMcpTelemetry, INSTRUMENTATION_SCOPE } from './telemetry.factory';
import { resolveTelemetrySettings } from './telemetry-settings';

/** Creates the telemetry of `telemetry` and the startup line it told. */
function create(telemetry: Parameters<typeof resolveTelemetrySettings>[0]): {
  telemetry: McpTelemetry | null;
  lines: string[];
} {
  const lines: string[] = [];
  return { telemetry: createMcpTelemetry(resolveTelemetrySettings(telemetry), (line) => lines.push(line)), lines };
}

/** A tracer provider that keeps its finished spans. */
function recordingProvider(): { provider: BasicTracerProvider; spans: InMemorySpanExporter } {
  const spans = new InMemorySpanExporter();
  return { provider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }), spans };
}

/** Has `telemetry` watch one stdio `ping`; resolves with the names of the spans `spans` got. */
async function watchPing(telemetry: McpTelemetry, spans: InMemorySpanExporter): Promise<string[]> {
  const facts = { era: 'modern', transport: 'stdio', channel: { notify: () => undefined } } as RequestFacts;
  await telemetry.message(facts, { jsonrpc: '2.0', id: 1, method: 'ping' }, () => Promise.resolve({ type: 'none' }));
  return spans.getFinishedSpans().map((span) => span.name);
}

describe('createMcpTelemetry', () => {
  afterEach(() => {
    // Whatever a test registered globally is gone for the next one.
    trace.disable();
    metrics.disable();
  });

  it('telemetry: false is no telemetry, even with global providers registered', () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider());
    metrics.setGlobalMeterProvider(new MeterProvider());
    expect(create(false)).toEqual({ telemetry: null, lines: [] });
  });

  it('no provider given and none registered globally: no telemetry, nothing told', () => {
    expect(create(undefined)).toEqual({ telemetry: null, lines: [] });
    expect(create({ captureArguments: true })).toEqual({ telemetry: null, lines: [] });
  });

  it('a given tracer provider: telemetry with traces, no metrics, its spans going there', async () => {
    const { provider, spans } = recordingProvider();
    const { telemetry, lines } = create({ tracerProvider: provider });
    expect(telemetry).toBeInstanceOf(McpTelemetry);
    expect(lines).toEqual(['OpenTelemetry: traces, no metrics']);
    expect(await watchPing(telemetry!, spans)).toEqual(['ping']);
  });

  it("spans come from the scope nest-mcp with the package's version", async () => {
    const { provider, spans } = recordingProvider();
    const telemetry = createMcpTelemetry(resolveTelemetrySettings({ tracerProvider: provider }));
    await watchPing(telemetry!, spans);
    const [span] = spans.getFinishedSpans();
    expect(span.instrumentationScope).toMatchObject({ name: INSTRUMENTATION_SCOPE, version: PACKAGE_VERSION });
    expect(INSTRUMENTATION_SCOPE).toBe('nest-mcp');
  });

  it('a server name (given with several servers) on every span; none without it', async () => {
    const named = recordingProvider();
    const settings = resolveTelemetrySettings({ tracerProvider: named.provider });
    await watchPing(createMcpTelemetry(settings, undefined, 'admin')!, named.spans);
    expect(named.spans.getFinishedSpans()[0].attributes['nest_mcp.server.name']).toBe('admin');
    const unnamed = recordingProvider();
    await watchPing(createMcpTelemetry(resolveTelemetrySettings({ tracerProvider: unnamed.provider }))!, unnamed.spans);
    expect(unnamed.spans.getFinishedSpans()[0].attributes).not.toHaveProperty(['nest_mcp.server.name']);
  });

  it('a given meter provider: telemetry with metrics, no traces', () => {
    const { telemetry, lines } = create({ meterProvider: new MeterProvider() });
    expect(telemetry).toBeInstanceOf(McpTelemetry);
    expect(lines).toEqual(['OpenTelemetry: no traces, metrics']);
  });

  it('both providers and captureArguments: the startup line says arguments are recorded', () => {
    const { telemetry, lines } = create({
      tracerProvider: new BasicTracerProvider(),
      meterProvider: new MeterProvider(),
      captureArguments: true,
    });
    expect(telemetry).toBeInstanceOf(McpTelemetry);
    expect(lines).toEqual(['OpenTelemetry: traces, metrics, tool arguments and results recorded']);
  });

  it('a global tracer provider registered before: telemetry with traces, its spans going there', async () => {
    const { provider, spans } = recordingProvider();
    trace.setGlobalTracerProvider(provider);
    const { telemetry, lines } = create(undefined);
    expect(telemetry).toBeInstanceOf(McpTelemetry);
    expect(lines).toEqual(['OpenTelemetry: traces, no metrics']);
    expect(await watchPing(telemetry!, spans)).toEqual(['ping']);
  });

  it('a global meter provider registered before: telemetry with metrics', () => {
    metrics.setGlobalMeterProvider(new MeterProvider());
    const { telemetry, lines } = create({});
    expect(telemetry).toBeInstanceOf(McpTelemetry);
    expect(lines).toEqual(['OpenTelemetry: no traces, metrics']);
  });

  it('once the globals are disabled again, no telemetry', () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider());
    metrics.setGlobalMeterProvider(new MeterProvider());
    trace.disable();
    metrics.disable();
    expect(create(undefined).telemetry).toBeNull();
  });
});
