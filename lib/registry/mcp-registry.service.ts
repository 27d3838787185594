import { Injectable } from '@nestjs/common';
import type {
  Catalog,
  CompiledSchema,
  CompletionHandler,
  PromptEntry,
  ResourceEntry,
  TemplateEntry,
  ToolEntry,
} from '../protocol/catalog';
import { extractParamHeaders, InvalidParamHeaderError } from '../protocol/request-headers';
import type { EntryAccess } from '../protocol/access';
import type {
  McpAccessDefinition,
  McpPromptDefinition,
  McpResourceDefinition,
  McpResourceTemplateDefinition,
  McpToolDefinition,
} from '../interfaces/mcp-definitions.interface';
import type { McpSchema, McpValidatorOptions } from '../interfaces/mcp-schema.interface';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { DUPLICATE_ENTRY, INVALID_ENTRY, INVALID_SCHEMA, INVALID_TOOL_NAME } from '../mcp.messages';
import { InvalidUriTemplateError, UriTemplate } from './uri-template';

/** Turns a schema of any supported kind into JSON Schema and a validator. */
export interface SchemaCompiler {
  /** `validatorOptions`: the tool's own class-validator options, for DTO schemas. */
  compile(
    schema: McpSchema | undefined,
    role: 'input' | 'output',
    validatorOptions?: McpValidatorOptions,
  ): CompiledSchema;
}

/** What the registry's checks depend on in the server's configuration. */
export interface RegistrySettings {
  /**
   * Whether a revision the server serves takes output schemas of any root (2026-07-28); up to
   * 2025-11-25 an output schema is an object schema.
   */
  readonly outputSchemaAnyRoot: boolean;
}

/** Arguments are an object: an input schema typed otherwise can never be met. */
function inputRootRefusal(compiled: CompiledSchema): string | undefined {
  const { type } = compiled.jsonSchema;
  return type !== undefined && type !== 'object' ? 'the root must be an object schema' : undefined;
}

/** The lists a change touches; each maps to one `list_changed` notification. */
export type RegistryChangeKind = 'tools' | 'resources' | 'prompts';

/** Listener of registry changes. */
export type RegistryListener = (kind: RegistryChangeKind) => void;

const TOOL_NAME = /^[A-Za-z0-9_./-]{1,128}$/;

function byKey<T>(key: (item: T) => string) {
  return (a: T, b: T): number => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

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

/** A map kept with a sorted snapshot of its values, rebuilt lazily after a change. */
class SortedTable<T> {
  private readonly items = new Map<string, T>();
  /** Where each entry was declared (a class and method), for error messages. */
  private readonly sources = new Map<string, string | undefined>();
  private sorted: T[] | undefined;

  constructor(private readonly keyOf: (item: T) => string) {}

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  set(item: T, source: string | undefined): void {
    this.items.set(this.keyOf(item), item);
    this.sources.set(this.keyOf(item), source);
    this.sorted = undefined;
  }

  sourceOf(key: string): string | undefined {
    return this.sources.get(key);
  }

  delete(key: string): boolean {
    this.sources.delete(key);
    const removed = this.items.delete(key);
    if (removed) {
      this.sorted = undefined;
    }
    return removed;
  }

  values(): readonly T[] {
    this.sorted ??= [...this.items.values()].sort(byKey(this.keyOf));
    return this.sorted;
  }
}

/**
 * The tools, resources, resource templates and prompts this server offers. Decorated methods are
 * registered at startup; inject the registry to add or remove entries at runtime. Every change
 * sends the matching `list_changed` notification to the clients listening for it.
 *
 * @publicApi
 */
@Injectable()
export class McpRegistry implements Catalog {
  private revision = 0;
  private readonly tools = new SortedTable<ToolEntry>((tool) => tool.name);
  private readonly resources = new SortedTable<ResourceEntry>((resource) => resource.uri);
  private readonly templates = new SortedTable<TemplateEntry>((template) => template.uriTemplate);
  private readonly prompts = new SortedTable<PromptEntry>((prompt) => prompt.name);
  private readonly listeners = new Set<RegistryListener>();

  constructor(
    private readonly schemas: SchemaCompiler,
    private readonly settings: RegistrySettings = { outputSchemaAnyRoot: true },
  ) {}

  /** Increases on every change (add or remove); list answers are cached per version. */
  get version(): number {
    return this.revision;
  }

  /**
   * Adds a tool. Its schemas are compiled now, so a bad schema fails here, not at call time.
   * `source` says where the tool is declared, for error messages.
   * @throws McpConfigurationError for a duplicate or invalid name or schema.
   */
  addTool(definition: McpToolDefinition, source?: string): void {
    const { name } = definition;
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      throw new McpConfigurationError(INVALID_TOOL_NAME(String(name)));
    }
    if (this.tools.has(name)) {
      throw new McpConfigurationError(DUPLICATE_ENTRY('tool', name, this.tools.sourceOf(name), source));
    }
    const { validatorOptions } = definition;
    if (
      validatorOptions !== undefined &&
      (typeof validatorOptions !== 'object' || validatorOptions === null || Array.isArray(validatorOptions))
    ) {
      throw new McpConfigurationError(INVALID_ENTRY('tool', name, 'validatorOptions must be an object'));
    }
    const input = this.compile('tool', name, definition.input, 'input', validatorOptions);
    const output =
      definition.output === undefined
        ? undefined
        : this.compile('tool', name, definition.output, 'output', validatorOptions);
    let paramHeaders;
    try {
      paramHeaders = extractParamHeaders(input.jsonSchema);
    } catch (error) {
      if (error instanceof InvalidParamHeaderError) {
        throw new McpConfigurationError(INVALID_SCHEMA('tool', name, 'input', error.message));
      }
      throw error;
    }
    const { handler } = definition;
    this.tools.set(
      {
        name,
        title: definition.title,
        description: definition.description,
        input,
        output,
        annotations: definition.annotations,
        icons: definition.icons,
        meta: definition._meta,
        taskSupport: definition.taskSupport ?? 'forbidden',
        paramHeaders,
        access: accessOf(definition, 'tool', name),
        invoke: handler,
      },
      source,
    );
    this.changed('tools');
  }

  /** Removes a tool; returns whether it existed. */
  removeTool(name: string): boolean {
    return this.tools.delete(name) && this.changed('tools');
  }

  /**
   * Adds a resource with a fixed URI.
   * @throws McpConfigurationError for a duplicate or invalid URI.
   */
  addResource(definition: McpResourceDefinition, source?: string): void {
    const { uri } = definition;
    if (typeof uri !== 'string' || uri.length === 0) {
      throw new McpConfigurationError(
        INVALID_ENTRY('resource', String(definition.name), 'uri must be a non-empty string'),
      );
    }
    requireName('resource', uri, definition.name);
    if (this.resources.has(uri)) {
      throw new McpConfigurationError(DUPLICATE_ENTRY('resource', uri, this.resources.sourceOf(uri), source));
    }
    const { handler } = definition;
    this.resources.set(
      {
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
        read: handler,
      },
      source,
    );
    this.changed('resources');
  }

  /** Removes a resource by URI; returns whether it existed. */
  removeResource(uri: string): boolean {
    return this.resources.delete(uri) && this.changed('resources');
  }

  /**
   * Adds a resource template.
   * @throws McpConfigurationError for a duplicate or invalid template.
   */
  addResourceTemplate(definition: McpResourceTemplateDefinition, source?: string): void {
    const { uriTemplate } = definition;
    requireName('resource template', String(uriTemplate), definition.name);
    let template: UriTemplate;
    try {
      template = new UriTemplate(uriTemplate);
    } catch (error) {
      if (error instanceof InvalidUriTemplateError) {
        throw new McpConfigurationError(INVALID_ENTRY('resource template', String(uriTemplate), error.message));
      }
      throw error;
    }
    if (this.templates.has(uriTemplate)) {
      throw new McpConfigurationError(
        DUPLICATE_ENTRY('resource template', uriTemplate, this.templates.sourceOf(uriTemplate), source),
      );
    }
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
    const { handler } = definition;
    this.templates.set(
      {
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
        read: handler,
      },
      source,
    );
    this.changed('resources');
  }

  /** Removes a resource template; returns whether it existed. */
  removeResourceTemplate(uriTemplate: string): boolean {
    return this.templates.delete(uriTemplate) && this.changed('resources');
  }

  /**
   * Adds a prompt.
   * @throws McpConfigurationError for a duplicate or invalid name.
   */
  addPrompt(definition: McpPromptDefinition, source?: string): void {
    const { name } = definition;
    requireName('prompt', String(name), name);
    if (this.prompts.has(name)) {
      throw new McpConfigurationError(DUPLICATE_ENTRY('prompt', name, this.prompts.sourceOf(name), source));
    }
    const args = definition.arguments ?? [];
    const completions: Record<string, CompletionHandler> = {};
    const seen = new Set<string>();
    for (const argument of args) {
      if (typeof argument.name !== 'string' || argument.name.length === 0 || seen.has(argument.name)) {
        throw new McpConfigurationError(
          INVALID_ENTRY('prompt', name, 'argument names must be unique non-empty strings'),
        );
      }
      seen.add(argument.name);
      if (argument.complete !== undefined) {
        completions[argument.name] = argument.complete;
      }
    }
    const { handler } = definition;
    this.prompts.set(
      {
        name,
        title: definition.title,
        description: definition.description,
        arguments: args.map(({ complete: _complete, ...argument }) => argument),
        icons: definition.icons,
        meta: definition._meta,
        completions,
        access: accessOf(definition, 'prompt', name),
        get: handler,
      },
      source,
    );
    this.changed('prompts');
  }

  /** Removes a prompt; returns whether it existed. */
  removePrompt(name: string): boolean {
    return this.prompts.delete(name) && this.changed('prompts');
  }

  /**
   * Calls `listener` after every change, with the list that changed.
   * @returns a function that removes the listener.
   */
  onChange(listener: RegistryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Every registered tool (decorated and runtime), sorted by name: the order of `tools/list`.
   * The array is a snapshot shared until the next change; do not modify it. Entries carry what
   * `tools/list` advertises (`name`, `title`, `description`, `input.jsonSchema`,
   * `output?.jsonSchema`, `annotations`, `icons`, `meta`, `taskSupport`), and `invoke`, the
   * engine's way in: it expects arguments already validated and a call context. Unlike
   * `tools/list`, the list is not filtered by a caller's scopes or visibility guards.
   *
   * @example
   * ```ts
   * const names = registry.listTools().map((tool) => tool.name);
   * ```
   */
  listTools(): readonly ToolEntry[] {
    return this.tools.values();
  }

  /** The tool named `name`, or `undefined`. */
  getTool(name: string): ToolEntry | undefined {
    return this.tools.get(name);
  }

  /**
   * Every resource with a fixed URI, sorted by URI (`resources/list`). A snapshot, as
   * {@link listTools}; resource templates are listed apart ({@link listTemplates}).
   */
  listResources(): readonly ResourceEntry[] {
    return this.resources.values();
  }

  /** The resource registered at exactly `uri` (templates are not matched), or `undefined`. */
  getResource(uri: string): ResourceEntry | undefined {
    return this.resources.get(uri);
  }

  /** Every resource template, sorted by URI template (`resources/templates/list`). A snapshot, as {@link listTools}. */
  listTemplates(): readonly TemplateEntry[] {
    return this.templates.values();
  }

  /**
   * The template registered with exactly this URI template (as written, not a URI it matches;
   * `entry.match(uri)` tests a URI), or `undefined`.
   */
  getTemplate(uriTemplate: string): TemplateEntry | undefined {
    return this.templates.get(uriTemplate);
  }

  /** Every prompt, sorted by name (`prompts/list`). A snapshot, as {@link listTools}. */
  listPrompts(): readonly PromptEntry[] {
    return this.prompts.values();
  }

  /** The prompt named `name`, or `undefined`. */
  getPrompt(name: string): PromptEntry | undefined {
    return this.prompts.get(name);
  }

  /**
   * Whether any prompt argument or template variable has a completion handler: the server then
   * advertises the `completions` capability.
   */
  hasCompletions(): boolean {
    return (
      this.prompts.values().some((prompt) => Object.keys(prompt.completions).length > 0) ||
      this.templates.values().some((template) => Object.keys(template.completions).length > 0)
    );
  }

  /**
   * Why an output schema's root can never be served, if it cannot: a string or null result is
   * sent as text (or as nothing), never as structured content, so every call would fail; any
   * other root than an object needs 2026-07-28 (SEP-2106), which this server may not serve.
   * An untyped root (`$ref`, `anyOf`...) may still describe objects.
   */
  private outputRootRefusal(compiled: CompiledSchema): string | undefined {
    const { type } = compiled.jsonSchema;
    const types: unknown[] = Array.isArray(type) ? type : type === undefined ? [] : [type];
    if (types.length > 0 && types.every((one) => one === 'string' || one === 'null')) {
      return 'the root cannot be a string or null schema: a string or null result is sent as text, never as structured content, so every call would fail';
    }
    if (type !== undefined && type !== 'object' && !this.settings.outputSchemaAnyRoot) {
      return 'the root must be an object schema: the revisions this server serves need one (2026-07-28 takes any)';
    }
    return undefined;
  }

  /** Compiles an input or output schema, and checks its root (see `inputRootRefusal`, `outputRootRefusal`). */
  private compile(
    kind: string,
    key: string,
    schema: McpSchema | undefined,
    role: 'input' | 'output',
    validatorOptions?: McpValidatorOptions,
  ): CompiledSchema {
    let compiled: CompiledSchema;
    try {
      compiled = this.schemas.compile(schema, role, validatorOptions);
    } catch (error) {
      if (error instanceof McpConfigurationError) {
        throw new McpConfigurationError(INVALID_SCHEMA(kind, key, role, error.message));
      }
      throw error;
    }
    const refusal = role === 'input' ? inputRootRefusal(compiled) : this.outputRootRefusal(compiled);
    if (refusal !== undefined) {
      throw new McpConfigurationError(INVALID_SCHEMA(kind, key, role, refusal));
    }
    return compiled;
  }

  private changed(kind: RegistryChangeKind): true {
    this.revision += 1;
    for (const listener of this.listeners) {
      listener(kind);
    }
    return true;
  }
}

function requireName(kind: string, key: string, name: unknown): void {
  if (typeof name !== 'string' || name.length === 0) {
    throw new McpConfigurationError(INVALID_ENTRY(kind, key, 'name must be a non-empty string'));
  }
}
