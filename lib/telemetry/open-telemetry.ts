/**
 * The OpenTelemetry API, an optional peer: loaded once, on first use; absent when the
 * application does not install `@opentelemetry/api`. It keeps its state (the registered SDK,
 * the context manager, the propagator) on the global object, so this copy and the
 * application's are the same API.
 */
import type * as OtelApi from '@opentelemetry/api';

export type OpenTelemetryApi = typeof OtelApi;

let loaded: OpenTelemetryApi | null | undefined;

/**
 * The key prefix under which the API keeps what is registered with it on the global object
 * (`Symbol.for('opentelemetry.js.api.<major>')`): the SDK's providers, the context manager, the
 * propagator, the diagnostic logger. The first registration creates it.
 */
const GLOBAL_KEY_PREFIX = 'opentelemetry.js.api.';

/** Whether anything registered with an OpenTelemetry API of any major version in this process. */
function anythingRegistered(): boolean {
  return Object.getOwnPropertySymbols(globalThis).some((key) => key.description?.startsWith(GLOBAL_KEY_PREFIX));
}

/**
 * The API when something registered with it (an SDK, a context manager...), or when it was
 * loaded already; `undefined` otherwise, without loading it. Until something registers, every
 * part of the API is its no-op (no provider, no active span), so there is nothing to ask it:
 * applications that have the package installed (often as a dependency of another) without an SDK
 * do not pay for loading it at startup.
 */
export function registeredOpenTelemetry(): OpenTelemetryApi | undefined {
  if (loaded === undefined && !anythingRegistered()) {
    return undefined;
  }
  return openTelemetry();
}

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
