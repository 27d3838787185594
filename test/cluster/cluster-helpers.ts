/**
 * Wire helpers shared by the cluster specs: modern and legacy JSON-RPC requests aimed at one
 * chosen instance (so that a test decides which instance serves which step), reading their
 * answers whether JSON or SSE, and polling with a deadline.
 */
import { randomBytes } from 'node:crypto';
import {
  legacyRequest,
  META,
  modernHeaders,
  modernRequest,
  post,
  type RawResponse,
  type RpcMessage,
  send,
  SseReader,
} from '../fixtures/raw-rpc';
import { PRINCIPAL_HEADER } from '../fixtures/tasks-fixture';

/** The tasks extension of 2026-07-28. */
export const MCP_TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The `_meta` key that tags every message of a `subscriptions/listen` stream. */
export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** The `_meta` key that ties a legacy message to its task. */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** A key prefix no other test uses, so that tests sharing one Redis do not see each other's state. */
export function uniqueKeyPrefix(label: string): string {
  return `${label}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}:`;
}

/** The body field `Mcp-Name` mirrors, by modern method. */
const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** How a modern request is sent. */
export interface ModernOptions {
  /** Declare the tasks extension (with elicitation and sampling) in the client capabilities. @default true */
  tasks?: boolean;
  /** The client capabilities, instead of those `tasks` chooses. */
  capabilities?: Record<string, unknown>;
  /** Served as this principal (the fixtures' stand-in header); anonymous otherwise. */
  principal?: string;
  /** @default 1 */
  id?: string | number;
  signal?: AbortSignal;
}

function modernCapabilities(options: ModernOptions): Record<string, unknown> {
  if (options.capabilities !== undefined) {
    return options.capabilities;
  }
  const base = { elicitation: {}, sampling: {} };
  return options.tasks === false ? base : { ...base, extensions: { [MCP_TASKS_EXTENSION]: {} } };
}

/** The body and headers of one modern request, for a test that sends it its own way. */
export function modernParts(
  method: string,
  params: Record<string, unknown>,
  options: ModernOptions,
): { body: RpcMessage; headers: Record<string, string> } {
  const field = NAME_FIELD[method];
  const name = field !== undefined && typeof params[field] === 'string' ? params[field] : undefined;
  const headers = modernHeaders(method, name);
  if (options.principal !== undefined) {
    headers[PRINCIPAL_HEADER] = options.principal;
  }
  const body = modernRequest(method, params, options.id ?? 1, {
    [META.clientCapabilities]: modernCapabilities(options),
  });
  return { body, headers };
}

/** One modern (2026-07-28) request to `url`, with the `_meta` envelope and the standard headers. */
export function modernPost(
  url: URL | string,
  method: string,
  params: Record<string, unknown> = {},
  options: ModernOptions = {},
): Promise<RawResponse> {
  const { body, headers } = modernParts(method, params, options);
  return post(url, body, headers);
}

/** Opens a modern `subscriptions/listen` stream at `url` and reads its acknowledgement. */
export async function openModernListen(
  url: URL | string,
  notifications: Record<string, unknown>,
  options: ModernOptions & { id: string | number; signal: AbortSignal },
): Promise<{ reader: SseReader; ack: RpcMessage; response: Response }> {
  const { body, headers } = modernParts('subscriptions/listen', { notifications }, options);
  const response = await send(url, { body, headers, signal: options.signal });
  if (response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    throw new Error(`subscriptions/listen was answered ${response.status} ${await response.text()}`);
  }
  const reader = new SseReader(response);
  return { reader, ack: await reader.next(), response };
}

/** A legacy request on a session (its headers as `openLegacySession` returned them). */
export function legacyPost(
  url: URL | string,
  headers: Record<string, string>,
  method: string,
  params?: Record<string, unknown>,
  id: string | number = 1,
): Promise<RawResponse> {
  return post(url, legacyRequest(method, params, id), headers);
}

/** Opens the standalone GET stream of a legacy session at `url`. */
export async function openLegacyStream(
  url: URL | string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<SseReader> {
  const response = await send(url, {
    method: 'GET',
    headers: { ...headers, accept: 'text/event-stream' },
    signal,
  });
  if (response.status !== 200) {
    throw new Error(`The GET stream was answered ${response.status} ${await response.text()}`);
  }
  return new SseReader(response);
}

/** The JSON-RPC response an exchange carried (a JSON body, or the response among SSE events). */
export function rpcMessageOf(response: RawResponse): RpcMessage {
  if (response.json !== undefined) {
    return response.json as RpcMessage;
  }
  const answer = response.events.find((event) => event.method === undefined && ('result' in event || 'error' in event));
  if (answer === undefined) {
    throw new Error(`No JSON-RPC response in ${response.status} ${response.text}`);
  }
  return answer;
}

/** The result of a successful exchange; throws, showing the answer, on anything else. */
export function rpcResultOf(response: RawResponse): Record<string, any> {
  const message = rpcMessageOf(response);
  if (message.result === undefined || response.status !== 200) {
    throw new Error(`Expected a result, got ${response.status} ${JSON.stringify(message)}`);
  }
  return message.result;
}

/** The JSON-RPC error of an exchange; throws, showing the answer, when it carried a result. */
export function rpcErrorOf(response: RawResponse): { code: number; message: string; data?: any } {
  const message = rpcMessageOf(response);
  if (message.error === undefined) {
    throw new Error(`Expected an error, got ${response.status} ${JSON.stringify(message)}`);
  }
  return message.error;
}

/** Reads `read()` until `done` holds for what it returned; rejects, with the last value, after `timeoutMs`. */
export async function pollFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 5_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${JSON.stringify(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Milliseconds `run` took, with what it resolved. */
export async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await run();
  return { value, ms: Date.now() - started };
}
