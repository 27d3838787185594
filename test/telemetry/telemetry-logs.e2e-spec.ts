/**
 * Log correlation: a line the module logs while a span is active ends with that span's
 * `trace_id` and `span_id`, so that an operator goes from a log line to its trace and back.
 * Lines logged outside any span, and every line of a server without telemetry, are unchanged.
 */
import { Injectable, Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { McpModule, McpTool, type McpModuleOptions } from 'nest-mcp';
import { withTraceIds } from '../../lib/telemetry/mcp.logger';
import { createMcpTestClient, type McpTestError } from 'nest-mcp/testing';
import { RecordingLogger } from '../fixtures/recording-logger';
import { registerOtelGlobals, resetOtelGlobals, TestTelemetry } from '../fixtures/telemetry-sdk';
import { mcpApp } from '../support/mcp-app';

@Injectable()
class FailingTool {
  @McpTool({ description: 'Fails with an error that is not a protocol error' })
  explode(): string {
    throw new Error('the disk is full');
  }
}

@Module({})
class LogsModule {
  static forRoot(options: Partial<McpModuleOptions>): DynamicModule {
    return {
      module: LogsModule,
      imports: [McpModule.forRoot({ name: 'logs', version: '1.0.0', ...options })],
      providers: [FailingTool],
    };
  }
}

const LINE_IDS = / trace_id=([0-9a-f]{32}) span_id=([0-9a-f]{16})$/;

function start(options: Partial<McpModuleOptions>, logger: RecordingLogger): Promise<INestApplication> {
  return mcpApp(LogsModule.forRoot(options), { configure: (app) => app.useLogger(logger) });
}

/** Calls `explode` (2026-07-28): its answer, a result or the JSON-RPC error, and its HTTP status. */
async function callExplode(app: INestApplication): Promise<{ status: number }> {
  const client = await createMcpTestClient(app);
  return client.callTool('explode').then(
    () => ({ status: 200 }),
    (error: McpTestError) => error,
  );
}

/** The engine's line for the failed call. */
function failureLine(logger: RecordingLogger): string | undefined {
  return logger.lines.find((line) => line.level === 'error' && line.message.includes('tools/call explode failed'))
    ?.message;
}

beforeAll(() => registerOtelGlobals());
afterAll(() => resetOtelGlobals());

describe('log lines and traces', () => {
  const telemetry = new TestTelemetry();
  const logger = new RecordingLogger();
  let server: INestApplication;

  beforeAll(async () => {
    server = await start({ telemetry: telemetry.options }, logger);
  });

  afterAll(async () => {
    await server?.close();
    await telemetry.shutdown();
  });

  it("ends a failed call's log line with the ids of its span", async () => {
    expect((await callExplode(server)).status).toBe(200);
    const [span] = await telemetry.waitFor('tools/call explode');
    const line = failureLine(logger);
    expect(line).toMatch(LINE_IDS);
    const [, traceId, spanId] = LINE_IDS.exec(line!)!;
    expect({ traceId, spanId }).toEqual({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId });
    // The detail stays in the log, never on the wire or the span.
    expect(line).toContain('the disk is full');
    expect(JSON.stringify(span.attributes)).not.toContain('the disk is full');
  });

  it('leaves the lines logged outside a span as they are', () => {
    // The startup lines (the endpoint banner) are logged before any request.
    const startup = logger.lines.filter((line) => line.context === 'McpModule');
    expect(startup.length).toBeGreaterThan(0);
    for (const line of startup) {
      expect(line.message).not.toMatch(/trace_id=/);
    }
  });
});

describe('log lines without telemetry', () => {
  it('has no ids in the line of a server that records nothing', async () => {
    const logger = new RecordingLogger();
    const server = await start({ telemetry: false }, logger);
    try {
      await callExplode(server);
      expect(failureLine(logger)).toContain('tools/call explode failed');
      expect(failureLine(logger)).not.toMatch(/trace_id=/);
    } finally {
      await server.close();
    }
  });
});

describe('withTraceIds', () => {
  const telemetry = new TestTelemetry();
  afterAll(() => telemetry.shutdown());

  it('appends the ids of the active span, and only to strings', () => {
    const tracer = telemetry.tracerProvider.getTracer('logs-spec');
    tracer.startActiveSpan('work', (span) => {
      const { traceId, spanId } = span.spanContext();
      expect(withTraceIds('stored')).toBe(`stored trace_id=${traceId} span_id=${spanId}`);
      const object = { message: 'kept' };
      expect(withTraceIds(object)).toBe(object);
      span.end();
    });
    expect(trace.getActiveSpan()).toBeUndefined();
    expect(withTraceIds('stored')).toBe('stored');
  });
});
