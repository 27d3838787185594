import { Reflector } from '@nestjs/core';
import { MCP_SKILL_METADATA } from '../shared/mcp.constants';
import type { McpSkillDecoratorOptions } from '../interfaces/mcp-skill-options.interface';

/** The metadata of `@McpSkill()`, typed for `Reflector.get`. @internal */
export const McpSkillMetadata = Reflector.createDecorator<McpSkillDecoratorOptions>({ key: MCP_SKILL_METADATA });

/**
 * Makes a provider method the source of one skill (Skills extension): the method returns the
 * skill's files (`McpSkillFiles`, or a promise of them), `SKILL.md` with its frontmatter among
 * them. It is called once, at startup, without arguments: the files are kept, their digests
 * computed then. Needs the `skills` option of `McpModule.forRoot` (`skills: {}` is enough).
 *
 * @example
 * ```ts
 * @McpSkill({ scopes: ['notes:read'] })
 * auditSkill(): McpSkillFiles {
 *   return { 'SKILL.md': '---\nname: notes-audit\ndescription: Audit the notes\n---\n...' };
 * }
 * ```
 * @publicApi
 */
export const McpSkill = (options: McpSkillDecoratorOptions = {}): MethodDecorator => McpSkillMetadata(options);
