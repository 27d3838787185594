/**
 * The Skills extension's methods (`skills/list`, `skills/get`, `resources/directory/read`) and
 * the skill files `resources/read` and `resources/list` serve. A skill with scopes is, for a
 * caller without them, a skill that does not exist: absent from the lists, -32602 to
 * `skills/get` and to a directory read, not found to a read of its files.
 */
import { McpErrorCode, type JSONObject } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import { paginate } from '../messages/pagination';
import { checkUriLength } from '../messages/resource-uri';
import { missingScopes, type EntryAccess } from '../calls/access';
import type { McpPrincipal } from '../bounds/principal';
import type { ResolvedRequest } from '../calls/resolved-request';
import type { SkillCatalog } from '../skills/skill-library';
import type { ServedSkill } from '../skills/skill-entry';
import type { HandlerContext } from './handler-context';

/** Whether `principal` may see `skill`: it holds every scope the skill requires (the rule of `@McpScopes`). */
function sees(principal: McpPrincipal, skill: ServedSkill): boolean {
  return skill.scopes.length === 0 || missingScopes(principal, skill.scopes).length === 0;
}

function catalogOf(context: HandlerContext): SkillCatalog {
  // The method table serves these methods only when the server has skills.
  if (context.skills === undefined) {
    throw new McpError(McpErrorCode.MethodNotFound, 'Method not found');
  }
  return context.skills;
}

function uriParam(context: HandlerContext, request: ResolvedRequest): string {
  const { uri } = request.params;
  if (typeof uri !== 'string' || uri.length === 0) {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: uri must be a non-empty string');
  }
  checkUriLength(uri, context.options.maxUriLength);
  return uri;
}

/** Modern era: the skills' own `ttlMs`, and `cacheScope: "private"` when the answer depends on who asks. */
function withCacheHints(
  skills: SkillCatalog,
  request: ResolvedRequest,
  result: JSONObject,
  restricted: boolean,
): JSONObject {
  if (request.era === 'modern') {
    if (skills.ttlMs !== undefined) {
      result.ttlMs = skills.ttlMs;
    }
    if (restricted) {
      result.cacheScope = 'private';
    }
  }
  return result;
}

export function handleSkillsList(context: HandlerContext, request: ResolvedRequest): JSONObject {
  const skills = catalogOf(context);
  const all = skills.list();
  const restricted = all.some((skill) => skill.scopes.length > 0);
  const visible = restricted ? all.filter((skill) => sees(request.principal, skill)) : all;
  const page = paginate(visible, (skill) => skill.uri, request.params.cursor, context.options.pageSize);
  const result: JSONObject = { skills: page.items.map((skill) => skill.entry) };
  if (page.nextCursor !== undefined) {
    result.nextCursor = page.nextCursor;
  }
  return withCacheHints(skills, request, result, restricted);
}

export function handleSkillsGet(context: HandlerContext, request: ResolvedRequest): JSONObject {
  const skills = catalogOf(context);
  const uri = uriParam(context, request);
  const skill = skills.skill(uri);
  if (skill === undefined || !sees(request.principal, skill)) {
    throw new McpError(McpErrorCode.InvalidParams, `No skill is served at ${uri}`, { uri });
  }
  return withCacheHints(skills, request, { skill: skill.entry }, skill.scopes.length > 0);
}

export function handleDirectoryRead(context: HandlerContext, request: ResolvedRequest): JSONObject {
  const skills = catalogOf(context);
  const uri = uriParam(context, request);
  const directory = skills.directory(uri);
  const owners = directory?.skills.filter((skill) => sees(request.principal, skill)) ?? [];
  if (directory === undefined || owners.length === 0) {
    const file = skills.file(uri);
    const isFile = file !== undefined && file.skills.some((skill) => sees(request.principal, skill));
    const message = isFile ? `${uri} is not a directory resource` : `No directory resource is served at ${uri}`;
    throw new McpError(McpErrorCode.InvalidParams, message, { uri });
  }
  const page = paginate(
    directory.children,
    (child) => child.uri as string,
    request.params.cursor,
    context.options.pageSize,
  );
  const result: JSONObject = { resources: page.items };
  if (page.nextCursor !== undefined) {
    result.nextCursor = page.nextCursor;
  }
  return withCacheHints(
    skills,
    request,
    result,
    directory.skills.some((skill) => skill.scopes.length > 0),
  );
}

/**
 * The `resources/read` result of the skill file at `uri`, or `undefined` when no skill the caller
 * may see holds one there (the read goes on to the templates, then answers not found).
 */
export function readSkillFile(context: HandlerContext, request: ResolvedRequest, uri: string): JSONObject | undefined {
  const skills = context.skills;
  const match = skills?.file(uri);
  if (skills === undefined || match === undefined || !match.skills.some((skill) => sees(request.principal, skill))) {
    return undefined;
  }
  const { file } = match;
  const content: JSONObject =
    file.text === undefined
      ? { uri, mimeType: file.mimeType, blob: Buffer.from(file.bytes).toString('base64') }
      : { uri, mimeType: file.mimeType, text: file.text };
  const restricted = match.skills.some((skill) => skill.scopes.length > 0);
  return withCacheHints(skills, request, { contents: [content] }, restricted);
}

/** One `SKILL.md` as a `resources/list` entry, with the scopes that hide it. */
export interface SkillListing {
  readonly access?: EntryAccess;
  readonly rendered: JSONObject;
}

/** Each skill's `SKILL.md` as an entry of `resources/list` (its other files are read, not listed). */
export function skillListings(skills: SkillCatalog | undefined): SkillListing[] {
  return (skills?.list() ?? []).map((skill) => {
    const file = skill.files.find((candidate) => candidate.uri === skill.uri)!;
    const rendered: JSONObject = {
      uri: skill.uri,
      name: skill.name,
      description: skill.frontmatter.description,
      mimeType: file.mimeType,
      size: file.size,
    };
    return skill.scopes.length === 0 ? { rendered } : { access: { scopes: skill.scopes }, rendered };
  });
}
