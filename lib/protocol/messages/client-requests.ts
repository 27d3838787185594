/**
 * What a handler may ask of the client while it serves a request: an elicitation, a sampling
 * (LLM) completion, or the client's roots. One set of shapes and rules for both eras; only the
 * way the question travels differs (a server-to-client request in the legacy era, an
 * `input_required` result in the modern era).
 */
import { isAtLeast, type McpRevision } from './revisions';
import { McpErrorCode, isJsonObject, type JSONObject } from './json-rpc';
import { McpError } from './mcp-error';
import type { ClientCapabilities } from './mcp-types';

/** The methods a server may ask a client to serve. */
export type ClientMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** A form-mode elicitation: the client shows a form built from a flat JSON Schema. */
export interface ElicitRequestFormParams {
  /** The elicitation mode; form mode when omitted. */
  mode?: 'form';
  /** What to ask the user. */
  message: string;
  /** A flat object schema of primitive properties (string, number, integer, boolean, enums). */
  requestedSchema: JSONObject;
  /** Metadata reserved by MCP, attached to the request. */
  _meta?: JSONObject;
}

/** A URL-mode elicitation (2025-11-25 and later): the user completes a flow out of band. */
export interface ElicitRequestURLParams {
  /** The elicitation mode: the user is sent to a URL. */
  mode: 'url';
  /** Why the user is asked to open the URL. */
  message: string;
  /** The page the client opens for the user. */
  url: string;
  /** Correlates the later `notifications/elicitation/complete`; minted when omitted. */
  elicitationId?: string;
  /** Metadata reserved by MCP, attached to the request. */
  _meta?: JSONObject;
}

/** The parameters of `ctx.elicit()`. */
export type ElicitRequestParams = ElicitRequestFormParams | ElicitRequestURLParams;

/** The client's answer to an elicitation. */
export interface ElicitResult {
  /** The user's response: submitted (`accept`), refused (`decline`) or dismissed (`cancel`). */
  action: 'accept' | 'decline' | 'cancel';
  /** The submitted form values (form mode, `accept` only). */
  content?: Record<string, string | number | boolean | string[]>;
  /** Metadata reserved by MCP, attached to the result. */
  _meta?: JSONObject;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** A message of a sampling conversation. */
export interface SamplingMessage {
  /** Who the message is from: the user or the assistant. */
  role: 'user' | 'assistant';
  /** The content of the message: one content block or several. */
  content: JSONObject | JSONObject[];
  /** Metadata reserved by MCP, attached to the message. */
  _meta?: JSONObject;
}

/** The parameters of `ctx.sample()` (`sampling/createMessage`). */
export interface CreateMessageRequestParams {
  /** The conversation to sample from. */
  messages: SamplingMessage[];
  /** The most tokens the client should sample. */
  maxTokens: number;
  /** A system prompt the server asks to use; the client may change or omit it. */
  systemPrompt?: string;
  /** Which servers' context the client should include in the prompt (a request it may ignore). */
  includeContext?: 'none' | 'thisServer' | 'allServers';
  /** The sampling temperature to use. */
  temperature?: number;
  /** Sequences that end the sampling when the model produces them. */
  stopSequences?: string[];
  /** The server's preferences in choosing a model (hints and priorities), which the client may ignore. */
  modelPreferences?: JSONObject;
  /** Provider-specific metadata, passed to the LLM provider. */
  metadata?: JSONObject;
  /** Tools the model may call (2025-11-25 and later; the client must declare `sampling.tools`). */
  tools?: JSONObject[];
  /** How the model may use `tools`. */
  toolChoice?: JSONObject;
  /** Metadata reserved by MCP, attached to the request. */
  _meta?: JSONObject;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** The client's sampling answer. */
export interface CreateMessageResult {
  /** Who the sampled message is from (usually the assistant). */
  role: 'user' | 'assistant';
  /** The sampled content: one content block or several. */
  content: JSONObject | JSONObject[];
  /** Name of the model that produced the message. */
  model: string;
  /** Why sampling stopped, such as `endTurn`, `stopSequence` or `maxTokens`. */
  stopReason?: string;
  /** Metadata reserved by MCP, attached to the result. */
  _meta?: JSONObject;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** One root the client exposes. */
export interface Root {
  /** URI of the root (a `file://` URI). */
  uri: string;
  /** Human-readable name of the root. */
  name?: string;
  /** Metadata reserved by MCP, attached to the root. */
  _meta?: JSONObject;
}

/** The client's answer to `roots/list`. */
export interface ListRootsResult {
  /** The roots the client exposes. */
  roots: Root[];
  /** Metadata reserved by MCP, attached to the result. */
  _meta?: JSONObject;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/**
 * Options of one question to the client.
 *
 * @publicApi
 */
export interface McpAskOptions {
  /**
   * Modern era: the key of the question in `inputRequests` (and of its answer in
   * `inputResponses`). Keys must be unique within the request; by default they are derived from
   * the method and the order of the questions (`elicitation-1`, `sampling-1`, `roots-1`...), which
   * is stable as long as the handler asks the same questions in the same order on every round.
   */
  key?: string;
  /** Legacy era: how long to wait for the client's answer, in ms (default: the module's `clientRequestTimeoutMs`). */
  timeoutMs?: number;
}

/** A question for the client, as it is sent. */
export interface InputRequest {
  method: ClientMethod;
  params: JSONObject;
}

/** The short names default keys are built from. */
export const DEFAULT_KEY_PREFIX: Readonly<Record<ClientMethod, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * The client capability a question needs, shaped like `ClientCapabilities` (as `-32021` reports
 * it in `data.requiredCapabilities`), or `undefined` when the client declared it.
 */
export function missingCapability(request: InputRequest, capabilities: ClientCapabilities): JSONObject | undefined {
  const { method, params } = request;
  if (method === 'roots/list') {
    return isJsonObject(capabilities.roots) ? undefined : { roots: {} };
  }
  if (method === 'sampling/createMessage') {
    const sampling = capabilities.sampling;
    if (!isJsonObject(sampling)) {
      return params.tools !== undefined || params.toolChoice !== undefined
        ? { sampling: { tools: {} } }
        : { sampling: {} };
    }
    if ((params.tools !== undefined || params.toolChoice !== undefined) && !isJsonObject(sampling.tools)) {
      return { sampling: { tools: {} } };
    }
    return undefined;
  }
  const elicitation = capabilities.elicitation;
  const mode = params.mode === 'url' ? 'url' : 'form';
  if (!isJsonObject(elicitation)) {
    return { elicitation: mode === 'url' ? { url: {} } : {} };
  }
  if (mode === 'url') {
    return isJsonObject(elicitation.url) ? undefined : { elicitation: { url: {} } };
  }
  // An empty `elicitation: {}` means form mode (the only mode before 2025-11-25).
  const declaresModes = isJsonObject(elicitation.form) || isJsonObject(elicitation.url);
  return !declaresModes || isJsonObject(elicitation.form) ? undefined : { elicitation: { form: {} } };
}

/** Whether a revision knows a client method at all (elicitation came with 2025-06-18). */
export function revisionKnows(request: InputRequest, revision: McpRevision | undefined): boolean {
  if (revision === undefined) {
    return true;
  }
  if (request.method === 'elicitation/create') {
    return request.params.mode === 'url' ? isAtLeast(revision, '2025-11-25') : isAtLeast(revision, '2025-06-18');
  }
  if (
    request.method === 'sampling/createMessage' &&
    (request.params.tools !== undefined || request.params.toolChoice !== undefined)
  ) {
    return isAtLeast(revision, '2025-11-25');
  }
  return true;
}

/**
 * The refusal of a question the client cannot answer. Both eras use -32021: the modern era
 * defines it (HTTP 400); the legacy era has no code of its own for it, and a -32600 there would
 * be answered with HTTP 400, which legacy clients read as a transport failure.
 */
export function capabilityError(request: InputRequest, required: JSONObject): McpError {
  const message = `The client did not declare the capability this request needs for ${request.method}`;
  return new McpError(McpErrorCode.MissingRequiredClientCapability, message, { requiredCapabilities: required });
}

/**
 * Checks the shape of a client's answer, so that handlers can rely on the types they are
 * given. Returns a reason when the answer does not have the shape of its method's result.
 */
export function invalidAnswer(method: ClientMethod, answer: unknown): string | undefined {
  if (!isJsonObject(answer)) {
    return 'it must be an object';
  }
  if (method === 'elicitation/create') {
    if (answer.action !== 'accept' && answer.action !== 'decline' && answer.action !== 'cancel') {
      return 'action must be "accept", "decline" or "cancel"';
    }
    if (answer.content !== undefined && !isJsonObject(answer.content)) {
      return 'content must be an object';
    }
    return undefined;
  }
  if (method === 'sampling/createMessage') {
    if (answer.role !== 'user' && answer.role !== 'assistant') {
      return 'role must be "user" or "assistant"';
    }
    if (!isJsonObject(answer.content) && !Array.isArray(answer.content)) {
      return 'content must be a content block or an array of them';
    }
    return undefined;
  }
  if (
    !Array.isArray(answer.roots) ||
    !answer.roots.every((root) => isJsonObject(root) && typeof root.uri === 'string')
  ) {
    return 'roots must be an array of objects with a uri';
  }
  return undefined;
}

/** The params of a question as a given revision expects them (no `mode` before 2025-11-25). */
export function paramsFor(request: InputRequest, revision: McpRevision | undefined): JSONObject {
  if (
    request.method === 'elicitation/create' &&
    revision !== undefined &&
    !isAtLeast(revision, '2025-11-25') &&
    request.params.mode !== undefined
  ) {
    const { mode: _mode, ...rest } = request.params;
    return rest;
  }
  return request.params;
}
