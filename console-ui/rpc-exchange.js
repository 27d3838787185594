// @ts-check
/**
 * JSON-RPC over HTTP as the console's two eras share it: one POST and its answer (JSON, or an
 * SSE stream of messages ending with it), and the two errors a caller tells apart.
 */

/**
 * @typedef {Record<string, unknown>} Json
 * @typedef {{ jsonrpc: '2.0', id?: string | number | null, method?: string, params?: Json,
 *   result?: Json, error?: { code: number, message: string, data?: unknown } }} JsonRpcMessage
 */

/** Who the console is, in either era's `clientInfo`. */
export const CLIENT_INFO = { name: 'nest-mcp-console', title: 'MCP console', version: '1.0.0' };

/** The MCP Apps extension, which the console supports as a host (app-view.js); both eras declare it. */
export const MCP_UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** Its settings in the client's capabilities: the one kind of view the console renders. */
export const MCP_UI_SETTINGS = Object.freeze({ mimeTypes: ['text/html;profile=mcp-app'] });

/**
 * Whether an error is the rejection of an aborted fetch (a cancel, a Stop, a closed panel).
 *
 * @param {unknown} error
 * @returns {boolean}
 */
export function isAbortError(error) {
  return error instanceof DOMException && error.name === 'AbortError';
}

/**
 * Hands a notification that came on a call's stream to the call's listeners: its progress
 * (the call's own token only), the log messages, then the message as it is.
 *
 * @param {JsonRpcMessage} message
 * @param {string | undefined} progressToken
 * @param {{ onProgress?: (progress: { progress: number, total?: number, message?: string }) => void,
 *   onLog?: (message: { level: string, logger?: string, data: unknown }) => void,
 *   onNotification?: (message: JsonRpcMessage) => void }} listeners
 */
export function notifyCall(message, progressToken, listeners) {
  const params = /** @type {Record<string, any>} */ (message.params ?? {});
  if (message.method === 'notifications/progress' && params.progressToken === progressToken) {
    listeners.onProgress?.({ progress: params.progress, total: params.total, message: params.message });
  } else if (message.method === 'notifications/message') {
    listeners.onLog?.({ level: params.level, logger: params.logger, data: params.data });
  }
  listeners.onNotification?.(message);
}

/** An HTTP answer that is not JSON-RPC: a refused credential (401, 403), a refused Host, a 5xx. */
export class McpHttpError extends Error {
  /**
   * @param {number} status
   * @param {string} statusText
   * @param {string | undefined} challenge the `WWW-Authenticate` header, when the server sent one
   * @param {string} body
   */
  constructor(status, statusText, challenge, body) {
    super(`${status} ${statusText}`);
    this.name = 'McpHttpError';
    this.status = status;
    this.statusText = statusText;
    this.challenge = challenge;
    this.body = body;
  }
}

/** A JSON-RPC error the server answered with. */
export class McpRpcError extends Error {
  /**
   * @param {number} code
   * @param {string} message
   * @param {unknown} data
   */
  constructor(code, message, data) {
    super(message);
    this.name = 'McpRpcError';
    this.code = code;
    this.data = data;
  }
}

/** @type {Record<number, string>} */
const STATUS_TEXT = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' };

/**
 * Reads an SSE body event by event, and hands each `data` payload (parsed) to `onMessage`.
 *
 * @param {ReadableStream<Uint8Array>} body
 * @param {(message: JsonRpcMessage) => boolean} onMessage returns true to stop reading
 */
export async function readEvents(body, onMessage) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        return;
      }
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
          .join('\n');
        if (data !== '' && onMessage(/** @type {JsonRpcMessage} */ (JSON.parse(data)))) {
          return;
        }
      }
    }
  } finally {
    // Closing the stream is how a 2026-07-28 client stops a request: never leave one open.
    reader.cancel().catch(() => undefined);
  }
}

/**
 * One POST of a request and its answer, in either era: JSON, or an SSE stream whose other
 * messages (notifications, and in a legacy session the server's own requests) go to `onMessage`
 * as they come. An answer that is not JSON-RPC (a refused credential, a refused Host) throws an
 * {@link McpHttpError}; a JSON-RPC error is returned as the message it is.
 *
 * @param {string} endpoint
 * @param {{ id: number | string, headers: Record<string, string>, body: string, signal?: AbortSignal,
 *   onMessage: (message: JsonRpcMessage) => void, onResponse?: (response: Response) => void }} request
 * @returns {Promise<JsonRpcMessage>}
 */
export async function exchange(endpoint, request) {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    credentials: 'same-origin',
    cache: 'no-store',
  });
  request.onResponse?.(response);
  const type = response.headers.get('content-type') ?? '';
  /** @type {JsonRpcMessage | undefined} */
  let answer;
  if (type.startsWith('text/event-stream') && response.body !== null) {
    await readEvents(response.body, (message) => {
      if (message.id === request.id && (message.result !== undefined || message.error !== undefined)) {
        answer = message;
        return true;
      }
      request.onMessage(message);
      return false;
    });
    if (answer === undefined) {
      throw new Error('The stream ended without an answer');
    }
    return answer;
  }
  const text = await response.text();
  answer = parseRpc(text);
  if (answer === undefined || (answer.result === undefined && answer.error === undefined)) {
    throw httpError(response, text);
  }
  return answer;
}

/**
 * The error of an HTTP answer that is not JSON-RPC.
 *
 * @param {Response} response
 * @param {string} text
 * @returns {McpHttpError}
 */
export function httpError(response, text) {
  return new McpHttpError(
    response.status,
    response.statusText || STATUS_TEXT[response.status] || 'Error',
    response.headers.get('www-authenticate') ?? undefined,
    text,
  );
}

/**
 * A JSON-RPC message from a body, or undefined when the body is not one.
 *
 * @param {string} text
 * @returns {JsonRpcMessage | undefined}
 */
function parseRpc(text) {
  try {
    const value = /** @type {unknown} */ (JSON.parse(text));
    return typeof value === 'object' && value !== null && /** @type {Json} */ (value).jsonrpc === '2.0'
      ? /** @type {JsonRpcMessage} */ (value)
      : undefined;
  } catch {
    return undefined;
  }
}
