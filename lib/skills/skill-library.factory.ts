/**
 * A server's skills at startup: the library the engine reads, filled from `skills.directory`
 * here and from `@McpSkill` providers by `McpSkillExplorer`.
 */
import { SkillLibrary } from '../protocol/skills/skill-library';
import { fail } from '../shared/option-checks';
import type { JSONObject } from '../protocol/messages/json-rpc';
import { readSkillDirectory } from './skill-directory';
import type { SkillSettings } from './skill-settings';

/** One skill to add, from the directory or a provider. */
export interface SkillSource {
  readonly path: string;
  readonly frontmatter: JSONObject;
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** Scopes of its own (a provider's), on top of `skills.scopes`. */
  readonly scopes?: readonly string[];
}

/**
 * Adds a skill to `library` with the scopes `settings` give its path; returns what is wrong with
 * it instead when it breaks a rule of the extension.
 */
export function addSkill(library: SkillLibrary, settings: SkillSettings, source: SkillSource): string | undefined {
  const scopes = [...new Set([...(settings.scopes.get(source.path) ?? []), ...(source.scopes ?? [])])];
  const problem = library.add({ ...source, scopes });
  return problem === undefined ? undefined : `skill "${source.path}": ${problem}`;
}

/** The library of a server with skills, the directory's added; `null` without `skills`. */
export function createSkillLibrary(settings: SkillSettings | undefined): SkillLibrary | null {
  if (settings === undefined) {
    return null;
  }
  const library = new SkillLibrary(settings.directoryRead, settings.ttlMs);
  if (settings.directory !== undefined) {
    for (const skill of readSkillDirectory(settings.directory)) {
      const problem = addSkill(library, settings, skill);
      if (problem !== undefined) {
        fail('skills.directory', problem);
      }
    }
  }
  return library;
}

/**
 * Stops the application when `skills.scopes` names a path no skill has (a typo would leave a
 * skill open to everyone).
 */
export function checkScopedPaths(library: SkillLibrary, settings: SkillSettings): void {
  const paths = new Set(library.list().map((skill) => skill.path));
  for (const path of settings.scopes.keys()) {
    if (!paths.has(path)) {
      fail(`skills.scopes.${path}`, `no skill is served at the path "${path}"`);
    }
  }
}
