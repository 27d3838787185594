/**
 * What the engine needs from the registry: the tools, resources, templates and prompts, each
 * with a ready-to-run handler. The registry implements it; the engine never sees how handlers
 * were built (Nest pipeline, plain function, ...).
 *
 * Every handler takes the transport's objects (`native`, `undefined` on stdio) as its last
 * argument: the engine passes them through untouched, so a handler that runs in a framework
 * pipeline gets the request without reading it back from the call context.
 */
import type { JSONObject } from '../messages/json-rpc';
import type { McpCallContext } from './call-context';
import type { ParamHeaderBinding } from '../messages/request-headers';
import type { EntryAccess } from './access';
import type { McpNativeExchange } from '../messages/native-exchange';
import type { McpCompletion, Icon, PromptArgument, Annotations, ToolAnnotations } from '../messages/mcp-types';
import type { McpTaskSupport } from '../tasks/task-mode';

/** The outcome of validating a value against a schema. */
export type McpValidationOutcome = { ok: true; value: unknown } | { ok: false; message: string };

/** A compiled schema: its JSON Schema 2020-12 form and a validator. */
export interface McpCompiledSchema {
  /** The JSON Schema advertised to clients. */
  readonly jsonSchema: JSONObject;
  /** Validates (and, for DTOs and Standard Schemas, transforms) a value. */
  validate(value: unknown): McpValidationOutcome | Promise<McpValidationOutcome>;
}

export type { McpTaskSupport } from '../tasks/task-mode';

/** A completion handler for one prompt argument or template variable. */
export type McpCompletionHandler = (
  value: string,
  context: { arguments: Record<string, string>; call: McpCallContext },
) => string[] | McpCompletion | Promise<string[] | McpCompletion>;

/** A registered tool. */
export interface McpToolEntry {
  /** Programmatic name of the tool, unique on the server. */
  readonly name: string;
  /** Human-readable title of the tool. */
  readonly title?: string;
  /** Human-readable description of the tool, for the model. */
  readonly description?: string;
  /** The tool's input schema, advertised as `inputSchema` and checked on each call. */
  readonly input: McpCompiledSchema;
  /** The tool's output schema, advertised as `outputSchema`; absent when it declares none. */
  readonly output?: McpCompiledSchema;
  /** Hints about the tool's behaviour, listed as they are. */
  readonly annotations?: ToolAnnotations;
  /** Icons that clients may show for the tool. */
  readonly icons?: Icon[];
  /** The `_meta` the tool is listed with. */
  readonly meta?: JSONObject;
  /** Whether the tool may, must or cannot run as a task (`execution.taskSupport`). */
  readonly taskSupport: McpTaskSupport;
  /**
   * `x-mcp-header` bindings of the input schema, checked against `Mcp-Param-*` headers.
   *
   * @internal
   */
  readonly paramHeaders: readonly ParamHeaderBinding[];
  /**
   * Who may call and see it; `undefined` when anyone may.
   *
   * @internal
   */
  readonly access?: EntryAccess;
  /**
   * Runs the tool with validated arguments; may return a promise.
   *
   * @internal
   */
  invoke(args: unknown, call: McpCallContext, native: McpNativeExchange | undefined): unknown;
}

/** A registered resource with a fixed URI. */
export interface McpResourceEntry {
  /** URI of the resource. */
  readonly uri: string;
  /** Programmatic name of the resource. */
  readonly name: string;
  /** Human-readable title of the resource. */
  readonly title?: string;
  /** Human-readable description of the resource. */
  readonly description?: string;
  /** MIME type of the resource, when known. */
  readonly mimeType?: string;
  /** Size of the resource's raw content in bytes, when known. */
  readonly size?: number;
  /** Audience, priority and last-modified hints of the resource. */
  readonly annotations?: Annotations;
  /** Icons that clients may show for the resource. */
  readonly icons?: Icon[];
  /** The `_meta` the resource is listed with. */
  readonly meta?: JSONObject;
  /** Overrides the default `ttlMs` of `resources/read` (modern era). */
  readonly cacheTtlMs?: number;
  /** `false`: left out of `resources/list` (a view its tools lead to), still read by its URI. */
  readonly listed?: boolean;
  /**
   * Who may call and see it; `undefined` when anyone may.
   *
   * @internal
   */
  readonly access?: EntryAccess;
  /**
   * Reads the resource; may return a promise.
   *
   * @internal
   */
  read(call: McpCallContext, native: McpNativeExchange | undefined): unknown;
}

/** A registered resource template (RFC 6570). */
export interface McpTemplateEntry {
  /** RFC 6570 URI template the resources' URIs are built from. */
  readonly uriTemplate: string;
  /** Programmatic name of the template. */
  readonly name: string;
  /** Human-readable title of the template. */
  readonly title?: string;
  /** Human-readable description of the template. */
  readonly description?: string;
  /** MIME type of the resources the template matches, when they share one. */
  readonly mimeType?: string;
  /** Audience, priority and last-modified hints of the template. */
  readonly annotations?: Annotations;
  /** Icons that clients may show for the template. */
  readonly icons?: Icon[];
  /** The `_meta` the template is listed with. */
  readonly meta?: JSONObject;
  /** Overrides the default `ttlMs` of `resources/read` for its resources (modern era). */
  readonly cacheTtlMs?: number;
  /** Completion handlers of the template's variables, by variable name. */
  readonly completions: Readonly<Record<string, McpCompletionHandler>>;
  /**
   * Who may call and see it; `undefined` when anyone may.
   *
   * @internal
   */
  readonly access?: EntryAccess;
  /** The variables of `uri` when it matches the template, else `undefined`. */
  match(uri: string): Record<string, string> | undefined;
  /**
   * Reads one resource of the template; may return a promise.
   *
   * @internal
   */
  read(
    uri: string,
    variables: Record<string, string>,
    call: McpCallContext,
    native: McpNativeExchange | undefined,
  ): unknown;
}

/** A registered prompt. */
export interface McpPromptEntry {
  /** Programmatic name of the prompt. */
  readonly name: string;
  /** Human-readable title of the prompt. */
  readonly title?: string;
  /** Human-readable description of the prompt. */
  readonly description?: string;
  /** The arguments the prompt accepts, as listed. */
  readonly arguments: readonly PromptArgument[];
  /** Icons that clients may show for the prompt. */
  readonly icons?: Icon[];
  /** The `_meta` the prompt is listed with. */
  readonly meta?: JSONObject;
  /** Completion handlers of the prompt's arguments, by argument name. */
  readonly completions: Readonly<Record<string, McpCompletionHandler>>;
  /**
   * Who may call and see it; `undefined` when anyone may.
   *
   * @internal
   */
  readonly access?: EntryAccess;
  /**
   * Renders the prompt; may return a promise.
   *
   * @internal
   */
  get(args: Record<string, string>, call: McpCallContext, native: McpNativeExchange | undefined): unknown;
}

/** The read side of the registry, as the engine uses it. Lists are sorted by their key. */
export interface Catalog {
  /** Increases on every change; list renderings are cached per version. */
  readonly version: number;
  listTools(): readonly McpToolEntry[];
  getTool(name: string): McpToolEntry | undefined;
  listResources(): readonly McpResourceEntry[];
  getResource(uri: string): McpResourceEntry | undefined;
  listTemplates(): readonly McpTemplateEntry[];
  getTemplate(uriTemplate: string): McpTemplateEntry | undefined;
  listPrompts(): readonly McpPromptEntry[];
  getPrompt(name: string): McpPromptEntry | undefined;
  /** Whether any prompt argument or template variable has a completion handler. */
  hasCompletions(): boolean;
}
