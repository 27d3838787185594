// @ts-check
/**
 * The console's MCP client: the 2026-07-28 wire over `fetch`, against the endpoint that served the
 * page. Every request is stateless and carries its own `_meta`; an answer comes as JSON or as an
 * SSE stream of that request's notifications ending with its response; cancelling a request is
 * closing its stream (aborting the fetch); a server question comes back as an `input_required`
 * result, is answered by the person, and the request is sent again with the answers.
 */

import {
  CLIENT_INFO,
  exchange,
  isAbortError,
  McpHttpError,
  McpRpcError,
  MCP_UI_EXTENSION,
  MCP_UI_SETTINGS,
  notifyCall,
} from './rpc-exchange.js';
import { LegacySession } from './legacy-session.js';

export { McpHttpError, McpRpcError };

export const PROTOCOL_VERSION = '2026-07-28';
export const MCP_TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
};
/** A bound on how many times one request is sent again with answers, against a server asking forever. */
const MAX_ROUNDS = 32;

/**
 * @typedef {import('./rpc-exchange.js').Json} Json
 * @typedef {import('./rpc-exchange.js').JsonRpcMessage} JsonRpcMessage
 * @typedef {{ method: string, params: Json }} InputRequest
 * @typedef {(inputRequests: Record<string, InputRequest>, options: { signal?: AbortSignal })
 *   => Promise<Record<string, unknown>>} Answerer
 * @typedef {{ progress: number, total?: number, message?: string }} Progress
 * @typedef {{ level: string, logger?: string, data: unknown }} LogMessage
 * @typedef {{
 *   signal?: AbortSignal,
 *   onProgress?: (progress: Progress) => void,
 *   onLog?: (message: LogMessage) => void,
 *   answer?: Answerer,
 *   tasks?: boolean,
 *   headers?: Record<string, string>,
 * }} RequestOptions
 * @typedef {{ headers: Record<string, string> }} Credentials
 * @typedef {{ name: string, version: string, title?: string, description?: string,
 *   websiteUrl?: string }} ServerInfo
 * @typedef {{ supportedVersions: string[], capabilities: Json, instructions?: string,
 *   serverInfo?: ServerInfo }} ServerDescription
 */

/**
 * A header value as the 2026-07-28 headers carry it: as is when it is plain printable ASCII,
 * else the base64 of its UTF-8 inside the `=?base64?...?=` sentinel.
 *
 * @param {string} value
 * @returns {string}
 */
export function headerValue(value) {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !/^=\?base64\?.*\?=$/i.test(value);
  if (plain) {
    return value;
  }
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) {
    binary += String.fromCharCode(byte);
  }
  return `=?base64?${btoa(binary)}?=`;
}

/**
 * The `Mcp-Param-<Name>` headers a tool's input schema asks for (`x-mcp-header` on a top-level
 * property): the value of each such argument the call carries.
 *
 * @param {unknown} inputSchema
 * @param {Json} args
 * @returns {Record<string, string>}
 */
export function paramHeaders(inputSchema, args) {
  /** @type {Record<string, string>} */
  const headers = {};
  const properties = /** @type {{ properties?: Record<string, Json> } | undefined} */ (inputSchema)?.properties;
  for (const [name, property] of Object.entries(properties ?? {})) {
    const header = property?.['x-mcp-header'];
    const value = args[name];
    if (typeof header === 'string' && value !== undefined && value !== null) {
      headers[`Mcp-Param-${header}`] = headerValue(
        typeof value === 'string' ? value : JSON.stringify(/** @type {number | boolean} */ (value)),
      );
    }
  }
  return headers;
}

/** The `Mcp-Name` of a request: what it is about. */
const NAME_OF = /** @type {Record<string, string>} */ ({
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
});

/** A browser MCP client of one endpoint (see the file comment). */
export class McpConsoleClient {
  /** @type {ServerDescription | undefined} */
  server;
  #nextId = 0;

  /**
   * @param {{ endpoint: string, credentials: () => Credentials }} options
   */
  constructor(options) {
    this.endpoint = options.endpoint;
    this.credentials = options.credentials;
  }

  /**
   * The session a server that does not serve 2026-07-28 was given instead; undefined in the
   * modern era.
   * @type {LegacySession | undefined}
   */
  legacy;

  /**
   * `server/discover`: the revisions, capabilities and identity of the server, also kept in
   * `client.server`. A server that answers it with -32022 (its revisions are all legacy ones)
   * gets the handshake instead, and every later request goes through that session.
   *
   * @returns {Promise<ServerDescription>}
   */
  async discover() {
    this.legacy?.close();
    this.legacy = undefined;
    /** @type {Json} */
    let result;
    try {
      result = await this.request('server/discover', {});
    } catch (error) {
      if (!(error instanceof McpRpcError && error.code === -32022)) {
        throw error;
      }
      this.legacy = await LegacySession.open(this.endpoint, this.credentials);
      this.server = this.legacy.description;
      return this.server;
    }
    const meta = /** @type {Json | undefined} */ (result._meta);
    this.server = {
      supportedVersions: /** @type {string[]} */ (result.supportedVersions ?? []),
      capabilities: /** @type {Json} */ (result.capabilities ?? {}),
      instructions: /** @type {string | undefined} */ (result.instructions),
      serverInfo: /** @type {ServerInfo | undefined} */ (meta?.[META.serverInfo]),
    };
    return this.server;
  }

  /**
   * Sends a request and resolves with its final result: the `input_required` rounds are answered
   * through `options.answer` and the request sent again, each time with a new id.
   *
   * @param {string} method
   * @param {Json} params
   * @param {RequestOptions} [options]
   * @returns {Promise<Json>}
   */
  async request(method, params, options = {}) {
    if (this.legacy !== undefined) {
      return this.legacy.request(method, params, options);
    }
    let current = params;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const result = await this.#send(method, current, options);
      if (result.resultType !== 'input_required') {
        return result;
      }
      const inputRequests = /** @type {Record<string, InputRequest>} */ (result.inputRequests ?? {});
      if (options.answer === undefined) {
        throw new Error(
          `The server asked for input (${Object.keys(inputRequests).join(', ')}) that nothing can answer`,
        );
      }
      const inputResponses =
        Object.keys(inputRequests).length === 0 ? {} : await options.answer(inputRequests, options);
      // Answers of earlier rounds are not sent again: the request state carries what the server kept.
      const { inputResponses: _previous, requestState: _state, ...rest } = current;
      current = { ...rest, inputResponses };
      if (typeof result.requestState === 'string') {
        current.requestState = result.requestState;
      }
    }
    throw new Error(`The server asked for input more than ${MAX_ROUNDS} times`);
  }

  /**
   * `completion/complete`: the server's suggestions for an argument of a prompt or a resource
   * template; none when the server has no completions.
   *
   * @param {Json} ref `{ type: 'ref/prompt', name }` or `{ type: 'ref/resource', uri }`
   * @param {string} argument
   * @param {string} value what the person typed so far
   * @param {Record<string, string>} [context] the other arguments' values
   * @returns {Promise<string[]>}
   */
  async complete(ref, argument, value, context) {
    if (this.server?.capabilities.completions === undefined) {
      return [];
    }
    const result = await this.request('completion/complete', {
      ref,
      argument: { name: argument, value },
      ...(context === undefined ? {} : { context: { arguments: context } }),
    });
    const completion = /** @type {{ values?: string[] } | undefined} */ (result.completion);
    return completion?.values ?? [];
  }

  /**
   * `subscriptions/listen`: a long-lived stream of the notifications asked for. Resolves when
   * the server ends it, or when `signal` aborts (closing it).
   *
   * @param {Json} notifications
   * @param {{ signal?: AbortSignal, onNotification?: (message: JsonRpcMessage) => void,
   *   onAcknowledged?: (honoured: Json) => void, tasks?: boolean }} [options]
   * @returns {Promise<void>}
   */
  async listen(notifications, options = {}) {
    if (this.legacy !== undefined) {
      return this.legacy.listen(notifications, options);
    }
    try {
      await this.#send(
        'subscriptions/listen',
        { notifications },
        {
          signal: options.signal,
          tasks: options.tasks,
          onNotification: (message) => {
            if (message.method === 'notifications/subscriptions/acknowledged') {
              options.onAcknowledged?.(/** @type {Json} */ (message.params?.notifications ?? {}));
            } else {
              options.onNotification?.(message);
            }
          },
        },
      );
    } catch (error) {
      if (!isAbortError(error)) {
        throw error;
      }
    }
  }

  /**
   * One POST: the request with its `_meta` and headers, its notifications handed out as they
   * come, its response returned (or thrown).
   *
   * @param {string} method
   * @param {Json} params
   * @param {RequestOptions & { onNotification?: (message: JsonRpcMessage) => void }} options
   * @returns {Promise<Json>}
   */
  async #send(method, params, options) {
    this.#nextId += 1;
    const id = this.#nextId;
    const progressToken = options.onProgress === undefined ? undefined : `console-${id}`;
    /** @type {Json} */
    const capabilities = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };
    // The console renders MCP Apps (app-view.js); tasks only when the person asks for one.
    capabilities.extensions = {
      [MCP_UI_EXTENSION]: MCP_UI_SETTINGS,
      ...(options.tasks === true ? { [MCP_TASKS_EXTENSION]: {} } : {}),
    };
    const given = /** @type {Json | undefined} */ (params._meta);
    const meta = {
      ...given,
      [META.protocolVersion]: PROTOCOL_VERSION,
      [META.clientCapabilities]: capabilities,
      [META.clientInfo]: CLIENT_INFO,
      ...(options.onLog === undefined ? {} : { [META.logLevel]: 'debug' }),
      ...(progressToken === undefined ? {} : { progressToken }),
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
    /** @type {Record<string, string>} */
    const headers = {
      ...this.credentials().headers,
      ...options.headers,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': PROTOCOL_VERSION,
      'Mcp-Method': method,
    };
    const nameKey = NAME_OF[method];
    if (nameKey !== undefined && typeof params[nameKey] === 'string') {
      headers['Mcp-Name'] = headerValue(/** @type {string} */ (params[nameKey]));
    }
    const answer = await exchange(this.endpoint, {
      id,
      headers,
      body,
      signal: options.signal,
      onMessage: (message) => notifyCall(message, progressToken, options),
    });
    if (answer.error !== undefined) {
      throw new McpRpcError(answer.error.code, answer.error.message, answer.error.data);
    }
    return /** @type {Json} */ (answer.result);
  }
}
