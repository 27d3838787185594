import type { McpRevision } from '../protocol/messages/revisions';
import type { LoggingLevel } from '../protocol/messages/log-levels';
import type { McpCacheScope, Icon } from '../protocol/messages/mcp-types';
import type { McpExtension } from '../protocol/extensions/extensions';
import type { McpAuthOptions } from './mcp-auth-options.interface';
import type { McpValidatorOptions } from './mcp-schema.interface';
import type { McpHttpOptions } from './mcp-http-options.interface';
import type { McpStdioOptions } from './mcp-stdio-options.interface';
import type { McpSessionOptions } from './mcp-session-options.interface';
import type { McpRedisOptions } from './mcp-redis-options.interface';
import type { McpTaskOptions } from './mcp-task-options.interface';
import type { McpSkillOptions } from './mcp-skill-options.interface';
import type { McpRoutesOptions } from './mcp-route-options.interface';
import type { McpToolSearchOptions } from './mcp-tool-search-options.interface';
import type { McpStoreOptions } from './mcp-store-options.interface';
import type { McpTelemetryOptions } from './mcp-telemetry-options.interface';
import type { McpAppsOptions } from './mcp-apps-options.interface';

// The sections live in files of their own; they stay importable from here.
export type { McpHttpOptions } from './mcp-http-options.interface';
export type { McpStdioOptions } from './mcp-stdio-options.interface';
export type { McpSessionOptions } from './mcp-session-options.interface';
export type {
  McpRedisClient,
  McpRedisClusterOptions,
  McpRedisNode,
  McpRedisOptions,
  McpRedisSentinelOptions,
} from './mcp-redis-options.interface';
export type { McpTaskOptions } from './mcp-task-options.interface';
export type { McpAppsOptions, McpAppViewOptions } from './mcp-apps-options.interface';
export type { McpSkillDecoratorOptions, McpSkillFiles, McpSkillOptions } from './mcp-skill-options.interface';
export type { McpStoreOptions } from './mcp-store-options.interface';
export type { McpToolSearchOptions } from './mcp-tool-search-options.interface';
export type { McpModuleExtras, McpConsoleOptions } from './mcp-module-extras.interface';

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
  scope?: McpCacheScope;
  /**
   * How long clients may reuse `server/discover`, in ms.
   * @default 60000
   */
  discoverTtlMs?: number;
  /**
   * The cache scope of `server/discover`.
   * @default 'public'
   */
  discoverScope?: McpCacheScope;
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
  icons?: Icon[];
  /** Guidance for the model on how to use the server. */
  instructions?: string;
  /**
   * The extensions the server supports (SEP-2133), advertised with their settings in
   * `capabilities.extensions` of the `initialize` result and of `server/discover`, in the eras
   * each applies to. The module declares `io.modelcontextprotocol/tasks` itself when it runs
   * tasks (`tasks`), so it is not listed here. A malformed id or an id listed twice stops the
   * application at startup. Handlers ask whether the client supports one with
   * `ctx.clientSupports(id)`, or refuse the call with `ctx.requireExtension(id)`.
   * @example { extensions: [{ id: 'com.example/notes-audit', settings: { level: 'full' } }] }
   */
  extensions?: McpExtension[];
  /**
   * The protocol revisions to advertise and accept. Listing only legacy revisions makes every
   * modern request fail with -32022, so clients fall back to the handshake.
   * @default all five: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28
   */
  revisions?: McpRevision[];
  /**
   * Page size of `tools/list`, `resources/list`, `resources/templates/list` and
   * `prompts/list`. 0 returns every entry in one page (some clients never ask for a second).
   * @default 0
   */
  pageSize?: number;
  /**
   * The longest resource URI a client may send, in characters: the `uri` of `resources/read`,
   * `resources/subscribe` and `resources/unsubscribe`, each of a `subscriptions/listen`
   * request's `resourceSubscriptions`, and a `completion/complete` `ref/resource`. Checked
   * before any lookup or template matching; a longer one is refused with JSON-RPC -32602.
   * @default 8192
   */
  maxUriLength?: number;
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
  defaultLogLevel?: LoggingLevel;
  /**
   * Legacy era: how long `ctx.elicit()`, `ctx.sample()` and `ctx.listRoots()` wait for the
   * client's answer, in ms; 0 waits as long as the call runs (see `callTimeoutMs`).
   * @default 60000
   */
  clientRequestTimeoutMs?: number;
  /**
   * How many questions to the client (`ctx.elicit()`, `ctx.sample()`, `ctx.listRoots()`) may wait
   * for their answers at once in one legacy session, and in one task (both eras). Past it, the
   * question rejects at once with an `McpError` (-32603) naming this option, so that the call
   * asking it ends rather than waits. The 2026-07-28 multi round-trip holds nothing on the server
   * (its questions go back to the client with `input_required`) and is not counted. Each instance
   * counts the questions its own calls asked.
   * @default 32
   */
  maxPendingQuestions?: number;
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
  /** MCP Apps: views shipped as built HTML files (`@McpUiResource` declares the others). */
  apps?: McpAppsOptions;
  /**
   * Skills (`io.modelcontextprotocol/skills`): agent skills served from a directory and from
   * `@McpSkill` providers, with `skills/list`, `skills/get` and `resources/directory/read`. The
   * extension is declared only with this option.
   * @example { skills: { directory: join(__dirname, 'skills') } }
   */
  skills?: McpSkillOptions;
  /**
   * Route tools (`@McpRoute`, `@McpRoutes`): the headers of the MCP request forwarded to the
   * route besides `authorization`, and the bound on a route's response.
   * @example { routes: { forwardHeaders: ['x-api-key'] } }
   */
  routes?: McpRoutesOptions;
  /**
   * Search mode, for a server with many tools (a hundred routes, say): `tools/list` answers a
   * `search_tools` tool (and the tools `listed` names) instead of every tool, so that the list
   * does not fill the model's context. The model searches names, descriptions and parameter
   * names with a few words and gets the definitions of the best matches, among the tools the
   * caller may see (its scopes and visibility guards, as `tools/list` applies them); every tool
   * stays callable by name with `tools/call`, unchanged. `true` takes the defaults.
   * @default false (off)
   * @example { toolSearch: { listed: ['notes_list'], maxLimit: 20 } }
   */
  toolSearch?: boolean | McpToolSearchOptions;
  /**
   * class-validator options for every DTO schema (`whitelist`, `forbidNonWhitelisted`,
   * `skipMissingProperties`...); a tool's own `validatorOptions` override them one by one.
   * @default { forbidUnknownValues: false }
   * @example { validatorOptions: { whitelist: true, forbidNonWhitelisted: true } }
   */
  validatorOptions?: McpValidatorOptions;
  /**
   * Schema `pattern`s (and `patternProperties` names), exactly as written in the schemas, to
   * test with JavaScript's own RegExp instead of the module's linear-time engine.
   *
   * Every pattern of a JSON Schema (a tool's input and output, a DTO's or a Standard Schema's
   * advertised schema) is tested on a client's strings in time linear in their length, whatever
   * the pattern: JavaScript's RegExp backtracks, and a pattern such as `^(a+)+$` took it 14 s on
   * a 30-character argument, during which the server answered nobody. The engine keeps the
   * ECMAScript meaning of every pattern it runs (`u` flag, as JSON Schema and ajv take them);
   * it refuses at startup, naming the tool and the pattern, what needs backtracking:
   * backreferences (`\1`, `\k<name>`), lookbehinds, lookaheads other than right after a
   * leading `^` (`^(?=.*\d).{8,}$` is taken), and repetitions that count out past 4000 states
   * (`(a{100}){100}`). List such a pattern here only once you know it cannot backtrack
   * catastrophically on any string; it then runs as before.
   *
   * A DTO's or a Standard Schema's own validator (class-validator's `@Matches`, zod's
   * `.regex()` and formats) runs its patterns on its own RegExp before the advertised schema is
   * checked: the module cannot bound those. In the advertised schema, a pattern the engine
   * cannot run is therefore not refused but tested on RegExp, as the library has just done.
   * @example { nativeSchemaPatterns: ['^(\\w+)-\\1$'] }
   */
  nativeSchemaPatterns?: string[];
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
   * Stores of your own, in place of the built-in memory ones: each one given replaces its
   * built-in store; the others stay in memory. They serve one instance (instances of a server
   * talk to each other through `redis` only), and cannot be combined with `redis`.
   * @example { stores: { sessions: new MySessionStore(db) } }
   * @see getMcpStoreToken
   */
  stores?: McpStoreOptions;
  /**
   * Authentication of every request to the HTTP endpoints (bearer tokens, API keys, basic or a
   * provider of your own) and the OAuth protected-resource metadata. Without it every caller is
   * the anonymous principal.
   * @example { auth: { bearer: { jwt: { jwksUrl: 'https://auth.example.com/jwks' } }, protectedResource: {...} } }
   */
  auth?: McpAuthOptions;
  /**
   * OpenTelemetry: a SERVER span per request and notification, CLIENT spans for the server's
   * questions to clients, task spans, and the `mcp.server.*` metrics, after the MCP semantic
   * conventions. On by default once an OpenTelemetry SDK is registered (install
   * `@opentelemetry/api`); without one, or with `false`, nothing is recorded and nothing is
   * spent on it.
   * @example { telemetry: { tracerProvider, meterProvider } }
   */
  telemetry?: McpTelemetryOptions | false;
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
 * A class that creates the module options, for `forRootAsync({ useClass })` and
 * `forRootAsync({ useExisting })`.
 *
 * @publicApi
 */
export interface McpModuleOptionsFactory {
  /** Returns the module's options (`McpModule.forRootAsync({ useClass })`). */
  createMcpOptions(): McpModuleOptions | Promise<McpModuleOptions>;
}
