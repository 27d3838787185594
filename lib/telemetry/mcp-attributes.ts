/**
 * The MCP semantic conventions of OpenTelemetry (GenAI conventions, `mcp.md`): the attribute
 * names, and what one message, its transport and its outcome say in them. Pure: no API, no SDK.
 */
import type { IncomingMessage } from 'node:http';
import type { EngineOutcome, RequestFacts } from '../protocol/engine';
import { isJsonObject, type JSONRPCNotification, type JSONRPCRequest } from '../protocol/messages/json-rpc';
import { META_KEYS, metaOf } from '../protocol/messages/request-meta';
import { isRevision } from '../protocol/messages/revisions';
import { isKnownMethod } from '../protocol/methods';

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
  // Not in the conventions: what a client sent where the conventions' attribute holds `_OTHER`
  // (as HTTP keeps `http.request.method_original`), on spans only.
  methodOriginal: 'mcp.method.name_original',
  protocolVersionOriginal: 'mcp.protocol.version_original',
  // Not in the conventions: the task a span or an event is about, and its status.
  taskId: 'mcp.task.id',
  taskStatus: 'mcp.task.status',
  streamKind: 'mcp.stream.kind',
} as const;

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
];

/**
 * What `mcp.method.name` and the span name say of a method the server does not know, and
 * `mcp.protocol.version` of a revision it does not serve: a client's made-up values would make
 * one metric series (and one span name) each.
 */
export const OTHER = '_OTHER';

/** The `error.type` of a tool result with `isError` (the conventions' value). */
export const TOOL_ERROR = 'tool_error';
/** The `error.type` of a request the client cancelled, or lost, before its answer. */
export const CANCELLED = 'cancelled';

const RESOURCE_METHODS: ReadonlySet<string> = new Set([
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/resources/updated',
]);

/** What a message names: the span's name target and the attributes that name it. */
export interface MessageTarget {
  readonly spanName: string;
  readonly attributes: Attributes;
  /** The tool (`tools/call`) or prompt (`prompts/get`) the message names, if any. */
  readonly name?: string;
}

/**
 * The span name and the attributes known before the message runs: `{method} {target}` where
 * the target is the tool or prompt (low cardinality); resource URIs are attributes only.
 * @param clientAddress where `client.address` comes from (see `transportAttributes`)
 */
export function messageAttributes(
  facts: RequestFacts,
  message: JSONRPCRequest | JSONRPCNotification,
  clientAddress: ClientAddressSource = 'socket',
): MessageTarget {
  const method = isKnownMethod(message.method) ? message.method : OTHER;
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
    const platform = clientAddress === 'platform' ? platformAddressOf(facts.native?.request) : undefined;
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

/**
 * The client's address as the platform computes it with its trust-proxy setting: Express's
 * `req.ip`, Fastify's `request.ip` (the rule `lib/auth/client-address.ts` follows, which this
 * folder may not import).
 */
function platformAddressOf(request: unknown): string | undefined {
  const ip = (request as { ip?: unknown } | undefined)?.ip;
  return typeof ip === 'string' && ip !== '' ? ip : undefined;
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

/**
 * The attributes of a message's outcome: a JSON-RPC error's code as `error.type` and
 * `rpc.response.status_code`; a tool result with `isError` as `tool_error`; a request that
 * was never answered (cancelled, lost) as `cancelled`; `initialize`'s negotiated revision.
 */
export function outcomeAttributes(message: JSONRPCRequest | JSONRPCNotification, outcome: EngineOutcome): OutcomeFacts {
  if (!('id' in message)) {
    return { attributes: {} };
  }
  if (outcome.type === 'none') {
    return { attributes: { [ATTR.errorType]: CANCELLED }, error: 'The request was cancelled before its answer' };
  }
  const { response } = outcome;
  if ('error' in response) {
    const code = String(response.error.code);
    return { attributes: { [ATTR.errorType]: code, [ATTR.statusCode]: code }, error: response.error.message };
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
    return { attributes: {}, result };
  }
  return { attributes: {} };
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
