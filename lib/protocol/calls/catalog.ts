/**
 * What the engine needs from the registry: the tools, resources, templates and prompts, each
 * with a ready-to-run handler. The registry implements it; the engine never sees how handlers
 * were built (Nest pipeline, plain function, ...).
 *
 * Every handler takes the transport's objects (`native`, `undefined` on stdio) as its last
 * argument: the engine passes them through untouched, so a handler that runs in a framework
 * pipeline gets the request without reading it back from the call context.
 */
import type { JsonObject } from '../messages/json-rpc';
import type { McpCallContext } from './call-context';
import type { ParamHeaderBinding } from '../messages/request-headers';
import type { EntryAccess } from './access';
import type { NativeExchange } from '../messages/native-exchange';
import type { McpCompletion, Icon, PromptArgument, Annotations, ToolAnnotations } from '../messages/mcp-types';
import type { McpTaskSupport } from '../tasks/task-mode';

/** The outcome of validating a value against a schema. */
export type ValidationOutcome = { ok: true; value: unknown } | { ok: false; message: string };

/** A compiled schema: its JSON Schema 2020-12 form and a validator. */
export interface CompiledSchema {
  /** The JSON Schema advertised to clients. */
  readonly jsonSchema: JsonObject;
  /** Validates (and, for DTOs and Standard Schemas, transforms) a value. */
  validate(value: unknown): ValidationOutcome | Promise<ValidationOutcome>;
}

export type { McpTaskSupport } from '../tasks/task-mode';

/** A completion handler for one prompt argument or template variable. */
export type McpCompletionHandler = (
  value: string,
  context: { arguments: Record<string, string>; call: McpCallContext },
) => string[] | McpCompletion | Promise<string[] | McpCompletion>;

/** A registered tool. */
export interface ToolEntry {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly input: CompiledSchema;
  readonly output?: CompiledSchema;
  readonly annotations?: ToolAnnotations;
  readonly icons?: Icon[];
  readonly meta?: JsonObject;
  readonly taskSupport: McpTaskSupport;
  /** `x-mcp-header` bindings of the input schema, checked against `Mcp-Param-*` headers. */
  readonly paramHeaders: readonly ParamHeaderBinding[];
  /** Who may call and see it; `undefined` when anyone may. */
  readonly access?: EntryAccess;
  /** Runs the tool with validated arguments; may return a promise. */
  invoke(args: unknown, call: McpCallContext, native: NativeExchange | undefined): unknown;
}

/** A registered resource with a fixed URI. */
export interface ResourceEntry {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
  readonly annotations?: Annotations;
  readonly icons?: Icon[];
  readonly meta?: JsonObject;
  /** Overrides the default `ttlMs` of `resources/read` (modern era). */
  readonly cacheTtlMs?: number;
  /** Who may call and see it; `undefined` when anyone may. */
  readonly access?: EntryAccess;
  /** Reads the resource; may return a promise. */
  read(call: McpCallContext, native: NativeExchange | undefined): unknown;
}

/** A registered resource template (RFC 6570). */
export interface TemplateEntry {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly annotations?: Annotations;
  readonly icons?: Icon[];
  readonly meta?: JsonObject;
  readonly cacheTtlMs?: number;
  readonly completions: Readonly<Record<string, McpCompletionHandler>>;
  /** Who may call and see it; `undefined` when anyone may. */
  readonly access?: EntryAccess;
  /** The variables of `uri` when it matches the template, else `undefined`. */
  match(uri: string): Record<string, string> | undefined;
  /** Reads one resource of the template; may return a promise. */
  read(
    uri: string,
    variables: Record<string, string>,
    call: McpCallContext,
    native: NativeExchange | undefined,
  ): unknown;
}

/** A registered prompt. */
export interface PromptEntry {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments: readonly PromptArgument[];
  readonly icons?: Icon[];
  readonly meta?: JsonObject;
  readonly completions: Readonly<Record<string, McpCompletionHandler>>;
  /** Who may call and see it; `undefined` when anyone may. */
  readonly access?: EntryAccess;
  /** Renders the prompt; may return a promise. */
  get(args: Record<string, string>, call: McpCallContext, native: NativeExchange | undefined): unknown;
}

/** The read side of the registry, as the engine uses it. Lists are sorted by their key. */
export interface Catalog {
  /** Increases on every change; list renderings are cached per version. */
  readonly version: number;
  listTools(): readonly ToolEntry[];
  getTool(name: string): ToolEntry | undefined;
  listResources(): readonly ResourceEntry[];
  getResource(uri: string): ResourceEntry | undefined;
  listTemplates(): readonly TemplateEntry[];
  getTemplate(uriTemplate: string): TemplateEntry | undefined;
  listPrompts(): readonly PromptEntry[];
  getPrompt(name: string): PromptEntry | undefined;
  /** Whether any prompt argument or template variable has a completion handler. */
  hasCompletions(): boolean;
}
