/**
 * One HTTP exchange of the test client, over one of two connectors: a connection in memory
 * handed to the application's own HTTP server (no port), or the network (a URL).
 */
import { type IncomingMessage, request as httpRequest, type RequestOptions, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { memoryConnection } from '../shared/memory-connection';

/** Where the test client's requests go. */
export interface Connector {
  /** `http://host[:port]`, for the Host header and error messages. */
  readonly origin: string;
  send(request: HttpRequestInit): Promise<IncomingMessage>;
}

export interface HttpRequestInit {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

function sendWith(make: typeof httpRequest, options: RequestOptions, init: HttpRequestInit): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const headers = { ...init.headers };
    if (init.body !== undefined) {
      headers['content-length'] = String(Buffer.byteLength(init.body));
    }
    const req = make({ ...options, method: init.method, path: init.path, headers, signal: init.signal });
    req.once('response', resolve);
    req.once('error', reject);
    req.end(init.body);
  });
}

/** The connector of an application: each request on a new in-memory connection to its server. */
export function inProcessConnector(server: Server): Connector {
  return {
    origin: 'http://localhost',
    send: (init) =>
      sendWith(
        httpRequest,
        {
          host: 'localhost',
          // No agent: each request takes the connection `createConnection` makes.
          createConnection: () => {
            const { client, server: serverEnd } = memoryConnection();
            server.emit('connection', serverEnd);
            return client;
          },
        },
        init,
      ),
  };
}

/** The connector of a URL: each request over the network, on a connection of its own. */
export function networkConnector(url: URL): Connector {
  const make = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return {
    origin: url.origin,
    send: (init) => sendWith(make, { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, agent: false }, init),
  };
}

/** Reads the whole body of a response as text. */
export function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.once('error', reject);
    response.once('aborted', () => reject(new Error('The connection closed before the response ended')));
  });
}

/** The JSON-RPC messages of an SSE response, as they arrive (events without data are skipped). */
export async function* sseMessages(response: IncomingMessage): AsyncGenerator<unknown> {
  response.setEncoding('utf8');
  let buffer = '';
  for await (const chunk of response as AsyncIterable<string>) {
    buffer += chunk;
    const blocks = buffer.split(/\r?\n\r?\n/);
    buffer = blocks.pop()!;
    for (const block of blocks) {
      const message = dataOf(block);
      if (message !== undefined) {
        yield message;
      }
    }
  }
  const last = dataOf(buffer);
  if (last !== undefined) {
    yield last;
  }
}

function dataOf(block: string): unknown {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    else if (line.startsWith('event:')) event = line.slice(6).trim();
  }
  const text = data.join('\n');
  return event === 'message' && text !== '' ? JSON.parse(text) : undefined;
}
