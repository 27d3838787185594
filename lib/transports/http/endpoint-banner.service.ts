import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { MCP_OWN_REGISTRY, MCP_SERVER_IDENTITY, MCP_SERVER_SETTINGS } from '../../shared/mcp.constants';
import type { McpServerSettings } from '../../shared/server-settings';
import { McpRegistry } from '../../registry/mcp-registry.service';
import type { McpServerIdentity } from '../../identity/server-identity';
import { HttpPlatform } from './http-platform.service';
import type { McpEndpointKind } from './endpoint-marker';
import { eraOf } from '../../protocol/messages/revisions';
import { McpLogger } from '../../telemetry/mcp.logger';

/** Each endpoint (the SSE pair is one, at two paths), in the words of the README, and the eras it serves. */
const ENDPOINTS: ReadonlyArray<{ kinds: McpEndpointKind[]; title: string; legacyOnly: boolean }> = [
  { kinds: ['streamable'], title: 'Streamable HTTP', legacyOnly: false },
  { kinds: ['simple'], title: 'simple POST', legacyOnly: false },
  { kinds: ['sse-events', 'sse-messages'], title: '2024-11-05 HTTP+SSE pair', legacyOnly: true },
];

/** `2024-11-05 to 2026-07-28`, or the one revision. */
function rangeOf(revisions: readonly string[]): string {
  const sorted = [...revisions].sort();
  return sorted.length === 1 ? sorted[0] : `${sorted[0]} to ${sorted[sorted.length - 1]}`;
}

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The names a debug line lists; an application with thousands of tools gets a line, not a page. */
export const LISTED_NAMES = 50;

/** `a, b, c`, or the first {@link LISTED_NAMES} and `and N more`. */
export function listNames(names: readonly string[]): string {
  const shown = names.slice(0, LISTED_NAMES).join(', ');
  return names.length > LISTED_NAMES ? `${shown} and ${names.length - LISTED_NAMES} more` : shown;
}

/**
 * Once the application is up, one line per endpoint with the full path the platform serves it
 * at (global prefix and version included) and what it serves; at debug level, the names, per
 * server (several servers share the context `McpModule`). Route lines of Nest say which verbs;
 * these say what an MCP client finds there.
 */
@Injectable()
export class EndpointBanner implements OnApplicationBootstrap {
  private readonly logger = new McpLogger('McpModule');

  constructor(
    @Inject(MCP_SERVER_SETTINGS) private readonly options: Pick<McpServerSettings, 'serverInfo' | 'revisions'>,
    private readonly platform: HttpPlatform,
    @Inject(MCP_OWN_REGISTRY) private readonly registry: McpRegistry,
    @Inject(MCP_SERVER_IDENTITY) private readonly identity: Pick<McpServerIdentity, 'name'>,
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
    for (const { kinds, title, legacyOnly } of ENDPOINTS) {
      const paths = kinds.map((kind) => this.platform.pathsOf(kind).join(', '));
      if (paths.some((path) => path === '')) {
        continue;
      }
      const revisions = this.options.revisions.filter((revision) => !legacyOnly || eraOf(revision) === 'legacy');
      this.logger.log(
        `MCP server ${name} ${version} at ${paths.join(' + ')} (${title}, ${rangeOf(revisions)}): ${catalog}`,
      );
    }
    const names: Array<[string, readonly string[]]> = [
      ['Tools', tools.map((tool) => tool.name)],
      ['Resources', resources.map((resource) => resource.uri)],
      ['Resource templates', templates.map((template) => template.uriTemplate)],
      ['Prompts', prompts.map((prompt) => prompt.name)],
    ];
    for (const [label, list] of names) {
      if (list.length > 0) {
        this.logger.debug(`${label} of server "${this.identity.name}": ${listNames(list)}`);
      }
    }
  }
}
