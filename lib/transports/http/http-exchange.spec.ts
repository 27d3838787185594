import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { sendJson, SseStream, toExchange } from './http-exchange';

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

/** A response whose client reads nothing: what is written stays unread, as `writableLength` tells. */
function unreadResponse(socketKind: 'tcp' | 'tls' = 'tcp') {
  const written: string[] = [];
  const socket = {
    destroyed: false,
    setNoDelay: () => undefined,
    resetAndDestroy: jest.fn(() => {
      if (socketKind === 'tls') {
        throw new Error('ERR_INVALID_HANDLE_TYPE');
      }
      socket.destroyed = true;
    }),
  };
  const res = {
    socket,
    writableLength: 0,
    writableEnded: false,
    destroyed: false,
    writeHead: () => res,
    flushHeaders: () => undefined,
    on: () => res,
    write: (chunk: string) => {
      written.push(chunk);
      res.writableLength += Buffer.byteLength(chunk);
      return res.writableLength < 16 * 1024;
    },
    end: () => {
      res.writableEnded = true;
    },
    destroy: jest.fn(() => {
      res.destroyed = true;
    }),
  };
  return { res: res as unknown as ServerResponse, fake: res, socket, written };
}

describe('SseStream and a client that does not read (http.maxUnreadBytes)', () => {
  const message = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: 'x'.repeat(1000) } };

  function boundOf(maxUnreadBytes: number) {
    const exceeded = jest.fn();
    return { bound: { maxUnreadBytes, exceeded }, exceeded };
  }

  it('writes while what is unread is within the bound, then lets the stream go instead of writing more', () => {
    const { res, fake, socket, written } = unreadResponse();
    const { bound, exceeded } = boundOf(4000);
    const stream = new SseStream(res, {}, bound);
    while (fake.writableLength <= 4000) {
      stream.send(message);
    }
    const writes = written.length;

    expect(stream.send(message)).toBe(false);
    expect(written).toHaveLength(writes);
    expect(exceeded).toHaveBeenCalledTimes(1);
    expect(exceeded).toHaveBeenCalledWith(res);
    // Reset, so that the kernel drops what it holds for the client too.
    expect(socket.resetAndDestroy).toHaveBeenCalledTimes(1);
    expect(fake.destroy).toHaveBeenCalledTimes(1);
    expect(stream.open).toBe(false);

    expect(stream.send(message)).toBe(false);
    expect(stream.prime('s:1', 0)).toBe(false);
    expect(written).toHaveLength(writes);
    expect(exceeded).toHaveBeenCalledTimes(1);
  });

  it('writes a message larger than the bound when nothing is left unread', () => {
    const { res, written } = unreadResponse();
    const { bound, exceeded } = boundOf(100);
    const stream = new SseStream(res, {}, bound);
    stream.send(message);
    expect(written).toHaveLength(1);
    expect(exceeded).not.toHaveBeenCalled();
  });

  it('lets a quiet stream past the bound go at its next keep-alive comment', () => {
    jest.useFakeTimers();
    try {
      const { res, fake, written } = unreadResponse();
      const { bound, exceeded } = boundOf(100);
      const tick = jest.fn();
      const stream = new SseStream(res, {}, bound);
      stream.keepAliveEvery(1000, tick);
      stream.send(message);
      jest.advanceTimersByTime(1000);
      expect(written).toHaveLength(1);
      expect(exceeded).toHaveBeenCalledTimes(1);
      expect(fake.destroy).toHaveBeenCalled();
      expect(tick).not.toHaveBeenCalled();
      stream.end();
    } finally {
      jest.useRealTimers();
    }
  });

  it('closes a connection it cannot reset (TLS)', () => {
    const { res, fake, socket } = unreadResponse('tls');
    const { bound } = boundOf(100);
    const stream = new SseStream(res, {}, bound);
    stream.send(message);
    expect(stream.send(message)).toBe(false);
    expect(socket.resetAndDestroy).toHaveBeenCalled();
    expect(fake.destroy).toHaveBeenCalledTimes(1);
  });
});
