import fastify from 'fastify';
import { fastifyReplyHeaders } from './platform-fastify';

describe('fastifyReplyHeaders', () => {
  it('reads the headers set on a real Fastify reply where the reply keeps them, without getHeaders()', async () => {
    const app = fastify();
    let seen: { headers: Record<string, unknown>; getHeadersCalls: number } | undefined;
    app.post('/x', (_request, reply) => {
      reply.header('x-ratelimit-limit', '10').header('set-cookie', ['a=1', 'b=2']);
      reply.raw.setHeader('x-raw', 'on the raw response');
      const getHeaders = jest.spyOn(reply, 'getHeaders');
      seen = { headers: { ...fastifyReplyHeaders(reply) }, getHeadersCalls: getHeaders.mock.calls.length };
      reply.send({});
    });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const answer = await fetch(`${address}/x`, { method: 'POST' });
      expect(answer.status).toBe(200);
    } finally {
      await app.close();
    }
    expect(seen?.getHeadersCalls).toBe(0);
    // The reply's own headers; the raw response's are on the response already.
    expect(seen?.headers).toEqual({ 'x-ratelimit-limit': '10', 'set-cookie': ['a=1', 'b=2'] });
  });

  it('falls back to getHeaders() for a reply that keeps its headers elsewhere', () => {
    const headers = { 'x-throttle': '1' };
    const reply = { getHeaders: jest.fn(() => headers) };
    expect(fastifyReplyHeaders(reply)).toBe(headers);
    expect(reply.getHeaders).toHaveBeenCalledTimes(1);
  });
});
