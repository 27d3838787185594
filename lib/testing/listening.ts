/**
 * Listening: the notification streams the test client holds open, `subscriptions/listen` in the
 * modern era (ready once acknowledged) and the legacy session's GET stream, as async iterators;
 * the server's questions on such a stream are answered like any other.
 */
import type { IncomingMessage } from 'node:http';
import { readText, sseMessages } from './http-exchange';
import { McpHttpError, McpTestError } from './mcp-test.errors';
import {
  MCP_TEST_MODERN_REVISION,
  type McpTestCallOptions,
  type McpTestListenFilter,
  type McpTestMessage,
  type McpTestNotification,
  type McpTestSubscription,
} from './mcp-test.types';
import { modernMeta, sessionHeaders } from './handshakes';
import { NotificationQueue } from './notification-queue';
import type { McpTestWire } from './wire';

export async function listen(
  wire: McpTestWire,
  filter: McpTestListenFilter,
  options: McpTestCallOptions,
): Promise<McpTestSubscription> {
  wire.assertOpen();
  const controller = new AbortController();
  const signal =
    options.signal === undefined ? controller.signal : AbortSignal.any([options.signal, controller.signal]);
  let response: IncomingMessage;
  if (wire.era === 'modern') {
    const id = wire.nextId++;
    const body = {
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { notifications: filter, _meta: { ...modernMeta(wire), ...options.meta } },
    };
    const headers = { 'mcp-protocol-version': MCP_TEST_MODERN_REVISION, 'mcp-method': 'subscriptions/listen' };
    response = (await wire.post(body, 'subscriptions/listen', { ...headers, ...options.headers }, signal)).response;
  } else {
    await wire.initialize();
    response = await wire.connector.send({
      method: 'GET',
      path: wire.path,
      headers: { accept: 'text/event-stream', ...wire.options.headers, ...sessionHeaders(wire), ...options.headers },
      signal,
    });
  }
  const status = response.statusCode ?? 0;
  if (status !== 200 || !String(response.headers['content-type'] ?? '').includes('event-stream')) {
    const text = await readText(response);
    const error = parseError(text);
    throw error === undefined
      ? new McpHttpError(status, response.headers, text, wire.era === 'modern' ? 'subscriptions/listen' : 'GET')
      : new McpTestError(error.code, error.message, error.data, status, 'subscriptions/listen');
  }
  const subscription = subscribe(wire, response, controller);
  if (wire.era === 'modern') {
    try {
      await withTimeout(subscription.ready, 5000, 'the acknowledgement of subscriptions/listen');
    } catch (error) {
      subscription.close();
      throw error;
    }
  } else {
    for (const uri of filter.resourceSubscriptions ?? []) {
      await wire.request('resources/subscribe', { uri }, options);
    }
  }
  return subscription;
}

/** Reads a held stream into a subscription: notifications queued, questions answered. */
function subscribe(
  wire: McpTestWire,
  response: IncomingMessage,
  controller: AbortController,
): McpTestSubscription & { readonly ready: Promise<void> } {
  const queue = new NotificationQueue<McpTestNotification>();
  const received: McpTestNotification[] = [];
  let read = 0;
  let acknowledge!: () => void;
  let fail!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    acknowledge = resolve;
    fail = reject;
  });
  ready.catch(() => undefined);
  const pump = async (): Promise<void> => {
    for await (const message of sseMessages(response) as AsyncIterable<McpTestMessage>) {
      if (message.method === 'notifications/subscriptions/acknowledged') {
        subscription.acknowledged = message.params ?? {};
        acknowledge();
      } else if (message.method !== undefined && (message.id === undefined || message.id === null)) {
        const notification = { method: message.method, params: message.params ?? {} };
        received.push(notification);
        queue.push(notification);
      } else if (message.method !== undefined) {
        await wire.answerOnStream(message);
      }
    }
  };
  const subscription: McpTestSubscription & { acknowledged: Record<string, any> | undefined; ready: Promise<void> } = {
    acknowledged: undefined,
    ready,
    received,
    next: (timeoutMs = 5000) => {
      const index = read++;
      return withTimeout(nth(queue, index), timeoutMs, 'the next notification of the stream');
    },
    close: () => {
      controller.abort();
      response.destroy();
      wire.streams.delete(subscription);
    },
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
  wire.streams.add(subscription);
  const ended = (): void => {
    queue.end();
    fail(new Error('The stream ended before its acknowledgement'));
  };
  pump().then(ended, ended);
  return subscription;
}

/** The JSON-RPC error of a body, when it is one. */
function parseError(text: string): { code: number; message: string; data?: unknown } | undefined {
  try {
    return (JSON.parse(text) as McpTestMessage).error;
  } catch {
    return undefined;
  }
}

/** The `index`-th value of a queue (past or future); rejects when it ends first. */
async function nth<T>(queue: NotificationQueue<T>, index: number): Promise<T> {
  let at = 0;
  for await (const item of queue) {
    if (at++ === index) return item;
  }
  throw new Error('The stream ended');
}

/** Resolves `promise`, or rejects once `ms` pass (the timer never outlives it). */
function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
