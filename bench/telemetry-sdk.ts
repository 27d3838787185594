/**
 * The OpenTelemetry SDK of the telemetry child (`bench/main.ts --telemetry`), registered globally
 * before the app is created, as an application's tracing bootstrap file does: a NodeTracerProvider
 * with a BatchSpanProcessor (the processor production uses), `register()` for the
 * AsyncLocalStorage context manager and the W3C trace-context + baggage propagator, and a
 * MeterProvider with a PeriodicExportingMetricReader, set as the global meter provider. The
 * module is given no `telemetry` option: it finds the global providers itself.
 *
 * The exporters drop what they get: the bench measures what recording costs in the server
 * process (spans, attributes, histograms, the batch processor's queue and timers), not an
 * exporter's serialization or network, which depend on the backend.
 */
import { metrics } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';

/** What the SDK has seen, for the bench to check it did record (a bench of nothing would look free). */
export interface TelemetryCounts {
  /** Spans ended (handed to the batch processor). */
  spansEnded: number;
  /** Spans the batch processor exported (ended minus dropped, once flushed). */
  spansExported: number;
  /** Name of the last span exported: after a single probe request, that request's span. */
  lastSpan?: string;
  /** Metric exports (one per reader interval, and on flush). */
  metricExports: number;
}

const counts: TelemetryCounts = { spansEnded: 0, spansExported: 0, metricExports: 0 };

/** Drops the spans; counts them (one addition per batch, so the exporter stays next to free). */
class DroppingSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    counts.spansExported += spans.length;
    counts.lastSpan = spans.at(-1)?.name ?? counts.lastSpan;
    resultCallback({ code: 0 });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The batch processor, counting the spans it is given: ended − exported after a flush is what it
 * dropped because its queue (2048 spans) was full, which would make telemetry look cheaper.
 */
class CountingBatchSpanProcessor extends BatchSpanProcessor {
  override onEnd(span: ReadableSpan): void {
    counts.spansEnded++;
    super.onEnd(span);
  }
}

class DroppingMetricExporter implements PushMetricExporter {
  export(_metrics: unknown, resultCallback: (result: ExportResult) => void): void {
    counts.metricExports++;
    resultCallback({ code: 0 });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

let tracerProvider: NodeTracerProvider | undefined;
let meterProvider: MeterProvider | undefined;

/** Registers the SDK globally. Call before the Nest app (and so the module) is created. */
export function registerTelemetrySdk(): void {
  tracerProvider = new NodeTracerProvider({
    spanProcessors: [new CountingBatchSpanProcessor(new DroppingSpanExporter())],
  });
  tracerProvider.register();
  meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new DroppingMetricExporter(),
        // Shorter than the SDK's 60 s so that collection (histograms, the live counts'
        // callbacks) happens during the measured slices too, as it would in a long-running server.
        exportIntervalMillis: 5_000,
      }),
    ],
  });
  metrics.setGlobalMeterProvider(meterProvider);
}

/** Flushes the batch processor, then the counts (so that ended − exported is what was dropped). */
export async function telemetryCounts(): Promise<TelemetryCounts> {
  await tracerProvider?.forceFlush();
  return { ...counts };
}
