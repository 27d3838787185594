/**
 * The server's own settings: the top-level module options, which the engine, the session
 * defaults, the shutdown and the schema compiler read. The named sections (`http`, `stdio`,
 * `sessions`, `auth`, `tasks`, `redis`, `stores`) are resolved beside their features.
 */
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import type { McpValidatorOptions } from '../interfaces/mcp-schema.interface';
import { fail, integer, scope, section, stringList, text } from './option-checks';
import { isLogLevel, type LoggingLevel } from '../protocol/messages/log-levels';
import type { McpCacheScope, Implementation } from '../protocol/messages/mcp-types';
import { isRevision, newestFirst, MCP_REVISIONS, type McpRevision } from '../protocol/messages/revisions';
import { extensionProblem, type McpExtension } from '../protocol/extensions/extensions';
import { MCP_TASKS_EXTENSION } from '../protocol/tasks/task-mode';
import { MCP_APPS_EXTENSION } from '../protocol/apps/apps';
import { MCP_SKILLS_EXTENSION } from '../protocol/skills/skill-entry';

/** The top-level options with every default applied (`MCP_SERVER_SETTINGS`). */
export interface McpServerSettings {
  serverInfo: Implementation;
  instructions?: string;
  /** Newest first. */
  revisions: McpRevision[];
  pageSize: number;
  maxUriLength: number;
  cacheHints: { ttlMs: number; scope: McpCacheScope };
  discoverCacheHints: { ttlMs: number; scope: McpCacheScope };
  callTimeoutMs: number;
  shutdownGraceMs: number;
  defaultLogLevel: LoggingLevel;
  clientRequestTimeoutMs: number;
  /** Questions to the client waiting for their answers in one session, or one task. */
  maxPendingQuestions: number;
  requestState: { secret?: string | Buffer; ttlMs: number };
  /** class-validator options of DTO schemas; absent when not set. */
  validatorOptions?: McpValidatorOptions;
  /** Schema patterns run on the native RegExp rather than the linear engine; absent when not set. */
  nativeSchemaPatterns?: readonly string[];
  /** The application's extensions, checked; the module adds its own (tasks) to the engine's. */
  extensions: readonly McpExtension[];
}

function checkIcons(icons: unknown, option: string): void {
  const valid =
    Array.isArray(icons) &&
    icons.every(
      (icon: Record<string, unknown>) =>
        typeof icon === 'object' &&
        icon !== null &&
        typeof icon.src === 'string' &&
        icon.src.length > 0 &&
        (icon.mimeType === undefined || typeof icon.mimeType === 'string') &&
        (icon.sizes === undefined ||
          (Array.isArray(icon.sizes) && icon.sizes.every((size) => typeof size === 'string'))) &&
        (icon.theme === undefined || icon.theme === 'light' || icon.theme === 'dark'),
    );
  if (!valid) {
    fail(option, 'must be an array of { src: string, mimeType?: string, sizes?: string[], theme?: "light" | "dark" }');
  }
}

function resolveServerInfo(options: McpModuleOptions): Implementation {
  const serverInfo: Implementation = {
    name: text(options.name, 'name', true)!,
    version: text(options.version, 'version', true)!,
  };
  const title = text(options.title, 'title', false);
  const description = text(options.description, 'description', false);
  const websiteUrl = text(options.websiteUrl, 'websiteUrl', false);
  if (title !== undefined) serverInfo.title = title;
  if (description !== undefined) serverInfo.description = description;
  if (websiteUrl !== undefined) {
    try {
      new URL(websiteUrl);
    } catch {
      fail('websiteUrl', 'must be an absolute URL');
    }
    serverInfo.websiteUrl = websiteUrl;
  }
  if (options.icons !== undefined) {
    checkIcons(options.icons, 'icons');
    serverInfo.icons = options.icons;
  }
  return serverInfo;
}

function resolveRevisions(revisions: unknown): McpRevision[] {
  if (revisions === undefined) {
    return newestFirst([...MCP_REVISIONS]);
  }
  if (!Array.isArray(revisions) || revisions.length === 0) {
    fail('revisions', `must be a non-empty array of ${MCP_REVISIONS.join(', ')}`);
  }
  const unknown = revisions.filter((revision) => !isRevision(revision));
  if (unknown.length > 0) {
    fail('revisions', `unknown revision(s) ${unknown.join(', ')}; known: ${MCP_REVISIONS.join(', ')}`);
  }
  return newestFirst(revisions as McpRevision[]);
}

/** The application's extensions: well-formed, each once, and none the module declares itself. */
function resolveExtensions(extensions: unknown): readonly McpExtension[] {
  if (extensions === undefined) {
    return [];
  }
  const problem = extensionProblem(extensions, [MCP_TASKS_EXTENSION, MCP_APPS_EXTENSION, MCP_SKILLS_EXTENSION]);
  if (problem !== undefined) {
    fail(`extensions${problem.at}`, problem.reason);
  }
  return extensions as McpExtension[];
}

/** Validates the top-level options and applies their defaults. */
export function resolveServerSettings(options: McpModuleOptions): McpServerSettings {
  const serverInfo = resolveServerInfo(options);
  const revisions = resolveRevisions(options.revisions);
  const defaultLogLevel = options.defaultLogLevel ?? 'info';
  if (!isLogLevel(defaultLogLevel)) {
    fail('defaultLogLevel', 'must be one of debug, info, notice, warning, error, critical, alert, emergency');
  }
  const cache = section(options.cacheHints, 'cacheHints');
  const requestState = section(options.requestState, 'requestState');
  const secret = requestState.secret;
  if (
    secret !== undefined &&
    !((typeof secret === 'string' || Buffer.isBuffer(secret)) && Buffer.byteLength(secret) >= 32)
  ) {
    fail('requestState.secret', 'must be a string or Buffer of at least 32 bytes');
  }
  return {
    serverInfo,
    instructions: text(options.instructions, 'instructions', false),
    revisions,
    pageSize: integer(options.pageSize, 'pageSize', 0, 0),
    maxUriLength: integer(options.maxUriLength, 'maxUriLength', 8192, 1),
    cacheHints: {
      ttlMs: integer(cache.ttlMs, 'cacheHints.ttlMs', 60_000, 0),
      scope: scope(cache.scope, 'cacheHints.scope', 'private'),
    },
    discoverCacheHints: {
      ttlMs: integer(cache.discoverTtlMs, 'cacheHints.discoverTtlMs', 60_000, 0),
      scope: scope(cache.discoverScope, 'cacheHints.discoverScope', 'public'),
    },
    callTimeoutMs: integer(options.callTimeoutMs, 'callTimeoutMs', 60_000, 0),
    shutdownGraceMs: integer(options.shutdownGraceMs, 'shutdownGraceMs', 10_000, 0),
    defaultLogLevel,
    clientRequestTimeoutMs: integer(options.clientRequestTimeoutMs, 'clientRequestTimeoutMs', 60_000, 0),
    maxPendingQuestions: integer(options.maxPendingQuestions, 'maxPendingQuestions', 32, 1),
    requestState: {
      secret,
      ttlMs: integer(requestState.ttlMs, 'requestState.ttlMs', 300_000, 1_000),
    },
    validatorOptions:
      options.validatorOptions === undefined ? undefined : section(options.validatorOptions, 'validatorOptions'),
    nativeSchemaPatterns: stringList(options.nativeSchemaPatterns, 'nativeSchemaPatterns'),
    extensions: resolveExtensions(options.extensions),
  };
}
