/**
 * Test doubles of a raw Node request and response for the unit specs of the HTTP layer (lib/transports/http): the
 * response records its headers and what was written on it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RecordedResponse {
  readonly res: ServerResponse;
  /** Every header set, by lower-case name. */
  readonly headers: Record<string, unknown>;
  status(): number | undefined;
  body(): unknown;
  ended(): boolean;
}

/** A request on a loopback connection, from 127.0.0.1. */
export function fakeRequest(method: string, headers: Record<string, string> = {}, url = '/mcp'): IncomingMessage {
  return {
    method,
    url,
    httpVersionMajor: 1,
    headers: { host: 'localhost:3000', ...headers },
    socket: { localAddress: '127.0.0.1', remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
}

/** A response that records what is written on it. */
export function fakeResponse(): RecordedResponse {
  const headers: Record<string, unknown> = {};
  let status: number | undefined;
  let payload: string | undefined;
  const res = {
    headersSent: false,
    writableEnded: false,
    destroyed: false,
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = value;
    },
    getHeader: (name: string) => headers[name.toLowerCase()],
    hasHeader: (name: string) => name.toLowerCase() in headers,
    writeHead(code: number, more: Record<string, unknown> = {}) {
      status = code;
      for (const [name, value] of Object.entries(more)) {
        headers[name.toLowerCase()] = value;
      }
      res.headersSent = true;
      return res;
    },
    end(body?: string) {
      payload = body;
      res.writableEnded = true;
    },
  };
  return {
    res: res as unknown as ServerResponse,
    headers,
    status: () => status,
    body: () => (payload === undefined || payload === '' ? undefined : JSON.parse(payload)),
    ended: () => res.writableEnded,
  };
}
