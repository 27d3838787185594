import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { MCP_RESOLVED_OPTIONS } from '../../mcp.constants';
import type { ResolvedMcpOptions } from '../../mcp-options.factory';
import { McpRegistry } from '../../registry/mcp-registry.service';
import { HttpPlatform } from './http-platform.service';
import type { McpEndpointKind } from './endpoint.controller';

/** What each endpoint is, in the words of the README. */
const TITLES: ReadonlyArray<[McpEndpointKind, string]> = [
  ['streamable', 'Streamable HTTP'],
  ['simple', 'simple POST'],
  ['sse-events', '2024-11-05 HTTP+SSE, events'],
  ['sse-messages', '2024-11-05 HTTP+SSE, messages'],
];

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * Once the application is up, one line per endpoint with the full path the platform serves it
 * at (global prefix and version included) and what it serves; the names at debug level. Route
 * lines of Nest say which verbs; these say what an MCP client finds there.
 */
@Injectable()
export class EndpointBanner implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpModule');

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly platform: HttpPlatform,
    private readonly registry: McpRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const tools = this.registry.listTools();
    const resources = this.registry.listResources();
    const templates = this.registry.listTemplates();
    const prompts = this.registry.listPrompts();
    const catalog = [
      counted(tools.length, 'tool'),
      counted(resources.length, 'resource'),
      counted(templates.length, 'resource template'),
      counted(prompts.length, 'prompt'),
    ].join(', ');
    const { name, version } = this.options.serverInfo;
    const revisions = [...this.options.revisions].sort();
    const range = revisions.length === 1 ? revisions[0] : `${revisions[0]} to ${revisions[revisions.length - 1]}`;
    for (const [kind, title] of TITLES) {
      const paths = this.platform.pathsOf(kind);
      if (paths.length > 0) {
        this.logger.log(`MCP server ${name} ${version} at ${paths.join(', ')} (${title}, ${range}): ${catalog}`);
      }
    }
    const names: Array<[string, readonly string[]]> = [
      ['Tools', tools.map((tool) => tool.name)],
      ['Resources', resources.map((resource) => resource.uri)],
      ['Resource templates', templates.map((template) => template.uriTemplate)],
      ['Prompts', prompts.map((prompt) => prompt.name)],
    ];
    for (const [label, list] of names) {
      if (list.length > 0) {
        this.logger.debug(`${label}: ${list.join(', ')}`);
      }
    }
  }
}
