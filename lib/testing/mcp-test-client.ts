/**
 * The test client of `nest-mcp/testing`: every client method, typed, each handed to the part of
 * the kit whose job it is (the wire, the era handshakes, tasks, listening), and `close()`, which
 * closes what the client opened.
 */
import type {
  CallToolResult,
  ClientCapabilities,
  GetPromptResult,
  LoggingLevel,
  McpCompletion,
  ReadResourceResult,
} from 'nest-mcp';
import { readText, type Connector } from './http-exchange';
import {
  type McpTestCall,
  type McpTestCallOptions,
  type McpTestClientOptions,
  type McpTestListenFilter,
  type McpTestNotification,
  type McpTestPrompt,
  type McpTestQuestion,
  type McpTestResource,
  type McpTestResourceTemplate,
  type McpTestResult,
  type McpTestServerInfo,
  type McpTestSubscription,
  type McpTestTask,
  type McpTestTaskWaitOptions,
  type McpTestTool,
  type McpTestToolArgs,
} from './mcp-test.types';
import { discover, sessionHeaders } from './handshakes';
import { listen } from './listening';
import { NotificationQueue } from './notification-queue';
import * as tasks from './tasks';
import { McpTestWire } from './wire';

/**
 * An MCP client for tests. Made by {@link createMcpTestClient}; close it with `close()`.
 * @publicApi
 */
export class McpTestClient {
  private readonly wire: McpTestWire;

  /** @internal */
  constructor(
    connector: Connector,
    path: string,
    options: McpTestClientOptions,
    private readonly onClose: () => Promise<void>,
  ) {
    this.wire = new McpTestWire(connector, path, options);
  }

  /** Every question the server asked, in order, with the answer given. */
  get questions(): McpTestQuestion[] {
    return this.wire.questions.asked;
  }

  /** The revision the client was asked to speak. */
  get revision(): string {
    return this.wire.revision;
  }

  /** `'modern'` for 2026-07-28, `'legacy'` for the revisions with `initialize`. */
  get era(): 'modern' | 'legacy' {
    return this.wire.era;
  }

  /** The legacy session's id, once `initialize` opened it. */
  get session(): string | undefined {
    return this.wire.sessionId;
  }

  /** The client capabilities the client declares. */
  get capabilities(): ClientCapabilities {
    return this.wire.capabilities;
  }

  /**
   * `server/discover` (modern era), or the `initialize` handshake when the client speaks a legacy
   * revision (it opens the session; every other method opens it on first use).
   */
  discover(options: McpTestCallOptions = {}): Promise<McpTestServerInfo> {
    return this.era === 'legacy' ? this.initialize() : discover(this.wire, options);
  }

  /** Opens the legacy session (`initialize`, then `notifications/initialized`), once. */
  initialize(): Promise<McpTestServerInfo> {
    return this.era === 'modern' ? this.discover() : this.wire.initialize();
  }

  /** `tools/list`, following `nextCursor` to the end. */
  listTools(options: McpTestCallOptions = {}): Promise<McpTestTool[]> {
    return this.listAll<McpTestTool>('tools/list', 'tools', options);
  }

  /**
   * `tools/call`. An `isError` result is returned as a result; a JSON-RPC error is thrown as an
   * {@link McpTestError}. The result carries the call's notifications (`result.notifications`).
   */
  callTool<S = unknown>(
    name: string,
    args: McpTestToolArgs<S> = {} as McpTestToolArgs<S>,
    options: McpTestCallOptions = {},
  ): Promise<McpTestResult<CallToolResult>> {
    return this.wire.request<CallToolResult>('tools/call', { name, arguments: args }, { ...options, progress: true });
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
    const result = this.wire
      .request<CallToolResult>(
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
      )
      .finally(() => queue.end());
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
    return this.wire.request<ReadResourceResult>('resources/read', { uri }, options);
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
    return this.wire.request<GetPromptResult>('prompts/get', { name, arguments: args }, options);
  }

  /**
   * `completion/complete` of a prompt's argument (`{ type: 'ref/prompt', name }`) or a resource
   * template's (`{ type: 'ref/resource', uri }`).
   */
  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options: McpTestCallOptions = {},
  ): Promise<McpTestResult<{ completion: McpCompletion }>> {
    const params: Record<string, unknown> = { ref, argument };
    if (context !== undefined) params.context = context;
    return this.wire.request<{ completion: McpCompletion }>('completion/complete', params, options);
  }

  /**
   * Starts `tools/call` as a task (the `task` param in the legacy era; the tasks extension
   * declared in the modern one) and returns the task. Rejects when the server answered in place.
   */
  startTask<S = unknown>(
    name: string,
    args: McpTestToolArgs<S> = {} as McpTestToolArgs<S>,
    options: McpTestCallOptions & { ttlMs?: number } = {},
  ): Promise<McpTestResult<McpTestTask>> {
    return tasks.startTask(this.wire, name, args, options);
  }

  /** `tasks/get`: the task as it stands. */
  getTask(taskId: string, options: McpTestCallOptions = {}): Promise<McpTestTask> {
    return tasks.getTask(this.wire, taskId, options);
  }

  /**
   * Waits for the end of a task and returns its `tools/call` result: `tasks/result` in the legacy
   * era (its questions answered on the way), `tasks/get` polled in the modern one (its questions
   * answered with `tasks/update` from the `answers`). A failed task throws its error; a cancelled
   * one throws.
   */
  taskResult(taskId: string, options: McpTestTaskWaitOptions = {}): Promise<McpTestResult<CallToolResult>> {
    return tasks.taskResult(this.wire, taskId, options);
  }

  /** `tasks/update` (modern era): answers the questions a task waits on, by key. */
  answerTask(taskId: string, inputResponses: Record<string, unknown>, options: McpTestCallOptions = {}): Promise<void> {
    return tasks.answerTask(this.wire, taskId, inputResponses, options);
  }

  /** `tasks/cancel`. */
  cancelTask(taskId: string, options: McpTestCallOptions = {}): Promise<Record<string, any>> {
    return tasks.cancelTask(this.wire, taskId, options);
  }

  /**
   * Opens a notification stream: `subscriptions/listen` with `filter` in the modern era (resolves
   * once acknowledged), the session's GET stream in the legacy era (resolves once it is open;
   * `resourceSubscriptions` are subscribed with `resources/subscribe`).
   */
  listen(filter: McpTestListenFilter = {}, options: McpTestCallOptions = {}): Promise<McpTestSubscription> {
    return listen(this.wire, filter, options);
  }

  /** `resources/subscribe` (legacy era: its updates come on the GET stream of {@link McpTestClient.listen}). */
  async subscribeResource(uri: string, options: McpTestCallOptions = {}): Promise<void> {
    await this.wire.request('resources/subscribe', { uri }, options);
  }

  /** `resources/unsubscribe` (legacy era). */
  async unsubscribeResource(uri: string, options: McpTestCallOptions = {}): Promise<void> {
    await this.wire.request('resources/unsubscribe', { uri }, options);
  }

  /**
   * The log level of the server's `notifications/message`: `logging/setLevel` in the legacy era;
   * in the modern era (which has no such method) the level every later request asks for in its
   * `_meta`.
   */
  async setLoggingLevel(level: LoggingLevel, options: McpTestCallOptions = {}): Promise<void> {
    this.wire.logLevel = level;
    if (this.era === 'legacy') {
      await this.wire.request('logging/setLevel', { level }, options);
    }
  }

  /**
   * Sends any JSON-RPC request with the era's envelope, answering the server's questions on the
   * way; resolves with its result (and the notifications of the call), throws its error.
   */
  request<T = Record<string, any>>(
    method: string,
    params: Record<string, unknown> = {},
    options: McpTestCallOptions = {},
  ): Promise<McpTestResult<T>> {
    return this.wire.request<T>(method, params, options);
  }

  /** Sends a JSON-RPC notification (no answer expected beyond the HTTP status). */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.wire.notify(method, params);
  }

  /**
   * Aborts what is in flight and closes what the client opened: the legacy session (DELETE), and
   * the application when the client made it from a testing module.
   */
  async close(): Promise<void> {
    const wire = this.wire;
    if (wire.closed) {
      return;
    }
    wire.closed = true;
    for (const controller of wire.inFlight) {
      controller.abort(new Error('The test client closed'));
    }
    for (const stream of wire.streams) {
      stream.close();
    }
    try {
      if (wire.sessionId !== undefined) {
        const response = await wire.connector.send({
          method: 'DELETE',
          path: wire.path,
          headers: { ...wire.options.headers, ...sessionHeaders(wire) },
        });
        await readText(response);
        wire.sessionId = undefined;
      }
    } finally {
      await this.onClose();
    }
  }

  private async listAll<T>(method: string, key: string, options: McpTestCallOptions): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page: Record<string, any> = await this.wire.request(
        method,
        cursor === undefined ? {} : { cursor },
        options,
      );
      items.push(...((page[key] as T[] | undefined) ?? []));
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    } while (cursor !== undefined);
    return items;
  }
}
