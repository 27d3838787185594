import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** What became of a body sent with `sendBody`. */
export interface SentBody {
  /** The answer's status, once one came; none when the connection failed before it. */
  status?: number;
  headers?: IncomingHttpHeaders;
  body?: string;
  /** The error code of a connection that failed before any answer (`ECONNRESET`, `EPIPE`...). */
  error?: string;
  /** From the first byte written to the answer's head (or the failure). */
  elapsedMs: number;
  /** How much of the body went out before the answer came. */
  sentBytes: number;
}

/**
 * Node's client POSTing a body of `totalBytes` (`prefix`, then 0x78 bytes: one reused 64 KiB
 * chunk, so the client allocates almost nothing) as fast as the socket takes it, honouring
 * backpressure, and stopping once the answer arrives. Without a `content-length` in `headers` the
 * body goes chunked. It resolves with the answer, or with the error code of a connection that
 * failed before one; an error after the answer (the server closing on a client still writing) is
 * the expected end.
 */
export function sendBody(
  url: URL | string,
  totalBytes: number,
  options: { headers?: Record<string, string | number>; prefix?: string } = {},
): Promise<SentBody> {
  const chunk = Buffer.alloc(64 * 1024, 0x78);
  const prefix = Buffer.from(options.prefix ?? '');
  return new Promise((resolve) => {
    const started = performance.now();
    let sent = 0;
    let answered = false;
    const req = httpRequest(url, { method: 'POST', headers: options.headers, agent: false }, (res) => {
      answered = true;
      const elapsedMs = performance.now() - started;
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        resolve({
          status: res.statusCode,
          headers: res.headers,
          body: Buffer.concat(parts).toString('utf8'),
          elapsedMs,
          sentBytes: sent,
        });
        req.destroy();
      });
      res.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ error: error.code ?? error.message, elapsedMs, sentBytes: sent }),
      );
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered) {
        resolve({ error: error.code ?? error.message, elapsedMs: performance.now() - started, sentBytes: sent });
      }
    });
    const pump = (): void => {
      while (!answered && sent < totalBytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, totalBytes - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) {
        req.end();
      }
    };
    if (prefix.length > 0) {
      sent += prefix.length;
      req.write(prefix);
    }
    pump();
  });
}
