/**
 * The two recipes of docs/guides/observability.md, run as an application would run them: the
 * OpenTelemetry Prometheus exporter served on the application's own `/metrics` route and scraped
 * over HTTP (the names a Prometheus server stores, as the guide lists them), and pino's `mixin`
 * putting the active trace on the application's own log lines (the line a tool writes carries its
 * `tools/call` span's ids). The code below is the guide's, with the test's providers passed in
 * `telemetry` instead of a global SDK.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Controller, Get, Injectable, Module, Req, Res } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { McpArgs, McpModule, McpTool } from 'nest-mcp';
import { startHttpApp, type HttpApp } from '../fixtures/http-app';
import { registerOtelGlobals, resetOtelGlobals, TestTelemetry } from '../fixtures/telemetry-sdk';

// --- the guide's code ------------------------------------------------------------------------

const prometheus = new PrometheusExporter({ preventServerStart: true });

@Controller('metrics')
class MetricsController {
  @Get()
  scrape(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    prometheus.getMetricsRequestHandler(req, res);
  }
}

/** The active span's ids on every line logged while it is active. */
function traceFields(): Record<string, string> {
  const span = trace.getActiveSpan()?.spanContext();
  return span === undefined ? {} : { trace_id: span.traceId, span_id: span.spanId };
}

// --- the test's application ------------------------------------------------------------------

const lines: Record<string, unknown>[] = [];
const logger = pino(
  { mixin: traceFields },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  }),
);

@Injectable()
class NotesTools {
  @McpTool({
    description: 'Adds a note',
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  })
  add_note(@McpArgs('text') text: string): string {
    logger.info({ text }, 'note added');
    return `added ${text}`;
  }
}

describe('the observability guide’s recipes', () => {
  const telemetry = new TestTelemetry();
  const meterProvider = new MeterProvider({ readers: [prometheus] });
  let server: HttpApp;
  let client: Client;

  beforeAll(async () => {
    registerOtelGlobals();
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'notes',
          version: '1.0.0',
          telemetry: { tracerProvider: telemetry.tracerProvider, meterProvider },
        }),
      ],
      providers: [NotesTools],
      controllers: [MetricsController],
    })
    class RecipesModule {}
    server = await startHttpApp(RecipesModule, { platform: 'express' });
    client = new Client({ name: 'recipes', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(server.url));
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
    await meterProvider.shutdown();
    await telemetry.shutdown();
    resetOtelGlobals();
  });

  it('pino: a line the tool logs carries its tools/call span’s trace and span ids', async () => {
    await client.callTool({ name: 'add_note', arguments: { text: 'milk' } });
    const [span] = await telemetry.waitFor('tools/call add_note');
    const line = lines.find((entry) => entry.msg === 'note added');
    expect(line).toMatchObject({ text: 'milk', trace_id: span.spanContext().traceId });
    // The handler runs within the call's span (or a child of it, the Nest pipeline's): same trace.
    expect(line?.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(lines.filter((entry) => entry.trace_id === undefined && entry.msg === 'note added')).toEqual([]);
  });

  it('Prometheus: the module’s metrics as scraped from /metrics', async () => {
    await client.callTool({ name: 'add_note', arguments: { text: 'eggs' } });
    const response = await fetch(`${server.baseUrl}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const names = new Set(
      text
        .split('\n')
        .filter((line) => line.length > 0 && !line.startsWith('#'))
        .map((line) => line.replace(/[{ ].*$/, '')),
    );
    // The names the guide lists.
    expect([...names].filter((name) => /mcp/.test(name)).sort()).toEqual(
      expect.arrayContaining([
        'mcp_server_operation_duration_bucket',
        'mcp_server_operation_duration_count',
        'mcp_server_operation_duration_sum',
        'nest_mcp_server_client_requests_pending',
        'nest_mcp_server_sessions_active',
        'nest_mcp_server_streams_open',
        'nest_mcp_server_tasks_active',
      ]),
    );
    expect(text).toMatch(
      /mcp_server_operation_duration_count\{[^}]*mcp_method_name="tools\/call"[^}]*gen_ai_tool_name="add_note"[^}]*\} 2/,
    );
  });
});
