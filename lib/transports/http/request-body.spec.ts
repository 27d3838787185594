import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { DISCARD_FACTOR, exceedsDepth, readJsonBody, type BodyOutcome } from './request-body';

const MAX_BYTES = 1024;
const MAX_DEPTH = 8;

/** Nests `depth` levels of arrays (or objects) around a value. */
function nested(depth: number, kind: 'array' | 'object' = 'array'): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level += 1) {
    value = kind === 'array' ? [value] : { child: value };
  }
  return value;
}

/** A readable stream that looks like an IncomingMessage to readJsonBody. */
function incoming(chunks: Array<string | Buffer>, headers: Record<string, string> = {}): IncomingMessage {
  const stream = Readable.from(
    chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)),
    {
      objectMode: false,
    },
  );
  return Object.assign(stream, { headers }) as unknown as IncomingMessage;
}

function expectFailure(outcome: BodyOutcome, status: number, code: number): void {
  expect(outcome).toMatchObject({ ok: false, status, error: { jsonrpc: '2.0', id: null, error: { code } } });
}

describe('exceedsDepth', () => {
  it.each<[string, unknown, number, boolean]>([
    ['a number', 1, 1, false],
    ['a string', 'deep', 1, false],
    ['null', null, 1, false],
    ['an empty object at limit 1', {}, 1, false],
    ['an empty array at limit 1', [], 1, false],
    ['two levels at limit 1', { a: {} }, 1, true],
    ['two levels at limit 2', { a: {} }, 2, false],
    ['three array levels at limit 2', [[[]]], 2, true],
    ['three array levels at limit 3', [[[]]], 3, false],
    ['mixed objects and arrays, 3 levels, at limit 2', { a: [{ b: 1 }] }, 2, true],
    ['mixed objects and arrays, 3 levels, at limit 3', { a: [{ b: 1 }] }, 3, false],
    ['a wide but shallow value', { a: 1, b: [1, 2, 3], c: { d: 'x' } }, 2, false],
    ['the deepest branch counts, not the first', { a: 1, b: { c: { d: {} } } }, 3, true],
    ['64 levels at the default limit', nested(64), 64, false],
    ['65 levels at the default limit', nested(65), 64, true],
  ])('%s → %s', (_label, value, limit, expected) => {
    expect(exceedsDepth(value, limit)).toBe(expected);
  });

  it('handles very deep values without recursion', () => {
    expect(exceedsDepth(nested(100_000, 'object'), 64)).toBe(true);
  });
});

describe('readJsonBody', () => {
  describe('a body the platform already parsed', () => {
    it('uses a parsed object as is', async () => {
      const body = { jsonrpc: '2.0', id: 1, method: 'ping' };
      const outcome = await readJsonBody({ body }, incoming([]), MAX_BYTES, MAX_DEPTH);
      expect(outcome).toEqual({ ok: true, value: body });
      expect((outcome as { value: unknown }).value).toBe(body);
    });

    it.each<[string, Record<string, string>]>([
      ['no Content-Length', {}],
      ['Content-Length 0', { 'content-length': '0' }],
    ])('answers -32700 for the {} Express makes of a request without a body (%s)', async (_label, headers) => {
      expectFailure(await readJsonBody({ body: {} }, incoming([], headers), MAX_BYTES, MAX_DEPTH), 400, -32700);
    });

    it('keeps an empty object the client did send (it is then an invalid message, not a parse error)', async () => {
      const outcome = await readJsonBody({ body: {} }, incoming([], { 'content-length': '2' }), MAX_BYTES, MAX_DEPTH);
      expect(outcome).toEqual({ ok: true, value: {} });
    });

    it('uses a parsed array (a batch) as is', async () => {
      const body = [{ jsonrpc: '2.0', method: 'notifications/initialized' }];
      expect(await readJsonBody({ body }, incoming([]), MAX_BYTES, MAX_DEPTH)).toEqual({ ok: true, value: body });
    });

    it.each([
      ['a string', '{"a":[1,2]}'],
      ['a Buffer', Buffer.from('{"a":[1,2]}')],
    ])('parses %s body', async (_label, body) => {
      expect(await readJsonBody({ body }, incoming([]), MAX_BYTES, MAX_DEPTH)).toEqual({
        ok: true,
        value: { a: [1, 2] },
      });
    });

    it.each([
      ['a truncated object', '{"jsonrpc":"2.0",'],
      ['an empty string', ''],
      ['plain text', 'hello'],
    ])('answers 400 -32700 for %s', async (_label, body) => {
      expectFailure(await readJsonBody({ body }, incoming([]), MAX_BYTES, MAX_DEPTH), 400, -32700);
    });

    it('answers 413 for a string body over the limit', async () => {
      const body = JSON.stringify({ pad: 'x'.repeat(MAX_BYTES) });
      expectFailure(await readJsonBody({ body }, incoming([]), MAX_BYTES, MAX_DEPTH), 413, -32600);
    });

    it('counts bytes, not characters', async () => {
      const body = JSON.stringify({ pad: 'é'.repeat(600) });
      expect(body.length).toBeLessThan(MAX_BYTES);
      expectFailure(await readJsonBody({ body }, incoming([]), MAX_BYTES, MAX_DEPTH), 413, -32600);
    });

    it('answers 413 when Content-Length announces too much, before looking at the body', async () => {
      const outcome = await readJsonBody(
        { body: { small: true } },
        incoming([], { 'content-length': String(MAX_BYTES + 1) }),
        MAX_BYTES,
        MAX_DEPTH,
      );
      expectFailure(outcome, 413, -32600);
      expect(outcome).toMatchObject({
        error: {
          error: {
            message: `Request body exceeds ${MAX_BYTES} bytes, this server's limit (McpModule option http.maxBodyBytes)`,
          },
        },
      });
    });

    it('answers 400 -32600 for a parsed body nested too deep', async () => {
      const outcome = await readJsonBody({ body: nested(MAX_DEPTH + 1) }, incoming([]), MAX_BYTES, MAX_DEPTH);
      expectFailure(outcome, 400, -32600);
      expect(outcome).toMatchObject({
        error: {
          error: {
            message: `Request nesting exceeds ${MAX_DEPTH} levels, this server's limit (McpModule option http.maxJsonDepth)`,
          },
        },
      });
      expect(await readJsonBody({ body: nested(MAX_DEPTH) }, incoming([]), MAX_BYTES, MAX_DEPTH)).toMatchObject({
        ok: true,
      });
    });
  });

  describe('a body read from the stream', () => {
    it('reads JSON split over several chunks, including a split UTF-8 character', async () => {
      const bytes = Buffer.from('{"text":"café ✓"}');
      const split = bytes.indexOf(0xc3) + 1;
      const req = incoming([bytes.subarray(0, split), bytes.subarray(split)]);
      expect(await readJsonBody(req, req, MAX_BYTES, MAX_DEPTH)).toEqual({ ok: true, value: { text: 'café ✓' } });
    });

    it.each([
      ['malformed JSON', ['{"jsonrpc": 2.0,,}']],
      ['an empty body', []],
      ['a body cut short', ['{"a":', '[1,']],
    ])('answers 400 -32700 for %s', async (_label, chunks) => {
      const req = incoming(chunks);
      expectFailure(await readJsonBody(req, req, MAX_BYTES, MAX_DEPTH), 400, -32700);
    });

    it('answers 413 when the streamed body grows over the limit without a Content-Length', async () => {
      const req = incoming(['{"pad":"', 'x'.repeat(600), 'x'.repeat(600), '"}']);
      expectFailure(await readJsonBody(req, req, MAX_BYTES, MAX_DEPTH), 413, -32600);
    });

    it('answers 400 -32600 for a streamed body nested too deep', async () => {
      const req = incoming([JSON.stringify(nested(MAX_DEPTH + 1, 'object'))]);
      expectFailure(await readJsonBody(req, req, MAX_BYTES, MAX_DEPTH), 400, -32600);
    });

    it('answers 400 -32700 when the stream was already consumed and nothing was parsed', async () => {
      const req = incoming(['{"a":1}']);
      for await (const _chunk of req) {
        // drain
      }
      expect(req.readableEnded).toBe(true);
      expectFailure(await readJsonBody(req, req, MAX_BYTES, MAX_DEPTH), 400, -32700);
    });

    it('ends quietly when the client goes away mid-body (there is nobody left to answer)', async () => {
      const req = Object.assign(
        new Readable({
          read() {
            this.destroy(new Error('socket hang up'));
          },
        }),
        { headers: {} },
      ) as unknown as IncomingMessage;
      expect(await readJsonBody(req, req, MAX_BYTES, MAX_DEPTH)).toMatchObject({ ok: false, reason: 'aborted' });
    });

    it('stops reading past the limit and what it drops after, and says the rest is unread (the answer closes)', async () => {
      let served = 0;
      const req = Object.assign(
        new Readable({
          read() {
            served += 1;
            // An endless body: reading it whole would never end.
            this.push(Buffer.alloc(256, 0x20));
          },
        }),
        { headers: {} },
      ) as unknown as IncomingMessage;
      const outcome = await readJsonBody(req, req, MAX_BYTES, MAX_DEPTH);
      expect(outcome).toMatchObject({ ok: false, status: 413, reason: 'too-large', unread: true });
      // What was pulled is the limit, what is dropped after it, and the stream's own read-ahead (its
      // high-water mark), not the body.
      await new Promise((resolve) => setImmediate(resolve));
      expect(served * 256).toBeLessThanOrEqual(MAX_BYTES * (1 + DISCARD_FACTOR) + req.readableHighWaterMark + 512);
    });

    it('reads a body over the limit to its end and drops it when it ends within the bound: nothing is left unread', async () => {
      const chunks = Array.from({ length: 3 * DISCARD_FACTOR }, () => 'x'.repeat(MAX_BYTES / 4));
      const req = incoming(chunks);
      const outcome = await readJsonBody(req, req, MAX_BYTES, MAX_DEPTH);
      expect(outcome).toMatchObject({ ok: false, status: 413, reason: 'too-large', unread: false });
      expect(req.readableEnded).toBe(true);
    });

    it('refuses a declared length beyond what it drops at once, reading nothing', () => {
      const req = incoming(['{}'], { 'content-length': String(MAX_BYTES * (1 + DISCARD_FACTOR)) });
      expect(readJsonBody(req, req, MAX_BYTES, MAX_DEPTH)).toMatchObject({ ok: false, status: 413, unread: true });
      expect(req.readableFlowing).toBeNull();
    });
  });

  describe('over a real HTTP connection', () => {
    let server: Server;
    let port: number;

    beforeAll(async () => {
      server = createServer((req, res) => {
        Promise.resolve(readJsonBody(req, req, MAX_BYTES, MAX_DEPTH)).then(
          (outcome) => {
            res.writeHead(outcome.ok ? 200 : outcome.status, {
              'content-type': 'application/json',
              connection: 'close',
            });
            res.end(JSON.stringify(outcome));
          },
          () => {
            res.writeHead(500, { connection: 'close' });
            res.end();
          },
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    /** POSTs `chunks` (chunked unless `contentLength`), and returns the status and decoded answer. */
    function post(chunks: string[], contentLength?: number): Promise<{ status: number; body: BodyOutcome }> {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string | number> = { 'content-type': 'application/json', connection: 'close' };
        if (contentLength !== undefined) {
          headers['content-length'] = contentLength;
        }
        const req = httpRequest(
          { host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers, agent: false },
          (res) => {
            const parts: Buffer[] = [];
            res.on('data', (part: Buffer) => parts.push(part));
            res.on('end', () => {
              resolve({
                status: res.statusCode ?? 0,
                body: JSON.parse(Buffer.concat(parts).toString('utf8')) as BodyOutcome,
              });
            });
            res.on('error', reject);
          },
        );
        // The server may answer 413 and close before reading everything; that is expected.
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') {
            reject(error);
          }
        });
        for (const chunk of chunks) {
          req.write(chunk);
        }
        req.end();
      });
    }

    it('reads a JSON-RPC request', async () => {
      const message = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'abc' } };
      const text = JSON.stringify(message);
      expect(await post([text], Buffer.byteLength(text))).toEqual({ status: 200, body: { ok: true, value: message } });
    });

    it('reads a chunked body', async () => {
      expect(await post(['{"jsonrpc":', '"2.0","method":"ping","id":"a"}'])).toEqual({
        status: 200,
        body: { ok: true, value: { jsonrpc: '2.0', method: 'ping', id: 'a' } },
      });
    });

    it('answers 400 with -32700 for malformed JSON', async () => {
      const { status, body } = await post(['{"jsonrpc":"2.0", oops}']);
      expect(status).toBe(400);
      expectFailure(body, 400, -32700);
    });

    it('answers 413 for a declared Content-Length over the limit', async () => {
      const text = JSON.stringify({ pad: 'x'.repeat(MAX_BYTES) });
      const { status, body } = await post([text], Buffer.byteLength(text));
      expect(status).toBe(413);
      expectFailure(body, 413, -32600);
    });

    it('answers 413 for a chunked body that grows over the limit', async () => {
      const { status, body } = await post(['{"pad":"', 'y'.repeat(700), 'y'.repeat(700), '"}']);
      expect(status).toBe(413);
      expectFailure(body, 413, -32600);
    });
  });
});
