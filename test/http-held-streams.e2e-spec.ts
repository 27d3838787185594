/**
 * The bounds on held streams (`http.maxStreamsPerPrincipal`, `http.maxStreams`) over real
 * sockets, on Express and Fastify: modern `subscriptions/listen` streams, legacy GET streams and
 * 2024-11-05 SSE pairs count together, per caller and in total; past a bound the request is
 * answered 429 or 503 with `Retry-After` before anything is opened; a stream counts until its
 * connection closes, whichever way it ends. Then the check: 20,000 listen attempts by one
 * anonymous client (127.0.0.1) leave another client's (127.0.0.2) calls answered. The counts are
 * read from the transport's `HeldStreams`, what was opened from the engine's hub and the session
 * service.
 */
import { Agent, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { McpSessionService } from 'nest-mcp';
import { McpEngine } from '../lib/protocol/engine';
import { HeldStreams } from '../lib/transports/http/held-streams.service';
import {
  type HttpApp,
  type HttpPlatform,
  PRINCIPAL_HEADER,
  startHttpApp,
  usePrincipalHeader,
} from './fixtures/http-app';
import { ProtocolFixtureModule } from './fixtures/protocol-fixture.module';
import {
  legacyRequest,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  send,
  SseEventReader,
  SseReader,
  waitUntil,
} from './fixtures/raw-rpc';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const PER_CALLER = 3;
const TOTAL = 5;
const PER_CALLER_REFUSAL = `Too many open streams for this caller: at most ${PER_CALLER} (McpModule option http.maxStreamsPerPrincipal)`;
const TOTAL_REFUSAL = `Too many open streams on this server: at most ${TOTAL} (McpModule option http.maxStreams)`;

/** Who calls: the fixture's principal stand-in header. */
const as = (principal: string): Record<string, string> => ({ [PRINCIPAL_HEADER]: principal });

function startServer(platform: HttpPlatform): Promise<HttpApp> {
  return startHttpApp(
    ProtocolFixtureModule.forRoot({
      http: { maxStreamsPerPrincipal: PER_CALLER, maxStreams: TOTAL },
      ssePath: 'sse',
      sseMessagesPath: 'messages',
    }),
    { platform, configure: (app) => usePrincipalHeader(app) },
  );
}

/** POSTs a `subscriptions/listen` request as `principal`. */
function listen(server: HttpApp, principal: string, id: string, signal: AbortSignal): Promise<Response> {
  return send(server.url, {
    body: modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, id),
    headers: { ...modernHeaders('subscriptions/listen'), ...as(principal) },
    signal,
  });
}

/** Opens a listen stream as `principal` and reads its acknowledgement. */
async function openListen(server: HttpApp, principal: string, id: string, signal: AbortSignal): Promise<SseReader> {
  const response = await listen(server, principal, id, signal);
  expect(response.status).toBe(200);
  const reader = new SseReader(response);
  expect((await reader.next()).method).toBe('notifications/subscriptions/acknowledged');
  return reader;
}

/** Opens a legacy session as `principal` and its GET stream. */
async function openGetStream(
  server: HttpApp,
  principal: string,
  signal: AbortSignal,
): Promise<{ response: Response; headers: Record<string, string> }> {
  const { headers } = await openLegacySession(server.url, '2025-11-25', { headers: as(principal) });
  const response = await send(server.url, {
    method: 'GET',
    headers: { ...headers, accept: 'text/event-stream' },
    signal,
  });
  return { response, headers };
}

/** Opens a 2024-11-05 SSE pair as `principal`. */
function openPair(server: HttpApp, principal: string, signal: AbortSignal): Promise<Response> {
  return send(new URL('/sse', server.baseUrl), {
    method: 'GET',
    headers: { accept: 'text/event-stream', ...as(principal) },
    signal,
  });
}

/** Expects the refusal of a held stream: `status`, `Retry-After`, a JSON-RPC error naming the bound. */
async function expectRefused(response: Response, status: 429 | 503, id: string | null, message: string): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get('retry-after')).toBe('5');
  expect(await response.json()).toEqual({ jsonrpc: '2.0', id, error: { code: -32603, message } });
}

describe.each(PLATFORMS)('held streams per caller and in total (%s)', (platform) => {
  let server: HttpApp;
  let held: HeldStreams;
  let engine: McpEngine;
  let sessions: McpSessionService;
  /** Aborted after each test: drops whatever stream a test left open. */
  let cleanup: AbortController;

  beforeAll(async () => {
    server = await startServer(platform);
    held = server.app.get(HeldStreams);
    engine = server.app.get(McpEngine);
    sessions = server.app.get(McpSessionService);
  });

  beforeEach(() => {
    cleanup = new AbortController();
  });

  afterEach(async () => {
    cleanup.abort();
    await waitUntil(() => held.size === 0, 'every stream of the test to be counted off');
  });

  afterAll(async () => {
    await server?.close();
  });

  it('refuses a listen past http.maxStreamsPerPrincipal with 429 and Retry-After, opening nothing; another caller is served', async () => {
    for (let index = 1; index <= PER_CALLER; index += 1) {
      await openListen(server, 'alice', `a${index}`, cleanup.signal);
    }
    expect(held.heldBy({ id: 'alice', scopes: [] })).toBe(PER_CALLER);

    await expectRefused(await listen(server, 'alice', 'a4', cleanup.signal), 429, 'a4', PER_CALLER_REFUSAL);
    expect(engine.subscriptions.size).toBe(PER_CALLER);

    await openListen(server, 'bob', 'b1', cleanup.signal);
    expect(held.size).toBe(PER_CALLER + 1);
  });

  it('counts legacy GET streams and SSE pairs with listens, and refuses each kind past the bound before its session', async () => {
    const get = await openGetStream(server, 'alice', cleanup.signal);
    expect(get.response.status).toBe(200);
    expect((await openPair(server, 'alice', cleanup.signal)).status).toBe(200);
    await openListen(server, 'alice', 'a1', cleanup.signal);
    expect(held.heldBy({ id: 'alice', scopes: [] })).toBe(3);

    const openSessions = await sessions.count();
    await expectRefused(await openPair(server, 'alice', cleanup.signal), 429, null, PER_CALLER_REFUSAL);
    // A refused pair opened no session.
    expect(await sessions.count()).toBe(openSessions);
    // Refused before the session is read: not the 409 of a session that has its stream already.
    const again = await send(server.url, {
      method: 'GET',
      headers: { ...get.headers, accept: 'text/event-stream' },
      signal: cleanup.signal,
    });
    await expectRefused(again, 429, null, PER_CALLER_REFUSAL);
    await expectRefused(await listen(server, 'alice', 'a2', cleanup.signal), 429, 'a2', PER_CALLER_REFUSAL);
    expect(held.size).toBe(3);
  });

  it('refuses past http.maxStreams with 503 and Retry-After, whoever asks', async () => {
    for (let index = 1; index <= PER_CALLER; index += 1) {
      await openListen(server, 'alice', `a${index}`, cleanup.signal);
    }
    await openListen(server, 'bob', 'b1', cleanup.signal);
    expect((await openPair(server, 'bob', cleanup.signal)).status).toBe(200);
    expect(held.size).toBe(TOTAL);

    await expectRefused(await listen(server, 'carol', 'c1', cleanup.signal), 503, 'c1', TOTAL_REFUSAL);
    await expectRefused(await openPair(server, 'carol', cleanup.signal), 503, null, TOTAL_REFUSAL);
    // A caller at its own bound hears of its own bound first.
    await expectRefused(await listen(server, 'alice', 'a4', cleanup.signal), 429, 'a4', PER_CALLER_REFUSAL);
    expect(held.size).toBe(TOTAL);
  });

  it('counts a stream off however it ends: the client closes it, its session ends, the client drops its pair', async () => {
    const closing = new AbortController();
    const listening = await openListen(server, 'alice', 'a1', closing.signal);
    const get = await openGetStream(server, 'alice', cleanup.signal);
    const getReader = new SseEventReader(get.response);
    const pair = new SseEventReader(await openPair(server, 'alice', cleanup.signal));
    expect((await pair.next()).event).toBe('endpoint');
    expect(held.size).toBe(3);

    // The client closes its listen.
    closing.abort();
    await listening.cancel();
    await waitUntil(() => held.size === 2, 'the closed listen to be counted off');
    await openListen(server, 'alice', 'a2', cleanup.signal);
    expect(held.size).toBe(3);

    // The session ends (DELETE): its GET stream ends with it.
    expect((await send(server.url, { method: 'DELETE', headers: get.headers })).status).toBe(204);
    await getReader.rest();
    await waitUntil(() => held.size === 2, 'the ended session stream to be counted off');

    // The client drops the SSE pair: its session ends, and the count with it.
    await pair.cancel();
    await waitUntil(() => held.size === 1, 'the dropped pair to be counted off');
    expect(held.heldBy({ id: 'alice', scopes: [] })).toBe(1);
  });

  it('a listen refused at the bound holds no subscription and no connection', async () => {
    for (let index = 1; index <= PER_CALLER; index += 1) {
      await openListen(server, 'alice', `a${index}`, cleanup.signal);
    }
    for (let attempt = 0; attempt < 20; attempt += 1) {
      await expectRefused(
        await listen(server, 'alice', `x${attempt}`, cleanup.signal),
        429,
        `x${attempt}`,
        PER_CALLER_REFUSAL,
      );
    }
    expect(engine.subscriptions.size).toBe(PER_CALLER);
    expect(held.size).toBe(PER_CALLER);
    // A request that is not long-lived is not counted at all.
    const call = await post(server.url, modernRequest('tools/call', { name: 'echo', arguments: { text: 'hi' } }), {
      ...modernHeaders('tools/call', 'echo'),
      ...as('alice'),
    });
    expect(call.status).toBe(200);
  });

  it('counts off a listen answered with an error: a caller one short of its bound can go on failing, then listen', async () => {
    for (let index = 1; index < PER_CALLER; index += 1) {
      await openListen(server, 'alice', `a${index}`, cleanup.signal);
    }
    const { headers } = await openLegacySession(server.url, '2025-11-25', { headers: as('alice') });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      // The Mcp-Method header disagrees with the body: refused by the engine once admitted.
      const mismatched = await post(server.url, modernRequest('subscriptions/listen', {}, `bad${attempt}`), {
        ...modernHeaders('tools/list'),
        ...as('alice'),
      });
      expect({ status: mismatched.status, code: mismatched.json.error.code }).toEqual({ status: 400, code: -32020 });
      // Nor is it served in a legacy session.
      const legacy = await post(server.url, legacyRequest('subscriptions/listen', {}, attempt), headers);
      expect(legacy.json.error.code).toBe(-32601);
    }
    await openListen(server, 'alice', `a${PER_CALLER}`, cleanup.signal);
    expect(held.size).toBe(PER_CALLER);
  });
});

describe.each(PLATFORMS)('held streams at shutdown (%s)', (platform) => {
  it('every stream ended by the shutdown is counted off', async () => {
    const server = await startServer(platform);
    const held = server.app.get(HeldStreams);
    const cleanup = new AbortController();
    try {
      const listening = await openListen(server, 'alice', 'a1', cleanup.signal);
      const get = new SseEventReader((await openGetStream(server, 'alice', cleanup.signal)).response);
      const pair = new SseEventReader(await openPair(server, 'bob', cleanup.signal));
      expect((await pair.next()).event).toBe('endpoint');
      expect(held.size).toBe(3);

      await server.close();
      await Promise.all([listening.rest(), get.rest(), pair.rest()].map((ended) => ended.catch(() => undefined)));
      await waitUntil(() => held.size === 0, 'the shutdown to count every stream off');
      expect(held.heldBy({ id: 'alice', scopes: [] })).toBe(0);
    } finally {
      cleanup.abort();
      await server.close();
    }
  });
});

/** One answer read whole over a keep-alive agent. */
interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** POSTs `body` on `agent`; a held stream (SSE) resolves at its head, with `drop` to close it later. */
function postOn(
  agent: Agent,
  server: HttpApp,
  body: unknown,
  headers: Record<string, string>,
): Promise<Answer & { drop?: () => void }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      server.url,
      {
        method: 'POST',
        agent,
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...headers,
        },
      },
      (res) => {
        if ((res.headers['content-type'] ?? '').includes('text/event-stream')) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '', drop: () => res.destroy() });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

// One platform per run (`MCP_E2E_PLATFORM`, Express by default): the flood takes 10 to 15 s, and
// the admission it floods is the one the tests above check on both.
describe('20,000 listen attempts by one client', () => {
  const ATTEMPTS = 20_000;
  const PARALLEL = 64;
  const CAP = 32;

  it("leave another client's calls answered", async () => {
    // The defaults: 32 streams per caller, each anonymous client counted by its address.
    const server = await startHttpApp(ProtocolFixtureModule.forRoot());
    const held = server.app.get(HeldStreams);
    const engine = server.app.get(McpEngine);
    const flooding = new Agent({ keepAlive: true, localAddress: '127.0.0.1' });
    const calling = new Agent({ keepAlive: true, maxSockets: 1, localAddress: '127.0.0.2' });
    const streams: Array<() => void> = [];
    try {
      let attempted = 0;
      /** Set once the flood is over, or failed: every loop stops before the server does. */
      let stopped = false;
      const refusals = new Map<number, number>();
      const listenBody = modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } });
      const flood = async (): Promise<void> => {
        while (!stopped && attempted < ATTEMPTS) {
          attempted += 1;
          const answer = await postOn(flooding, server, listenBody, modernHeaders('subscriptions/listen'));
          if (answer.drop !== undefined) {
            streams.push(answer.drop);
            if (streams.length > CAP) {
              // Fails fast, rather than running the process out of descriptors, when nothing bounds them.
              throw new Error(`${streams.length} listen streams held by one client`);
            }
            continue;
          }
          expect(answer.headers['retry-after']).toBe('5');
          refusals.set(answer.status, (refusals.get(answer.status) ?? 0) + 1);
        }
      };
      const answered: string[] = [];
      const call = async (): Promise<void> => {
        for (let id = 1; !stopped; id += 1) {
          const text = `call ${id}`;
          const answer = await postOn(
            calling,
            server,
            modernRequest('tools/call', { name: 'echo', arguments: { text } }, id),
            modernHeaders('tools/call', 'echo'),
          );
          expect(answer.status).toBe(200);
          expect(JSON.parse(answer.body).result.content).toEqual([{ type: 'text', text: `echo: ${text}` }]);
          answered.push(text);
        }
      };
      const caller = call();
      // Reported once the flood is over (below), not as an unhandled rejection meanwhile.
      caller.catch(() => undefined);
      const floods = Array.from({ length: PARALLEL }, flood);
      try {
        await Promise.all(floods);
      } finally {
        stopped = true;
        await Promise.allSettled([caller, ...floods]);
      }
      await caller;

      expect(streams).toHaveLength(CAP);
      expect(Object.fromEntries(refusals)).toEqual({ 429: ATTEMPTS - CAP });
      expect(answered.length).toBeGreaterThan(10);
      expect(engine.subscriptions.size).toBe(CAP);
      expect(held.size).toBe(CAP);
      // The refused attempts left no connection behind: the keep-alive pool and the held streams.
      const connections = await new Promise<number>((resolve, reject) =>
        server.app
          .getHttpServer()
          .getConnections((error: Error | null, count: number) => (error ? reject(error) : resolve(count))),
      );
      expect(connections).toBeLessThanOrEqual(PARALLEL + CAP + 1);

      streams.splice(0).forEach((drop) => drop());
      await waitUntil(() => held.size === 0 && engine.subscriptions.size === 0, 'the held listens to be counted off');
    } finally {
      streams.forEach((drop) => drop());
      flooding.destroy();
      calling.destroy();
      await server.close();
    }
    // The flood is CPU-bound: 10 to 15 s alone, over 60 s on the 2-core machine while the other
    // worker and the consumer apps' installs and compilers run beside it.
  }, 180_000);
});
