/**
 * The entry builders, one per kind: each checks a definition and turns it into the entry the
 * engine serves. Duplicates are the registry's to know: `assertFree` is called where the order
 * of the checks wants it.
 */
import type {
  McpCompletionHandler,
  McpPromptEntry,
  McpResourceEntry,
  McpTemplateEntry,
  McpToolEntry,
} from '../protocol/calls/catalog';
import { extractParamHeaders, InvalidParamHeaderError } from '../protocol/messages/request-headers';
import type { EntryAccess } from '../protocol/calls/access';
import type {
  McpAccessDefinition,
  McpPromptDefinition,
  McpResourceDefinition,
  McpResourceTemplateDefinition,
  McpToolDefinition,
} from '../interfaces/mcp-definitions.interface';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { INVALID_ENTRY, INVALID_SCHEMA, INVALID_TOOL_NAME } from '../shared/mcp.messages';
import type { EntrySchemas } from './entry-schemas';
import { toolMeta } from './app-entries';
import { InvalidUriTemplateError, UriTemplate } from './uri-template';

/** What a builder needs from the registry. */
export interface EntryBuild {
  readonly schemas: EntrySchemas;
  /** @throws McpConfigurationError when an entry of this kind is registered under `key`. */
  assertFree(key: string): void;
}

/** A tool name as the protocol allows it (SEP-986). */
export const TOOL_NAME = /^[A-Za-z0-9_./-]{1,128}$/;

/** The access rules of a definition; `undefined` when anyone may call and see it. */
function accessOf(definition: McpAccessDefinition, kind: string, key: string): EntryAccess | undefined {
  const { scopes, visible } = definition;
  if (
    scopes !== undefined &&
    (!Array.isArray(scopes) ||
      scopes.some((scope) => typeof scope !== 'string' || scope.length === 0 || /\s/.test(scope)))
  ) {
    throw new McpConfigurationError(INVALID_ENTRY(kind, key, 'scopes must be non-empty strings without spaces'));
  }
  if (visible !== undefined && typeof visible !== 'function') {
    throw new McpConfigurationError(INVALID_ENTRY(kind, key, 'visible must be a function'));
  }
  if ((scopes === undefined || scopes.length === 0) && visible === undefined) {
    return undefined;
  }
  return { scopes: Object.freeze([...new Set(scopes ?? [])]), visible };
}

function requireName(kind: string, key: string, name: unknown): void {
  if (typeof name !== 'string' || name.length === 0) {
    throw new McpConfigurationError(INVALID_ENTRY(kind, key, 'name must be a non-empty string'));
  }
}

/** A tool, with its schemas compiled and its parameter headers read off the input schema. */
export function toolEntry(definition: McpToolDefinition, build: EntryBuild): McpToolEntry {
  const { name } = definition;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new McpConfigurationError(INVALID_TOOL_NAME(String(name)));
  }
  build.assertFree(name);
  const { validatorOptions } = definition;
  if (
    validatorOptions !== undefined &&
    (typeof validatorOptions !== 'object' || validatorOptions === null || Array.isArray(validatorOptions))
  ) {
    throw new McpConfigurationError(INVALID_ENTRY('tool', name, 'validatorOptions must be an object'));
  }
  const input = build.schemas.compile('tool', name, definition.input, 'input', validatorOptions);
  const output =
    definition.output === undefined
      ? undefined
      : build.schemas.compile('tool', name, definition.output, 'output', validatorOptions);
  let paramHeaders;
  try {
    paramHeaders = extractParamHeaders(input.jsonSchema);
  } catch (error) {
    if (error instanceof InvalidParamHeaderError) {
      throw new McpConfigurationError(INVALID_SCHEMA('tool', name, 'input', error.message));
    }
    throw error;
  }
  return {
    name,
    title: definition.title,
    description: definition.description,
    input,
    output,
    annotations: definition.annotations,
    icons: definition.icons,
    meta: toolMeta(definition),
    taskSupport: definition.taskSupport ?? 'forbidden',
    paramHeaders,
    access: accessOf(definition, 'tool', name),
    invoke: definition.handler,
  };
}

/** A resource with a fixed URI. */
export function resourceEntry(definition: McpResourceDefinition, build: EntryBuild): McpResourceEntry {
  const { uri } = definition;
  if (typeof uri !== 'string' || uri.length === 0) {
    throw new McpConfigurationError(
      INVALID_ENTRY('resource', String(definition.name), 'uri must be a non-empty string'),
    );
  }
  requireName('resource', uri, definition.name);
  build.assertFree(uri);
  return {
    uri,
    name: definition.name,
    title: definition.title,
    description: definition.description,
    mimeType: definition.mimeType,
    size: definition.size,
    annotations: definition.annotations,
    icons: definition.icons,
    meta: definition._meta,
    cacheTtlMs: definition.cacheTtlMs,
    access: accessOf(definition, 'resource', uri),
    read: definition.handler,
  };
}

/** A resource template, parsed, with completions only for its own variables. */
export function templateEntry(definition: McpResourceTemplateDefinition, build: EntryBuild): McpTemplateEntry {
  const { uriTemplate } = definition;
  requireName('resource template', String(uriTemplate), definition.name);
  const { allowUnsafeValues } = definition;
  if (allowUnsafeValues !== undefined && typeof allowUnsafeValues !== 'boolean') {
    throw new McpConfigurationError(
      INVALID_ENTRY('resource template', String(uriTemplate), 'allowUnsafeValues must be a boolean'),
    );
  }
  let template: UriTemplate;
  try {
    template = new UriTemplate(uriTemplate, { allowUnsafeValues });
  } catch (error) {
    if (error instanceof InvalidUriTemplateError) {
      throw new McpConfigurationError(INVALID_ENTRY('resource template', String(uriTemplate), error.message));
    }
    throw error;
  }
  build.assertFree(uriTemplate);
  const completions = definition.complete ?? {};
  for (const variable of Object.keys(completions)) {
    if (!template.variables.includes(variable)) {
      throw new McpConfigurationError(
        INVALID_ENTRY(
          'resource template',
          uriTemplate,
          `completion for "${variable}", which is not a variable of the template`,
        ),
      );
    }
  }
  return {
    uriTemplate,
    name: definition.name,
    title: definition.title,
    description: definition.description,
    mimeType: definition.mimeType,
    annotations: definition.annotations,
    icons: definition.icons,
    meta: definition._meta,
    cacheTtlMs: definition.cacheTtlMs,
    completions,
    access: accessOf(definition, 'resource template', uriTemplate),
    match: (uri) => template.match(uri),
    read: definition.handler,
  };
}

/** A prompt, with unique argument names and their completion handlers apart. */
export function promptEntry(definition: McpPromptDefinition, build: EntryBuild): McpPromptEntry {
  const { name } = definition;
  requireName('prompt', String(name), name);
  build.assertFree(name);
  const args = definition.arguments ?? [];
  const completions: Record<string, McpCompletionHandler> = {};
  const seen = new Set<string>();
  for (const argument of args) {
    if (typeof argument.name !== 'string' || argument.name.length === 0 || seen.has(argument.name)) {
      throw new McpConfigurationError(INVALID_ENTRY('prompt', name, 'argument names must be unique non-empty strings'));
    }
    seen.add(argument.name);
    if (argument.complete !== undefined) {
      completions[argument.name] = argument.complete;
    }
  }
  return {
    name,
    title: definition.title,
    description: definition.description,
    arguments: args.map(({ complete: _complete, ...argument }) => argument),
    icons: definition.icons,
    meta: definition._meta,
    completions,
    access: accessOf(definition, 'prompt', name),
    get: definition.handler,
  };
}
