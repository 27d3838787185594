/**
 * OpenTelemetry for the sample, on demand: with `OTEL_TRACES_EXPORTER` (or `OTEL_METRICS_EXPORTER`)
 * set, the Node SDK starts, with the HTTP instrumentation, when this file is loaded; main.ts loads
 * it first, before Nest and the HTTP platform load `http`, which the instrumentation must hook.
 * The SDK reads the exporters from those variables (`console`, `otlp`...); `McpModule` needs no
 * option: it takes the providers the SDK registers. Without either variable nothing is loaded.
 *
 *     OTEL_TRACES_EXPORTER=console npm start
 *
 * Nothing from Nest is imported here: it would load before the SDK starts.
 */
import type * as InstrumentationHttp from '@opentelemetry/instrumentation-http';
import type * as SdkNode from '@opentelemetry/sdk-node';

/** What main.ts shuts down with the application (it flushes what is left to export). */
export interface SampleTelemetry {
  shutdown(): Promise<void>;
}

function startSampleTelemetry(env: NodeJS.ProcessEnv): SampleTelemetry | undefined {
  const traces = Boolean(env.OTEL_TRACES_EXPORTER);
  const metrics = Boolean(env.OTEL_METRICS_EXPORTER);
  if (!traces && !metrics) {
    return undefined;
  }
  // Dev dependencies of this repository (the sample runs from it): required only when asked for.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const sdkNode = require('@opentelemetry/sdk-node') as typeof SdkNode;
  const http = require('@opentelemetry/instrumentation-http') as typeof InstrumentationHttp;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new sdkNode.NodeSDK({
    serviceName: 'nest-mcp-sample',
    instrumentations: [new http.HttpInstrumentation()],
    // Only the signals asked for: for a variable left unset the SDK would export to an OTLP
    // collector on localhost, which the sample does not have.
    ...(traces ? {} : { spanProcessors: [] }),
    ...(metrics ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
  });
  sdk.start();
  return sdk;
}

/** The running SDK, or `undefined` when no exporter is configured. */
export const sampleTelemetry: SampleTelemetry | undefined = startSampleTelemetry(process.env);
