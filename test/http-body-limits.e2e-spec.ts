/**
 * The module's own body limits on its routes, on default Express and Fastify apps (no
 * `useBodyParser`, no `bodyLimit`): bodies far over the platforms' defaults (100 kB, 1 MiB) are
 * served up to `http.maxBodyBytes`, a body over it is refused at once without being read, the
 * rest of the application keeps its parser and its limit, and every refusal of a body, whoever
 * makes it, is a JSON-RPC answer after the Host/Origin check.
 */
import { Body, Controller, type DynamicModule, type INestApplication, Injectable, Module, Post } from '@nestjs/common';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import {
  Client as ClientV2,
  SdkHttpError,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { gzipSync } from 'node:zlib';
import { McpModule, McpTool, McpArgs } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import {
  ACCEPT_BOTH,
  exchange,
  legacyRequest,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  toolText,
} from './fixtures/raw-rpc';
import { openSsePair } from './fixtures/sessions-fixture';
import { RecordingLogger } from './fixtures/recording-logger';
import { sendBody, type SentBody } from './support/chunked-body';
import { type RoundRobinProxy, startRoundRobinProxy } from './support/round-robin-proxy';
import { settledMemory } from './support/settled-memory';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
/** The default of `http.maxBodyBytes`. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const FOREIGN_ORIGIN = 'https://evil.example';
const TOO_LARGE_MESSAGE = `Request body exceeds ${MAX_BODY_BYTES} bytes, this server's limit (McpModule option http.maxBodyBytes)`;

@Injectable()
class SizeTools {
  @McpTool({
    description: 'Counts the characters of its text',
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  })
  size(@McpArgs('text') text: string): string {
    return `received ${text.length} characters`;
  }
}

/** Routes of the application itself: they keep the platform's parser and its limit. */
@Controller('app')
class AppRoutes {
  @Post('echo')
  echo(@Body() body: unknown): unknown {
    return { parsed: body };
  }

  // A path that ends like the MCP endpoint: only the module's exact routes read their own bodies.
  @Post('other/mcp')
  other(@Body() body: unknown): unknown {
    return { parsed: body };
  }
}

@Module({
  imports: [
    McpModule.forRoot({
      name: 'limits',
      version: '0.0.1',
      simpleHttpPath: 'rpc',
      ssePath: 'sse',
      sseMessagesPath: 'messages',
    }),
  ],
  controllers: [AppRoutes],
  providers: [SizeTools],
})
class LimitsModule {}

/** A `tools/call` of `size` whose JSON body is exactly `bytes` bytes long (ASCII padding). */
function sizedCall(bytes: number, era: 'modern' | 'legacy', id: number | string = 1): string {
  const build = (text: string): string =>
    JSON.stringify(
      era === 'modern'
        ? modernRequest('tools/call', { name: 'size', arguments: { text } }, id)
        : legacyRequest('tools/call', { name: 'size', arguments: { text } }, id),
    );
  const overhead = Buffer.byteLength(build(''));
  return build('x'.repeat(bytes - overhead));
}

/**
 * POSTs `totalBytes` of a JSON string (its opening quote, then 0x78 bytes), with a Content-Length
 * or chunked, and stops writing once the answer arrives.
 */
function streamBody(url: URL, totalBytes: number, declareLength: boolean): Promise<SentBody> {
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    accept: ACCEPT_BOTH,
    'mcp-protocol-version': '2025-03-26',
  };
  if (declareLength) {
    headers['content-length'] = totalBytes;
  }
  return sendBody(url, totalBytes, { headers, prefix: '"' });
}

describe.each(PLATFORMS)('the module reads its own bodies (%s, default app)', (platform) => {
  let server: HttpApp;
  let logger: RecordingLogger;
  const at = (path: string): URL => new URL(`/${path}`, server.baseUrl);

  beforeAll(async () => {
    logger = new RecordingLogger();
    server = await startHttpApp(LimitsModule, {
      platform,
      configure: (app: INestApplication) => app.useLogger(logger),
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('serves a tools/call with 3 MB of arguments on /mcp and /rpc', async () => {
    const body = sizedCall(3_000_000, 'modern');
    const characters = (JSON.parse(body) as { params: { arguments: { text: string } } }).params.arguments.text.length;
    for (const path of ['mcp', 'rpc']) {
      const response = await exchange(at(path), { body, headers: modernHeaders('tools/call', 'size') });
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expect(toolText(response)).toBe(`received ${characters} characters`);
    }
  });

  it('serves a tools/call with 3 MB of arguments on /messages (answered on the SSE stream)', async () => {
    const abort = new AbortController();
    try {
      const pair = await openSsePair(at('sse'), server.baseUrl, {}, abort.signal);
      const initialize = legacyRequest('initialize', {
        protocolVersion: '2024-11-05',
        capabilities: {},
        clientInfo: { name: 'limits-e2e', version: '0.0.1' },
      });
      expect((await exchange(pair.messagesUrl, { body: initialize })).status).toBe(202);
      await pair.stream.until(/"id":1,"result"/);
      await exchange(pair.messagesUrl, { body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
      const call = sizedCall(3_000_000, 'legacy', 'big');
      expect((await exchange(pair.messagesUrl, { body: call })).status).toBe(202);
      const text = await pair.stream.until(/"id":"big"/, 10_000);
      expect(text).toMatch(/received \d{7} characters/);
    } finally {
      abort.abort();
    }
  });

  it('refuses http.maxBodyBytes + 1 with 413, the limit in force and the option that raises it', async () => {
    const exact = await exchange(at('rpc'), {
      body: sizedCall(MAX_BODY_BYTES, 'modern'),
      headers: modernHeaders('tools/call', 'size'),
    });
    expect(exact.status).toBe(200);
    for (const path of ['mcp', 'rpc']) {
      const response = await exchange(at(path), {
        body: sizedCall(MAX_BODY_BYTES + 1, 'modern'),
        headers: modernHeaders('tools/call', 'size'),
      });
      expect({ path, status: response.status, body: response.json }).toEqual({
        path,
        status: 413,
        body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: TOO_LARGE_MESSAGE } },
      });
    }
  });

  it('logs a body over the limit as one warning a minute, the others at debug level', async () => {
    const before = logger.matching('warn', /with 413/).length;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await exchange(at('mcp'), { body: sizedCall(MAX_BODY_BYTES + 10, 'modern') });
      expect(response.status).toBe(413);
    }
    // The test before already warned within this minute: nothing more at warn level.
    expect(logger.matching('warn', /with 413/).length - before).toBe(0);
    expect(logger.matching('warn', /with 413/)).toEqual([
      expect.stringMatching(/^Refused POST \/mcp from 127\.0\.0\.1 with 413: Request body exceeds 4194304 bytes/),
    ]);
    expect(logger.matching('debug', /with 413/).length).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['with a Content-Length', true],
    ['chunked', false],
  ])(
    'refuses a 50 MB body (%s) in well under a second, without reading it into memory',
    async (_label, declareLength) => {
      const before = await settledMemory();
      const answer = await streamBody(at('mcp'), 50 * 1024 * 1024, declareLength);
      // What is still held once the answer came: the body's bytes read and dropped are garbage.
      const after = await settledMemory();
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body ?? '')).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: TOO_LARGE_MESSAGE },
      });
      expect(answer.headers?.connection).toBe('close');
      expect(answer.elapsedMs).toBeLessThan(1000);
      // With a Content-Length the server reads nothing of it; chunked, it stops at the limit and
      // drops at most twice the limit more (12 MiB): what went beyond is what the sockets buffered.
      expect(answer.sentBytes).toBeLessThan((declareLength ? 20 : 28) * 1024 * 1024);
      const grown = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
      expect(grown).toBeLessThan(MAX_BODY_BYTES);
    },
  );

  it("leaves the application's own routes to the platform's parser and its limit", async () => {
    const small = await exchange(at('app/echo'), { body: { hello: 'world' } });
    expect({ status: small.status, body: small.json }).toEqual({ status: 201, body: { parsed: { hello: 'world' } } });
    const endsLikeMcp = await exchange(at('app/other/mcp'), { body: { hello: 'mcp' } });
    expect({ status: endsLikeMcp.status, body: endsLikeMcp.json }).toEqual({
      status: 201,
      body: { parsed: { hello: 'mcp' } },
    });
    // 2 MiB: over Express's 100 kB and Fastify's 1 MiB, under the module's 4 MiB.
    const large = await exchange(at('app/echo'), { body: { pad: 'x'.repeat(2 * 1024 * 1024) } });
    expect(large.status).toBe(413);
    expect(large.json).not.toHaveProperty('jsonrpc');
  });

  describe.each(['mcp', 'rpc'])('header and platform refusals of a body on /%s', (path) => {
    const ping = sizedCall(300, 'modern', 7);
    const pingHeaders = modernHeaders('tools/call', 'size');

    it('refuses a charset other than UTF-8 with 415 and a JSON-RPC error', async () => {
      const response = await exchange(at(path), {
        body: ping,
        headers: { 'content-type': 'application/json; charset=latin1' },
      });
      expect({ status: response.status, body: response.json }).toEqual({
        status: 415,
        body: {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Unsupported Media Type: charset "latin1" is not supported; send UTF-8' },
        },
      });
    });

    it('accepts an explicit UTF-8 charset, quoted or not', async () => {
      for (const contentType of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"']) {
        const response = await exchange(at(path), {
          body: ping,
          headers: { ...pingHeaders, 'content-type': contentType },
        });
        expect({ contentType, status: response.status }).toEqual({ contentType, status: 200 });
      }
    });

    it('refuses a compressed body with 415 and a JSON-RPC error', async () => {
      const response = await new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        const req = httpRequest(
          at(path),
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', accept: ACCEPT_BOTH },
            agent: false,
          },
          (res) => {
            const parts: Buffer[] = [];
            res.on('data', (part: Buffer) => parts.push(part));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString()) }),
            );
          },
        );
        req.on('error', reject);
        req.end(gzipSync(ping));
      });
      expect(response).toEqual({
        status: 415,
        body: {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message: 'Unsupported Media Type: Content-Encoding "gzip" is not supported; send the body uncompressed',
          },
        },
      });
    });

    it('answers malformed JSON with 400 and -32700, never the platform error body', async () => {
      const response = await exchange(at(path), { body: '{"jsonrpc":"2.0","id":1,' });
      expect({ status: response.status, body: response.json }).toEqual({
        status: 400,
        body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      });
    });

    it.each([
      ['a bad charset', { 'content-type': 'application/json; charset=latin1' }, ping],
      ['a compressed body', { 'content-encoding': 'gzip' }, ping],
      ['malformed JSON', {}, '{"jsonrpc":'],
      ['a body over the limit', {}, sizedCall(MAX_BODY_BYTES + 1, 'modern')],
    ])('checks Host and Origin before %s (403)', async (_label, headers, body) => {
      const response = await exchange(at(path), { body, headers: { ...headers, origin: FOREIGN_ORIGIN } });
      expect({ status: response.status, body: response.json }).toEqual({
        status: 403,
        body: {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Forbidden: Origin not allowed (McpModule option http.allowedOrigins)' },
        },
      });
    });
  });

  it('logs a request refused by the Origin check as a warning naming the option that admits it', async () => {
    await exchange(at('rpc'), { body: '{}', headers: { origin: 'https://other.example' } });
    expect(logger.matching('warn', /Refused POST \/(mcp|rpc) from 127\.0\.0\.1 with 403/)).toEqual([
      expect.stringContaining(
        'its Origin "https://evil.example" is not allowed (list it in the McpModule option http.allowedOrigins)',
      ),
    ]);
  });

  it('maps only the verbs each endpoint serves (one Nest route line each)', () => {
    const mapped = logger
      .matching('log', /^Mapped \{\/(mcp|rpc|sse|messages), [A-Z]+\} route$/)
      .map((line) => /\{(.+)\}/.exec(line)![1])
      .sort();
    expect(mapped).toEqual(
      [
        '/mcp, GET',
        '/mcp, POST',
        '/mcp, DELETE',
        '/mcp, OPTIONS',
        '/rpc, POST',
        '/rpc, OPTIONS',
        '/sse, GET',
        '/sse, OPTIONS',
        '/messages, POST',
        '/messages, OPTIONS',
      ].sort(),
    );
  });
});

/** The module of the suite with a smaller body limit (`http.maxBodyBytes`). */
function limitedModule(maxBodyBytes: number): DynamicModule {
  @Module({})
  class LimitedModule {}
  return {
    module: LimitedModule,
    imports: [McpModule.forRoot({ name: 'limited', version: '0.0.1', http: { maxBodyBytes } })],
    providers: [SizeTools],
  };
}

/**
 * Writes a chunked POST of `totalBytes` on a raw socket without stopping for the answer (a client
 * that reads only once it sent everything), until it is done or the server closes the
 * connection. Resolves with how much was written and how the connection ended.
 */
function rudeUpload(url: URL, totalBytes: number): Promise<{ written: number; ended: 'closed' | 'done' }> {
  const chunk = Buffer.alloc(64 * 1024, 0x78);
  const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let written = 0;
    let settled = false;
    const settle = (ended: 'closed' | 'done'): void => {
      if (!settled) {
        settled = true;
        socket.destroy();
        resolve({ written, ended });
      }
    };
    socket.on('error', () => settle('closed'));
    socket.on('close', () => settle('closed'));
    socket.resume();
    const pump = (): void => {
      while (!settled && written < totalBytes) {
        written += chunk.length;
        if (!socket.write(frame)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (!settled) {
        socket.end('0\r\n\r\n');
        setTimeout(() => settle('done'), 2_000);
      }
    };
    socket.on('connect', () => {
      socket.write(
        `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
          `Accept: ${ACCEPT_BOTH}\r\nMCP-Protocol-Version: 2025-03-26\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      pump();
    });
  });
}

/**
 * A refused body is read and dropped (up to 2 × http.maxBodyBytes) before the answer goes out:
 * answering and closing while the client still sends makes the kernel reset the connection, and
 * the answer is lost to the reset. On loopback a client reading its own socket still gets it;
 * behind a balancer that streams bodies (the round-robin proxy), the balancer's upload to the
 * server fails first and the client gets a 502 or a reset, as across a real network.
 */
describe.each(PLATFORMS)("a refused body's answer is readable by the client (%s)", (platform) => {
  const LIMIT = 1024 * 1024;
  /** A tools/call of about 1.8 MiB: over the limit, within what is dropped. */
  const TOO_LARGE_TEXT = 'x'.repeat(1.8 * LIMIT);
  const REFUSED = JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32600,
      message: `Request body exceeds ${LIMIT} bytes, this server's limit (McpModule option http.maxBodyBytes)`,
    },
  });
  let server: HttpApp;
  let proxy: RoundRobinProxy;

  beforeAll(async () => {
    server = await startHttpApp(limitedModule(LIMIT), { platform });
    proxy = await startRoundRobinProxy([server.baseUrl]);
  });

  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

  it('gives the SDK v1 client behind a balancer the JSON-RPC error of a too-large tools/call', async () => {
    const client = new Client({ name: 'limits-v1', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', proxy.url)));
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const error = await client.callTool({ name: 'size', arguments: { text: TOO_LARGE_TEXT } }).then(
          () => undefined,
          (reason: unknown) => reason,
        );
        expect(error).toBeInstanceOf(StreamableHTTPError);
        expect(error).toMatchObject({
          code: 413,
          message: `Streamable HTTP error: Error POSTing to endpoint: ${REFUSED}`,
        });
      }
      // The session serves a call within the limit after them.
      const served = await client.callTool({ name: 'size', arguments: { text: 'x'.repeat(1000) } });
      expect(served.content).toEqual([{ type: 'text', text: 'received 1000 characters' }]);
    } finally {
      await client.close();
    }
  });

  it.each([
    ['behind a balancer', () => new URL('/mcp', proxy.url)],
    ['directly', () => server.url],
  ])('gives the SDK v2 client (2026-07-28) %s the JSON-RPC error of a too-large tools/call', async (_label, urlOf) => {
    const client = new ClientV2(
      { name: 'limits-v2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    try {
      await client.connect(new TransportV2(urlOf()));
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const error = await client.callTool({ name: 'size', arguments: { text: TOO_LARGE_TEXT } }).then(
          () => undefined,
          (reason: unknown) => reason,
        );
        expect(error).toBeInstanceOf(SdkHttpError);
        expect(error).toMatchObject({ data: { status: 413, text: REFUSED } });
      }
    } finally {
      await client.close();
    }
  });

  it('keeps the connection of a body it dropped whole, and closes that of a body beyond what it drops', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (text: string) =>
      new Promise<{ status: number; reused: boolean; connection?: string }>((resolve, reject) => {
        const req = httpRequest(
          server.url,
          {
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': '2025-03-26' },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket, connection: res.headers.connection }),
            );
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(legacyRequest('tools/call', { name: 'size', arguments: { text } })));
      });
    try {
      const refused = await post(TOO_LARGE_TEXT);
      expect(refused).toMatchObject({ status: 413, reused: false });
      expect(refused.connection).not.toBe('close');
      // The next request goes on the same connection (a legacy call without a session: 400).
      expect(await post('small')).toMatchObject({ status: 400, reused: true });
    } finally {
      agent.destroy();
    }
    const total = 64 * 1024 * 1024;
    const upload = await rudeUpload(server.url, total);
    expect(upload.ended).toBe('closed');
    // The server's 3 MiB, and what the sockets buffered on the way: far from the whole body.
    expect(upload.written).toBeLessThan(total / 2);
  });
});
