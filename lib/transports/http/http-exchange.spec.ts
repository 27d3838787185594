import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { sendJson, toExchange } from './http-exchange';

/** A Fastify-like reply over a real Node response, with headers of its own. */
function platformPair(headers: Record<string, string>) {
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  let hijacked = 0;
  const reply = {
    raw: res,
    hijack: () => {
      hijacked += 1;
    },
    getHeaders: () => ({ ...headers }),
  };
  return { request: { raw: req }, reply, res, hijacks: () => hijacked };
}

describe('toExchange on a platform that wraps Node (Fastify)', () => {
  it("takes the reply over and writes the reply's headers with the answer, unless the answer sets its own", () => {
    const { request, reply, res, hijacks } = platformPair({
      'x-ratelimit-remaining': '9',
      'content-type': 'text/plain',
    });
    const exchange = toExchange(request, reply, true);
    expect(exchange.res).toBe(res);
    expect(hijacks()).toBe(1);
    sendJson(exchange.res, 200, { ok: true });
    expect(res.statusCode).toBe(200);
    expect(res.getHeader('x-ratelimit-remaining')).toBe('9');
    expect(res.getHeader('content-type')).toBe('application/json');
  });

  it('can take the same reply over twice (a refusal answered after the exchange was made)', () => {
    const { request, reply, res } = platformPair({ 'x-request-id': 'r-1' });
    toExchange(request, reply, true);
    const again = toExchange(request, reply, true);
    // Wrapping the wrapper would make writeHead call itself until the stack overflows.
    expect(() => sendJson(again.res, 403, { error: 'no' })).not.toThrow();
    expect(res.statusCode).toBe(403);
    expect(res.getHeader('x-request-id')).toBe('r-1');
  });

  it('hands Express objects over as they are', () => {
    const req = new IncomingMessage(new Socket());
    const res = new ServerResponse(req);
    const exchange = toExchange(req, res, false);
    expect(exchange.req).toBe(req);
    expect(exchange.res).toBe(res);
    expect(exchange.headers).toBe(req.headers);
  });
});
