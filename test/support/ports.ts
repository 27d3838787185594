import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on: the kernel picks a free one, which is released at once.
 * Another process may take it meanwhile (a small race): callers that bind it retry, callers that
 * want a refused connection accept the odds.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
