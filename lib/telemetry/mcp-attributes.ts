/**
 * The MCP semantic conventions of OpenTelemetry (GenAI conventions, `mcp.md`): the attribute
 * names, and what one message, its transport and its outcome say in them. Pure: no API, no SDK.
 */
import type { IncomingMessage } from 'node:http';
import type { EngineOutcome, RequestFacts } from '../protocol/engine';
import {
  isJsonObject,
  McpErrorCode,
  type JSONRPCNotification,
  type JSONRPCRequest,
} from '../protocol/messages/json-rpc';
import { META_KEYS, metaOf } from '../protocol/messages/request-meta';
import { isRevision } from '../protocol/messages/revisions';
import { MethodTable } from '../protocol/methods';
import { clientAddress as platformClientAddress } from '../shared/client-address';

/** Attribute values as OpenTelemetry takes them. */
export type Attributes = Record<string, string | number | boolean>;

export const ATTR = {
  method: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operation: 'gen_ai.operation.name',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  networkTransport: 'network.transport',
  networkProtocol: 'network.protocol.name',
  networkProtocolVersion: 'network.protocol.version',
  clientAddress: 'client.address',
  clientPort: 'client.port',
  errorType: 'error.type',
  statusCode: 'rpc.response.status_code',
  // Proposed, not yet in the conventions: the task a span is about (the task's own span, the
  // call that created it, every `tasks/*` request naming it). Spans only: one value per task.
  taskId: 'mcp.task.id',
  // The module's own names, out of the `mcp.*` namespace the conventions own.
  // What a client sent where the conventions' attribute holds `_OTHER` (as HTTP keeps
  // `http.request.method_original`), on spans only.
  methodOriginal: 'nest_mcp.method.name_original',
  protocolVersionOriginal: 'nest_mcp.protocol.version_original',
  // A task's status (its span, its status events, the task metrics) and a status change's message.
  taskStatus: 'nest_mcp.task.status',
  taskStatusMessage: 'nest_mcp.task.status_message',
  streamKind: 'nest_mcp.stream.kind',
  // The server (its `name`) of an application that has several; absent with one.
  serverName: 'nest_mcp.server.name',
  // How a request ended without an answer (see `REQUEST_OUTCOME`).
  requestOutcome: 'nest_mcp.request.outcome',
} as const;

/** The event a task span gets at each status change (`ATTR.taskStatus` says which). */
export const TASK_STATUS_EVENT = 'nest_mcp.task.status';

/** The attributes a duration metric keeps: the low-cardinality ones (no ids, no addresses, no URIs). */
export const METRIC_ATTRIBUTES: readonly string[] = [
  ATTR.method,
  ATTR.protocolVersion,
  ATTR.toolName,
  ATTR.promptName,
  ATTR.operation,
  ATTR.networkTransport,
  ATTR.networkProtocol,
  ATTR.networkProtocolVersion,
  ATTR.errorType,
  ATTR.statusCode,
  ATTR.requestOutcome,
  ATTR.serverName,
];

/**
 * What `mcp.method.name` and the span name say of a method the server does not know, and
 * `mcp.protocol.version` of a revision it does not serve: a client's made-up values would make
 * one metric series (and one span name) each.
 */
export const OTHER = '_OTHER';

/** The `error.type` of a tool result with `isError` (the conventions' value). */
export const TOOL_ERROR = 'tool_error';

/**
 * The values of `nest_mcp.request.outcome`: a request that ended without an answer, which is no
 * error (nothing failed), yet one an operator wants to count.
 */
export const REQUEST_OUTCOME = {
  /** The client cancelled the request (`notifications/cancelled`), or went away, before its answer. */
  cancelled: 'cancelled',
  /** The client closed its `subscriptions/listen` stream (what such a stream is for). */
  closed: 'closed',
} as const;

/**
 * The JSON-RPC codes of a request the caller got wrong: like HTTP's 4xx on a SERVER span, they
 * say what the server answered (`rpc.response.status_code`) but are no error of the server's
 * (no `error.type`, no status ERROR), or a client's mistakes would move its error rate. Every
 * other code (-32603, -32000, the application's own) is the server's fault.
 */
const CALLER_CODES: ReadonlySet<number> = new Set([
  McpErrorCode.ParseError,
  McpErrorCode.InvalidRequest,
  McpErrorCode.MethodNotFound,
  McpErrorCode.InvalidParams,
  McpErrorCode.ResourceNotFound,
  McpErrorCode.HeaderMismatch,
  McpErrorCode.MissingRequiredClientCapability,
  McpErrorCode.UnsupportedProtocolVersion,
  // Refusals of the caller's credentials (401/403 over HTTP) and a URL elicitation it must do
  // first: an attacker's probing would otherwise page the operator as an outage.
  McpErrorCode.InsufficientScope,
  McpErrorCode.AccessDenied,
  McpErrorCode.UrlElicitationRequired,
]);

/** Whether a JSON-RPC error code says the caller, not the server, was at fault. */
export function isCallerError(code: number): boolean {
  return CALLER_CODES.has(code);
}

/** The built-in methods: what a server without extension methods knows. */
const BUILT_INS = new MethodTable();
const isBuiltIn = (method: string): boolean => BUILT_INS.isKnown(method);

const RESOURCE_METHODS: ReadonlySet<string> = new Set([
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/resources/updated',
]);

/** The requests about one task, which name it in `params.taskId` (`tasks/list` names none). */
const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update']);

/** What a message names: the span's name target and the attributes that name it. */
export interface MessageTarget {
  readonly spanName: string;
  readonly attributes: Attributes;
  /** The tool (`tools/call`) or prompt (`prompts/get`) the message names, if any. */
  readonly name?: string;
}

/**
 * The span name and the attributes known before the message runs: `{method} {target}` where
 * the target is the tool or prompt (low cardinality); resource URIs and the task a `tasks/*`
 * request names are attributes only.
 * @param clientAddress where `client.address` comes from (see `transportAttributes`)
 * @param isKnown whether the server knows a method (its engine's method table, extensions'
 *   methods included); any other is `_OTHER`
 */
export function messageAttributes(
  facts: RequestFacts,
  message: JSONRPCRequest | JSONRPCNotification,
  clientAddress: ClientAddressSource = 'socket',
  isKnown: (method: string) => boolean = isBuiltIn,
): MessageTarget {
  const method = isKnown(message.method) ? message.method : OTHER;
  const attributes: Attributes = { [ATTR.method]: method };
  if (method === OTHER) {
    attributes[ATTR.methodOriginal] = message.method;
  }
  let spanName = method;
  let target: string | undefined;
  const params = isJsonObject(message.params) ? message.params : undefined;
  if ('id' in message && message.id !== null) {
    attributes[ATTR.requestId] = String(message.id);
  }
  const name = params?.name;
  if (method === 'tools/call' && typeof name === 'string') {
    attributes[ATTR.toolName] = name;
    attributes[ATTR.operation] = 'execute_tool';
    spanName = `${method} ${name}`;
    target = name;
  } else if (method === 'prompts/get' && typeof name === 'string') {
    attributes[ATTR.promptName] = name;
    spanName = `${method} ${name}`;
    target = name;
  } else if (RESOURCE_METHODS.has(method) && typeof params?.uri === 'string') {
    attributes[ATTR.resourceUri] = params.uri;
  } else if (TASK_METHODS.has(method) && typeof params?.taskId === 'string') {
    attributes[ATTR.taskId] = params.taskId;
  }
  const version = protocolVersionOf(facts, message, params);
  if (isRevision(version)) {
    attributes[ATTR.protocolVersion] = version;
  } else if (version !== undefined) {
    attributes[ATTR.protocolVersion] = OTHER;
    attributes[ATTR.protocolVersionOriginal] = version;
  }
  if (facts.session !== undefined) {
    attributes[ATTR.sessionId] = facts.session.id;
  }
  Object.assign(attributes, transportAttributes(facts, clientAddress));
  return { spanName, attributes, name: target };
}

/** The revision a message is served in, as far as it is known before it runs. */
function protocolVersionOf(
  facts: RequestFacts,
  message: JSONRPCRequest | JSONRPCNotification,
  params: Record<string, unknown> | undefined,
): string | undefined {
  if (facts.era === 'legacy') {
    if (facts.revision !== undefined) {
      return facts.revision;
    }
    // `initialize` negotiates it: the client's ask until the answer says (see `outcomeAttributes`).
    return message.method === 'initialize' && typeof params?.protocolVersion === 'string'
      ? params.protocolVersion
      : undefined;
  }
  const claimed = metaOf(message.params)[META_KEYS.protocolVersion];
  if (typeof claimed === 'string') {
    return claimed;
  }
  const header = facts.headers?.['mcp-protocol-version'];
  return typeof header === 'string' ? header : undefined;
}

/** Where `client.address` comes from: the socket's peer, or the platform's trusted-proxy rules. */
export type ClientAddressSource = 'socket' | 'platform';

/**
 * The transport of a message: `pipe` for stdio; over HTTP `tcp`, the HTTP version and the
 * peer's address. With `'socket'` the socket gives it (no header is trusted for it); with
 * `'platform'` the platform does, after its trust-proxy setting (Express's `req.ip`, Fastify's
 * `request.ip`), falling back to the socket.
 */
export function transportAttributes(
  facts: Pick<RequestFacts, 'transport' | 'native'>,
  clientAddress: ClientAddressSource = 'socket',
): Attributes {
  if (facts.transport === 'stdio') {
    return { [ATTR.networkTransport]: 'pipe' };
  }
  const attributes: Attributes = { [ATTR.networkTransport]: 'tcp', [ATTR.networkProtocol]: 'http' };
  const req = nodeRequestOf(facts.native?.request);
  if (req !== undefined) {
    if (typeof req.httpVersion === 'string') {
      attributes[ATTR.networkProtocolVersion] = req.httpVersion;
    }
    const socket = req.socket as IncomingMessage['socket'] | undefined;
    const peer = socket?.remoteAddress;
    // The platform's answer is the socket's peer unless its trust-proxy setting says otherwise.
    const platform = clientAddress === 'platform' ? platformClientAddress(facts.native?.request) : undefined;
    if (platform !== undefined && platform !== peer) {
      // A forwarded client's address: the socket's port is the proxy's, not the client's.
      attributes[ATTR.clientAddress] = platform;
    } else if (typeof peer === 'string') {
      attributes[ATTR.clientAddress] = peer;
      if (typeof socket?.remotePort === 'number') {
        attributes[ATTR.clientPort] = socket.remotePort;
      }
    }
  }
  return attributes;
}

/** The Node request behind a platform's request (Express hands it over; Fastify wraps it as `raw`). */
function nodeRequestOf(request: unknown): IncomingMessage | undefined {
  if (typeof request !== 'object' || request === null) {
    return undefined;
  }
  const raw = (request as { raw?: unknown }).raw;
  const candidate = (typeof raw === 'object' && raw !== null ? raw : request) as Partial<IncomingMessage>;
  return 'socket' in candidate ? (candidate as IncomingMessage) : undefined;
}

/** How a message ended, in the conventions' terms. */
export interface OutcomeFacts {
  readonly attributes: Attributes;
  /** Set when the operation failed: the span's status message. */
  readonly error?: string;
  /** A tool call's result, for `captureArguments`. */
  readonly result?: unknown;
}

// Shared, never written to: a request that ended without an answer allocates nothing.
const CANCELLED: OutcomeFacts = Object.freeze({
  attributes: Object.freeze({ [ATTR.requestOutcome]: REQUEST_OUTCOME.cancelled }),
});
const CLOSED: OutcomeFacts = Object.freeze({
  attributes: Object.freeze({ [ATTR.requestOutcome]: REQUEST_OUTCOME.closed }),
});

/** Nothing to add: shared, as most outcomes are so (read only: copied into metric points). */
const NO_ATTRIBUTES: Attributes = Object.freeze({});
const ANSWERED: OutcomeFacts = Object.freeze({ attributes: NO_ATTRIBUTES });

/**
 * The attributes of a message's outcome: a JSON-RPC error's code as `rpc.response.status_code`,
 * and as `error.type` when it is the server's fault (not `isCallerError`); a tool result with
 * `isError` as `tool_error`; a request never answered as `nest_mcp.request.outcome` (`closed`
 * for a listen stream, `cancelled` for any other), which is no error; `initialize`'s negotiated
 * revision.
 */
export function outcomeAttributes(message: JSONRPCRequest | JSONRPCNotification, outcome: EngineOutcome): OutcomeFacts {
  if (!('id' in message)) {
    return ANSWERED;
  }
  if (outcome.type === 'none') {
    // The engine answers nothing only to a client that cancelled or went away: a listen
    // stream ends so whenever its client is done with it.
    return message.method === 'subscriptions/listen' ? CLOSED : CANCELLED;
  }
  const { response } = outcome;
  if ('error' in response) {
    const code = String(response.error.code);
    return isCallerError(response.error.code)
      ? { attributes: { [ATTR.statusCode]: code } }
      : { attributes: { [ATTR.errorType]: code, [ATTR.statusCode]: code }, error: response.error.message };
  }
  const result = response.result;
  if (message.method === 'initialize' && typeof result.protocolVersion === 'string') {
    return { attributes: { [ATTR.protocolVersion]: result.protocolVersion } };
  }
  if (message.method === 'tools/call') {
    if (result.isError === true) {
      // The tool's own words stay out of the status: they are its output, which only
      // `captureArguments` records.
      return { attributes: { [ATTR.errorType]: TOOL_ERROR }, error: 'The tool reported an error', result };
    }
    return { attributes: NO_ATTRIBUTES, result };
  }
  return ANSWERED;
}

/**
 * The subset of `attributes` a duration metric is recorded with; without the tool or prompt
 * name when it is `unknownName` (a name the server does not have, which only the client chose).
 */
export function metricAttributes(attributes: Attributes, unknownName = false): Attributes {
  const kept: Attributes = {};
  for (const key of METRIC_ATTRIBUTES) {
    const value = attributes[key];
    if (value !== undefined && !(unknownName && (key === ATTR.toolName || key === ATTR.promptName))) {
      kept[key] = value;
    }
  }
  return kept;
}
