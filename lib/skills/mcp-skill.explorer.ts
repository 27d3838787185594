import { Inject, Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { MCP_SERVER_IDENTITY, MCP_SKILL_LIBRARY, MCP_SKILL_SETTINGS } from '../shared/mcp.constants';
import { McpSkillMetadata } from '../decorators/mcp-skill.decorator';
import { McpScopesMetadata } from '../decorators/mcp-scopes.decorator';
import { serverTakes, type McpServerIdentity } from '../identity/server-identity';
import { serverIdentities } from '../identity/mcp-servers';
import { SKILL_FILE } from '../protocol/skills/skill-entry';
import type { SkillLibrary } from '../protocol/skills/skill-library';
import type { McpSkillDecoratorOptions, McpSkillFiles } from '../interfaces/mcp-skill-options.interface';
import { parseFrontmatter } from './skill-frontmatter';
import { addSkill, checkScopedPaths } from './skill-library.factory';
import type { SkillSettings } from './skill-settings';

/**
 * Finds the `@McpSkill` methods of the providers a server takes, calls each once and adds its
 * skill to the server's library, with the scopes of its options and of `@McpScopes`; then checks
 * that `skills.scopes` names only skills it has.
 */
@Injectable()
export class McpSkillExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly modules: ModulesContainer,
    private readonly reflector: Reflector,
    @Inject(MCP_SERVER_IDENTITY) private readonly identity: McpServerIdentity,
    @Inject(MCP_SKILL_LIBRARY) private readonly library: SkillLibrary | null,
    @Inject(MCP_SKILL_SETTINGS) private readonly settings: SkillSettings | undefined,
  ) {}

  async onModuleInit(): Promise<void> {
    const servers = serverIdentities(this.modules);
    for (const wrapper of this.discovery.getProviders()) {
      const { instance } = wrapper;
      if (!instance || typeof instance !== 'object' || wrapper.isAlias) {
        continue;
      }
      const prototype = Object.getPrototypeOf(instance) as object | null;
      if (!prototype || !serverTakes(this.identity, servers, wrapper.host?.metatype, undefined)) {
        continue;
      }
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const method = (instance as Record<string, unknown>)[methodName];
        const options = typeof method === 'function' ? this.optionsOf(method) : undefined;
        if (options !== undefined) {
          const where = `${(instance.constructor as Type | undefined)?.name ?? String(wrapper.name)}.${methodName}`;
          // The scopes of @McpScopes on the class and the method count as they do for a tool.
          const scopes = [
            ...(options.scopes ?? []),
            ...(this.reflector.get(McpScopesMetadata, instance.constructor as Type) ?? []),
            ...(this.reflector.get(McpScopesMetadata, method as () => unknown) ?? []),
          ];
          await this.add({ ...options, scopes }, () => (method as () => unknown).call(instance), where);
        }
      }
    }
    if (this.library !== null && this.settings !== undefined) {
      checkScopedPaths(this.library, this.settings);
    }
  }

  private optionsOf(method: object): McpSkillDecoratorOptions | undefined {
    return Reflect.getMetadata(McpSkillMetadata.KEY, method) as McpSkillDecoratorOptions | undefined;
  }

  private async add(options: McpSkillDecoratorOptions, call: () => unknown, where: string): Promise<void> {
    if (this.library === null || this.settings === undefined) {
      throw new McpConfigurationError(
        `@McpSkill at ${where} needs the skills option of McpModule.forRoot (skills: {}).`,
      );
    }
    const files = filesOf(await call(), where);
    const parsed = parseFrontmatter(Buffer.from(files.get(SKILL_FILE) ?? new Uint8Array()).toString('utf8'));
    if ('problem' in parsed) {
      throw new McpConfigurationError(`@McpSkill at ${where}: its ${SKILL_FILE} ${parsed.problem}`);
    }
    const path = options.path ?? String(parsed.frontmatter.name);
    const problem = addSkill(this.library, this.settings, {
      path,
      frontmatter: parsed.frontmatter,
      files,
      scopes: options.scopes,
    });
    if (problem !== undefined) {
      throw new McpConfigurationError(`@McpSkill at ${where}: ${problem}`);
    }
  }
}

/** The files a `@McpSkill` method returned, as bytes. */
function filesOf(value: unknown, where: string): Map<string, Uint8Array> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new McpConfigurationError(`@McpSkill at ${where} must return the skill's files: { 'SKILL.md': '...', ... }`);
  }
  const files = new Map<string, Uint8Array>();
  for (const [path, content] of Object.entries(value as McpSkillFiles)) {
    if (typeof content === 'string') {
      files.set(path, Buffer.from(content, 'utf8'));
    } else if (content instanceof Uint8Array) {
      files.set(path, content);
    } else {
      throw new McpConfigurationError(`@McpSkill at ${where}: the file ${path} must be a string or bytes`);
    }
  }
  if (!files.has(SKILL_FILE)) {
    throw new McpConfigurationError(`@McpSkill at ${where} must return a ${SKILL_FILE}`);
  }
  return files;
}
