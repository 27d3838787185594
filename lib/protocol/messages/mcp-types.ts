/**
 * The MCP shapes the engine reads and writes. Field names follow the specification; only the
 * parts this server produces or inspects are typed precisely, the rest stay open objects.
 */
import type { JSONObject } from './json-rpc';

/** An icon for an implementation, tool, resource, template or prompt (2025-11-25 and later). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** The name, version and display data of a client or server. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
  [key: string]: unknown;
}

/** What a client declares it can do. */
export interface ClientCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: { context?: JSONObject; tools?: JSONObject };
  elicitation?: { form?: JSONObject; url?: JSONObject };
  experimental?: JSONObject;
  extensions?: Record<string, JSONObject>;
  tasks?: JSONObject;
  [key: string]: unknown;
}

/** Hints about a tool's behaviour. All are untrusted hints. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** Annotations of resources and content blocks. */
export interface Annotations {
  audience?: Array<'user' | 'assistant'>;
  priority?: number;
  lastModified?: string;
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
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: JSONObject;
  [key: string]: unknown;
}

/** The result of `resources/read`. */
export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: JSONObject;
  [key: string]: unknown;
}

/** A message of a prompt. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

/** The result of `prompts/get`. */
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: JSONObject;
  [key: string]: unknown;
}

/** An argument a prompt accepts. */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** What a completion handler returns. */
export interface McpCompletion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/** `ttlMs` / `cacheScope` of cacheable results (2026-07-28). */
export type McpCacheScope = 'public' | 'private';
