/**
 * The calls and their streams: one JSON-RPC request of the test client as HTTP exchanges in its
 * era (the modern envelope and its `input_required` rounds, or a request on the legacy session),
 * its answer read from JSON or an SSE stream, the call's notifications collected and the
 * server's questions answered on the way. Also what the client's parts share: the session, the
 * requests in flight, the streams held open.
 */
import type { IncomingMessage } from 'node:http';
import type { ClientCapabilities, LoggingLevel } from 'nest-mcp';
import { type Connector, readText, sseMessages } from './http-exchange';
import { McpHttpError, McpTestError } from './mcp-test.errors';
import {
  MCP_TEST_MODERN_REVISION,
  type McpTestCallOptions,
  type McpTestClientOptions,
  type McpTestMessage,
  type McpTestNotification,
  type McpTestResult,
  type McpTestServerInfo,
} from './mcp-test.types';
import { handshake, modernMeta, sessionHeaders } from './handshakes';
import { capabilitiesOf, QuestionDesk } from './questions';

const ACCEPT = 'application/json, text/event-stream';
/** How many `input_required` rounds one request may take before the client gives up. */
const MAX_ROUNDS = 16;
/** The methods whose `Mcp-Name` header mirrors a body field (2026-07-28). */
const NAME_FIELD: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};
const SENTINEL = '=?base64?';

/** Per request: a progress token, and the client capabilities when a method needs more. */
export interface RequestExtras {
  progress?: boolean;
  capabilities?: ClientCapabilities;
}

/** One HTTP answer: the response, whose body is still unread, and its status. */
export interface Delivery {
  readonly response: IncomingMessage;
  readonly status: number;
}

/** The state of one test client and its requests on the wire. */
export class McpTestWire {
  readonly questions: QuestionDesk;
  readonly inFlight = new Set<AbortController>();
  /** The streams held open, closed with the client. */
  readonly streams = new Set<{ close(): void }>();
  nextId = 1;
  sessionId: string | undefined;
  negotiated: string | undefined;
  logLevel: LoggingLevel | undefined;
  closed = false;
  private opened: Promise<McpTestServerInfo> | undefined;

  constructor(
    readonly connector: Connector,
    readonly path: string,
    readonly options: McpTestClientOptions,
  ) {
    this.logLevel = options.logLevel;
    this.questions = new QuestionDesk(options.answers);
  }

  get revision(): string {
    return this.options.revision ?? MCP_TEST_MODERN_REVISION;
  }

  get era(): 'modern' | 'legacy' {
    return this.revision < MCP_TEST_MODERN_REVISION ? 'legacy' : 'modern';
  }

  get capabilities(): ClientCapabilities {
    return capabilitiesOf(this.options);
  }

  assertOpen(): void {
    if (this.closed) {
      throw new Error('The MCP test client is closed');
    }
  }

  /** The legacy session, opened once. */
  initialize(): Promise<McpTestServerInfo> {
    this.opened ??= handshake(this);
    return this.opened;
  }

  /** A request in the era's envelope; resolves with its result and its notifications. */
  async request<T = Record<string, any>>(
    method: string,
    params: Record<string, unknown> = {},
    options: McpTestCallOptions & RequestExtras = {},
  ): Promise<McpTestResult<T>> {
    this.assertOpen();
    if (this.era === 'legacy') {
      await this.initialize();
    }
    const controller = new AbortController();
    const signal =
      options.signal === undefined ? controller.signal : AbortSignal.any([options.signal, controller.signal]);
    this.inFlight.add(controller);
    const notifications: McpTestNotification[] = [];
    const collect = (notification: McpTestNotification): void => {
      notifications.push(notification);
      if (notification.method === 'notifications/progress') {
        const { progress, total, message } = notification.params;
        options.onProgress?.({ progress, total, message });
      }
      options.onNotification?.(notification);
    };
    try {
      const result =
        this.era === 'modern'
          ? await this.modernRounds<T>(method, params, options, signal, collect)
          : await this.legacyRequest<T>(method, params, options, signal, collect);
      return withNotifications(result, notifications);
    } finally {
      this.inFlight.delete(controller);
    }
  }

  /** A JSON-RPC notification (no answer expected beyond the HTTP status). */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    this.assertOpen();
    const body: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) body.params = params;
    const response = await this.post(body, method, {});
    const text = await readText(response.response);
    if (response.status >= 300) {
      throw new McpHttpError(response.status, response.response.headers, text, method);
    }
  }

  post(body: unknown, method: string, headers: Record<string, string>, signal?: AbortSignal): Promise<Delivery> {
    return this.connector
      .send({
        method: 'POST',
        path: this.path,
        headers: {
          accept: ACCEPT,
          'content-type': 'application/json',
          ...this.options.headers,
          ...(this.era === 'legacy' ? sessionHeaders(this) : {}),
          ...headers,
        },
        body: JSON.stringify(body),
        signal,
      })
      .then((response) => ({ response, status: response.statusCode ?? 0 }));
  }

  /** A request on the legacy session; an abort sends `notifications/cancelled`. */
  async legacyRequest<T>(
    method: string,
    params: Record<string, unknown>,
    options: McpTestCallOptions & RequestExtras,
    signal: AbortSignal | undefined,
    collect: (notification: McpTestNotification) => void,
  ): Promise<T> {
    const id = this.nextId++;
    const meta = { ...(options.progress === true ? { progressToken: `progress-${id}` } : {}), ...options.meta };
    const body = {
      jsonrpc: '2.0',
      id,
      method,
      params: Object.keys(meta).length === 0 ? params : { ...params, _meta: { ...(params._meta as object), ...meta } },
    };
    const onAbort = (): void => {
      // The legacy era cancels by notification; the closed stream alone does not.
      this.notify('notifications/cancelled', { requestId: id, reason: String(signal?.reason ?? 'aborted') }).catch(
        () => undefined,
      );
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.exchange<T>(body, method, options.headers ?? {}, signal, collect);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Answers a server request of a stream by POSTing the response (on the session, if any). */
  async answerOnStream(message: McpTestMessage): Promise<void> {
    let reply: Record<string, unknown>;
    try {
      reply = { result: await this.questions.answer(String(message.method), message.params ?? {}, 'stream') };
    } catch (error) {
      reply = { error: { code: -32601, message: (error as Error).message } };
    }
    const answered = await this.post({ jsonrpc: '2.0', id: message.id, ...reply }, String(message.method), {});
    await readText(answered.response);
  }

  /** A modern request and its `input_required` rounds, answered with the test's `answers`. */
  private async modernRounds<T>(
    method: string,
    params: Record<string, unknown>,
    options: McpTestCallOptions & RequestExtras,
    signal: AbortSignal,
    collect: (notification: McpTestNotification) => void,
  ): Promise<T> {
    let extra: Record<string, unknown> = {};
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const id = this.nextId++;
      const meta: Record<string, unknown> = {
        ...modernMeta(this, options.capabilities),
        ...(options.progress === true ? { progressToken: `progress-${id}` } : {}),
        ...options.meta,
      };
      const body = { jsonrpc: '2.0', id, method, params: { ...params, ...extra, _meta: meta } };
      const headers: Record<string, string> = {
        'mcp-protocol-version': MCP_TEST_MODERN_REVISION,
        'mcp-method': method,
        ...options.headers,
      };
      const nameField = NAME_FIELD[method];
      if (nameField !== undefined && typeof params[nameField] === 'string') {
        headers['mcp-name'] = headerValue(params[nameField]);
      }
      const result = await this.exchange<Record<string, any>>(body, method, headers, signal, collect);
      if (result.resultType !== 'input_required') {
        return result as T;
      }
      const inputResponses: Record<string, unknown> = {};
      for (const [key, question] of Object.entries((result.inputRequests ?? {}) as Record<string, McpTestMessage>)) {
        inputResponses[key] = await this.questions.answer(
          String(question.method),
          question.params ?? {},
          'input_required',
        );
      }
      extra = { inputResponses, ...(result.requestState === undefined ? {} : { requestState: result.requestState }) };
    }
    throw new Error(`${method} still asked for input after ${MAX_ROUNDS} rounds`);
  }

  /** One POST and its answer: JSON, or an SSE stream with notifications and questions before it. */
  private async exchange<T>(
    body: { id: number; method: string },
    method: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    collect: (notification: McpTestNotification) => void,
  ): Promise<T> {
    try {
      return await this.exchangeOnce<T>(body, method, headers, signal, collect);
    } catch (error) {
      // A request the test aborted fails with the signal's reason, not with what the closed
      // connection made of it (ECONNRESET...).
      if (signal?.aborted === true) {
        throw signal.reason;
      }
      throw error;
    }
  }

  private async exchangeOnce<T>(
    body: { id: number; method: string },
    method: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    collect: (notification: McpTestNotification) => void,
  ): Promise<T> {
    const { response, status } = await this.post(body, method, headers, signal);
    const type = String(response.headers['content-type'] ?? '');
    if (method === 'initialize' && typeof response.headers['mcp-session-id'] === 'string') {
      this.sessionId = response.headers['mcp-session-id'];
    }
    if (status === 401 || status === 403 || (!type.includes('json') && !type.includes('event-stream'))) {
      throw new McpHttpError(status, response.headers, await readText(response), method);
    }
    if (type.includes('application/json')) {
      const text = await readText(response);
      return settle<T>(parseJson(text, status, response, method), body.id, status, method);
    }
    for await (const message of sseMessages(response) as AsyncIterable<McpTestMessage>) {
      if (message.id === body.id && message.method === undefined) {
        response.destroy();
        return settle<T>(message, body.id, status, method);
      }
      if (message.method !== undefined && message.id !== undefined && message.id !== null) {
        await this.answerOnStream(message);
      } else if (message.method !== undefined) {
        collect({ method: message.method, params: message.params ?? {} });
      }
    }
    throw new Error(`${method}: the server ended its stream without answering request ${body.id} (HTTP ${status})`);
  }
}

/** The result of an answer, or its error thrown as an {@link McpTestError}. */
function settle<T>(message: McpTestMessage | undefined, id: number, status: number, method: string): T {
  if (message?.error !== undefined) {
    throw new McpTestError(message.error.code, message.error.message, message.error.data, status, method);
  }
  if (message?.id !== id || message.result === undefined) {
    throw new Error(`${method}: no answer to request ${id} (HTTP ${status}): ${JSON.stringify(message)}`);
  }
  return message.result as T;
}

function parseJson(text: string, status: number, response: IncomingMessage, method: string): McpTestMessage {
  try {
    return JSON.parse(text) as McpTestMessage;
  } catch {
    throw new McpHttpError(status, response.headers, text, method);
  }
}

/** The header value of `Mcp-Name`: as is when header-safe, else the base64 sentinel form. */
function headerValue(value: string): string {
  const safe = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith(SENTINEL);
  return safe ? value : `${SENTINEL}${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** `result` with its notifications, as a property that `toEqual` does not see. */
export function withNotifications<T>(result: T, notifications: McpTestNotification[]): McpTestResult<T> {
  const target = (typeof result === 'object' && result !== null ? result : {}) as McpTestResult<T>;
  Object.defineProperty(target, 'notifications', { value: notifications, enumerable: false });
  return target;
}
