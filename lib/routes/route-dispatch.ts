/**
 * Sends one request into the application's own HTTP server over a connection in memory: the
 * route runs its whole pipeline (middleware, guards, interceptors, pipes, filters) as for a
 * request from the network. The response body is read up to a bound, a file's up to the inline
 * bound.
 */
import { request, type Server } from 'node:http';
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { McpError } from '../protocol/messages/mcp-error';
import type { RouteResponse } from './route-result';
import { dispositionFileName } from './content-disposition';
import { memoryConnection } from '../shared/memory-connection';
import { bodyText, mediaTypeOf, routeMediaOf, type RouteFile } from './route-file';

/** One request of a route tool. */
export interface RouteRequest {
  readonly method: string;
  /** The path with its query string. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text. */
  readonly body?: string;
  /** The call's: a cancelled call closes the connection, and the route sees its client leave. */
  readonly signal?: AbortSignal;
  /** The MCP caller's address (its connection's); loopback when it has none (stdio). */
  readonly remoteAddress?: string;
}

/** How much of a route's answer is read. */
export interface RouteBodyBounds {
  /** The largest body read; a larger one fails the call (-32603). */
  readonly maxResponseBytes: number;
  /** The largest file kept inline (see `route-file.ts`); at most `maxResponseBytes` is read in any case. */
  readonly maxInlineBytes: number;
  /** Whether a larger file may be left unread, for a link to the route (else it fails the call). */
  readonly linkable: boolean;
}

/** A number of bytes in a `Content-Length` value, when it is one. */
function lengthOf(value: string | undefined): number | undefined {
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/**
 * Sends the request and reads the answer: a 2xx file (a body neither JSON nor text, see
 * `routeMediaOf`) up to the inline bound, then, when `bounds.linkable`, left unread and
 * answered without its bytes; any other body up to `maxResponseBytes`. A `Content-Length` over
 * the bound is known at once: the body is not read at all.
 *
 * @throws McpError (-32603) when the body is larger than its bound (and not linkable), or the exchange fails.
 */
export function dispatchRoute(server: Server, init: RouteRequest, bounds: RouteBodyBounds): Promise<RouteResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: 'localhost', ...init.headers };
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(init.body));
    }
    const req = request({
      host: 'localhost',
      method: init.method,
      path: init.path,
      headers,
      signal: init.signal,
      // No agent: each call takes the connection `createConnection` makes.
      createConnection: () => {
        const { client, server: serverEnd } = memoryConnection(init.remoteAddress);
        server.emit('connection', serverEnd);
        return client;
      },
    });
    const failed = (): void => reject(new McpError(McpErrorCode.InternalError, 'Internal error'));
    req.once('error', failed);
    req.once('response', (response) => {
      const status = response.statusCode ?? 500;
      const contentType = response.headers['content-type'];
      const isFile = status >= 200 && status < 300 && routeMediaOf(contentType) === 'file';
      const limit = isFile ? Math.min(bounds.maxInlineBytes, bounds.maxResponseBytes) : bounds.maxResponseBytes;
      const size = lengthOf(response.headers['content-length']);
      const file = (): Omit<RouteFile, 'bytes'> => ({
        mimeType: mediaTypeOf(contentType) ?? 'application/octet-stream',
        fileName: dispositionFileName(response.headers['content-disposition']),
        size,
      });
      let stopped = false;
      // Settled before the response is destroyed: destroying it emits `aborted` at once.
      const over = (): void => {
        stopped = true;
        if (isFile && bounds.linkable) {
          resolve({ status, body: '', contentType, file: file() });
        } else {
          const what = isFile ? 'file' : 'response';
          reject(new McpError(McpErrorCode.InternalError, `The route's ${what} is larger than ${limit} bytes`));
        }
        response.destroy();
      };
      if (size !== undefined && size > limit) {
        over();
        return;
      }
      const chunks: Buffer[] = [];
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        if (stopped) {
          return;
        }
        read += chunk.length;
        if (read > limit) {
          over();
          return;
        }
        chunks.push(chunk);
      });
      response.once('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve(
          isFile
            ? { status, body: '', contentType, file: { ...file(), bytes } }
            : { status, body: bodyText(bytes, contentType), contentType },
        );
      });
      response.once('error', failed);
      response.once('aborted', failed);
    });
    req.end(init.body);
  });
}
