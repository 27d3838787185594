import { trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type * as OpenTelemetryModule from './open-telemetry';

/** What the API keeps on the global object: taken away for a test, put back after it. */
function takeGlobals(): () => void {
  const host = globalThis as unknown as Record<symbol, unknown>;
  const taken = Object.getOwnPropertySymbols(globalThis)
    .filter((key) => key.description?.startsWith('opentelemetry.js.api.'))
    .map((key) => [key, host[key]] as const);
  for (const [key] of taken) {
    delete host[key];
  }
  return () => {
    for (const [key, value] of taken) {
      host[key] = value;
    }
  };
}

/** A fresh copy of the module (its cache of the API empty), and how often it loaded the API. */
function freshModule(): { module: typeof OpenTelemetryModule; loads: () => number } {
  let loads = 0;
  let module!: typeof OpenTelemetryModule;
  jest.isolateModules(() => {
    jest.doMock('@opentelemetry/api', () => {
      loads++;
      return jest.requireActual('@opentelemetry/api');
    });
    module = jest.requireActual('./open-telemetry');
  });
  return { module, loads: () => loads };
}

describe('registeredOpenTelemetry', () => {
  let restore: () => void;
  beforeEach(() => {
    restore = takeGlobals();
  });
  afterEach(() => {
    trace.disable();
    restore();
  });

  it('nothing registered with the API: undefined, and the API is not loaded', () => {
    const { module, loads } = freshModule();
    expect(module.registeredOpenTelemetry()).toBeUndefined();
    expect(loads()).toBe(0);
  });

  it('a provider registered: the API', () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider());
    const { module, loads } = freshModule();
    expect(module.registeredOpenTelemetry()?.trace.getTracerProvider()).toBeDefined();
    expect(loads()).toBe(1);
  });

  it('the API loaded already: the API, whatever is registered', () => {
    const { module } = freshModule();
    expect(module.openTelemetry()).toBeDefined();
    expect(module.registeredOpenTelemetry()).toBe(module.openTelemetry());
  });
});
