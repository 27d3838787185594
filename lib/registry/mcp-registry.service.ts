import { Injectable } from '@nestjs/common';
import type { McpPromptEntry, McpResourceEntry, McpTemplateEntry, McpToolEntry } from '../protocol/calls/catalog';
import type {
  McpPromptDefinition,
  McpResourceDefinition,
  McpResourceTemplateDefinition,
  McpToolDefinition,
  McpUiResourceDefinition,
} from '../interfaces/mcp-definitions.interface';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { DUPLICATE_ENTRY, SEARCH_TOOL_NAME_TAKEN } from '../shared/mcp.messages';
import { EntrySchemas, type RegistrySettings, type SchemaCompiler } from './entry-schemas';
import { promptEntry, resourceEntry, templateEntry, toolEntry, type EntryBuild } from './registry-entries';
import { uiResourceEntry, unlinkedView } from './app-entries';
import { RegistryChanges, type McpRegistryListener } from './registry-changes';
import { SortedTable } from './sorted-table';
import { EntryMetaHooks, type EntryMetaHook } from './entry-meta';

export type { RegistrySettings, SchemaCompiler } from './entry-schemas';
export type { McpRegistryChangeKind, McpRegistryListener } from './registry-changes';

/**
 * The tools, resources, resource templates and prompts this server offers. Decorated methods are
 * registered at startup; inject the registry to add or remove entries at runtime. Every change
 * sends the matching `list_changed` notification to the clients listening for it.
 *
 * @publicApi
 */
@Injectable()
export class McpRegistry {
  private readonly tools = new SortedTable<McpToolEntry>((tool) => tool.name);
  private readonly resources = new SortedTable<McpResourceEntry>((resource) => resource.uri);
  private readonly templates = new SortedTable<McpTemplateEntry>((template) => template.uriTemplate);
  private readonly prompts = new SortedTable<McpPromptEntry>((prompt) => prompt.name);
  private readonly changes = new RegistryChanges();
  private readonly entryMeta = new EntryMetaHooks();
  private readonly schemas: EntrySchemas;
  /** Whether startup checked the tools' views: later tools are checked as they come. */
  private viewsChecked = false;

  /** @internal */
  constructor(
    compiler: SchemaCompiler,
    private readonly settings: RegistrySettings = { outputSchemaAnyRoot: true },
  ) {
    this.schemas = new EntrySchemas(compiler, settings);
  }

  /** Increases on every change (add or remove); list answers are cached per version. */
  get version(): number {
    return this.changes.version;
  }

  /**
   * Adds a tool. Its schemas are compiled now, so a bad schema fails here, not at call time.
   * `source` says where the tool is declared, for error messages.
   * @throws McpConfigurationError for a duplicate or invalid name or schema, or the search tool's name in search mode.
   */
  addTool(definition: McpToolDefinition, source?: string): void {
    if (definition.name === this.settings.searchToolName) {
      throw new McpConfigurationError(SEARCH_TOOL_NAME_TAKEN(definition.name, source));
    }
    definition = this.entryMeta.apply({ kind: 'tool', definition });
    const tool = toolEntry(definition, this.build('tool', this.tools, source));
    if (this.viewsChecked) {
      this.checkViewLink(tool, source);
    }
    this.tools.set(tool, source);
    this.changes.changed('tools');
  }

  /** Removes a tool; returns whether it existed. */
  removeTool(name: string): boolean {
    return this.tools.delete(name) && this.changes.changed('tools');
  }

  /**
   * Adds a resource with a fixed URI.
   * @throws McpConfigurationError for a duplicate or invalid URI.
   */
  addResource(definition: McpResourceDefinition, source?: string): void {
    definition = this.entryMeta.apply({ kind: 'resource', definition });
    this.resources.set(resourceEntry(definition, this.build('resource', this.resources, source)), source);
    this.changes.changed('resources');
  }

  /**
   * Adds a view of MCP Apps: a resource at a `ui://` URI whose handler returns the HTML (a
   * string, or bytes), served as `text/html;profile=mcp-app` with its `_meta.ui`. Tools link to
   * it with `ui: { resourceUri }`; the server declares the `io.modelcontextprotocol/ui`
   * extension while it has one. Remove it with `removeResource(uri)`.
   * @throws McpConfigurationError for a duplicate URI, a URI that is not `ui://`, or bad `_meta.ui` settings.
   */
  addUiResource(definition: McpUiResourceDefinition, source?: string): void {
    const build = this.build('resource', this.resources, source);
    this.resources.set(
      uiResourceEntry(definition, (resource) => resourceEntry(resource, build)),
      source,
    );
    this.changes.changed('resources');
  }

  /**
   * Stops startup when a tool links to a view this server does not serve; from then on, a tool
   * added at runtime must link to a view registered before it.
   *
   * @internal
   */
  checkViewLinks(): void {
    this.viewsChecked = true;
    for (const tool of this.tools.values()) {
      this.checkViewLink(tool, this.tools.sourceOf(tool.name));
    }
  }

  private checkViewLink(tool: McpToolEntry, source: string | undefined): void {
    const problem = unlinkedView(tool, (uri) => this.resources.get(uri));
    if (problem !== undefined) {
      throw new McpConfigurationError(source === undefined ? problem : `${problem} (at ${source})`);
    }
  }

  /** Removes a resource by URI; returns whether it existed. */
  removeResource(uri: string): boolean {
    return this.resources.delete(uri) && this.changes.changed('resources');
  }

  /**
   * Adds a resource template.
   * @throws McpConfigurationError for a duplicate or invalid template.
   */
  addResourceTemplate(definition: McpResourceTemplateDefinition, source?: string): void {
    definition = this.entryMeta.apply({ kind: 'resource template', definition });
    this.templates.set(templateEntry(definition, this.build('resource template', this.templates, source)), source);
    this.changes.changed('resources');
  }

  /** Removes a resource template; returns whether it existed. */
  removeResourceTemplate(uriTemplate: string): boolean {
    return this.templates.delete(uriTemplate) && this.changes.changed('resources');
  }

  /**
   * Adds a prompt.
   * @throws McpConfigurationError for a duplicate or invalid name.
   */
  addPrompt(definition: McpPromptDefinition, source?: string): void {
    definition = this.entryMeta.apply({ kind: 'prompt', definition });
    this.prompts.set(promptEntry(definition, this.build('prompt', this.prompts, source)), source);
    this.changes.changed('prompts');
  }

  /** Removes a prompt; returns whether it existed. */
  removePrompt(name: string): boolean {
    return this.prompts.delete(name) && this.changes.changed('prompts');
  }

  /**
   * Adds the `_meta` hook of extension `id` (`McpExtensionHooks.entryMeta`): every entry added
   * from now on gets what it returns. `source` names the extension's provider in errors.
   * @internal
   */
  addEntryMeta(id: string, hook: EntryMetaHook, source: string): void {
    this.entryMeta.add(id, hook, source);
  }

  /**
   * Calls `listener` after every change, with the list that changed.
   * @returns a function that removes the listener.
   */
  onChange(listener: McpRegistryListener): () => void {
    return this.changes.listen(listener);
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
  listTools(): readonly McpToolEntry[] {
    return this.tools.values();
  }

  /** The tool named `name`, or `undefined`. */
  getTool(name: string): McpToolEntry | undefined {
    return this.tools.get(name);
  }

  /**
   * Every resource with a fixed URI, sorted by URI (`resources/list`). A snapshot, as
   * {@link listTools}; resource templates are listed apart ({@link listTemplates}).
   */
  listResources(): readonly McpResourceEntry[] {
    return this.resources.values();
  }

  /** The resource registered at exactly `uri` (templates are not matched), or `undefined`. */
  getResource(uri: string): McpResourceEntry | undefined {
    return this.resources.get(uri);
  }

  /** Every resource template, sorted by URI template (`resources/templates/list`). A snapshot, as {@link listTools}. */
  listTemplates(): readonly McpTemplateEntry[] {
    return this.templates.values();
  }

  /**
   * The template registered with exactly this URI template (as written, not a URI it matches;
   * `entry.match(uri)` tests a URI), or `undefined`.
   */
  getTemplate(uriTemplate: string): McpTemplateEntry | undefined {
    return this.templates.get(uriTemplate);
  }

  /** Every prompt, sorted by name (`prompts/list`). A snapshot, as {@link listTools}. */
  listPrompts(): readonly McpPromptEntry[] {
    return this.prompts.values();
  }

  /** The prompt named `name`, or `undefined`. */
  getPrompt(name: string): McpPromptEntry | undefined {
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

  /** What the builder of an entry declared at `source` needs: the schemas, and the duplicate check of its table. */
  private build<T>(kind: string, table: SortedTable<T>, source: string | undefined): EntryBuild {
    return {
      schemas: this.schemas,
      assertFree: (key) => {
        if (table.has(key)) {
          throw new McpConfigurationError(DUPLICATE_ENTRY(kind, key, table.sourceOf(key), source));
        }
      },
    };
  }
}
