import type { ClassifiedMessage } from '../../protocol/messages/json-rpc';
import type { HttpExchange } from './http-exchange';
import { HttpDrain } from './http-drain';

/** A response that records what was written on it. */
function exchangeOf(method: string) {
  const headers: Record<string, unknown> = {};
  const res = {
    headersSent: false,
    writableEnded: false,
    destroyed: false,
    status: 0,
    body: '',
    setHeader(name: string, value: unknown) {
      headers[name] = value;
    },
    writeHead(status: number, more: Record<string, unknown>) {
      res.status = status;
      Object.assign(headers, more);
      res.headersSent = true;
    },
    end(body?: string) {
      res.body = body ?? '';
      res.writableEnded = true;
    },
  };
  return { exchange: { req: { method, httpVersionMajor: 1 }, res } as unknown as HttpExchange, res, headers };
}

const REQUEST: ClassifiedMessage = { kind: 'request', message: { jsonrpc: '2.0', id: 7, method: 'tools/call' } };
const NOTIFICATION: ClassifiedMessage = {
  kind: 'notification',
  message: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
};
const RESPONSE: ClassifiedMessage = { kind: 'response', message: { jsonrpc: '2.0', id: 'q', result: {} } };

const REFUSAL = {
  jsonrpc: '2.0',
  error: { code: -32603, message: 'Service unavailable: the server is shutting down; retry shortly' },
};

describe('HttpDrain', () => {
  it('lets everything through before the drain, untouched', () => {
    const drain = new HttpDrain();
    const { exchange, res, headers } = exchangeOf('GET');
    expect(drain.passes(exchange)).toBe(true);
    expect(drain.refusesWork(exchange, REQUEST)).toBe(false);
    expect(headers).toEqual({});
    expect(res.headersSent).toBe(false);
  });

  it('while draining, does not serve a GET, refused with 503, Retry-After and a JSON-RPC error, and closes its connection', () => {
    const drain = new HttpDrain();
    drain.begin();
    const { exchange, res, headers } = exchangeOf('GET');
    expect(drain.passes(exchange)).toBe(false);
    // The gate answers it once the Host/Origin check passed.
    expect(res.headersSent).toBe(false);
    drain.refuse(exchange);
    expect(res.status).toBe(503);
    expect(headers).toMatchObject({ connection: 'close', 'retry-after': '1', 'content-type': 'application/json' });
    expect(JSON.parse(res.body)).toEqual({ ...REFUSAL, id: null });
  });

  it.each(['POST', 'DELETE', 'OPTIONS'])(
    'while draining, admits a %s, whose answer closes its connection',
    (method) => {
      const drain = new HttpDrain();
      drain.begin();
      const { exchange, res, headers } = exchangeOf(method);
      expect(drain.passes(exchange)).toBe(true);
      expect(headers).toEqual({ connection: 'close' });
      expect(res.headersSent).toBe(false);
    },
  );

  it('while draining, refuses a request with its id, and a batch holding one without', () => {
    const drain = new HttpDrain();
    drain.begin();
    const single = exchangeOf('POST');
    expect(drain.refusesWork(single.exchange, REQUEST)).toBe(true);
    expect(single.res.status).toBe(503);
    expect(JSON.parse(single.res.body)).toEqual({ ...REFUSAL, id: 7 });

    const batch = exchangeOf('POST');
    expect(drain.refusesWork(batch.exchange, [NOTIFICATION, REQUEST])).toBe(true);
    expect(JSON.parse(batch.res.body)).toEqual({ ...REFUSAL, id: null });
  });

  it('while draining, lets answers and notifications through: the calls in flight may wait for them', () => {
    const drain = new HttpDrain();
    drain.begin();
    for (const messages of [RESPONSE, NOTIFICATION, [NOTIFICATION, NOTIFICATION]]) {
      const { exchange, res } = exchangeOf('POST');
      expect(drain.refusesWork(exchange, messages)).toBe(false);
      expect(res.headersSent).toBe(false);
    }
  });

  it('whenQuiet waits for the tracked requests whose handlers have not returned', async () => {
    const drain = new HttpDrain();
    await expect(drain.whenQuiet()).resolves.toBeUndefined();
    const ends: Array<() => void> = [];
    const served: string[] = [];
    const handler = (name: string): Promise<void> =>
      new Promise<void>((resolve) => {
        served.push(name);
        ends.push(resolve);
      });
    const post = drain.track(handler, 'post');
    const get = drain.track(handler, 'get');
    // Each handler is called with what it was tracked with.
    expect(served).toEqual(['post', 'get']);
    let quiet = false;
    const waiting = drain.whenQuiet().then(() => (quiet = true));
    ends[0]();
    await post;
    await Promise.resolve();
    expect(quiet).toBe(false);
    // A GET refused while draining is not counted.
    drain.begin();
    expect(drain.passes(exchangeOf('GET').exchange)).toBe(false);
    ends[1]();
    await get;
    await waiting;
    expect(quiet).toBe(true);
  });
});
