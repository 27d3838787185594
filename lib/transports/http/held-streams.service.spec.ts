import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResolvedMcpOptions } from '../../mcp-options.factory';
import { anonymousAt, type McpPrincipal } from '../../protocol/bounds/principal';
import { HeldStreams } from './held-streams.service';
import type { HttpExchange } from './http-exchange';
import type { HttpRefusals } from './http-refusals.service';

/** A Node response as far as admission uses it: its close, and what a refusal writes. */
class FakeResponse extends EventEmitter {
  destroyed = false;
  headersSent = false;
  writableEnded = false;
  status: number | undefined;
  head: Record<string, unknown> = {};
  body: unknown;

  writeHead(status: number, head: Record<string, unknown>): this {
    this.status = status;
    this.head = head;
    this.headersSent = true;
    return this;
  }

  end(payload?: string): void {
    this.body = payload === undefined ? undefined : JSON.parse(payload);
    this.writableEnded = true;
  }
}

function exchange(): { exchange: HttpExchange; res: FakeResponse } {
  const res = new FakeResponse();
  const req = { method: 'POST', url: '/mcp', socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
  return { exchange: { req, res: res as unknown as ServerResponse, headers: {} } as HttpExchange, res };
}

const ALICE: McpPrincipal = { id: 'alice', scopes: [] };
const BOB: McpPrincipal = { id: 'bob', scopes: [] };

function heldStreams(maxStreamsPerPrincipal: number, maxStreams: number) {
  const refused: Array<{ reason: string; status: number; message: string; whose: string }> = [];
  const refusals = {
    boundReached: (_req: IncomingMessage, reason: string, status: number, message: string, whose: string) =>
      refused.push({ reason, status, message, whose }),
  } as unknown as HttpRefusals;
  const http = { maxStreamsPerPrincipal, maxStreams } as ResolvedMcpOptions['http'];
  return { held: new HeldStreams(http, refusals), refused };
}

describe('HeldStreams', () => {
  it("refuses a caller's stream past its bound with 429, Retry-After and the request's id; others go on", () => {
    const { held, refused } = heldStreams(2, 10);
    expect(held.admit(exchange().exchange, ALICE)).toBe(true);
    expect(held.admit(exchange().exchange, ALICE)).toBe(true);
    const third = exchange();
    expect(held.admit(third.exchange, ALICE, 'listen-3')).toBe(false);
    const message = 'Too many open streams for this caller: at most 2 (McpModule option http.maxStreamsPerPrincipal)';
    expect(third.res.status).toBe(429);
    expect(third.res.head).toMatchObject({ 'retry-after': '5' });
    expect(third.res.body).toEqual({ jsonrpc: '2.0', id: 'listen-3', error: { code: -32603, message } });
    expect(refused).toEqual([{ reason: 'streams-per-caller', status: 429, message, whose: 'caller alice' }]);
    expect(held.admit(exchange().exchange, BOB)).toBe(true);
    expect({ size: held.size, alice: held.heldBy(ALICE), bob: held.heldBy(BOB) }).toEqual({
      size: 3,
      alice: 2,
      bob: 1,
    });
  });

  it('refuses any stream past the total with 503 and Retry-After; a caller at its own bound hears of that first', () => {
    const { held, refused } = heldStreams(2, 3);
    [ALICE, ALICE, BOB].forEach((principal) => expect(held.admit(exchange().exchange, principal)).toBe(true));
    const carol = exchange();
    expect(held.admit(carol.exchange, { id: 'carol', scopes: [] })).toBe(false);
    const message = 'Too many open streams on this server: at most 3 (McpModule option http.maxStreams)';
    expect(carol.res.status).toBe(503);
    expect(carol.res.head).toMatchObject({ 'retry-after': '5' });
    expect(carol.res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32603, message } });
    const alice = exchange();
    expect(held.admit(alice.exchange, ALICE)).toBe(false);
    expect(alice.res.status).toBe(429);
    expect(refused.map((line) => line.reason)).toEqual(['streams', 'streams-per-caller']);
  });

  it('counts a stream off once when its response closes, and forgets a caller that holds none', () => {
    const { held } = heldStreams(1, 10);
    const first = exchange();
    held.admit(first.exchange, ALICE);
    first.res.emit('close');
    first.res.emit('close');
    expect({ size: held.size, alice: held.heldBy(ALICE) }).toEqual({ size: 0, alice: 0 });
    expect((held as unknown as { byCaller: Map<string, number> }).byCaller.size).toBe(0);
    expect(held.admit(exchange().exchange, ALICE)).toBe(true);
  });

  it('does not count a response the client already left: its close is past', () => {
    const { held } = heldStreams(1, 10);
    const gone = exchange();
    gone.res.destroyed = true;
    expect(held.admit(gone.exchange, ALICE)).toBe(true);
    expect(held.size).toBe(0);
    expect(gone.res.listenerCount('close')).toBe(0);
  });

  it('counts anonymous callers by their address', () => {
    const { held } = heldStreams(1, 10);
    expect(held.admit(exchange().exchange, anonymousAt('10.0.0.1'))).toBe(true);
    expect(held.admit(exchange().exchange, anonymousAt('10.0.0.2'))).toBe(true);
    expect(held.admit(exchange().exchange, anonymousAt('10.0.0.1'))).toBe(false);
  });
});
