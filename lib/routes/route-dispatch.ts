/**
 * Sends one request into the application's own HTTP server over a connection in memory: the
 * route runs its whole pipeline (middleware, guards, interceptors, pipes, filters) as for a
 * request from the network. The response body is read up to a bound.
 */
import { request, type Server } from 'node:http';
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { McpError } from '../protocol/messages/mcp-error';
import type { RouteResponse } from './route-result';
import { memoryConnection } from './memory-connection';

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

/** @throws McpError (-32603) when the response body is larger than `maxBytes` or the exchange fails. */
export function dispatchRoute(server: Server, init: RouteRequest, maxBytes: number): Promise<RouteResponse> {
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
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          response.destroy();
          reject(new McpError(McpErrorCode.InternalError, `The route's response is larger than ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.once('end', () =>
        resolve({ status: response.statusCode ?? 500, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.once('error', failed);
      response.once('aborted', failed);
    });
    req.end(init.body);
  });
}
