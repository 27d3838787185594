/**
 * Rendering for a revision: the wire form of list entries, server info and tool results, with
 * the fields the revision does not define left out.
 */
import { hasFeature } from '../messages/revisions';
import { isJsonObject, type JSONObject } from '../messages/json-rpc';
import type { McpPromptEntry, McpResourceEntry, McpTemplateEntry, McpToolEntry } from './catalog';
import type { CallToolResult, Implementation, Icon } from '../messages/mcp-types';
import { copyOf } from '../messages/object-copies';

type Target = JSONObject;

/** Adds the display fields shared by every named entity: title, icons and `_meta`. */
function addDisplay(
  target: Target,
  revision: string | undefined,
  entry: { title?: string; icons?: Icon[]; meta?: JSONObject },
): void {
  if (entry.title !== undefined && hasFeature(revision, 'title')) {
    target.title = entry.title;
  }
  if (entry.icons !== undefined && entry.icons.length > 0 && hasFeature(revision, 'icons')) {
    target.icons = entry.icons;
  }
  // `_meta` is in the schema from 2025-06-18 on; MCP Apps puts its `_meta.ui` on tools and
  // resources whatever the revision (its text negotiates the extension on 2024-11-05 too).
  if (entry.meta !== undefined && (hasFeature(revision, 'title') || entry.meta.ui !== undefined)) {
    target._meta = entry.meta;
  }
}

/** Whether a schema's root is an object schema (required before 2026-07-28 for outputSchema). */
function isObjectRooted(schema: JSONObject): boolean {
  return schema.type === 'object';
}

/** Whether the output schema of a tool can be shown to a client at this revision. */
export function outputSchemaVisible(revision: string | undefined, tool: McpToolEntry): boolean {
  if (tool.output === undefined || !hasFeature(revision, 'outputSchema')) {
    return false;
  }
  return hasFeature(revision, 'outputSchemaAnyRoot') || isObjectRooted(tool.output.jsonSchema);
}

export function renderTool(tool: McpToolEntry, revision: string | undefined): Target {
  const rendered: Target = { name: tool.name };
  addDisplay(rendered, revision, tool);
  if (tool.description !== undefined) {
    rendered.description = tool.description;
  }
  rendered.inputSchema = tool.input.jsonSchema;
  if (outputSchemaVisible(revision, tool)) {
    rendered.outputSchema = tool.output!.jsonSchema;
  }
  if (tool.annotations !== undefined && hasFeature(revision, 'toolAnnotations')) {
    rendered.annotations = tool.annotations;
  }
  // 2025-11-25 tells clients which tools take the `task` param; the tasks extension of
  // 2026-07-28 leaves the choice to the server.
  if (tool.taskSupport !== 'forbidden' && hasFeature(revision, 'coreTasks')) {
    rendered.execution = { taskSupport: tool.taskSupport };
  }
  return rendered;
}

export function renderResource(resource: McpResourceEntry, revision: string | undefined): Target {
  const rendered: Target = { uri: resource.uri, name: resource.name };
  addDisplay(rendered, revision, resource);
  if (resource.description !== undefined) {
    rendered.description = resource.description;
  }
  if (resource.mimeType !== undefined) {
    rendered.mimeType = resource.mimeType;
  }
  if (resource.size !== undefined) {
    rendered.size = resource.size;
  }
  if (resource.annotations !== undefined) {
    rendered.annotations = resource.annotations;
  }
  return rendered;
}

export function renderTemplate(template: McpTemplateEntry, revision: string | undefined): Target {
  const rendered: Target = { uriTemplate: template.uriTemplate, name: template.name };
  addDisplay(rendered, revision, template);
  if (template.description !== undefined) {
    rendered.description = template.description;
  }
  if (template.mimeType !== undefined) {
    rendered.mimeType = template.mimeType;
  }
  if (template.annotations !== undefined) {
    rendered.annotations = template.annotations;
  }
  return rendered;
}

export function renderPrompt(prompt: McpPromptEntry, revision: string | undefined): Target {
  const rendered: Target = { name: prompt.name };
  addDisplay(rendered, revision, prompt);
  if (prompt.description !== undefined) {
    rendered.description = prompt.description;
  }
  if (prompt.arguments.length > 0) {
    const withTitles = hasFeature(revision, 'title');
    rendered.arguments = prompt.arguments.map((argument) => {
      const out: Target = { name: argument.name };
      if (argument.title !== undefined && withTitles) {
        out.title = argument.title;
      }
      if (argument.description !== undefined) {
        out.description = argument.description;
      }
      out.required = argument.required === true;
      return out;
    });
  }
  return rendered;
}

/** The server's `Implementation` for a revision. */
export function renderImplementation(info: Implementation, revision: string | undefined): Target {
  const rendered: Target = { name: info.name, version: info.version };
  if (info.title !== undefined && hasFeature(revision, 'title')) {
    rendered.title = info.title;
  }
  if (hasFeature(revision, 'implementationDescription')) {
    if (info.description !== undefined) {
      rendered.description = info.description;
    }
    if (info.websiteUrl !== undefined) {
      rendered.websiteUrl = info.websiteUrl;
    }
  }
  if (info.icons !== undefined && info.icons.length > 0 && hasFeature(revision, 'icons')) {
    rendered.icons = info.icons;
  }
  return rendered;
}

/**
 * Adapts a tool result to the revision: `structuredContent` only where the revision defines it
 * (and, before 2026-07-28, only as an object), audio content only from 2025-03-26 on. The input
 * is never changed: it is returned as it is when the revision takes all of it (most calls, so
 * they copy nothing), else a copy is.
 */
export function renderToolResult(
  result: CallToolResult,
  revision: string | undefined,
  tool: McpToolEntry | undefined,
): Target {
  /** The copy, made once something must change. */
  let rendered: Target | undefined;
  if (result.structuredContent !== undefined) {
    const allowed =
      hasFeature(revision, 'outputSchema') &&
      (hasFeature(revision, 'outputSchemaAnyRoot') || isJsonObject(result.structuredContent)) &&
      (tool === undefined || tool.output === undefined || outputSchemaVisible(revision, tool));
    if (!allowed) {
      rendered = copyOf(result);
      delete rendered.structuredContent;
    }
  }
  if (!hasFeature(revision, 'audioContent') && result.content.some((block) => block.type === 'audio')) {
    (rendered ??= copyOf(result)).content = result.content.filter((block) => block.type !== 'audio');
  }
  if (!hasFeature(revision, 'resourceLinks') && result.content.some((block) => block.type === 'resource_link')) {
    // Clients before 2025-06-18 do not know resource links; they still learn where the resource is.
    rendered ??= copyOf(result);
    rendered.content = (rendered.content as CallToolResult['content']).map((block) =>
      block.type === 'resource_link'
        ? { type: 'text' as const, text: `Resource ${String(block.name)}: ${String(block.uri)}` }
        : block,
    );
  }
  return rendered ?? result;
}
