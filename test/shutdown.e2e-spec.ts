/**
 * Shutdown that rolling deploys can rely on: a real Nest application in a child process
 * (`test/fixtures/shutdown-main.ts`, `enableShutdownHooks()`), real clients (the official SDKs,
 * raw `fetch`), a real SIGTERM. Each test measures the time from the signal to the exit of the
 * process and holds it to `shutdownGraceMs` plus one second, with whatever the clients hold
 * open: a legacy session's GET stream, a 2024-11-05 SSE pair, a modern `subscriptions/listen`
 * stream, a stdio connection, and calls in flight on each.
 *
 * The grace period is short (1.5 s) so that the bounds mean something: a process that exits
 * only once a keep-alive connection times out (5 s) or never fails them.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport as V1SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, McpError as V1McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import {
  legacyRequest,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  send,
  streamWatchingFetch,
  waitUntil,
  withTimeout,
} from './fixtures/raw-rpc';
import { startTasksApp, type TasksApp } from './fixtures/tasks-fixture';
import { startServerProcess, tsEntry, watchOutput, type ServerProcess } from './support/server-process';
import type { HttpPlatform } from './fixtures/http-app';

const ENTRY = 'test/fixtures/shutdown-main.ts';
const GRACE_MS = 1_500;
/** The promise of issue 15: the process is gone within the grace period plus one second. */
const EXIT_BOUND_MS = GRACE_MS + 1_000;
/** A call that outlives any grace period of these tests. */
const FOREVER_MS = 60_000;

jest.setTimeout(60_000);

function startFixture(platform: HttpPlatform = 'express'): Promise<ServerProcess> {
  return startServerProcess(ENTRY, { MCP_PLATFORM: platform, MCP_GRACE_MS: String(GRACE_MS) });
}

/** A failure carries the server's output. */
async function withOutput(server: () => ServerProcess | undefined, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    throw new Error(`${String(error)}\n--- server output ---\n${server()?.output() ?? ''}`, { cause: error });
  }
}

function v1Client(): V1Client {
  return new V1Client({ name: 'shutdown-e2e-v1', version: '1.0.0' });
}

/** The text of the first content block of a tool result. */
function firstText(result: unknown): string {
  return String((result as { content?: Array<{ text?: unknown }> }).content?.[0]?.text);
}

describe.each<HttpPlatform>(['express', 'fastify'])(
  'SIGTERM with an SDK v1 client holding its GET stream (%s)',
  (platform) => {
    let server: ServerProcess | undefined;
    let client: V1Client | undefined;

    afterEach(async () => {
      server?.kill();
      await client?.close().catch(() => undefined);
    });

    it('ends the stream, which the client sees end, and exits within the grace period plus one second', () =>
      withOutput(
        () => server,
        async () => {
          server = await startFixture(platform);
          const { fetch, streams } = streamWatchingFetch();
          client = v1Client();
          // No reconnection: the test is about what the server does with the stream it holds.
          const transport = new V1StreamableHTTPClientTransport(server.url, {
            fetch,
            reconnectionOptions: noRetries(),
          });
          await client.connect(transport);
          const [get] = await streams.waitFor(1, (stream) => stream.method === 'GET');
          expect(get.status).toBe(200);

          const exit = await server.terminate();
          // Nothing was in flight: no reason to wait for the grace period.
          expect(exit.ms).toBeLessThan(EXIT_BOUND_MS);
          expect(exit.ms).toBeLessThan(GRACE_MS);
          // The server ended the stream (a complete chunked body), before its process went.
          await expect(get.end).resolves.toBe('ended');
          expect(server.output()).toMatch(/Draining: 0 calls in flight, 1 held stream ended, 0 tasks working/);
          expect(server.output()).toMatch(/Shutdown complete in \d+ ms \(0 calls aborted, 0 tasks failed\)/);
        },
      ));
  },
);

describe.each<HttpPlatform>(['express', 'fastify'])(
  'SIGTERM with calls in flight over Streamable HTTP (SDK v1 client, %s)',
  (platform) => {
    let server: ServerProcess | undefined;
    let client: V1Client | undefined;

    afterEach(async () => {
      server?.kill();
      await client?.close().catch(() => undefined);
    });

    it('answers the call that ends within the grace period, aborts and answers the other, refuses new work with 503', () =>
      withOutput(
        () => server,
        async () => {
          server = await startFixture(platform);
          const { fetch, streams } = streamWatchingFetch();
          client = v1Client();
          const transport = new V1StreamableHTTPClientTransport(server.url, {
            fetch,
            reconnectionOptions: noRetries(),
          });
          await client.connect(transport);
          const [get] = await streams.waitFor(1, (stream) => stream.method === 'GET');
          const session = {
            'mcp-session-id': transport.sessionId!,
            'mcp-protocol-version': transport.protocolVersion ?? '2025-11-25',
          };

          const short = client.callTool({ name: 'slow', arguments: { ms: 500, label: 'short' } });
          // With progress asked for, the long call's answer rides an SSE stream of its own.
          const progress: unknown[] = [];
          const long = client.callTool({ name: 'slow', arguments: { ms: FOREVER_MS, label: 'long' } }, undefined, {
            onprogress: (update) => progress.push(update),
          });
          // Settled from here on: a rejection is asserted below, never left unhandled.
          const longOutcome = long.then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
          await server.line(/PROBE started short/);
          await server.line(/PROBE started long/);

          const exiting = server.terminate();
          await server.line(/Draining: 2 calls in flight, 1 held stream ended, 0 tasks working; .*grace 1500 ms/);

          // New work is refused, and every answer closes its connection.
          const refused = await send(server.url, {
            body: legacyRequest('tools/call', { name: 'whoami', arguments: {} }, 'late-1'),
            headers: session,
          });
          expect(refused.status).toBe(503);
          expect(refused.headers.get('retry-after')).toBe('1');
          expect(refused.headers.get('connection')).toBe('close');
          await expect(refused.json()).resolves.toEqual({
            jsonrpc: '2.0',
            id: 'late-1',
            error: { code: -32603, message: 'Service unavailable: the server is shutting down; retry shortly' },
          });
          const stream = await send(server.url, {
            method: 'GET',
            headers: { ...session, accept: 'text/event-stream' },
          });
          expect(stream.status).toBe(503);
          expect(stream.headers.get('retry-after')).toBe('1');
          await stream.body?.cancel();
          // The Host/Origin check still comes first: a foreign origin gets 403, not 503.
          const foreign = await send(server.url, {
            method: 'GET',
            headers: { ...session, accept: 'text/event-stream', origin: 'https://evil.example' },
          });
          expect(foreign.status).toBe(403);
          await foreign.body?.cancel();
          const simple = await send(new URL('/rpc', server.baseUrl), {
            body: modernRequest('tools/call', { name: 'whoami', arguments: {} }, 'late-2'),
            headers: modernHeaders('tools/call', 'whoami'),
          });
          expect(simple.status).toBe(503);
          expect(((await simple.json()) as { id?: unknown }).id).toBe('late-2');
          // An answer to a question of the server is still taken: a call in flight may wait for it.
          const answer = await send(server.url, {
            body: { jsonrpc: '2.0', id: 'no-such-question', result: {} },
            headers: session,
          });
          expect(answer.status).toBe(202);
          expect(answer.headers.get('connection')).toBe('close');

          // The call that ends within the grace period is answered with its result.
          expect(firstText(await short)).toBe('slept short');
          // The other is stopped when the grace period ends: its signal aborts, and it is answered.
          const { error } = (await longOutcome) as { error?: unknown };
          expect(progress).toEqual([{ progress: 0, total: 1, message: 'started' }]);
          const callStream = streams.items.find((stream) => stream.method === 'POST');
          expect(callStream).toBeDefined();
          await expect(callStream!.end).resolves.toBe('ended');
          expect(error).toBeInstanceOf(V1McpError);
          expect((error as V1McpError).code).toBe(-32000);
          expect((error as V1McpError).message).toMatch(
            /Server shutting down: the call was stopped after the 1500 ms grace period/,
          );

          const exit = await exiting;
          // It waited for the grace period, and not much longer.
          expect(exit.ms).toBeGreaterThanOrEqual(GRACE_MS);
          expect(exit.ms).toBeLessThan(EXIT_BOUND_MS);
          await expect(get.end).resolves.toBe('ended');
          const output = server.output();
          expect(output).toMatch(/PROBE finished short/);
          expect(output).toMatch(
            /PROBE aborted long: Server shutting down: the call was stopped after the 1500 ms grace period/,
          );
          expect(output).toMatch(/Grace of 1500 ms over: aborting 1 call, failing 0 tasks/);
          expect(output).toMatch(/Shutdown complete in \d+ ms \(1 call aborted, 0 tasks failed\)/);
        },
      ));
  },
);

describe('SIGTERM with a 2024-11-05 SSE pair (SDK v1 SSEClientTransport)', () => {
  let server: ServerProcess | undefined;
  let client: V1Client | undefined;

  afterEach(async () => {
    server?.kill();
    await client?.close().catch(() => undefined);
  });

  it('answers the call in flight on the pair, then ends the pair, and exits within the bound', () =>
    withOutput(
      () => server,
      async () => {
        server = await startFixture('express');
        const { fetch, streams } = streamWatchingFetch();
        client = v1Client();
        await client.connect(new V1SSEClientTransport(new URL('/sse', server.baseUrl), { fetch }));
        const [pair] = await streams.waitFor(1);
        expect(pair.status).toBe(200);

        const call = client.callTool(
          { name: 'slow', arguments: { ms: 500, label: 'pair-call' } },
          CallToolResultSchema,
          {
            timeout: 10_000,
          },
        );
        await server.line(/PROBE started pair-call/);
        const exiting = server.terminate();

        // The answer can only go on the pair's stream: the stream stays open for it.
        expect(firstText(await call)).toBe('slept pair-call');
        await expect(pair.end).resolves.toBe('ended');
        const exit = await exiting;
        expect(exit.ms).toBeLessThan(EXIT_BOUND_MS);
        expect(server.output()).not.toMatch(/PROBE aborted pair-call/);
        expect(server.output()).toMatch(/Draining: 1 call in flight, 0 held streams ended/);
      },
    ));
});

describe('SIGTERM with a modern subscriptions/listen stream and a modern call (SDK v2 client)', () => {
  let server: ServerProcess | undefined;
  let client: V2Client | undefined;

  afterEach(async () => {
    server?.kill();
    await client?.close().catch(() => undefined);
  });

  it('ends the listen gracefully (as the v2 client reads it), answers the call, and exits within the bound', () =>
    withOutput(
      () => server,
      async () => {
        server = await startFixture('express');
        client = new V2Client(
          { name: 'shutdown-e2e-v2', version: '2.0.0' },
          { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
        );
        await client.connect(new V2StreamableHTTPClientTransport(server.url));
        const subscription = await client.listen({ toolsListChanged: true });
        const call = client.callTool({ name: 'slow', arguments: { ms: 500, label: 'modern-call' } });
        await server.line(/PROBE started modern-call/);

        const exiting = server.terminate();
        await expect(withTimeout(subscription.closed, EXIT_BOUND_MS, 'the listen to end')).resolves.toBe('graceful');
        expect(firstText(await call)).toBe('slept modern-call');
        const exit = await exiting;
        expect(exit.ms).toBeLessThan(EXIT_BOUND_MS);
        expect(server.output()).toMatch(/Draining: 1 call in flight, 1 held stream ended/);
      },
    ));
});

describe('SIGTERM with a client connected over stdio (SDK v1 StdioClientTransport)', () => {
  let client: V1Client | undefined;
  let transport: V1StdioClientTransport | undefined;

  afterEach(async () => {
    await client?.close().catch(() => undefined);
  });

  it('answers the call that ends within the grace period, aborts and answers the other, and exits within the bound', async () => {
    const { command, args, cwd } = tsEntry(ENTRY);
    transport = new V1StdioClientTransport({
      command,
      args,
      cwd,
      env: { ...stringEnv(), MCP_STDIO: '1', MCP_GRACE_MS: String(GRACE_MS) },
      stderr: 'pipe',
    });
    const stderr = watchOutput(transport.stderr as NodeJS.ReadableStream | null);
    client = v1Client();
    let closedAt: number | undefined;
    client.onclose = () => (closedAt ??= Date.now());
    await client.connect(transport);
    try {
      const short = client.callTool({ name: 'slow', arguments: { ms: 500, label: 'stdio-short' } });
      const long = client.callTool({ name: 'slow', arguments: { ms: FOREVER_MS, label: 'stdio-long' } }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      await stderr.line(/PROBE started stdio-short/, 10_000);
      await stderr.line(/PROBE started stdio-long/, 10_000);

      const signalledAt = Date.now();
      process.kill(transport.pid!, 'SIGTERM');
      expect(firstText(await short)).toBe('slept stdio-short');
      const { error } = (await long) as { error?: unknown };
      expect(error).toBeInstanceOf(V1McpError);
      expect((error as V1McpError).code).toBe(-32000);
      expect((error as V1McpError).message).toMatch(/the call was stopped after the 1500 ms grace period/);

      // The process ended: the client's transport saw stdout close.
      await withTimeout(
        new Promise<void>((resolve) => {
          const check = setInterval(() => closedAt !== undefined && (clearInterval(check), resolve()), 10);
        }),
        EXIT_BOUND_MS,
        'the stdio server to exit',
      );
      const ms = closedAt! - signalledAt;
      expect(ms).toBeGreaterThanOrEqual(GRACE_MS);
      expect(ms).toBeLessThan(EXIT_BOUND_MS);
      expect(stderr.output()).toMatch(/PROBE aborted stdio-long: Server shutting down/);
    } catch (error) {
      throw new Error(`${String(error)}\n--- server stderr ---\n${stderr.output()}`, { cause: error });
    }
  });
});

describe('app.close() without enableShutdownHooks (in process)', () => {
  let server: TasksApp | undefined;
  let client: V1Client | undefined;

  afterEach(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
  });

  it('drains the same way: the short call is answered, the long one aborted and answered, then close() resolves', async () => {
    const graceMs = 300;
    server = await startTasksApp({ shutdownGraceMs: graceMs });
    client = v1Client();
    await client.connect(new V1StreamableHTTPClientTransport(server.url, { reconnectionOptions: noRetries() }));
    const short = client.callTool({ name: 'sleepy', arguments: { ms: 100, label: 'close-short' } });
    const long = client.callTool({ name: 'sleepy', arguments: { ms: FOREVER_MS, label: 'close-long' } }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    await waitUntil(
      () => server!.probe.runs('close-short') === 1 && server!.probe.runs('close-long') === 1,
      'both calls to run',
    );

    const started = Date.now();
    const closing = server.close();
    expect(firstText(await short)).toBe('slept close-short');
    const { error } = (await long) as { error?: unknown };
    expect((error as V1McpError).message).toMatch(/stopped after the 300 ms grace period/);
    expect(server.probe.aborted).toEqual(['close-long']);
    await closing;
    const ms = Date.now() - started;
    expect(ms).toBeGreaterThanOrEqual(graceMs);
    expect(ms).toBeLessThan(graceMs + 1_000);
  });
});

/** Reconnection options that never reconnect. */
function noRetries() {
  return {
    maxRetries: 0,
    initialReconnectionDelay: 1_000,
    maxReconnectionDelay: 1_000,
    reconnectionDelayGrowFactor: 1,
  };
}

/** The environment of a spawned server: ours (PATH, HOME...), as strings. */
function stringEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
