import { inspect } from 'node:util';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpTelemetryOptions } from '../interfaces/mcp-telemetry-options.interface';
import { resolveTelemetrySettings } from './telemetry-settings';

/** The McpConfigurationError resolving `telemetry` throws (fails when it does not throw). */
function errorOf(telemetry: unknown): McpConfigurationError {
  try {
    resolveTelemetrySettings(telemetry as McpTelemetryOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigurationError);
    return error as McpConfigurationError;
  }
  throw new Error(`resolveTelemetrySettings accepted ${inspect(telemetry)}`);
}

const tracerProvider = { getTracer: () => ({}) };
const meterProvider = { getMeter: () => ({}) };
const propagator = { extract: () => ({}), inject: () => undefined, fields: () => [] };

describe('resolveTelemetrySettings', () => {
  it('false turns telemetry off', () => {
    expect(resolveTelemetrySettings(false)).toBe(false);
  });

  it('absent or empty: no providers (the globals decide later), arguments not captured, the socket address, no notification spans', () => {
    const defaults = {
      tracerProvider: undefined,
      meterProvider: undefined,
      propagator: undefined,
      captureArguments: false,
      clientAddress: 'socket',
      traceNotifications: false,
    };
    expect(resolveTelemetrySettings(undefined)).toEqual(defaults);
    expect(resolveTelemetrySettings({})).toEqual(defaults);
  });

  it('keeps the given providers as they are, captureArguments, clientAddress and traceNotifications', () => {
    const settings = resolveTelemetrySettings({
      tracerProvider,
      meterProvider,
      propagator,
      captureArguments: true,
      clientAddress: 'platform',
      traceNotifications: true,
    });
    expect(settings).not.toBe(false);
    if (settings !== false) {
      expect(settings.tracerProvider).toBe(tracerProvider);
      expect(settings.meterProvider).toBe(meterProvider);
      expect(settings.propagator).toBe(propagator);
      expect(settings.captureArguments).toBe(true);
      expect(settings.clientAddress).toBe('platform');
      expect(settings.traceNotifications).toBe(true);
    }
  });

  it.each([
    ['telemetry.tracerProvider', { tracerProvider: {} }, 'getTracer()'],
    ['telemetry.tracerProvider', { tracerProvider: meterProvider }, 'getTracer()'],
    ['telemetry.tracerProvider', { tracerProvider: null }, 'getTracer()'],
    ['telemetry.meterProvider', { meterProvider: { getMeter: 'no' } }, 'getMeter()'],
    ['telemetry.meterProvider', { meterProvider: tracerProvider }, 'getMeter()'],
    ['telemetry.propagator', { propagator: 'w3c' }, 'extract()'],
  ])('a bad provider fails naming %s', (option, telemetry, method) => {
    const error = errorOf(telemetry);
    expect(error.message).toContain(`"${option}"`);
    expect(error.message).toContain(method);
  });

  it.each(['yes', 1, null, {}])('captureArguments %o (not a boolean) fails naming the option', (value) => {
    const error = errorOf({ captureArguments: value });
    expect(error.message).toContain('"telemetry.captureArguments"');
    expect(error.message).toContain('must be a boolean');
  });

  it.each(['proxy', 'Platform', '', null, true, ['platform']])(
    'clientAddress %o (neither "socket" nor "platform") fails naming the option and the values',
    (value) => {
      const error = errorOf({ clientAddress: value });
      expect(error.message).toContain('"telemetry.clientAddress"');
      expect(error.message).toContain('must be "socket" or "platform"');
    },
  );

  it.each(['yes', 1, null])('traceNotifications %o (not a boolean) fails naming the option', (value) => {
    const error = errorOf({ traceNotifications: value });
    expect(error.message).toContain('"telemetry.traceNotifications"');
    expect(error.message).toContain('must be a boolean');
  });

  it.each([true, 'on', ['tracer']])('telemetry %o (neither false nor an object) fails naming the option', (value) => {
    expect(errorOf(value).message).toContain('"telemetry"');
  });
});
