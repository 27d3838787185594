/**
 * The sample with `OTEL_TRACES_EXPORTER=console` and `OTEL_METRICS_EXPORTER=console`: it starts
 * the OpenTelemetry Node SDK (sample/telemetry.ts) and prints the spans of a tools/call (the
 * module's, and the HTTP instrumentation's it is the child of); on SIGTERM it shuts the SDK down
 * with the application, which prints the metrics.
 *
 * Run as `npm start` runs it, in a child process: the SDK's HTTP instrumentation hooks
 * `require('http')`, which Jest's module registry goes around. The console exporters print
 * objects with `util.inspect`; this test reads them back from the process's stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { modernHeaders, modernRequest, post, toolText, waitUntil } from './fixtures/raw-rpc';
import { exitOf, terminateProcess, tsEntry, watchOutput, type ProcessExit } from './support/server-process';

jest.setTimeout(60_000);

const LISTENING = /MCP server listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/;

/** The objects the console exporters printed: `util.inspect` output, a `{` line to a `}` line. */
function printedObjects(output: string): string[] {
  return output.match(/^\{\n[\s\S]*?\n\}$/gm) ?? [];
}

describe('sample: OTEL_TRACES_EXPORTER=console', () => {
  let output: () => string;
  let child: ChildProcess;
  let exited: Promise<ProcessExit>;
  let url: URL;

  /** The one printed object that contains `marker`. */
  async function printed(marker: string): Promise<string> {
    await waitUntil(
      () => printedObjects(output()).some((block) => block.includes(marker)),
      `a printed object with ${marker}; output:\n${output()}`,
    );
    const blocks = printedObjects(output()).filter((block) => block.includes(marker));
    expect(blocks).toHaveLength(1);
    return blocks[0];
  }

  beforeAll(async () => {
    const { command, args, cwd } = tsEntry('sample/main.ts');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      NO_COLOR: '1',
      OTEL_TRACES_EXPORTER: 'console',
      OTEL_METRICS_EXPORTER: 'console',
    };
    // The sample's defaults: no authentication, state in memory.
    for (const name of ['MCP_AUTH', 'MCP_AUTH_SECRET', 'MCP_REDIS_URL', 'OTEL_LOGS_EXPORTER', 'OTEL_PROPAGATORS']) {
      delete env[name];
    }
    child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    exited = exitOf(child);
    const watched = watchOutput(child.stdout, child.stderr);
    output = watched.output;
    const line = await watched.line(LISTENING, 50_000);
    url = new URL(`http://127.0.0.1:${LISTENING.exec(line)![1]}/mcp`);
  });

  afterAll(() => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
  });

  it("prints the tools/call span with the MCP attributes, a child of the HTTP instrumentation's span", async () => {
    const answer = await post(
      url,
      modernRequest('tools/call', { name: 'echo', arguments: { text: 'traced' } }, 7),
      modernHeaders('tools/call', 'echo'),
    );
    expect(answer.status).toBe(200);
    expect(toolText(answer)).toBe('traced');

    const mcp = await printed("name: 'tools/call echo'");
    expect(mcp).toContain("'service.name': 'nest-mcp-sample'");
    expect(mcp).toContain("instrumentationScope: { name: 'nest-mcp'");
    expect(mcp).toContain("'mcp.method.name': 'tools/call'");
    expect(mcp).toContain("'gen_ai.tool.name': 'echo'");
    expect(mcp).toContain("'jsonrpc.request.id': '7'");
    expect(mcp).toContain('kind: 1,');

    // The HTTP span of the POST is printed too, and the MCP span's parent is that span.
    const http = await printed("name: '@opentelemetry/instrumentation-http'");
    expect(http).toContain("'url.path': '/mcp'");
    const httpId = /^ {2}id: '([0-9a-f]{16})'/m.exec(http)?.[1];
    const parentId = /parentSpanContext: \{[^}]*spanId: '([0-9a-f]{16})'/.exec(mcp)?.[1];
    expect(httpId).toBeDefined();
    expect(parentId).toBe(httpId);
  });

  it('shuts the SDK down with the application on SIGTERM, which exports the metrics', async () => {
    // Nest's shutdown hooks run, then it ends the process with the signal it got.
    expect(await terminateProcess(child.pid!, exited)).toMatchObject({ signal: 'SIGTERM' });
    // The console metric reader exports every 60 s: within this test only the shutdown exports.
    const duration = await printed("name: 'mcp.server.operation.duration'");
    expect(duration).toContain("'mcp.method.name': 'tools/call'");
    expect(duration).toContain("'gen_ai.tool.name': 'echo'");
    expect(output()).toMatch(/Shutdown complete/);
  });
});
