/**
 * The `skills` section of the module options, validated and with its defaults, once, at startup.
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { McpSkillOptions } from '../interfaces/mcp-skill-options.interface';
import { fail, integer, section, stringList, text } from '../shared/option-checks';

/** The skill settings, resolved from the module options (`skills`). */
export interface SkillSettings {
  /** The directory of skills, absolute; absent when skills come from providers only. */
  readonly directory?: string;
  readonly directoryRead: boolean;
  /** Scopes by skill path. */
  readonly scopes: ReadonlyMap<string, readonly string[]>;
  readonly ttlMs?: number;
}

/**
 * Validates the `skills` section; `undefined` when the server serves no skills.
 *
 * @throws McpConfigurationError naming the first bad option, or a directory that does not exist
 */
export function resolveSkillSettings(options: McpSkillOptions | undefined): SkillSettings | undefined {
  if (options === undefined) {
    return undefined;
  }
  const skills = section(options, 'skills');
  const given = text(skills.directory, 'skills.directory', false);
  const directory = given === undefined ? undefined : isAbsolute(given) ? given : resolve(process.cwd(), given);
  if (directory !== undefined && statSync(directory, { throwIfNoEntry: false })?.isDirectory() !== true) {
    fail('skills.directory', `${directory} is not a directory`);
  }
  if (skills.directoryRead !== undefined && typeof skills.directoryRead !== 'boolean') {
    fail('skills.directoryRead', 'must be a boolean');
  }
  const scopes = new Map<string, readonly string[]>();
  for (const [path, list] of Object.entries(section(skills.scopes, 'skills.scopes'))) {
    const option = `skills.scopes.${path}`;
    const valid = stringList(list, option) ?? [];
    if (valid.some((scope) => /\s/.test(scope))) {
      fail(option, 'scopes must not hold spaces');
    }
    scopes.set(path, Object.freeze([...new Set(valid)]));
  }
  return {
    directory,
    directoryRead: skills.directoryRead ?? true,
    scopes,
    ttlMs: skills.ttlMs === undefined ? undefined : integer(skills.ttlMs, 'skills.ttlMs', 0, 0),
  };
}
