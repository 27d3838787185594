/**
 * Skills (`io.modelcontextprotocol/skills`, SEP-2640): agent skills (a `SKILL.md` and its files)
 * served as resources, listed with `skills/list`, fetched with `skills/get`.
 *
 * @publicApi
 */
export interface McpSkillOptions {
  /**
   * A directory of skills: each directory below it that holds a `SKILL.md` is a skill, served at
   * `skill://<its path below the directory>/<file path>`; its name (the frontmatter `name`) must
   * be its directory's name. Every file of a skill is served, names starting with a dot aside.
   * Read once, at startup (digests computed then, files kept in memory); resolved from
   * `process.cwd()` unless absolute. Without it, skills come from `@McpSkill` providers only.
   * @example { directory: join(__dirname, 'skills') }
   */
  directory?: string;
  /**
   * Whether `resources/directory/read` is served (and `directoryRead: true` declared), which
   * lists the direct children of a skill's directory.
   * @default true
   */
  directoryRead?: boolean;
  /**
   * Scopes a caller must all hold to see a skill, by skill path (`notes-workflow`,
   * `acme/billing/refunds`): without them the skill is left out of `skills/list` and
   * `resources/list`, and `skills/get`, `resources/read` and `resources/directory/read` answer
   * as for a skill that does not exist. A path no skill has stops the application at startup.
   * @example { scopes: { 'billing-refunds': ['billing:read'] } }
   */
  scopes?: Record<string, string[]>;
  /**
   * 2026-07-28: the `ttlMs` of `skills/list`, `skills/get`, `resources/directory/read` and of the
   * reads of skill files; the server's `cacheHints.ttlMs` when absent.
   */
  ttlMs?: number;
}

/**
 * Options of `@McpSkill()`.
 *
 * @publicApi
 */
export interface McpSkillDecoratorOptions {
  /**
   * The skill's path in the namespace, its name last (`acme/notes-audit`); the frontmatter `name`
   * of its `SKILL.md` when absent.
   */
  path?: string;
  /**
   * Scopes a caller must all hold to see the skill, added to those of `skills.scopes` for its
   * path and of `@McpScopes` on the method and its class.
   */
  scopes?: string[];
}

/**
 * The files of a skill from a provider, by their path relative to the skill's root: `SKILL.md`
 * (with its frontmatter) and any supporting file, as text (UTF-8) or bytes.
 *
 * @publicApi
 */
export type McpSkillFiles = Record<string, string | Uint8Array>;
