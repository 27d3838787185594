import type { Revision } from '../protocol/revisions';
import type { LogLevel } from '../protocol/log-levels';
import type { CacheScope, McpIcon } from '../protocol/mcp-types';
import type { McpAuthOptions } from '../auth/mcp-auth-options.interface';
import type { McpValidatorOptions } from './mcp-schema.interface';

/**
 * Cache hints the modern era (2026-07-28) puts on cacheable results.
 *
 * @publicApi
 */
export interface McpCacheHintOptions {
  /**
   * How long clients may reuse `tools/list`, `prompts/list`, `resources/list`,
   * `resources/templates/list` and `resources/read` results, in ms.
   * @default 60000
   */
  ttlMs?: number;
  /**
   * Who may share those results: `private` (the same authorization context only) or `public`.
   * @default 'private'
   */
  scope?: CacheScope;
  /**
   * How long clients may reuse `server/discover`, in ms.
   * @default 60000
   */
  discoverTtlMs?: number;
  /**
   * The cache scope of `server/discover`.
   * @default 'public'
   */
  discoverScope?: CacheScope;
}

/**
 * Legacy-era sessions (2024-11-05 to 2025-11-25).
 *
 * @publicApi
 */
export interface McpSessionOptions {
  /**
   * A session idle for this long (ms) ends. An open stream keeps its session alive.
   * @default 1800000 (30 minutes)
   */
  idleTimeoutMs?: number;
  /**
   * How many sessions may be open at once; `initialize` beyond it is refused (HTTP 503).
   * @default 10000
   */
  maxSessions?: number;
  /**
   * How often idle sessions are looked for, in ms.
   * @default 60000
   */
  sweepIntervalMs?: number;
}

/**
 * HTTP transport limits and checks.
 *
 * @publicApi
 */
export interface McpHttpOptions {
  /**
   * The largest request body accepted, in bytes (HTTP 413 beyond). When the platform's body
   * parser reads the body first, its own limit applies as well: raise it with
   * `app.useBodyParser('json', { limit })`.
   * @default 4194304 (4 MiB)
   */
  maxBodyBytes?: number;
  /**
   * The deepest JSON nesting accepted in a request body (at most 1000).
   * @default 64
   */
  maxJsonDepth?: number;
  /**
   * Host header values accepted (name, or name:port). Requests arriving on a loopback address
   * accept only loopback names unless this is set; `['*']` accepts any host.
   * @default loopback names (`localhost`, `127.0.0.1`, `[::1]`) on loopback connections
   * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning
   */
  allowedHosts?: string[];
  /**
   * Origin header values accepted (`scheme://host[:port]`). A request without Origin is
   * accepted. `['*']` accepts any origin.
   * @default loopback origins on loopback connections, the request's own origin otherwise
   */
  allowedOrigins?: string[];
  /**
   * Interval of keep-alive comments on held SSE streams, in ms.
   * @default 15000
   */
  keepAliveMs?: number;
  /**
   * How many events of a legacy session's SSE streams (request answers and the GET stream) are
   * kept for clients that reconnect with `Last-Event-ID` (at most 100000). A client asking for
   * an event no longer kept first gets `notifications/replay_truncated`. The buffer ends with
   * its session.
   * @default 256
   * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
   */
  replayBufferSize?: number;
  /**
   * The reconnection delay, in ms, sent as the SSE `retry` field with the priming event of
   * legacy streams of revision 2025-11-25: how long a client waits before it polls a stream
   * whose connection the server closed (`ctx.closeStream()`). 0 sends no `retry` field.
   * @default 1000
   * @example { http: { retryMs: 5000 } } // long-running tools: poll every 5 s
   * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
   */
  retryMs?: number;
  /**
   * Deadline of a call on the simple POST-only endpoint (`simpleHttpPath`), in ms: its answer
   * is held in one HTTP response, so it gets a bound of its own; 0 disables it.
   * @default `callTimeoutMs`
   */
  simpleCallTimeoutMs?: number;
  /**
   * Answer CORS for the origins that pass the Origin check: preflight (`OPTIONS`) with the
   * methods and the `Mcp-*` request headers allowed, and `Access-Control-Allow-Origin` (the
   * request's origin, never `*`) with the `Mcp-Session-Id`, `MCP-Protocol-Version` and
   * `WWW-Authenticate` headers exposed on every answer. Headers already set by the application
   * (`app.enableCors()`) are left as they are.
   * @default true
   */
  cors?: boolean;
}

/**
 * The stdio transport (`McpStdioServer`).
 *
 * @publicApi
 */
export interface McpStdioOptions {
  /**
   * The longest line (one JSON-RPC message) read from stdin, in bytes. A longer line is answered
   * with -32600 and skipped; the server keeps serving.
   * @default 16777216 (16 MiB)
   */
  maxFrameBytes?: number;
  /**
   * How many requests run at once.
   * @default 8
   */
  maxWorkers?: number;
  /**
   * How many requests wait for a worker; beyond it a request is refused with -32603
   * "Server is overloaded".
   * @default 64
   */
  maxQueue?: number;
  /**
   * How many `subscriptions/listen` requests may be open at once (they hold no worker).
   * @default 32
   */
  maxSubscriptions?: number;
  /**
   * How many notifications may wait to be written while stdout is congested; more are dropped
   * (answers never are).
   * @default 256
   */
  maxPendingNotifications?: number;
}

/**
 * Options of `McpModule.forRoot()` / `forRootAsync()`.
 *
 * @publicApi
 */
export interface McpModuleOptions {
  /** The server name clients see in `serverInfo`. */
  name: string;
  /** The server version clients see in `serverInfo`. */
  version: string;
  /** A display name (2025-06-18 and later). */
  title?: string;
  /** A description of the server (2025-11-25 and later). */
  description?: string;
  /** The server's website (2025-11-25 and later). */
  websiteUrl?: string;
  /** Icons of the server (2025-11-25 and later). */
  icons?: McpIcon[];
  /** Guidance for the model on how to use the server. */
  instructions?: string;
  /**
   * The protocol revisions to advertise and accept. Listing only legacy revisions makes every
   * modern request fail with -32022, so clients fall back to the handshake.
   * @default all five: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28
   */
  revisions?: Revision[];
  /**
   * Page size of `tools/list`, `resources/list`, `resources/templates/list` and
   * `prompts/list`. 0 returns every entry in one page (some clients never ask for a second).
   * @default 0
   */
  pageSize?: number;
  /** Cache hints of the modern era. */
  cacheHints?: McpCacheHintOptions;
  /**
   * Deadline of a tool, resource, prompt or completion call, in ms; 0 disables it.
   * @default 60000
   */
  callTimeoutMs?: number;
  /**
   * How long a shutdown (`app.close()`, or a signal with `app.enableShutdownHooks()`) lets the
   * calls in flight finish, in ms. From the start of the shutdown, new requests are refused
   * (HTTP 503 with `Retry-After`) and held streams end: legacy GET streams and 2024-11-05 SSE
   * pairs, so that their clients reconnect (to another instance behind a balancer), and modern
   * `subscriptions/listen` streams, which are answered. Once it is over, the calls still running
   * have their `ctx.signal` aborted and are answered with an error, and the tasks still working
   * in this process fail. 0 stops them at once. Keep it below your platform's own limit (a
   * Kubernetes pod is killed 30 s after SIGTERM by default).
   * @default 10000
   */
  shutdownGraceMs?: number;
  /**
   * The log level of a legacy session before the client sends `logging/setLevel`.
   * @default 'info'
   */
  defaultLogLevel?: LogLevel;
  /**
   * Legacy era: how long `ctx.elicit()`, `ctx.sample()` and `ctx.listRoots()` wait for the
   * client's answer, in ms; 0 waits as long as the call runs (see `callTimeoutMs`).
   * @default 60000
   */
  clientRequestTimeoutMs?: number;
  /** Modern era: the `requestState` of multi round-trip requests. */
  requestState?: McpRequestStateOptions;
  /** Legacy-era sessions. */
  sessions?: McpSessionOptions;
  /** HTTP transports. */
  http?: McpHttpOptions;
  /** The stdio transport. */
  stdio?: McpStdioOptions;
  /** Tasks: tool calls that outlive their request (`@McpTool({ taskSupport })`). */
  tasks?: McpTaskOptions;
  /**
   * class-validator options for every DTO schema (`whitelist`, `forbidNonWhitelisted`,
   * `skipMissingProperties`...); a tool's own `validatorOptions` override them one by one.
   * @default { forbidUnknownValues: false }
   * @example { validatorOptions: { whitelist: true, forbidNonWhitelisted: true } }
   */
  validatorOptions?: McpValidatorOptions;
  /**
   * Shares the server's state through Redis so that several instances behind a plain
   * (round-robin) balancer serve as one: sessions, SSE replay buffers, resource subscriptions,
   * tasks, client answers, stream messages and notifications. Memory (one process) without it.
   * Needs the `ioredis` package. Set `requestState.secret` too: every instance must seal with
   * the same key.
   * @example { redis: { url: process.env.MCP_REDIS_URL } }
   */
  redis?: McpRedisOptions;
  /**
   * Authentication of every request to the HTTP endpoints (bearer tokens, API keys, basic or a
   * provider of your own) and the OAuth protected-resource metadata. Without it every caller is
   * the anonymous principal.
   * @example { auth: { bearer: { jwt: { jwksUrl: 'https://auth.example.com/jwks' } }, protectedResource: {...} } }
   */
  auth?: McpAuthOptions;
}

/**
 * An ioredis client (`new Redis(...)` of the `ioredis` package). Typed by the little the module
 * checks, so that applications compile without ioredis installed.
 *
 * @publicApi
 */
export interface McpRedisClient {
  duplicate(): unknown;
  readonly status: string;
}

/**
 * Redis for several instances: a URL, or the application's own ioredis client.
 *
 * @publicApi
 */
export interface McpRedisOptions {
  /**
   * URL of the Redis server: `redis://[user:password@]host:port[/db]`, `rediss://` for TLS.
   * The module makes its clients: commands fail at once while Redis is unreachable (requests
   * are answered with an error, never held) and the connection is retried in the background.
   */
  url?: string;
  /**
   * Your own ioredis client, used as you configured it (a second connection, for pub/sub, is
   * made with `duplicate()`). Not closed by the module. Prefer `enableOfflineQueue: false` and a
   * `commandTimeout`, so that requests fail rather than wait while Redis is away.
   */
  client?: McpRedisClient;
  /**
   * Prefix of every key and channel, so that several servers can share one Redis.
   * @default 'mcp:'
   */
  keyPrefix?: string;
  /**
   * Clients made from `url`: how long connecting or one command may take, in ms.
   * @default 5000
   */
  commandTimeoutMs?: number;
}

/**
 * Tasks (2025-11-25 core methods, 2026-07-28 extension `io.modelcontextprotocol/tasks`).
 *
 * @publicApi
 */
export interface McpTaskOptions {
  /**
   * 2026-07-28: how long a call of a tool with `taskSupport` runs in place before it is handed
   * to a task (the `taskInlineMs` of the design). A call that ends within it is answered in
   * place; a longer one is answered with the task.
   * @default 100
   */
  inlineMs?: number;
  /**
   * How long a task is kept from its creation, in ms, when the client asks for nothing else
   * (2025-11-25 `task.ttl`). A task still running when it expires is stopped and failed.
   * @default 3600000
   */
  defaultTtlMs?: number;
  /**
   * The longest retention a client may ask for.
   * @default 86400000
   */
  maxTtlMs?: number;
  /**
   * The polling interval suggested to clients, in ms.
   * @default 1000
   */
  pollIntervalMs?: number;
  /**
   * How many tasks one owner (a legacy session, or a principal) may have running at once; a
   * call beyond it is refused with -32603.
   * @default 100
   */
  maxLivePerOwner?: number;
  /**
   * 2025-11-25: how long `tasks/result` waits for the task to end before it answers -32603.
   * @default 300000
   */
  resultTimeoutMs?: number;
  /**
   * How often expired tasks are looked for, in ms.
   * @default 60000
   */
  sweepIntervalMs?: number;
}

/**
 * How the `requestState` of multi round-trip requests (2026-07-28) is sealed. It is signed with
 * HMAC-SHA256 and bound to the principal, the method and the request's params.
 *
 * @publicApi
 */
export interface McpRequestStateOptions {
  /**
   * The signing key (at least 32 bytes). Without it a random key is made per process, so a
   * retry must reach the same process: set the same secret on every instance that serves the
   * same clients.
   */
  secret?: string | Buffer;
  /**
   * How long a sealed state stays valid, in ms.
   * @default 300000
   */
  ttlMs?: number;
}

/**
 * Options that shape the module graph, known synchronously in `forRoot` and `forRootAsync`.
 *
 * @publicApi
 */
export interface McpModuleExtras {
  /**
   * Register the module globally, so `McpRegistry` and the services can be injected anywhere.
   * @default true
   */
  isGlobal?: boolean;
  /**
   * The path of the Streamable HTTP endpoint (global prefix and versioning apply).
   * @default 'mcp'
   */
  path?: string;
  /**
   * Serves the simple POST-only endpoint at this path (global prefix and versioning apply): JSON
   * in, JSON out, no sessions, no streams, both eras. Off unless set.
   * @example 'rpc'
   */
  simpleHttpPath?: string;
  /**
   * Serves the 2024-11-05 HTTP+SSE pair: `GET <ssePath>` opens a session and its event stream,
   * whose `endpoint` event names `<sseMessagesPath>?sessionId=...` for the client's POSTs. Off
   * unless both paths are set.
   * @example 'sse'
   */
  ssePath?: string;
  /**
   * The POST path of the 2024-11-05 HTTP+SSE pair (see `ssePath`).
   * @example 'messages'
   */
  sseMessagesPath?: string;
  /**
   * Class decorators applied to every endpoint controller the module mounts, for applications
   * whose global guards need a mark on a route: a global `APP_GUARD` that refuses unless a
   * handler is `@Public()` lets the endpoints through with `[Public()]`, and the module's own
   * authentication (`auth`) then decides. `SetMetadata(...)`, `UseGuards(...)`,
   * `SkipThrottle()` and your own decorators made with them all work here; tool calls keep
   * their own guards. See also `isMcpEndpoint(context)`.
   * @example endpointDecorators: [Public()]
   */
  endpointDecorators?: ClassDecorator[];
}

/**
 * A class that creates the module options, for `forRootAsync({ useClass })` and
 * `forRootAsync({ useExisting })`.
 *
 * @publicApi
 */
export interface McpModuleOptionsFactory {
  createMcpOptions(): McpModuleOptions | Promise<McpModuleOptions>;
}
