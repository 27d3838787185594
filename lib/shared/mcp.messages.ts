/**
 * Messages of configuration errors and log lines, in one place.
 */
import { logList } from '../protocol/bounds/log-text';
import { tooMany } from '../protocol/bounds/refusal-log';
import { STORE_UNAVAILABLE_MESSAGE } from '../protocol/bounds/store-unavailable';

export const DUPLICATE_ENTRY = (kind: string, key: string, first?: string, second?: string) =>
  `Duplicate MCP ${kind} "${key}"${first || second ? ` (declared by ${first ?? 'a runtime registration'} and ${second ?? 'a runtime registration'})` : ''}: each ${kind} needs a unique ${kind === 'resource' ? 'URI' : kind === 'resource template' ? 'URI template' : 'name'}.`;

export const INVALID_TOOL_NAME = (name: string) =>
  `Invalid MCP tool name "${name}": use 1 to 128 characters among A-Z, a-z, 0-9, "_", "-", "." and "/".`;

export const SEARCH_TOOL_NAME_TAKEN = (name: string, source?: string) =>
  `MCP tool "${name}"${source === undefined ? '' : ` (declared by ${source})`} has the name of the search tool of search mode: rename it, or give the search tool another name with the option toolSearch.name.`;

export const INVALID_ENTRY = (kind: string, key: string, reason: string) => `Invalid MCP ${kind} "${key}": ${reason}`;

export const INVALID_SCHEMA = (kind: string, key: string, which: 'input' | 'output', reason: string) =>
  `Invalid ${which} schema of MCP ${kind} "${key}": ${reason}`;

export const INVALID_OPTION = (option: string, reason: string) => `Invalid McpModule option "${option}": ${reason}`;

export const MISSING_PACKAGE = (packages: string, feature: string) =>
  `${feature} needs ${packages}. Install it with: npm install ${packages}`;

export const SCOPED_HANDLER_WITHOUT_REQUEST = (where: string) =>
  `${where} is request-scoped; it receives a fresh instance per call.`;

export const TYPED_TOOL_PARAMETERS = (where: string) =>
  `${where} is an @McpTypedTool: its first parameter receives the arguments and its second the call context; put other parameter decorators after them.`;

export const MULTIPLE_DECORATORS = (where: string) =>
  `${where} carries more than one of @McpTool, @McpResource, @McpUiResource, @McpResourceTemplate and @McpPrompt; use one per method.`;

/** What a client is told when the shared store (Redis) is away; the details go to the log. The protocol owns the text. */
export const STORE_UNAVAILABLE = STORE_UNAVAILABLE_MESSAGE;

/** The client's answer to a body over `http.maxBodyBytes`: the limit in force and the option that raises it. */
export const BODY_TOO_LARGE = (limit: number) =>
  `Request body exceeds ${limit} bytes, this server's limit (McpModule option http.maxBodyBytes)`;

/** The answer to basic credentials from an address past `auth.basic.maxFailuresPerMinute` (429). */
export const BASIC_FAILURES_LIMIT = (perMinute: number) =>
  `Too many failed sign-ins from this address: at most ${perMinute} a minute (McpModule option auth.basic.maxFailuresPerMinute)`;

/** The answer to basic credentials while `auth.basic.maxQueuedHashes` checks wait already (503). */
export const BASIC_HASHES_QUEUED = (queued: number) =>
  tooMany('password checks waiting', queued, 'auth.basic.maxQueuedHashes');

/** The client's answer to a Host that is not allowed (DNS rebinding): the option that admits it. */
export const FORBIDDEN_HOST = 'Forbidden: Host not allowed (McpModule option http.allowedHosts)';

/** The client's answer to an Origin that is not allowed: the option that admits it. */
export const FORBIDDEN_ORIGIN = 'Forbidden: Origin not allowed (McpModule option http.allowedOrigins)';

/** The client's answer to a body nested deeper than `http.maxJsonDepth`. */
export const BODY_TOO_DEEP = (limit: number) =>
  `Request nesting exceeds ${limit} levels, this server's limit (McpModule option http.maxJsonDepth)`;

/** Health: discovery of decorated handlers has not finished (the application is still starting). */
export const HEALTH_DISCOVERY_PENDING = 'discovery of MCP handlers has not finished';

/** Health: the store did not answer its probe in time. */
export const HEALTH_STORE_TIMEOUT = (timeoutMs: number) => `Redis did not answer PING within ${timeoutMs} ms`;

/** What a request is answered while the server shuts down (HTTP 503 with `Retry-After`): another instance may serve it. */
export const SHUTTING_DOWN = 'Service unavailable: the server is shutting down; retry shortly';

/** What a call still running when the shutdown's grace period ended is answered. */
export const CALL_STOPPED_BY_SHUTDOWN = (graceMs: number) =>
  `Server shutting down: the call was stopped after the ${graceMs} ms grace period`;

/** The error and status message of a task whose work was still running when the shutdown's grace period ended. */
export const TASK_STOPPED_BY_SHUTDOWN = 'Server shutting down: the task was stopped before it finished';

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** How many ids a sweep's log line names (the rest are counted). */
export const SWEEP_LOG_IDS = 5;

/** Log line: a sweep ended idle sessions (`ended`: each one's id, and since when where known). */
export const IDLE_SESSIONS_ENDED = (ended: readonly string[], idleTimeoutMs: number) =>
  `Ended ${plural(ended.length, 'idle session')} (no activity for sessions.idleTimeoutMs = ${idleTimeoutMs} ms): ` +
  logList(ended, SWEEP_LOG_IDS);

/**
 * Log line: tasks failed as expired (`failed`: each one's id, TTL and expiry), by a sweep or,
 * `whenRead`, by the read that found it past its TTL first.
 */
export const EXPIRED_TASKS_FAILED = (failed: readonly string[], whenRead = false) =>
  `Failed ${plural(failed.length, 'expired task')} (past ${failed.length === 1 ? 'its' : 'their'} TTL` +
  `${whenRead ? ', found when read' : ''}): ${logList(failed, SWEEP_LOG_IDS)}`;

/** Log line: the drain starts. */
export const DRAIN_STARTED = (calls: number, streams: number, tasks: number, graceMs: number) =>
  `Draining: ${plural(calls, 'call')} in flight, ${plural(streams, 'held stream')} ended, ` +
  `${plural(tasks, 'task')} working; new requests get 503; grace ${graceMs} ms`;

/** Log line: the grace period ended with work still running. */
export const DRAIN_GRACE_ENDED = (graceMs: number, calls: number, tasks: number) =>
  `Grace of ${graceMs} ms over: aborting ${plural(calls, 'call')}, failing ${plural(tasks, 'task')}`;

/** Log line: the shutdown is over. */
export const SHUTDOWN_COMPLETE = (ms: number, abortedCalls: number, failedTasks: number) =>
  `Shutdown complete in ${ms} ms (${plural(abortedCalls, 'call')} aborted, ${plural(failedTasks, 'task')} failed)`;

/** Startup refusal: the console is on in production without `console.allowInProduction`. */
export const CONSOLE_IN_PRODUCTION = (server: string) =>
  `The MCP console of server "${server}" is on (McpModule option "console") while NODE_ENV is "production": ` +
  'it lets anyone who reaches the page try every tool with the credentials they hold. ' +
  'Turn it off there, or set console.allowInProduction: true to serve it anyway.';

/** Log line: where a server's console is served (one per mounted path). */
export const CONSOLE_AT = (path: string, server: string) => `MCP console at ${path} (server "${server}")`;

export const NOT_A_PUBLIC_SERVICE = (what: string) =>
  `${what} is not a public service of an MCP server: getMcpToken() and @InjectMcp() take McpRegistry, McpNotifier, McpSessionService, McpTaskService, McpStdioServer, McpAuthService or McpHealthIndicator`;

export const NOT_A_STORE_KIND = (what: string) =>
  `"${what}" is not a store of an MCP server: getMcpStoreToken() and @InjectMcpStore() take 'sessions', 'replay', 'tasks' or 'bus'`;
