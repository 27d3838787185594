/**
 * The test client of `nest-mcp/testing`: an MCP client that drives a Nest application's server
 * in-process (a connection in memory handed to the application's own HTTP server: the real
 * HTTP parser, the real Express or Fastify, middleware, auth, guards and the engine) or a real
 * URL, in either era, with every client method typed and errors as values.
 */
import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, Server } from 'node:http';
import type {
  CallToolResult,
  ClientCapabilities,
  McpCompletion,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  ReadResourceResult,
} from '../index';
import { type Connector, inProcessConnector, networkConnector, readText, sseMessages } from './http-exchange';
import { McpHttpError, McpTestError } from './mcp-test.errors';
import {
  MCP_TEST_MODERN_REVISION,
  type McpTestAnswers,
  type McpTestCallOptions,
  type McpTestClientOptions,
  type McpTestMessage,
  type McpTestNotification,
  type McpTestPrompt,
  type McpTestQuestion,
  type McpTestResource,
  type McpTestResourceTemplate,
  type McpTestResult,
  type McpTestServerInfo,
  type McpTestTool,
  type McpTestToolArgs,
} from './mcp-test.types';
import { NotificationQueue } from './notification-queue';
import { getMcpEndpointPath } from '../index';

const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
} as const;
const ACCEPT = 'application/json, text/event-stream';
const DEFAULT_CLIENT_INFO: Implementation = { name: 'nest-mcp-test-client', version: '1.0.0' };
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
/** The tasks extension of 2026-07-28. */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Per request: the client capabilities, when a method needs more than the client's own. */
interface RequestExtras {
  progress?: boolean;
  capabilities?: ClientCapabilities;
}

/** What a test client can talk to: an application, a testing module, or a URL. @publicApi */
export type McpTestTarget = INestApplication | McpTestingModuleLike | string | URL;

/** A compiled `TestingModule` (`Test.createTestingModule(...).compile()`), structurally. @publicApi */
export interface McpTestingModuleLike {
  createNestApplication(...args: any[]): INestApplication;
}

/** A request in flight: the notifications it sends as they come, and its result. @publicApi */
export interface McpTestCall<T> extends AsyncIterable<McpTestNotification> {
  /** The result, with the notifications of the whole call. */
  readonly result: Promise<McpTestResult<T>>;
  /** Aborts the call (as its `signal` would). */
  cancel(reason?: unknown): void;
}

/** What a `subscriptions/listen` stream asks for (2026-07-28). @publicApi */
export interface McpTestListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** The URIs whose `notifications/resources/updated` the stream carries. */
  resourceSubscriptions?: string[];
  [key: string]: unknown;
}

/**
 * A held notification stream: `subscriptions/listen` (modern era) or the legacy session's GET
 * stream. Iterate it for its notifications; `close()` ends it (the client's `close()` too).
 * @publicApi
 */
export interface McpTestSubscription extends AsyncIterable<McpTestNotification> {
  /** The acknowledgement's params (modern era); `undefined` on the legacy stream. */
  readonly acknowledged: Record<string, any> | undefined;
  /** The next notification; rejects after `timeoutMs`, or when the stream ends first. */
  next(timeoutMs?: number): Promise<McpTestNotification>;
  /** The notifications received so far, in order. */
  readonly received: readonly McpTestNotification[];
  close(): void;
}

/** A task as the server reports it (`tasks/get`, or the result that created it). @publicApi */
export interface McpTestTask {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  /** The questions a modern task waits on, by key. */
  inputRequests?: Record<string, { method: string; params: Record<string, any> }>;
  /** The outcome of a completed modern task. */
  result?: CallToolResult;
  /** The error of a failed modern task. */
  error?: { code: number; message: string; data?: unknown };
  [key: string]: unknown;
}

/** The options of {@link McpTestClient.taskResult}. @publicApi */
export interface McpTestTaskWaitOptions extends McpTestCallOptions {
  /** How long to wait for the task's end. @default 10000 */
  timeoutMs?: number;
  /** Between two `tasks/get` of a modern task. @default the task's pollIntervalMs, at most 100 */
  intervalMs?: number;
}

/** One HTTP answer: the response, whose body is still unread, and its status. */
interface Delivery {
  readonly response: IncomingMessage;
  readonly status: number;
}

/**
 * An MCP client for tests. Made by {@link createMcpTestClient}; close it with `close()`.
 * @publicApi
 */
export class McpTestClient {
  /** Every question the server asked, in order, with the answer given. */
  readonly questions: McpTestQuestion[] = [];
  private nextId = 1;
  private sessionId: string | undefined;
  private negotiated: string | undefined;
  private logLevel: LoggingLevel | undefined;
  private opened: Promise<McpTestServerInfo> | undefined;
  private closed = false;
  private readonly inFlight = new Set<AbortController>();
  private readonly streams = new Set<McpTestSubscription>();

  /** @internal */
  constructor(
    private readonly connector: Connector,
    private readonly path: string,
    private readonly options: McpTestClientOptions,
    private readonly onClose: () => Promise<void>,
  ) {
    this.logLevel = options.logLevel;
  }

  /** The revision the client was asked to speak. */
  get revision(): string {
    return this.options.revision ?? MCP_TEST_MODERN_REVISION;
  }

  /** `'modern'` for 2026-07-28, `'legacy'` for the revisions with `initialize`. */
  get era(): 'modern' | 'legacy' {
    return this.revision < MCP_TEST_MODERN_REVISION ? 'legacy' : 'modern';
  }

  /** The legacy session's id, once `initialize` opened it. */
  get session(): string | undefined {
    return this.sessionId;
  }

  /** The client capabilities the client declares. */
  get capabilities(): ClientCapabilities {
    if (this.options.clientCapabilities !== undefined) {
      return this.options.clientCapabilities;
    }
    const answers: McpTestAnswers = this.options.answers ?? {};
    const capabilities: ClientCapabilities = {};
    if (answers.elicit !== undefined) capabilities.elicitation = {};
    if (answers.sample !== undefined) capabilities.sampling = {};
    if (answers.roots !== undefined) capabilities.roots = {};
    return capabilities;
  }

  /**
   * `server/discover` (modern era), or the `initialize` handshake when the client speaks a legacy
   * revision (it opens the session; every other method opens it on first use).
   */
  async discover(options: McpTestCallOptions = {}): Promise<McpTestServerInfo> {
    if (this.era === 'legacy') {
      return this.initialize();
    }
    const raw = await this.request<Record<string, any>>('server/discover', {}, options);
    return {
      protocolVersion: MCP_TEST_MODERN_REVISION,
      supportedVersions: raw.supportedVersions ?? [],
      capabilities: raw.capabilities ?? {},
      serverInfo: raw._meta?.['io.modelcontextprotocol/serverInfo'],
      instructions: raw.instructions,
      raw,
    };
  }

  /** Opens the legacy session (`initialize`, then `notifications/initialized`), once. */
  initialize(): Promise<McpTestServerInfo> {
    if (this.era === 'modern') {
      return this.discover();
    }
    this.opened ??= this.handshake();
    return this.opened;
  }

  /** `tools/list`, following `nextCursor` to the end. */
  async listTools(options: McpTestCallOptions = {}): Promise<McpTestTool[]> {
    return this.listAll<McpTestTool>('tools/list', 'tools', options);
  }

  /**
   * `tools/call`. An `isError` result is returned as a result; a JSON-RPC error is thrown as an
   * {@link McpTestError}. The result carries the call's notifications (`result.notifications`).
   */
  async callTool<S = unknown>(
    name: string,
    args: McpTestToolArgs<S> = {} as McpTestToolArgs<S>,
    options: McpTestCallOptions = {},
  ): Promise<McpTestResult<CallToolResult>> {
    return this.request<CallToolResult>('tools/call', { name, arguments: args }, { ...options, progress: true });
  }

  /**
   * `tools/call` as a long call: iterate it for its notifications as they come, await `result`
   * for its end.
   */
  streamTool<S = unknown>(
    name: string,
    args: McpTestToolArgs<S> = {} as McpTestToolArgs<S>,
    options: McpTestCallOptions = {},
  ): McpTestCall<CallToolResult> {
    const queue = new NotificationQueue<McpTestNotification>();
    const controller = new AbortController();
    const signal =
      options.signal === undefined ? controller.signal : AbortSignal.any([options.signal, controller.signal]);
    const result = this.request<CallToolResult>(
      'tools/call',
      { name, arguments: args },
      {
        ...options,
        signal,
        progress: true,
        onNotification: (notification) => {
          queue.push(notification);
          options.onNotification?.(notification);
        },
      },
    ).finally(() => queue.end());
    // The caller may only iterate: a failure still reaches `result`.
    result.catch(() => undefined);
    return {
      result,
      cancel: (reason?: unknown) => controller.abort(reason),
      [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
    };
  }

  /** `resources/list`, following `nextCursor` to the end. */
  listResources(options: McpTestCallOptions = {}): Promise<McpTestResource[]> {
    return this.listAll<McpTestResource>('resources/list', 'resources', options);
  }

  /** `resources/templates/list`, following `nextCursor` to the end. */
  listResourceTemplates(options: McpTestCallOptions = {}): Promise<McpTestResourceTemplate[]> {
    return this.listAll<McpTestResourceTemplate>('resources/templates/list', 'resourceTemplates', options);
  }

  /** `resources/read`. */
  readResource(uri: string, options: McpTestCallOptions = {}): Promise<McpTestResult<ReadResourceResult>> {
    return this.request<ReadResourceResult>('resources/read', { uri }, options);
  }

  /** `prompts/list`, following `nextCursor` to the end. */
  listPrompts(options: McpTestCallOptions = {}): Promise<McpTestPrompt[]> {
    return this.listAll<McpTestPrompt>('prompts/list', 'prompts', options);
  }

  /** `prompts/get`. */
  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: McpTestCallOptions = {},
  ): Promise<McpTestResult<GetPromptResult>> {
    return this.request<GetPromptResult>('prompts/get', { name, arguments: args }, options);
  }

  /**
   * `completion/complete` of a prompt's argument (`{ type: 'ref/prompt', name }`) or a resource
   * template's (`{ type: 'ref/resource', uri }`).
   */
  async complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options: McpTestCallOptions = {},
  ): Promise<McpTestResult<{ completion: McpCompletion }>> {
    const params: Record<string, unknown> = { ref, argument };
    if (context !== undefined) params.context = context;
    return this.request<{ completion: McpCompletion }>('completion/complete', params, options);
  }

  /**
   * Starts `tools/call` as a task (the `task` param in the legacy era; the tasks extension
   * declared in the modern one) and returns the task. Rejects when the server answered in place.
   */
  async startTask<S = unknown>(
    name: string,
    args: McpTestToolArgs<S> = {} as McpTestToolArgs<S>,
    options: McpTestCallOptions & { ttlMs?: number } = {},
  ): Promise<McpTestResult<McpTestTask>> {
    const params: Record<string, unknown> = { name, arguments: args };
    if (this.era === 'legacy') {
      params.task = options.ttlMs === undefined ? {} : { ttl: options.ttlMs };
    }
    const created = await this.request<Record<string, any>>('tools/call', params, this.withTasks(options));
    const task = (this.era === 'legacy' ? created.task : created) as McpTestTask | undefined;
    if (typeof task?.taskId !== 'string') {
      throw new Error(`tools/call ${name} was answered in place, not as a task: ${JSON.stringify(created)}`);
    }
    return withNotifications(task, created.notifications as McpTestNotification[]);
  }

  /** `tasks/get`: the task as it stands. */
  async getTask(taskId: string, options: McpTestCallOptions = {}): Promise<McpTestTask> {
    return this.request<McpTestTask>('tasks/get', { taskId }, this.withTasks(options));
  }

  /**
   * Waits for the end of a task and returns its `tools/call` result: `tasks/result` in the legacy
   * era (its questions answered on the way), `tasks/get` polled in the modern one (its questions
   * answered with `tasks/update` from the `answers`). A failed task throws its error; a cancelled
   * one throws.
   */
  async taskResult(taskId: string, options: McpTestTaskWaitOptions = {}): Promise<McpTestResult<CallToolResult>> {
    if (this.era === 'legacy') {
      return this.request<CallToolResult>('tasks/result', { taskId }, options);
    }
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    const answered = new Set<string>();
    for (;;) {
      const task = await this.getTask(taskId, options);
      if (task.status === 'completed' && task.result !== undefined) {
        return withNotifications(task.result, []);
      }
      if (task.status === 'failed' && task.error !== undefined) {
        throw new McpTestError(task.error.code, task.error.message, task.error.data, 200, 'tasks/get');
      }
      if (TERMINAL.has(task.status)) {
        throw new Error(`Task ${taskId} ended ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`);
      }
      const open = Object.entries(task.inputRequests ?? {}).filter(([key]) => !answered.has(key));
      if (task.status === 'input_required' && open.length > 0) {
        const responses: Record<string, unknown> = {};
        for (const [key, question] of open) {
          responses[key] = await this.answer(question.method, question.params ?? {}, 'input_required');
          answered.add(key);
        }
        await this.answerTask(taskId, responses, options);
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`Task ${taskId} is still ${task.status} after ${options.timeoutMs ?? 10_000} ms`);
      }
      const interval = options.intervalMs ?? Math.min(Number(task.pollIntervalMs ?? 100), 100);
      await new Promise((resolve) => setTimeout(resolve, interval));
    }
  }

  /** `tasks/update` (modern era): answers the questions a task waits on, by key. */
  async answerTask(
    taskId: string,
    inputResponses: Record<string, unknown>,
    options: McpTestCallOptions = {},
  ): Promise<void> {
    await this.request('tasks/update', { taskId, inputResponses }, this.withTasks(options));
  }

  /** `tasks/cancel`. */
  async cancelTask(taskId: string, options: McpTestCallOptions = {}): Promise<Record<string, any>> {
    return this.request('tasks/cancel', { taskId }, this.withTasks(options));
  }

  /**
   * Opens a notification stream: `subscriptions/listen` with `filter` in the modern era (resolves
   * once acknowledged), the session's GET stream in the legacy era (resolves once it is open;
   * `resourceSubscriptions` are subscribed with `resources/subscribe`).
   */
  async listen(filter: McpTestListenFilter = {}, options: McpTestCallOptions = {}): Promise<McpTestSubscription> {
    this.assertOpen();
    const controller = new AbortController();
    const signal =
      options.signal === undefined ? controller.signal : AbortSignal.any([options.signal, controller.signal]);
    let response: IncomingMessage;
    if (this.era === 'modern') {
      const id = this.nextId++;
      const body = {
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: { notifications: filter, _meta: { ...this.modernMeta(), ...options.meta } },
      };
      const headers = { 'mcp-protocol-version': MCP_TEST_MODERN_REVISION, 'mcp-method': 'subscriptions/listen' };
      response = (await this.post(body, 'subscriptions/listen', { ...headers, ...options.headers }, signal)).response;
    } else {
      await this.initialize();
      response = await this.connector.send({
        method: 'GET',
        path: this.path,
        headers: { accept: 'text/event-stream', ...this.options.headers, ...this.sessionHeaders(), ...options.headers },
        signal,
      });
    }
    const status = response.statusCode ?? 0;
    if (status !== 200 || !String(response.headers['content-type'] ?? '').includes('event-stream')) {
      const text = await readText(response);
      const error = parseError(text);
      throw error === undefined
        ? new McpHttpError(status, response.headers, text, this.era === 'modern' ? 'subscriptions/listen' : 'GET')
        : new McpTestError(error.code, error.message, error.data, status, 'subscriptions/listen');
    }
    const subscription = this.subscription(response, controller);
    if (this.era === 'modern') {
      try {
        await withTimeout(subscription.ready, 5000, 'the acknowledgement of subscriptions/listen');
      } catch (error) {
        subscription.close();
        throw error;
      }
    } else {
      for (const uri of filter.resourceSubscriptions ?? []) {
        await this.request('resources/subscribe', { uri }, options);
      }
    }
    return subscription;
  }

  /** `resources/subscribe` (legacy era: its updates come on the GET stream of {@link listen}). */
  async subscribeResource(uri: string, options: McpTestCallOptions = {}): Promise<void> {
    await this.request('resources/subscribe', { uri }, options);
  }

  /** `resources/unsubscribe` (legacy era). */
  async unsubscribeResource(uri: string, options: McpTestCallOptions = {}): Promise<void> {
    await this.request('resources/unsubscribe', { uri }, options);
  }

  /**
   * The log level of the server's `notifications/message`: `logging/setLevel` in the legacy era;
   * in the modern era (which has no such method) the level every later request asks for in its
   * `_meta`.
   */
  async setLoggingLevel(level: LoggingLevel, options: McpTestCallOptions = {}): Promise<void> {
    this.logLevel = level;
    if (this.era === 'legacy') {
      await this.request('logging/setLevel', { level }, options);
    }
  }

  /**
   * Sends any JSON-RPC request with the era's envelope, answering the server's questions on the
   * way; resolves with its result (and the notifications of the call), throws its error.
   */
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

  /** Sends a JSON-RPC notification (no answer expected beyond the HTTP status). */
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

  /**
   * Aborts what is in flight and closes what the client opened: the legacy session (DELETE), and
   * the application when the client made it from a testing module.
   */
  async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    for (const controller of this.inFlight) {
      controller.abort(new Error('The test client closed'));
    }
    for (const stream of this.streams) {
      stream.close();
    }
    try {
      if (this.sessionId !== undefined) {
        const response = await this.connector.send({
          method: 'DELETE',
          path: this.path,
          headers: { ...this.options.headers, ...this.sessionHeaders() },
        });
        await readText(response);
        this.sessionId = undefined;
      }
    } finally {
      await this.onClose();
    }
  }

  /** The options of a request that needs the tasks extension declared (modern era). */
  private withTasks<T extends McpTestCallOptions>(options: T): T & RequestExtras {
    if (this.era === 'legacy') {
      return options;
    }
    const own = this.capabilities;
    return { ...options, capabilities: { ...own, extensions: { ...own.extensions, [TASKS_EXTENSION]: {} } } };
  }

  private modernMeta(capabilities: ClientCapabilities = this.capabilities): Record<string, unknown> {
    return {
      [META.protocolVersion]: MCP_TEST_MODERN_REVISION,
      [META.clientCapabilities]: capabilities,
      [META.clientInfo]: this.options.clientInfo ?? DEFAULT_CLIENT_INFO,
      ...(this.logLevel === undefined ? {} : { [META.logLevel]: this.logLevel }),
    };
  }

  private subscription(
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
          await this.answerOnStream(message);
        }
      }
    };
    const subscription: McpTestSubscription & { acknowledged: Record<string, any> | undefined; ready: Promise<void> } =
      {
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
          this.streams.delete(subscription);
        },
        [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
      };
    this.streams.add(subscription);
    const ended = (): void => {
      queue.end();
      fail(new Error('The stream ended before its acknowledgement'));
    };
    pump().then(ended, ended);
    return subscription;
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new Error('The MCP test client is closed');
    }
  }

  private async listAll<T>(method: string, key: string, options: McpTestCallOptions): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page: Record<string, any> = await this.request(method, cursor === undefined ? {} : { cursor }, options);
      items.push(...((page[key] as T[] | undefined) ?? []));
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    } while (cursor !== undefined);
    return items;
  }

  private async handshake(): Promise<McpTestServerInfo> {
    const raw = await this.legacyRequest<Record<string, any>>(
      'initialize',
      {
        protocolVersion: this.revision,
        capabilities: this.capabilities,
        clientInfo: this.options.clientInfo ?? DEFAULT_CLIENT_INFO,
      },
      {},
      undefined,
      () => undefined,
    );
    this.negotiated = String(raw.protocolVersion);
    await this.notify('notifications/initialized');
    if (this.logLevel !== undefined) {
      await this.legacyRequest('logging/setLevel', { level: this.logLevel }, {}, undefined, () => undefined);
    }
    return {
      protocolVersion: this.negotiated,
      supportedVersions: [this.negotiated],
      capabilities: raw.capabilities ?? {},
      serverInfo: raw.serverInfo,
      instructions: raw.instructions,
      raw,
    };
  }

  private sessionHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (this.negotiated !== undefined) headers['mcp-protocol-version'] = this.negotiated;
    return headers;
  }

  private post(
    body: unknown,
    method: string,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Delivery> {
    return this.connector
      .send({
        method: 'POST',
        path: this.path,
        headers: {
          accept: ACCEPT,
          'content-type': 'application/json',
          ...this.options.headers,
          ...(this.era === 'legacy' ? this.sessionHeaders() : {}),
          ...headers,
        },
        body: JSON.stringify(body),
        signal,
      })
      .then((response) => ({ response, status: response.statusCode ?? 0 }));
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
        ...this.modernMeta(options.capabilities),
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
        inputResponses[key] = await this.answer(String(question.method), question.params ?? {}, 'input_required');
      }
      extra = { inputResponses, ...(result.requestState === undefined ? {} : { requestState: result.requestState }) };
    }
    throw new Error(`${method} still asked for input after ${MAX_ROUNDS} rounds`);
  }

  private async legacyRequest<T>(
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
      return this.settle<T>(parseJson(text, status, response, method), body.id, status, method);
    }
    for await (const message of sseMessages(response) as AsyncIterable<McpTestMessage>) {
      if (message.id === body.id && message.method === undefined) {
        response.destroy();
        return this.settle<T>(message, body.id, status, method);
      }
      if (message.method !== undefined && message.id !== undefined && message.id !== null) {
        await this.answerOnStream(message);
      } else if (message.method !== undefined) {
        collect({ method: message.method, params: message.params ?? {} });
      }
    }
    throw new Error(`${method}: the server ended its stream without answering request ${body.id} (HTTP ${status})`);
  }

  private settle<T>(message: McpTestMessage | undefined, id: number, status: number, method: string): T {
    if (message?.error !== undefined) {
      throw new McpTestError(message.error.code, message.error.message, message.error.data, status, method);
    }
    if (message?.id !== id || message.result === undefined) {
      throw new Error(`${method}: no answer to request ${id} (HTTP ${status}): ${JSON.stringify(message)}`);
    }
    return message.result as T;
  }

  /** Answers a server request of the legacy stream by POSTing the response on the session. */
  private async answerOnStream(message: McpTestMessage): Promise<void> {
    let reply: Record<string, unknown>;
    try {
      reply = { result: await this.answer(String(message.method), message.params ?? {}, 'stream') };
    } catch (error) {
      reply = { error: { code: -32601, message: (error as Error).message } };
    }
    const answered = await this.post({ jsonrpc: '2.0', id: message.id, ...reply }, String(message.method), {});
    await readText(answered.response);
  }

  /** The test's answer to one question; records it. */
  private async answer(method: string, params: Record<string, any>, via: McpTestQuestion['via']): Promise<unknown> {
    const answers = this.options.answers ?? {};
    const given =
      method === 'elicitation/create'
        ? answers.elicit
        : method === 'sampling/createMessage'
          ? answers.sample
          : method === 'roots/list'
            ? answers.roots
            : undefined;
    if (given === undefined) {
      this.questions.push({ method, params, via });
      throw new Error(`The server asked ${method} and the test client has no answer for it (answers option)`);
    }
    const question = { method, params, via };
    const answer =
      typeof given === 'function'
        ? await (given as (p: unknown, q: McpTestQuestion) => unknown)(params, question)
        : given;
    this.questions.push({ ...question, answer });
    return answer;
  }
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

function withNotifications<T>(result: T, notifications: McpTestNotification[]): McpTestResult<T> {
  const target = (typeof result === 'object' && result !== null ? result : {}) as McpTestResult<T>;
  Object.defineProperty(target, 'notifications', { value: notifications, enumerable: false });
  return target;
}

function isApplication(target: object): target is INestApplication {
  return typeof (target as INestApplication).getHttpServer === 'function';
}

/**
 * Makes an MCP client for tests. Given an application (initialised or not: the client inits
 * it) or a compiled testing module (the client makes the application, and closes it with
 * itself), each request goes through a connection in memory to the application's own HTTP
 * server: no port, yet the real HTTP parser, platform, middleware, auth, guards and engine.
 * Given a URL, the same client talks over the network.
 *
 * @example
 * ```ts
 * const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
 * const client = await createMcpTestClient(moduleRef, { headers: { authorization: 'Bearer t' } });
 * const result = await client.callTool('add', { a: 1, b: 2 });
 * expect(result.content).toEqual([{ type: 'text', text: '3' }]);
 * await client.close(); // closes the application made from the module too
 * ```
 * @publicApi
 */
export async function createMcpTestClient(
  target: McpTestTarget,
  options: McpTestClientOptions = {},
): Promise<McpTestClient> {
  if (typeof target === 'string' || target instanceof URL) {
    const url = new URL(String(target));
    return new McpTestClient(
      networkConnector(url),
      options.path ?? `${url.pathname}${url.search}`,
      options,
      async () => undefined,
    );
  }
  let app: INestApplication;
  let owned = false;
  if (isApplication(target)) {
    app = target;
  } else {
    app = target.createNestApplication({ logger: false });
    owned = true;
  }
  await app.init();
  const adapter = app.getHttpAdapter();
  if (adapter.getType() === 'fastify') {
    await (adapter.getInstance() as { ready(): Promise<unknown> }).ready();
  }
  const path = options.path ?? getMcpEndpointPath(app, options.server);
  return new McpTestClient(inProcessConnector(app.getHttpServer() as Server), path, options, async () => {
    if (owned) await app.close();
  });
}
