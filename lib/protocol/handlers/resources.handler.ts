/**
 * resources/list, resources/templates/list, resources/read, resources/subscribe and
 * resources/unsubscribe.
 */
import { McpErrorCode, type JSONObject } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import { requireScopes } from '../calls/access';
import { listResult } from './list-result';
import { renderResource, renderTemplate } from '../calls/render';
import { toReadResourceResult } from '../messages/results';
import type { ResolvedRequest } from '../calls/resolved-request';
import type { HandlerContext } from './handler-context';
import { copyOf } from '../messages/object-copies';
import { checkUriLength } from '../messages/resource-uri';
import { readSkillFile, skillListings } from './skills.handler';

/** resources/list: every resource but those registered as unlisted (views found through their tools). */
export async function handleResourcesList(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const { catalog, lists } = context;
  const resources = lists.memo('listed resources', catalog.version, () => {
    const all = catalog.listResources();
    const listed = all.filter((resource) => resource.listed !== false);
    return listed.length === all.length ? all : listed;
  });
  const rendered = lists.get('resources', catalog.version, request.revision, () =>
    resources.map((resource) => renderResource(resource, request.revision)),
  );
  // Each skill's SKILL.md is listed among the resources, in the one order pages follow. The
  // skills are read once at startup, so the merged list changes with the catalog alone.
  const merged =
    context.skills === undefined
      ? undefined
      : lists.memo(`resources and skills ${request.revision}`, catalog.version, () => {
          const skills = skillListings(context.skills);
          if (skills.length === 0) {
            return undefined;
          }
          const own = resources.map((entry, index) => ({ access: entry.access, rendered: rendered[index] }));
          const entries = [...own, ...skills].sort((a, b) =>
            compareUris(a.rendered.uri as string, b.rendered.uri as string),
          );
          return { entries, rendered: entries.map((entry) => entry.rendered) };
        });
  if (merged === undefined) {
    return listResult(context, request, 'resources', resources, rendered, (resource) => resource.uri as string);
  }
  return listResult(
    context,
    request,
    'resources',
    merged.entries,
    merged.rendered,
    (resource) => resource.uri as string,
  );
}

function compareUris(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function handleTemplatesList(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const { catalog } = context;
  const rendered = context.lists.get('templates', catalog.version, request.revision, () =>
    catalog.listTemplates().map((template) => renderTemplate(template, request.revision)),
  );
  return listResult(
    context,
    request,
    'resourceTemplates',
    catalog.listTemplates(),
    rendered,
    (template) => template.uriTemplate as string,
  );
}

/** The error for a URI nothing serves: -32002 in the legacy era, -32602 in the modern one. */
function notFound(request: ResolvedRequest, uri: string): McpError {
  const code = request.era === 'modern' ? McpErrorCode.InvalidParams : McpErrorCode.ResourceNotFound;
  return new McpError(code, `Resource not found: ${uri}`, { uri });
}

export async function handleResourcesRead(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const uri = request.params.uri;
  if (typeof uri !== 'string' || uri.length === 0) {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: uri must be a non-empty string');
  }
  checkUriLength(uri, context.options.maxUriLength);
  const resource = context.catalog.getResource(uri);
  if (resource === undefined) {
    const skillFile = readSkillFile(context, request, uri);
    if (skillFile !== undefined) {
      return skillFile;
    }
  }
  const call = context.createCallContext(request, uri);
  let value: unknown;
  let mimeType: string | undefined;
  let cacheTtlMs: number | undefined;
  let restricted = false;
  try {
    if (resource !== undefined) {
      requireScopes(resource.access, request.principal, `resource ${uri}`);
      restricted = resource.access !== undefined;
      mimeType = resource.mimeType;
      cacheTtlMs = resource.cacheTtlMs;
      value = await resource.read(call, request.facts.native);
    } else {
      const match = findTemplate(context, uri);
      if (match === undefined) {
        throw notFound(request, uri);
      }
      requireScopes(match.template.access, request.principal, `resource ${uri}`);
      restricted = match.template.access !== undefined;
      mimeType = match.template.mimeType;
      cacheTtlMs = match.template.cacheTtlMs;
      value = await match.template.read(uri, match.variables, call, request.facts.native);
    }
  } catch (error) {
    if (error instanceof McpError || request.scope.aborted) {
      throw error;
    }
    context.logFailure(request, error);
    throw new McpError(McpErrorCode.InternalError, 'Internal resource error');
  }
  const result: JSONObject = copyOf(toReadResourceResult(value, uri, mimeType));
  if (request.era === 'modern' && cacheTtlMs !== undefined && result.ttlMs === undefined) {
    result.ttlMs = cacheTtlMs;
  }
  if (request.era === 'modern' && restricted) {
    // Only some principals may read it: no cache may hand it to anyone else.
    result.cacheScope = 'private';
  }
  return result;
}

function findTemplate(context: HandlerContext, uri: string) {
  for (const template of context.catalog.listTemplates()) {
    const variables = template.match(uri);
    if (variables !== undefined) {
      return { template, variables };
    }
  }
  return undefined;
}

function subscriptionTarget(context: HandlerContext, request: ResolvedRequest) {
  const uri = request.params.uri;
  const session = request.facts.session;
  if (session === undefined || typeof uri !== 'string' || uri.length === 0) {
    throw new McpError(McpErrorCode.InvalidParams, 'Subscribe requires a session and a uri');
  }
  checkUriLength(uri, context.options.maxUriLength);
  return { session, uri };
}

export async function handleSubscribe(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const { session, uri } = subscriptionTarget(context, request);
  await session.subscribe(uri);
  return {};
}

export async function handleUnsubscribe(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const { session, uri } = subscriptionTarget(context, request);
  await session.unsubscribe(uri);
  return {};
}
