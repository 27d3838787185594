// @ts-check
/**
 * The console's legacy session, for a server that does not serve 2026-07-28 (its `revisions`
 * list only legacy ones): the `initialize` handshake, the `Mcp-Session-Id` on every request,
 * the server's questions arriving on a call's stream and answered with a POST of the response,
 * `notifications/cancelled` beside closing the stream, and the session's GET stream (with
 * `resources/subscribe`) in place of `subscriptions/listen`.
 */
import {
  CLIENT_INFO,
  exchange,
  httpError,
  isAbortError,
  McpRpcError,
  MCP_UI_EXTENSION,
  MCP_UI_SETTINGS,
  notifyCall,
  readEvents,
} from './rpc-exchange.js';

/**
 * @typedef {import('./mcp-client.js').Json} Json
 * @typedef {import('./mcp-client.js').JsonRpcMessage} JsonRpcMessage
 * @typedef {import('./mcp-client.js').RequestOptions} RequestOptions
 * @typedef {import('./mcp-client.js').Credentials} Credentials
 * @typedef {import('./mcp-client.js').ServerDescription} ServerDescription
 * @typedef {import('./mcp-client.js').ServerInfo} ServerInfo
 */

/** What the handshake offers: the newest legacy revision (the server answers with one it serves). */
const LEGACY_REVISION = '2025-11-25';
// The tasks of 2025-11-25 are not offered: a legacy session runs every call in place.
const CAPABILITIES = {
  elicitation: { form: {}, url: {} },
  sampling: {},
  roots: { listChanged: false },
  extensions: { [MCP_UI_EXTENSION]: MCP_UI_SETTINGS },
};

export class LegacySession {
  #nextId = 0;
  /** @type {string | undefined} */
  #sessionId;

  /**
   * @param {string} endpoint
   * @param {() => Credentials} credentials
   * @param {string} version the revision the server chose
   * @param {string | undefined} sessionId
   * @param {ServerDescription} description
   */
  constructor(endpoint, credentials, version, sessionId, description) {
    this.endpoint = endpoint;
    this.credentials = credentials;
    this.version = version;
    this.#sessionId = sessionId;
    this.description = description;
  }

  /**
   * The handshake: `initialize`, then `notifications/initialized`, then the log level (so that
   * a call's log messages reach its Log panel, as they do in the modern era).
   *
   * @param {string} endpoint
   * @param {() => Credentials} credentials
   * @returns {Promise<LegacySession>}
   */
  static async open(endpoint, credentials) {
    /** @type {string | undefined} */
    let sessionId;
    const answer = await exchange(endpoint, {
      id: 0,
      headers: { ...credentials().headers, ...JSON_HEADERS },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: LEGACY_REVISION, capabilities: CAPABILITIES, clientInfo: CLIENT_INFO },
      }),
      onMessage: () => undefined,
      onResponse: (response) => {
        sessionId = response.headers.get('mcp-session-id') ?? undefined;
      },
    });
    if (answer.error !== undefined) {
      throw new McpRpcError(answer.error.code, answer.error.message, answer.error.data);
    }
    const result = /** @type {Json} */ (answer.result);
    const version = String(result.protocolVersion);
    const capabilities = /** @type {Json} */ (result.capabilities ?? {});
    const session = new LegacySession(endpoint, credentials, version, sessionId, {
      supportedVersions: [version],
      capabilities,
      instructions: /** @type {string | undefined} */ (result.instructions),
      serverInfo: /** @type {ServerInfo | undefined} */ (result.serverInfo),
    });
    await session.notify('notifications/initialized', {});
    if (capabilities.logging !== undefined) {
      await session.request('logging/setLevel', { level: 'debug' });
    }
    return session;
  }

  /** The headers of every message of the session. */
  #headers() {
    return {
      ...this.credentials().headers,
      ...JSON_HEADERS,
      'MCP-Protocol-Version': this.version,
      ...(this.#sessionId === undefined ? {} : { 'Mcp-Session-Id': this.#sessionId }),
    };
  }

  /**
   * Sends a notification (202, no answer).
   *
   * @param {string} method
   * @param {Json} params
   */
  async notify(method, params) {
    await this.#post({ jsonrpc: '2.0', method, params });
  }

  /**
   * Sends a request; the server's questions on its stream are answered through
   * `options.answer`; aborting `options.signal` closes the stream and tells the server.
   *
   * @param {string} method
   * @param {Json} params
   * @param {RequestOptions} [options]
   * @returns {Promise<Json>}
   */
  async request(method, params, options = {}) {
    this.#nextId += 1;
    const id = `console-${this.#nextId}`;
    const progressToken = options.onProgress === undefined ? undefined : id;
    const cancel = () => {
      void this.notify('notifications/cancelled', { requestId: id, reason: 'Cancelled at the console' }).catch(
        () => undefined,
      );
    };
    options.signal?.addEventListener('abort', cancel, { once: true });
    try {
      const answer = await exchange(this.endpoint, {
        id,
        headers: { ...this.#headers(), ...options.headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method,
          params: progressToken === undefined ? params : { ...params, _meta: { progressToken } },
        }),
        signal: options.signal,
        onMessage: (message) => this.#handle(message, progressToken, options),
      });
      if (answer.error !== undefined) {
        throw new McpRpcError(answer.error.code, answer.error.message, answer.error.data);
      }
      return /** @type {Json} */ (answer.result);
    } finally {
      options.signal?.removeEventListener('abort', cancel);
    }
  }

  /**
   * The session's notifications: `resources/subscribe` for each URI asked for, then the GET
   * stream, until `signal` aborts (then the URIs are unsubscribed) or the server ends it.
   *
   * @param {Json} notifications
   * @param {{ signal?: AbortSignal, onNotification?: (message: JsonRpcMessage) => void,
   *   onAcknowledged?: (honoured: Json) => void }} [options]
   * @returns {Promise<void>}
   */
  async listen(notifications, options = {}) {
    const uris = /** @type {string[]} */ (notifications.resourceSubscriptions ?? []);
    for (const uri of uris) {
      await this.request('resources/subscribe', { uri });
    }
    try {
      const response = await fetch(this.endpoint, {
        method: 'GET',
        headers: { ...this.#headers(), Accept: 'text/event-stream' },
        signal: options.signal,
        credentials: 'same-origin',
        cache: 'no-store',
      });
      if (!response.ok || response.body === null) {
        throw httpError(response, await response.text());
      }
      // The GET stream carries every change the session may hear of: the ones asked for are shown.
      options.onAcknowledged?.(notifications);
      await readEvents(response.body, (message) => {
        this.#handle(message, undefined, { onNotification: options.onNotification });
        return false;
      });
    } catch (error) {
      if (!isAbortError(error)) {
        throw error;
      }
    } finally {
      for (const uri of uris) {
        await this.request('resources/unsubscribe', { uri }).catch(() => undefined);
      }
    }
  }

  /** Ends the session (DELETE); kept alive past a page unload. */
  close() {
    if (this.#sessionId !== undefined) {
      void fetch(this.endpoint, { method: 'DELETE', headers: this.#headers(), keepalive: true }).catch(() => undefined);
      this.#sessionId = undefined;
    }
  }

  /**
   * A message on a stream: a notification for the call, or a question of the server.
   *
   * @param {JsonRpcMessage} message
   * @param {string | undefined} progressToken
   * @param {RequestOptions & { onNotification?: (message: JsonRpcMessage) => void }} options
   */
  #handle(message, progressToken, options) {
    if (message.method !== undefined && message.id !== undefined && message.id !== null) {
      void this.#answer(message, options);
      return;
    }
    notifyCall(message, progressToken, options);
  }

  /**
   * Answers a question of the server: `ping` at once, the others by the person (through the
   * same dialogs as the modern era's input requests), posted back as the JSON-RPC response.
   *
   * @param {JsonRpcMessage} question
   * @param {RequestOptions} options
   */
  async #answer(question, options) {
    const method = /** @type {string} */ (question.method);
    try {
      let result;
      if (method === 'ping') {
        result = {};
      } else if (options.answer === undefined) {
        throw new Error(`Nothing at the console answers ${method} here`);
      } else {
        const key = `question-${String(question.id)}`;
        const answers = await options.answer({ [key]: { method, params: question.params ?? {} } }, options);
        result = answers[key];
      }
      await this.#post({ jsonrpc: '2.0', id: question.id, result });
    } catch (error) {
      const aborted = isAbortError(error);
      const message = aborted ? 'Cancelled at the console' : error instanceof Error ? error.message : String(error);
      await this.#post({ jsonrpc: '2.0', id: question.id, error: { code: -32603, message } }).catch(() => undefined);
    }
  }

  /**
   * POSTs a message that has no answer of its own (a notification, a response): 202.
   *
   * @param {Json} message
   */
  async #post(message) {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: this.#headers(),
      body: JSON.stringify(message),
      credentials: 'same-origin',
      cache: 'no-store',
    });
    if (!response.ok) {
      throw httpError(response, await response.text());
    }
  }
}

const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
