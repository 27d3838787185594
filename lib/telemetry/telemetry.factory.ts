/**
 * Whether a server records telemetry, decided once at startup: with `telemetry: false`, without
 * `@opentelemetry/api`, or with no provider (none given, no SDK registered), there is no
 * telemetry object and the engine runs without a watcher.
 */
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { PACKAGE_VERSION } from '../shared/package-version';
import type * as TelemetryModule from './mcp-telemetry';
import type { McpTelemetry } from './mcp-telemetry';
import { openTelemetry, registeredOpenTelemetry, type OpenTelemetryApi } from './open-telemetry';
import type { TelemetrySettings } from './telemetry-settings';

/** The instrumentation scope of every span and metric of the module (its version: `PACKAGE_VERSION`). */
export const INSTRUMENTATION_SCOPE = 'nest-mcp';

/** The global tracer provider, when an SDK registered one (the API's own is a no-op proxy until then). */
function globalTracerProvider(api: OpenTelemetryApi): TracerProvider | undefined {
  const global = api.trace.getTracerProvider();
  const unset = new api.ProxyTracerProvider().getDelegate();
  if (global instanceof api.ProxyTracerProvider) {
    return global.getDelegate() === unset ? undefined : global;
  }
  return global;
}

/** The global meter provider, when an SDK registered one. */
function globalMeterProvider(api: OpenTelemetryApi): MeterProvider | undefined {
  const global = api.metrics.getMeterProvider();
  return global.getMeter(INSTRUMENTATION_SCOPE) === api.createNoopMeter() ? undefined : global;
}

/**
 * The telemetry of one server, or `null` when it records nothing.
 * @param describe told what was chosen, for the startup log
 * @param serverName put on every span and metric point as `nest_mcp.server.name`: given only
 *   when the application has several servers, which it tells apart
 */
export function createMcpTelemetry(
  settings: TelemetrySettings,
  describe: (line: string) => void = () => undefined,
  serverName?: string,
): McpTelemetry | null {
  if (settings === false) {
    return null;
  }
  const given = settings.tracerProvider !== undefined || settings.meterProvider !== undefined;
  // Without a provider given only a registered global one turns telemetry on, and there is none
  // while nothing registered with the API: then the API is not loaded at all (startup time).
  const api = given ? openTelemetry() : registeredOpenTelemetry();
  if (api === undefined) {
    if (given) {
      throw new McpConfigurationError(
        'telemetry: providers are given but "@opentelemetry/api" is not installed (npm install @opentelemetry/api)',
      );
    }
    return null;
  }
  const tracerProvider = (settings.tracerProvider as TracerProvider | undefined) ?? globalTracerProvider(api);
  const meterProvider = (settings.meterProvider as MeterProvider | undefined) ?? globalMeterProvider(api);
  if (tracerProvider === undefined && meterProvider === undefined) {
    return null;
  }
  describe(
    `OpenTelemetry: ${tracerProvider === undefined ? 'no traces' : 'traces'}, ${meterProvider === undefined ? 'no metrics' : 'metrics'}` +
      (settings.captureArguments ? ', tool arguments and results recorded' : '') +
      (settings.traceNotifications ? ', notifications traced' : ''),
  );
  // Loaded here, not with this file: applications without telemetry never run it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { McpTelemetry } = require('./mcp-telemetry') as typeof TelemetryModule;
  return new McpTelemetry({
    api,
    // Without a tracer provider the API's no-op tracer makes spans that record nothing.
    tracer: (tracerProvider ?? api.trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE, PACKAGE_VERSION),
    meter: meterProvider?.getMeter(INSTRUMENTATION_SCOPE, PACKAGE_VERSION),
    propagator: (settings.propagator as Parameters<typeof api.propagation.setGlobalPropagator>[0]) ?? api.propagation,
    captureArguments: settings.captureArguments,
    serverName,
    clientAddress: settings.clientAddress,
    traceNotifications: settings.traceNotifications,
  });
}
