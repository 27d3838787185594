/**
 * Turns what a handler returned into the result shape of its method. Handlers may return the
 * full MCP shape or something simpler (a string, an object, bytes); these functions say how
 * each simpler form is read.
 */
import { isJsonObject } from './json-rpc';
import type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  PromptMessage,
  ReadResourceResult,
  ResourceContents,
} from './mcp-types';
import { copyOf, merged } from './object-copies';

function isContentBlock(value: unknown): value is ContentBlock {
  return isJsonObject(value) && typeof value.type === 'string';
}

function toText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Reads a tool handler's return value:
 * - a `CallToolResult` (an object with a `content` array) is taken as is;
 * - a string becomes one text block;
 * - a content block, or an array of them, becomes the content;
 * - `undefined`/`null` is an empty result;
 * - anything else is structured data: with an output schema it becomes `structuredContent`
 *   (mirrored as JSON text for clients that predate structured output), without one JSON text.
 */
export function toCallToolResult(value: unknown, hasOutputSchema: boolean): CallToolResult {
  if (value === undefined || value === null) {
    return { content: [] };
  }
  if (isJsonObject(value) && Array.isArray(value.content)) {
    // A copy: the result is completed in place later, and the handler may reuse its object.
    const result = copyOf(value as CallToolResult);
    if (result.structuredContent !== undefined && result.content.length === 0) {
      result.content = [{ type: 'text', text: toText(result.structuredContent) }];
    }
    return result;
  }
  if (typeof value === 'string') {
    return { content: [{ type: 'text', text: value }] };
  }
  if (isContentBlock(value) && !hasOutputSchema) {
    return { content: [value] };
  }
  if (Array.isArray(value) && value.length > 0 && value.every(isContentBlock) && !hasOutputSchema) {
    return { content: value };
  }
  if (hasOutputSchema) {
    return { content: [{ type: 'text', text: toText(value) }], structuredContent: value };
  }
  return { content: [{ type: 'text', text: toText(value) }] };
}

/** A tool execution error result. */
export function toolErrorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function isResourceContents(value: unknown): value is ResourceContents {
  return isJsonObject(value) && (typeof value.text === 'string' || typeof value.blob === 'string');
}

/**
 * Reads a resource handler's return value:
 * - a `ReadResourceResult` (an object with a `contents` array) is taken as is, with the URI
 *   filled in where a content lacks one;
 * - a string is the text of the resource;
 * - bytes (`Uint8Array`, `Buffer`) are its blob;
 * - `{ text }` / `{ blob }` objects (with optional `mimeType`) are one content, an array of them
 *   several;
 * - anything else is JSON text.
 */
export function toReadResourceResult(value: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
  const withUri = (content: Record<string, unknown>): ResourceContents => {
    const out = { uri, ...content } as ResourceContents & { mimeType?: string };
    if (out.mimeType === undefined && mimeType !== undefined) {
      out.mimeType = mimeType;
    }
    return out;
  };
  if (isJsonObject(value) && Array.isArray(value.contents)) {
    const result = value as ReadResourceResult;
    return merged(result, { contents: result.contents.map((content) => withUri(content as Record<string, unknown>)) });
  }
  if (typeof value === 'string') {
    return { contents: [withUri({ text: value })] };
  }
  if (value instanceof Uint8Array) {
    return { contents: [withUri({ blob: Buffer.from(value).toString('base64') })] };
  }
  if (isResourceContents(value)) {
    return { contents: [withUri(value)] };
  }
  if (Array.isArray(value) && value.every(isResourceContents)) {
    return { contents: value.map((content) => withUri(content as Record<string, unknown>)) };
  }
  return { contents: [withUri({ text: JSON.stringify(value ?? null), mimeType: mimeType ?? 'application/json' })] };
}

function isPromptMessage(value: unknown): value is PromptMessage {
  return isJsonObject(value) && (value.role === 'user' || value.role === 'assistant') && isContentBlock(value.content);
}

/**
 * Reads a prompt handler's return value: a `GetPromptResult` (an object with `messages`), an
 * array of messages, or a string (one user message).
 */
export function toGetPromptResult(value: unknown, description: string | undefined): GetPromptResult | undefined {
  let result: GetPromptResult | undefined;
  if (isJsonObject(value) && Array.isArray(value.messages) && value.messages.every(isPromptMessage)) {
    result = value as GetPromptResult;
  } else if (Array.isArray(value) && value.every(isPromptMessage)) {
    result = { messages: value };
  } else if (typeof value === 'string') {
    result = { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  }
  if (result !== undefined && result.description === undefined && description !== undefined) {
    return { description, ...result };
  }
  return result;
}
