/**
 * initialize, ping, server/discover and logging/setLevel.
 */
import { isRevision } from '../messages/revisions';
import { McpErrorCode, isJsonObject, type JSONObject } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import { isLogLevel } from '../messages/log-levels';
import { renderImplementation } from '../calls/render';
import { hasFeature, type McpEra } from '../messages/revisions';
import type { McpTransportKind } from '../calls/transport-contract';
import type { ResolvedRequest } from '../calls/resolved-request';
import type { HandlerContext } from './handler-context';
import type { ClientCapabilities, Implementation } from '../messages/mcp-types';

/**
 * Whether change notifications (list changes, resource updates) reach clients of `era` on
 * `transport`: in the legacy era on the session's stream, which a POST-only transport lacks; in
 * the modern era on `subscriptions/listen` streams, where that method is served.
 */
function deliversChanges(context: HandlerContext, era: McpEra, transport: McpTransportKind): boolean {
  return era === 'modern'
    ? context.servesMethod('modern', 'subscriptions/listen', transport)
    : transport !== 'simple-http';
}

/** tools, resources, prompts and logging: with change notifications only where they can be delivered. */
function baseCapabilities(notifies: boolean): JSONObject {
  return notifies
    ? {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
      }
    : { tools: {}, resources: {}, prompts: {}, logging: {} };
}

/** The capabilities a legacy client is told at `initialize`. */
function legacyCapabilities(
  context: HandlerContext,
  request: ResolvedRequest,
  revision: string | undefined,
): JSONObject {
  const capabilities = baseCapabilities(deliversChanges(context, 'legacy', request.facts.transport));
  if (context.catalog.hasCompletions() && hasFeature(revision, 'completionsCapability')) {
    capabilities.completions = {};
  }
  if (context.tasks !== undefined && hasFeature(revision, 'coreTasks')) {
    capabilities.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  }
  const extensions = context.extensions.advertised('legacy');
  if (extensions !== undefined) {
    capabilities.extensions = extensions;
  }
  return capabilities;
}

/** The capabilities `server/discover` advertises. */
function discoverCapabilities(context: HandlerContext, request: ResolvedRequest): JSONObject {
  const capabilities = baseCapabilities(deliversChanges(context, request.era, request.facts.transport));
  if (context.catalog.hasCompletions()) {
    capabilities.completions = {};
  }
  const extensions = context.extensions.advertised(request.era);
  if (extensions !== undefined) {
    capabilities.extensions = extensions;
  }
  return capabilities;
}

export async function handleInitialize(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const { params } = request;
  for (const key of ['protocolVersion', 'capabilities', 'clientInfo'] as const) {
    const value = params[key];
    const valid = key === 'protocolVersion' ? typeof value === 'string' : isJsonObject(value);
    if (!valid) {
      throw new McpError(McpErrorCode.InvalidParams, `Invalid initialize params: ${key}`);
    }
  }
  const session = request.facts.session;
  if (session?.state.initialized) {
    throw new McpError(McpErrorCode.InvalidRequest, 'Session already initialized');
  }
  const legacy = context.revisionsOf('legacy');
  const requested = params.protocolVersion as string;
  if (legacy.length === 0) {
    throw new McpError(McpErrorCode.InvalidParams, 'Unsupported protocol version', {
      supported: context.options.revisions,
      requested,
    });
  }
  const version = isRevision(requested) && legacy.includes(requested) ? requested : legacy[0];
  await session?.update({
    protocolVersion: version,
    clientCapabilities: params.capabilities as ClientCapabilities,
    clientInfo: params.clientInfo as Implementation,
    initialized: true,
  });
  const result: JSONObject = {
    protocolVersion: version,
    capabilities: legacyCapabilities(context, request, version),
    serverInfo: renderImplementation(context.options.serverInfo, version),
  };
  if (context.options.instructions !== undefined) {
    result.instructions = context.options.instructions;
  }
  return result;
}

export async function handlePing(): Promise<JSONObject> {
  return {};
}

export async function handleDiscover(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const result: JSONObject = {
    supportedVersions: [...context.options.revisions],
    capabilities: discoverCapabilities(context, request),
  };
  if (context.options.instructions !== undefined) {
    result.instructions = context.options.instructions;
  }
  return result;
}

export async function handleSetLevel(_context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const level = request.params.level;
  if (level === undefined) {
    throw new McpError(McpErrorCode.InvalidParams, 'Missing required parameter: level');
  }
  if (!isLogLevel(level)) {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid log level');
  }
  await request.facts.session?.update({ logLevel: level });
  return {};
}
