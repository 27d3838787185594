/**
 * The `telemetry` section of the module options, validated once, at startup, beside the
 * telemetry it configures.
 */
import type {
  McpMeterProviderLike,
  McpTelemetryOptions,
  McpTextMapPropagatorLike,
  McpTracerProviderLike,
} from '../interfaces/mcp-telemetry-options.interface';
import { fail, section } from '../shared/option-checks';

/** The telemetry settings: `false` when turned off. */
export type TelemetrySettings =
  | false
  | {
      readonly tracerProvider?: McpTracerProviderLike;
      readonly meterProvider?: McpMeterProviderLike;
      readonly propagator?: McpTextMapPropagatorLike;
      readonly captureArguments: boolean;
      readonly clientAddress: 'socket' | 'platform';
      readonly traceNotifications: boolean;
    };

function provider<T>(value: unknown, option: string, method: string, what: string): T | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof (value as Record<string, unknown> | null)?.[method] !== 'function') {
    fail(option, `must be an OpenTelemetry ${what} (an object with ${method}())`);
  }
  return value as T;
}

/**
 * Validates `telemetry`: `false`, or an object of providers, `captureArguments`,
 * `clientAddress` and `traceNotifications`.
 *
 * @throws McpConfigurationError naming the first bad option
 */
export function resolveTelemetrySettings(telemetry: McpTelemetryOptions | false | undefined): TelemetrySettings {
  if (telemetry === false) {
    return false;
  }
  const options = section(telemetry, 'telemetry');
  if (options.captureArguments !== undefined && typeof options.captureArguments !== 'boolean') {
    fail('telemetry.captureArguments', 'must be a boolean');
  }
  const clientAddress = options.clientAddress === undefined ? 'socket' : options.clientAddress;
  if (clientAddress !== 'socket' && clientAddress !== 'platform') {
    fail('telemetry.clientAddress', `must be "socket" or "platform" (got ${JSON.stringify(clientAddress)})`);
  }
  if (options.traceNotifications !== undefined && typeof options.traceNotifications !== 'boolean') {
    fail('telemetry.traceNotifications', 'must be a boolean');
  }
  return {
    tracerProvider: provider(options.tracerProvider, 'telemetry.tracerProvider', 'getTracer', 'TracerProvider'),
    meterProvider: provider(options.meterProvider, 'telemetry.meterProvider', 'getMeter', 'MeterProvider'),
    propagator: provider(options.propagator, 'telemetry.propagator', 'extract', 'TextMapPropagator'),
    captureArguments: options.captureArguments ?? false,
    clientAddress,
    traceNotifications: options.traceNotifications ?? false,
  };
}
