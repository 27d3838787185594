/**
 * What describes a tool, resource, resource template or prompt, for the decorators and for
 * registration at runtime through `McpRegistry`.
 *
 * Every handler (and `visible`) gets the transport's objects as its last argument: the request
 * and response over HTTP, `undefined` on stdio. Most handlers leave that parameter out.
 */
import type { McpCallContext } from '../protocol/calls/call-context';
import type { McpNativeExchange } from '../protocol/messages/native-exchange';
import type { McpCompletionHandler, McpTaskSupport } from '../protocol/calls/catalog';
import type { Icon, PromptArgument, Annotations, ToolAnnotations } from '../protocol/messages/mcp-types';
import type { McpSchema, McpValidatorOptions } from './mcp-schema.interface';
import type { McpToolUiOptions, McpUiResourceMeta } from '../protocol/apps/apps';

/**
 * A completion handler, or (in decorator options) the name of a method of the same class that
 * completes: decorator arguments are evaluated before any instance exists, so a method name is
 * how a completion reaches injected services.
 *
 * @publicApi
 */
export type McpCompletionSource = McpCompletionHandler | string;

/**
 * The servers a decorated handler belongs to, for applications with several servers, beside or
 * instead of splitting them by module (`include`). Decorators only: a handler registered at
 * runtime is added to the registry it is given.
 *
 * @publicApi
 */
export interface McpServersOption {
  /**
   * The names of the servers that serve this handler, whatever their `include`: a handler that
   * should be on two servers names both. Without it: the servers whose `include` names its module,
   * else the servers without `include`.
   * @example servers: ['public', 'admin']
   */
  servers?: string[];
}

/** The options of a tool (`@McpTool`). @publicApi */
export interface McpToolOptions extends McpServersOption {
  /** The tool name. Defaults to the method name. */
  name?: string;
  /** A human-readable name (2025-06-18 and later). */
  title?: string;
  /** Human-readable description of the tool, for the model. */
  description?: string;
  /** The schema of the arguments. Defaults to any object. */
  input?: McpSchema;
  /** The schema of `structuredContent`, an object schema; results are validated against it. */
  output?: McpSchema;
  /**
   * class-validator options for this tool's DTO schemas, over the module's `validatorOptions`
   * (option by option).
   * @example { validatorOptions: { whitelist: true, forbidNonWhitelisted: true } }
   */
  validatorOptions?: McpValidatorOptions;
  /** Hints about the tool's behaviour (read-only, destructive...), advertised as they are. */
  annotations?: ToolAnnotations;
  /** Icons that clients may show for the tool (2025-11-25 and later). */
  icons?: Icon[];
  /** Free-form metadata advertised with the tool. */
  _meta?: Record<string, unknown>;
  /**
   * Whether the tool may run as a task.
   * @default 'forbidden'
   */
  taskSupport?: McpTaskSupport;
  /**
   * MCP Apps: the view hosts render the tool's results with (a `ui://` resource of the same
   * server, `@McpUiResource` or `apps.views`), and who may use the tool; advertised as
   * `_meta.ui`. The tool still returns meaningful text `content` for clients without views.
   * @example { ui: { resourceUri: 'ui://notes/note-card' } }
   */
  ui?: McpToolUiOptions;
}

/**
 * A view of MCP Apps (`@McpUiResource`): an HTML resource at a `ui://` URI, served with the
 * MIME type `text/html;profile=mcp-app`, with how hosts render it (`_meta.ui`).
 *
 * @publicApi
 */
export interface McpUiResourceOptions extends McpServersOption, McpUiResourceMeta {
  /** The `ui://` URI tools link to (`ui: { resourceUri }`). */
  uri: string;
  /** The resource name. Defaults to the method name. */
  name?: string;
  /** A human-readable name (2025-06-18 and later). */
  title?: string;
  /** What the view shows, for hosts that list views. */
  description?: string;
  /** Icons that clients may show for the view (2025-11-25 and later). */
  icons?: Icon[];
  /**
   * Whether `resources/list` shows the view; hosts find views through their tools' `_meta.ui`
   * either way, and read them by URI.
   * @default true
   */
  listed?: boolean;
  /** How long clients may cache a read (modern era), overriding the module default. */
  cacheTtlMs?: number;
}

/** The options of a resource with a fixed URI (`@McpResource`). @publicApi */
export interface McpResourceOptions extends McpServersOption {
  /** The URI of the resource. */
  uri: string;
  /** The resource name. Defaults to the method name. */
  name?: string;
  /** A human-readable name (2025-06-18 and later). */
  title?: string;
  /** Human-readable description of the resource. */
  description?: string;
  /** MIME type of the resource's content. */
  mimeType?: string;
  /** The size in bytes, when known. */
  size?: number;
  /** Audience, priority and last-modified hints of the resource. */
  annotations?: Annotations;
  /** Icons that clients may show for the resource (2025-11-25 and later). */
  icons?: Icon[];
  /** Free-form metadata advertised with the resource. */
  _meta?: Record<string, unknown>;
  /** How long clients may cache a read (modern era), overriding the module default. */
  cacheTtlMs?: number;
}

/** The options of a resource template (`@McpResourceTemplate`). @publicApi */
export interface McpResourceTemplateOptions extends McpServersOption {
  /** The RFC 6570 URI template, such as `notes://{id}`. */
  uriTemplate: string;
  /** The template name. Defaults to the method name. */
  name?: string;
  /** A human-readable name (2025-06-18 and later). */
  title?: string;
  /** Human-readable description of the template. */
  description?: string;
  /** MIME type of the resources the template matches, when they share one. */
  mimeType?: string;
  /** Audience, priority and last-modified hints of the template. */
  annotations?: Annotations;
  /** Icons that clients may show for the template (2025-11-25 and later). */
  icons?: Icon[];
  /** Free-form metadata advertised with the template. */
  _meta?: Record<string, unknown>;
  /** How long clients may cache a read (modern era), overriding the module default. */
  cacheTtlMs?: number;
  /** Completion of template variables, by variable name. */
  complete?: Record<string, McpCompletionSource>;
  /**
   * Give the handler any value a URI's variables decode to. By default a URI whose variables
   * decode to a control character (NUL, newline... U+0000 to U+001F and U+007F), to a `..`
   * path segment (`..` alone or bounded by `/` or `\`), or, outside reserved and fragment
   * expressions (`{+path}`, `{#f}`, where `/` is part of the value), to a `/` or `\` at all, is
   * read as no match: the client gets the usual resource-not-found error.
   *
   * Why: values are matched percent-encoded and then decoded, so `notes://..%2F..%2Fetc%2Fpasswd`
   * gives `{id}` the value `../../etc/passwd`, and `%00` a NUL; a handler that maps a variable to
   * a file, a key or a URL would reach outside what it meant to serve. Set it only for a
   * template whose handler checks its values itself (resolving a path against its root and
   * checking the result stays inside, for instance).
   * @default false
   */
  allowUnsafeValues?: boolean;
}

/** A prompt argument, with optional completion. @publicApi */
export interface McpPromptArgument extends PromptArgument {
  /** Completes values of this argument. */
  complete?: McpCompletionSource;
}

/** The options of a prompt (`@McpPrompt`). @publicApi */
export interface McpPromptOptions extends McpServersOption {
  /** The prompt name. Defaults to the method name. */
  name?: string;
  /** A human-readable name (2025-06-18 and later). */
  title?: string;
  /** Human-readable description of the prompt. */
  description?: string;
  /** The arguments the prompt accepts, each with optional completion. */
  arguments?: McpPromptArgument[];
  /** Icons that clients may show for the prompt (2025-11-25 and later). */
  icons?: Icon[];
  /** Free-form metadata advertised with the prompt. */
  _meta?: Record<string, unknown>;
}

/**
 * Who may call and see an entry registered at runtime (what `@McpScopes` and visibility guards
 * give decorated handlers).
 *
 * @publicApi
 */
export interface McpAccessDefinition {
  /** Scopes the caller must all hold to call it and to see it listed. */
  scopes?: string[];
  /** Whether the caller sees it in lists (after the scopes); it is called with the list request's context. */
  visible?: (context: McpCallContext, native: McpNativeExchange | undefined) => boolean | Promise<boolean>;
}

/** A tool registered at runtime. @publicApi */
export interface McpToolDefinition extends McpToolOptions, McpAccessDefinition {
  /** The tool name. */
  name: string;
  /** Runs the tool with the validated arguments; may return a promise. */
  handler: (args: any, context: McpCallContext, native: McpNativeExchange | undefined) => unknown;
}

/** A resource registered at runtime. @publicApi */
export interface McpResourceDefinition extends McpResourceOptions, McpAccessDefinition {
  /** The resource name. */
  name: string;
  /** Reads the resource; may return a promise. */
  handler: (context: McpCallContext, native: McpNativeExchange | undefined) => unknown;
}

/** A view of MCP Apps registered at runtime. @publicApi */
export interface McpUiResourceDefinition extends McpUiResourceOptions, McpAccessDefinition {
  /** The resource name. */
  name: string;
  /** Returns the view's HTML: a string (sent as `text`) or bytes (sent as a base64 `blob`). */
  handler: (context: McpCallContext, native: McpNativeExchange | undefined) => unknown;
}

/** A resource template registered at runtime. @publicApi */
export interface McpResourceTemplateDefinition
  extends Omit<McpResourceTemplateOptions, 'complete'>, McpAccessDefinition {
  /** The template name. */
  name: string;
  /** Completion of template variables, by variable name. */
  complete?: Record<string, McpCompletionHandler>;
  /** Reads one resource; `variables` are the values the URI gave the template's variables. */
  handler: (
    uri: string,
    variables: Record<string, string>,
    context: McpCallContext,
    native: McpNativeExchange | undefined,
  ) => unknown;
}

/** A prompt registered at runtime. @publicApi */
export interface McpPromptDefinition extends Omit<McpPromptOptions, 'arguments'>, McpAccessDefinition {
  /** The prompt name. */
  name: string;
  /** The arguments the prompt accepts, each with optional completion. */
  arguments?: Array<PromptArgument & { complete?: McpCompletionHandler }>;
  /** Renders the prompt's messages from its arguments; may return a promise. */
  handler: (args: Record<string, string>, context: McpCallContext, native: McpNativeExchange | undefined) => unknown;
}
