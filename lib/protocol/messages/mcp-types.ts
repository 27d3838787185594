/**
 * The MCP shapes the engine reads and writes. Field names follow the specification; only the
 * parts this server produces or inspects are typed precisely, the rest stay open objects.
 */
import type { JSONObject } from './json-rpc';

/** An icon for an implementation, tool, resource, template or prompt (2025-11-25 and later). */
export interface Icon {
  /** URI of the icon: an HTTP(S) URL or a `data:` URI. */
  src: string;
  /** MIME type of the icon, when the URI does not make it plain. */
  mimeType?: string;
  /** Sizes the icon is available in, such as `48x48` or `any`. */
  sizes?: string[];
  /** The background theme the icon is drawn for. */
  theme?: 'light' | 'dark';
}

/** The name, version and display data of a client or server. */
export interface Implementation {
  /** Programmatic name of the client or server. */
  name: string;
  /** Version of the client or server. */
  version: string;
  /** Human-readable name for display. */
  title?: string;
  /** Human-readable description of the client or server. */
  description?: string;
  /** URL of the implementation's website. */
  websiteUrl?: string;
  /** Icons that clients may show for the implementation. */
  icons?: Icon[];
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** What a client declares it can do. */
export interface ClientCapabilities {
  /** Present when the client can list roots; `listChanged` when it notifies of changes to them. */
  roots?: { listChanged?: boolean };
  /** Present when the client accepts `sampling/createMessage`; with `context` / `tools` support. */
  sampling?: { context?: JSONObject; tools?: JSONObject };
  /** Present when the client accepts `elicitation/create`, by form and/or URL mode. */
  elicitation?: { form?: JSONObject; url?: JSONObject };
  /** Non-standard capabilities the client supports. */
  experimental?: JSONObject;
  /** Extensions the client supports, by extension identifier. */
  extensions?: Record<string, JSONObject>;
  /** Present when the client supports task-augmented requests. */
  tasks?: JSONObject;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** Hints about a tool's behaviour. All are untrusted hints. */
export interface ToolAnnotations {
  /** Human-readable title of the tool. */
  title?: string;
  /** When true, the tool does not modify its environment. */
  readOnlyHint?: boolean;
  /** When true, the tool may perform destructive updates (meaningful when not read-only). */
  destructiveHint?: boolean;
  /** When true, repeated calls with the same arguments have no further effect. */
  idempotentHint?: boolean;
  /** When true, the tool may interact with an open world of external entities. */
  openWorldHint?: boolean;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** Annotations of resources and content blocks. */
export interface Annotations {
  /** Who the data is intended for: the user, the assistant, or both. */
  audience?: Array<'user' | 'assistant'>;
  /** Importance from 0 (least, optional) to 1 (most, effectively required). */
  priority?: number;
  /** When the data was last modified, as an ISO 8601 timestamp. */
  lastModified?: string;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** A content block of a tool result or a prompt message. */
export type ContentBlock =
  | { type: 'text'; text: string; annotations?: Annotations; _meta?: JSONObject }
  | { type: 'image'; data: string; mimeType: string; annotations?: Annotations; _meta?: JSONObject }
  | { type: 'audio'; data: string; mimeType: string; annotations?: Annotations; _meta?: JSONObject }
  | { type: 'resource'; resource: ResourceContents; annotations?: Annotations; _meta?: JSONObject }
  | ({ type: 'resource_link'; uri: string; name: string } & JSONObject);

/** The contents of a resource: text or base64 blob. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: JSONObject }
  | { uri: string; mimeType?: string; blob: string; _meta?: JSONObject };

/** The result of `tools/call`. */
export interface CallToolResult {
  /** Unstructured result of the tool, as content blocks. */
  content: ContentBlock[];
  /** Structured result of the tool, matching its output schema when it declares one. */
  structuredContent?: unknown;
  /** True when the tool call ended in an error, reported to the model as a result. */
  isError?: boolean;
  /** Metadata reserved by MCP, attached to the result. */
  _meta?: JSONObject;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** The result of `resources/read`. */
export interface ReadResourceResult {
  /** The contents of the resource (one entry per URI read). */
  contents: ResourceContents[];
  /** Metadata reserved by MCP, attached to the result. */
  _meta?: JSONObject;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** A message of a prompt. */
export interface PromptMessage {
  /** Who the message is from: the user or the assistant. */
  role: 'user' | 'assistant';
  /** The content of the message. */
  content: ContentBlock;
}

/** The result of `prompts/get`. */
export interface GetPromptResult {
  /** Description of the prompt. */
  description?: string;
  /** The messages the prompt expands to. */
  messages: PromptMessage[];
  /** Metadata reserved by MCP, attached to the result. */
  _meta?: JSONObject;
  /** Other fields, passed through as they came. */
  [key: string]: unknown;
}

/** An argument a prompt accepts. */
export interface PromptArgument {
  /** Name of the argument. */
  name: string;
  /** Human-readable name of the argument for display. */
  title?: string;
  /** Human-readable description of the argument. */
  description?: string;
  /** Whether the argument must be given. */
  required?: boolean;
}

/** What a completion handler returns. */
export interface McpCompletion {
  /** The completion values (at most 100 are sent). */
  values: string[];
  /** Total number of matching values, which may exceed those sent. */
  total?: number;
  /** Whether more values exist beyond those sent. */
  hasMore?: boolean;
}

/** `ttlMs` / `cacheScope` of cacheable results (2026-07-28). */
export type McpCacheScope = 'public' | 'private';
