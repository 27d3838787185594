/**
 * The shapes the test client reads and returns: what the lists hold, what a call reported on
 * the way, the questions the server asked and the answers a test gives.
 */
import type { INestApplication } from '@nestjs/common';
import type {
  CallToolResult,
  ClientCapabilities,
  McpDtoClass,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
} from 'nest-mcp';

/** The modern revision, the default of the test client. @publicApi */
export const MCP_TEST_MODERN_REVISION = '2026-07-28';

/** A JSON-RPC message as the test client reads it off the wire. @publicApi */
export interface McpTestMessage {
  /** The JSON-RPC version; always `2.0`. */
  readonly jsonrpc: '2.0';
  /** The id of a request or answer; absent on a notification. */
  readonly id?: string | number | null;
  /** The method of a request or notification. */
  readonly method?: string;
  /** The parameters of a request or notification. */
  readonly params?: Record<string, any>;
  /** The result of a successful answer. */
  readonly result?: Record<string, any>;
  /** The error of a failed answer: its code, message and optional data. */
  readonly error?: { code: number; message: string; data?: unknown };
}

/** A notification the server sent while it served a call (`notifications/progress`, `notifications/message`...). @publicApi */
export interface McpTestNotification {
  /** The notification's method, such as `notifications/progress`. */
  readonly method: string;
  /** The notification's parameters. */
  readonly params: Record<string, any>;
}

/** What every result the test client returns carries besides the wire's fields. @publicApi */
export interface McpTestReport {
  /**
   * The notifications the server sent while serving the request, in order. A property that
   * `toEqual` does not see (it is not enumerable), so the result compares as it came.
   */
  readonly notifications: readonly McpTestNotification[];
}

/** A result of the test client: the wire's result and what the call reported on the way. @publicApi */
export type McpTestResult<T> = T & McpTestReport;

/** A tool as `tools/list` lists it. @publicApi */
export interface McpTestTool {
  /** Programmatic name of the tool. */
  name: string;
  /** Human-readable title of the tool. */
  title?: string;
  /** Human-readable description of the tool. */
  description?: string;
  /** JSON Schema of the tool's arguments. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of the tool's structured result, when it declares one. */
  outputSchema?: Record<string, unknown>;
  /** Hints about the tool's behaviour (`readOnlyHint`...). */
  annotations?: Record<string, unknown>;
  /** How the tool runs, such as its `taskSupport`. */
  execution?: Record<string, unknown>;
  /** Metadata reserved by MCP, attached to the tool. */
  _meta?: Record<string, unknown>;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** A resource as `resources/list` lists it. @publicApi */
export interface McpTestResource {
  /** URI of the resource. */
  uri: string;
  /** Programmatic name of the resource. */
  name: string;
  /** Human-readable title of the resource. */
  title?: string;
  /** Human-readable description of the resource. */
  description?: string;
  /** MIME type of the resource, when known. */
  mimeType?: string;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** A resource template as `resources/templates/list` lists it. @publicApi */
export interface McpTestResourceTemplate {
  /** RFC 6570 URI template the resources' URIs are built from. */
  uriTemplate: string;
  /** Programmatic name of the template. */
  name: string;
  /** Human-readable title of the template. */
  title?: string;
  /** Human-readable description of the template. */
  description?: string;
  /** MIME type of the resources the template matches, when they share one. */
  mimeType?: string;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** A prompt as `prompts/list` lists it. @publicApi */
export interface McpTestPrompt {
  /** Programmatic name of the prompt. */
  name: string;
  /** Human-readable title of the prompt. */
  title?: string;
  /** Human-readable description of the prompt. */
  description?: string;
  /** The arguments the prompt accepts. */
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** What `discover()` (modern) or `initialize()` (legacy) learnt of the server. @publicApi */
export interface McpTestServerInfo {
  /** The revision the client speaks with the server. */
  readonly protocolVersion: string;
  /** The revisions the server supports (modern era; the negotiated one in the legacy era). */
  readonly supportedVersions: readonly string[];
  /** The capabilities the server declared. */
  readonly capabilities: Record<string, any>;
  /** The server's name, version and display data. */
  readonly serverInfo?: Implementation;
  /** The server's instructions for the client, when it gives some. */
  readonly instructions?: string;
  /** The whole result as it came. */
  readonly raw: Record<string, any>;
}

/** One question the server asked the client, and the answer the test's `answers` gave. @publicApi */
export interface McpTestQuestion {
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`. */
  readonly method: string;
  /** The question's parameters, as the server sent them. */
  readonly params: Record<string, any>;
  /** How it reached the client: an `input_required` round (modern) or the legacy stream. */
  readonly via: 'input_required' | 'stream';
  /** The answer sent; `undefined` when the client had none (it then refused the question). */
  readonly answer?: unknown;
}

/** A fixed answer, or a function of the question's params. @publicApi */
export type McpTestAnswer<P, R> = R | ((params: P, question: McpTestQuestion) => R | Promise<R>);

/** How the test answers the server's questions, in both eras. @publicApi */
export interface McpTestAnswers {
  /** Answers `elicitation/create` (`ctx.elicit()`). */
  elicit?: McpTestAnswer<ElicitRequestParams, ElicitResult>;
  /** Answers `sampling/createMessage` (`ctx.sample()`). */
  sample?: McpTestAnswer<CreateMessageRequestParams, CreateMessageResult>;
  /** Answers `roots/list` (`ctx.listRoots()`). */
  roots?: McpTestAnswer<Record<string, never>, ListRootsResult>;
}

/** The options of {@link createMcpTestClient}. @publicApi */
export interface McpTestClientOptions {
  /**
   * The path of the server's Streamable HTTP endpoint (global prefix included).
   * @default the endpoint path of the application's MCP server (`server` names it among several), else '/mcp'
   */
  path?: string;
  /** The name of the server among the application's servers, to find its endpoint's path. */
  server?: string;
  /**
   * The revision the client speaks: '2026-07-28' (stateless, `_meta` on every request) or a
   * legacy one ('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05': a session opened with
   * `initialize`, closed with DELETE by `close()`).
   * @default '2026-07-28'
   */
  revision?: string;
  /** Headers of every request: what auth and guards see (`authorization`, an API key...). */
  headers?: Record<string, string>;
  /**
   * The client capabilities declared (on every request, or in `initialize`).
   * @default those the `answers` can serve (`elicitation`, `sampling`, `roots`)
   */
  clientCapabilities?: ClientCapabilities;
  /** The client's name and version. @default { name: 'nest-mcp-test-client', version: '1.0.0' } */
  clientInfo?: Implementation;
  /** How the test answers the server's questions. */
  answers?: McpTestAnswers;
  /** The log level asked for (per request in the modern era, `logging/setLevel` in the legacy one). */
  logLevel?: LoggingLevel;
}

/** The options of one request. @publicApi */
export interface McpTestCallOptions {
  /** Aborts the request: the connection closes (and a legacy client sends `notifications/cancelled`). */
  signal?: AbortSignal;
  /** Called with each `notifications/progress` of the request. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Called with each notification of the request, progress and logs included. */
  onNotification?: (notification: McpTestNotification) => void;
  /** Extra `_meta` of the request. */
  meta?: Record<string, unknown>;
  /** Headers of this request only. */
  headers?: Record<string, string>;
}

/**
 * The arguments a client sends to a tool whose input schema is `S`: the input type of a Standard
 * Schema (zod 4...: before defaults and transforms), the properties of a DTO class, any record
 * for a plain JSON Schema (or when `S` is not given). `callTool<typeof Schema>(name, args)` so
 * checks a call to an `@McpTypedTool` against the schema the tool declares.
 *
 * @example
 * ```ts
 * const Search = z.object({ query: z.string(), limit: z.number().default(10) });
 * await client.callTool<typeof Search>('search', { query: 'nest' });    // compiles
 * await client.callTool<typeof Search>('search', { query: 42 });        // does not
 * ```
 * @publicApi
 */
export type McpTestToolArgs<S = unknown> = unknown extends S
  ? Record<string, unknown>
  : S extends McpDtoClass
    ? McpTestDtoProperties<InstanceType<S>>
    : S extends { readonly '~standard': { readonly types?: infer Types } }
      ? NonNullable<Types> extends { readonly input: infer Input }
        ? Input
        : Record<string, unknown>
      : Record<string, unknown>;

/** The data properties of a DTO instance (its methods left out). @publicApi */
export type McpTestDtoProperties<T> = {
  [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: T[K];
};

/** What a test client can talk to: an application, a testing module, or a URL. @publicApi */
export type McpTestTarget = INestApplication | McpTestingModuleLike | string | URL;

/** A compiled `TestingModule` (`Test.createTestingModule(...).compile()`), structurally. @publicApi */
export interface McpTestingModuleLike {
  /** Makes an application of the module. */
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
  /** Whether the stream carries `notifications/tools/list_changed`. */
  toolsListChanged?: boolean;
  /** Whether the stream carries `notifications/prompts/list_changed`. */
  promptsListChanged?: boolean;
  /** Whether the stream carries `notifications/resources/list_changed`. */
  resourcesListChanged?: boolean;
  /** The URIs whose `notifications/resources/updated` the stream carries. */
  resourceSubscriptions?: string[];
  /** Other fields, passed through as they came. */
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
  /** Ends the stream. */
  close(): void;
}

/** A task as the server reports it (`tasks/get`, or the result that created it). @publicApi */
export interface McpTestTask {
  /** The task's id. */
  taskId: string;
  /** The task's current state. */
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  /** A human-readable note on the current state. */
  statusMessage?: string;
  /** The questions a modern task waits on, by key. */
  inputRequests?: Record<string, { method: string; params: Record<string, any> }>;
  /** The outcome of a completed modern task. */
  result?: CallToolResult;
  /** The error of a failed modern task. */
  error?: { code: number; message: string; data?: unknown };
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** The options of {@link McpTestClient.taskResult}. @publicApi */
export interface McpTestTaskWaitOptions extends McpTestCallOptions {
  /** How long to wait for the task's end. @default 10000 */
  timeoutMs?: number;
  /** Between two `tasks/get` of a modern task. @default the task's pollIntervalMs, at most 100 */
  intervalMs?: number;
}
