/**
 * The OpenTelemetry API, an optional peer: loaded once, on first use; absent when the
 * application does not install `@opentelemetry/api`. It keeps its state (the registered SDK,
 * the context manager, the propagator) on the global object, so this copy and the
 * application's are the same API.
 */
import type * as OtelApi from '@opentelemetry/api';

export type OpenTelemetryApi = typeof OtelApi;

let loaded: OpenTelemetryApi | null | undefined;

/** The API, or `undefined` when the package is not installed. */
export function openTelemetry(): OpenTelemetryApi | undefined {
  if (loaded === undefined) {
    try {
      // An optional peer: only applications that trace install it.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require('@opentelemetry/api') as OpenTelemetryApi;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}
