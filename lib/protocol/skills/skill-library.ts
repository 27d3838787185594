/**
 * The skills a server serves, and every lookup the Skills methods make on them: a skill by the
 * URI of its `SKILL.md`, a file by its URI, a directory by its URI with its direct children.
 * Filled at startup (from a directory, from providers), read by the engine through
 * `SkillCatalog`. A file or a directory can belong to several skills when skills nest.
 */
import type { JSONObject } from '../messages/json-rpc';
import {
  DIRECTORY_MIME_TYPE,
  serveSkill,
  skillProblem,
  type ServedSkill,
  type ServedSkillFile,
  type SkillDefinition,
} from './skill-entry';

/** A file and the skills that hold it. */
export interface SkillFileMatch {
  readonly file: ServedSkillFile;
  readonly skills: readonly ServedSkill[];
}

/** A directory: its direct children (as `Resource`s, sorted by URI) and the skills that hold it. */
export interface SkillDirectoryMatch {
  readonly children: readonly JSONObject[];
  readonly skills: readonly ServedSkill[];
}

/** What the engine reads of the skills. */
export interface SkillCatalog {
  /** Whether `resources/directory/read` is served. */
  readonly directoryRead: boolean;
  /** Modern era: the `ttlMs` of the Skills results and of skill file reads; the server's default when absent. */
  readonly ttlMs?: number;
  /** Every skill, sorted by URI. */
  list(): readonly ServedSkill[];
  /** The skill whose `SKILL.md` is at `uri`. */
  skill(uri: string): ServedSkill | undefined;
  /** The file at `uri`. */
  file(uri: string): SkillFileMatch | undefined;
  /** The directory at `uri` (a skill's root or one of its subdirectories). */
  directory(uri: string): SkillDirectoryMatch | undefined;
}

interface DirectoryNode {
  readonly children: Map<string, JSONObject>;
  readonly skills: ServedSkill[];
  sorted?: readonly JSONObject[];
}

function byUri(a: { uri: string }, b: { uri: string }): number {
  return a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;
}

/** The skills of one server: `add` at startup, then read. */
export class SkillLibrary implements SkillCatalog {
  private readonly skills = new Map<string, ServedSkill>();
  private readonly files = new Map<string, { file: ServedSkillFile; skills: ServedSkill[] }>();
  private readonly directories = new Map<string, DirectoryNode>();
  private sorted: readonly ServedSkill[] | undefined;

  constructor(
    readonly directoryRead: boolean,
    readonly ttlMs?: number,
  ) {}

  /** How many skills are served. */
  get size(): number {
    return this.skills.size;
  }

  /**
   * Adds a skill; returns what is wrong with it instead when it breaks a rule of the extension
   * (its name, its frontmatter, its files, the limits) or is served already.
   */
  add(definition: SkillDefinition): string | undefined {
    const problem = skillProblem(definition);
    if (problem !== undefined) {
      return problem;
    }
    const skill = serveSkill(definition);
    if (this.skills.has(skill.uri)) {
      return `a skill is served at ${skill.uri} already`;
    }
    this.skills.set(skill.uri, skill);
    this.sorted = undefined;
    for (const file of skill.files) {
      const known = this.files.get(file.uri);
      if (known === undefined) {
        this.files.set(file.uri, { file, skills: [skill] });
      } else {
        known.skills.push(skill);
      }
      this.index(skill, file);
    }
    this.node(skill.rootUri, skill);
    return undefined;
  }

  list(): readonly ServedSkill[] {
    return (this.sorted ??= Object.freeze([...this.skills.values()].sort(byUri)));
  }

  skill(uri: string): ServedSkill | undefined {
    return this.skills.get(uri);
  }

  file(uri: string): SkillFileMatch | undefined {
    return this.files.get(uri);
  }

  directory(uri: string): SkillDirectoryMatch | undefined {
    const node = this.directories.get(uri);
    if (node === undefined) {
      return undefined;
    }
    node.sorted ??= Object.freeze(
      [...node.children.values()].sort((a, b) => byUri(a as { uri: string }, b as { uri: string })),
    );
    return { children: node.sorted, skills: node.skills };
  }

  /** Puts `file` and the directories above it (up to the skill's root) in the tree. */
  private index(skill: ServedSkill, file: ServedSkillFile): void {
    const segments = file.path.split('/');
    let directoryUri = skill.rootUri;
    for (const [depth, segment] of segments.entries()) {
      const node = this.node(directoryUri, skill);
      const childUri = `${directoryUri}/${encodeURIComponent(segment)}`;
      const isFile = depth === segments.length - 1;
      if (!node.children.has(childUri)) {
        node.children.set(
          childUri,
          isFile
            ? { uri: childUri, name: segment, mimeType: file.mimeType, size: file.size }
            : { uri: childUri, name: segment, mimeType: DIRECTORY_MIME_TYPE },
        );
        node.sorted = undefined;
      }
      directoryUri = childUri;
    }
  }

  private node(uri: string, skill: ServedSkill): DirectoryNode {
    let node = this.directories.get(uri);
    if (node === undefined) {
      node = { children: new Map(), skills: [] };
      this.directories.set(uri, node);
    }
    if (!node.skills.includes(skill)) {
      node.skills.push(skill);
    }
    return node;
  }
}
