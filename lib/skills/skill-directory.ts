/**
 * Reads a directory of skills once, at startup: every directory below it that holds a `SKILL.md`
 * is a skill, and every file below that directory (nested skills' included, names starting with
 * a dot left out) is one of its files. A symbolic link must stay inside the directory; a skill
 * over the limits is refused before its files are read.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { SKILL_FILE, SKILL_LIMITS } from '../protocol/skills/skill-entry';
import { fail } from '../shared/option-checks';
import { parseFrontmatter } from './skill-frontmatter';
import type { JSONObject } from '../protocol/messages/json-rpc';

/** One skill found in the directory: its path, frontmatter and files. */
export interface DirectorySkill {
  readonly path: string;
  readonly frontmatter: JSONObject;
  readonly files: ReadonlyMap<string, Uint8Array>;
}

interface FoundFile {
  /** Relative to the root, `/`-separated. */
  readonly path: string;
  readonly absolute: string;
  readonly size: number;
}

const OPTION = 'skills.directory';

/** The files below `root`, links followed while they stay inside it (and lead into no loop). */
function walk(root: string): FoundFile[] {
  const realRoot = realpathSync(root);
  const found: FoundFile[] = [];
  /** `ancestors`: the real paths of the directories on the way down, where a link would loop. */
  const visit = (directory: string, relative: string, ancestors: ReadonlySet<string>): void => {
    for (const name of readdirSync(directory).sort()) {
      if (name.startsWith('.')) {
        continue;
      }
      const absolute = join(directory, name);
      const path = relative === '' ? name : `${relative}/${name}`;
      let stats = lstatSync(absolute);
      if (stats.isSymbolicLink()) {
        const real = realpathSync(absolute);
        if (!real.startsWith(realRoot + sep)) {
          fail(OPTION, `${path} is a symbolic link that leaves ${root}`);
        }
        stats = statSync(absolute);
        if (stats.isDirectory() && ancestors.has(real)) {
          fail(OPTION, `${path} is a symbolic link to a directory that holds it (a loop)`);
        }
      }
      if (stats.isDirectory()) {
        visit(absolute, path, new Set([...ancestors, realpathSync(absolute)]));
      } else if (stats.isFile()) {
        found.push({ path, absolute, size: stats.size });
      }
    }
  };
  visit(realRoot, '', new Set([realRoot]));
  return found;
}

/**
 * The skills of `root`, sorted by path.
 *
 * @throws McpConfigurationError naming `skills.directory` and the skill, for a `SKILL.md` without
 * frontmatter, a skill over the limits, or a link that leaves the directory
 */
export function readSkillDirectory(root: string): DirectorySkill[] {
  const files = walk(root);
  const skillPaths = files
    .filter((file) => file.path === SKILL_FILE || file.path.endsWith(`/${SKILL_FILE}`))
    .map((file) => file.path.slice(0, -SKILL_FILE.length - 1));
  if (skillPaths.includes('')) {
    fail(OPTION, `${root} holds a ${SKILL_FILE} at its root: put each skill in a directory of its own, named after it`);
  }
  return skillPaths.map((skillPath) => {
    const own = files.filter((file) => file.path.startsWith(`${skillPath}/`));
    const bytes = own.reduce((total, file) => total + file.size, 0);
    if (own.length > SKILL_LIMITS.files || bytes > SKILL_LIMITS.bytes) {
      fail(
        OPTION,
        `skill "${skillPath}" holds ${own.length} files and ${bytes} bytes; every host accepts up to ` +
          `${SKILL_LIMITS.files} files and ${SKILL_LIMITS.bytes} bytes (16 MiB)`,
      );
    }
    const contents = new Map<string, Uint8Array>(
      own.map((file) => [file.path.slice(skillPath.length + 1), readFileSync(file.absolute)]),
    );
    const parsed = parseFrontmatter(Buffer.from(contents.get(SKILL_FILE)!).toString('utf8'));
    if ('problem' in parsed) {
      fail(OPTION, `skill "${skillPath}": its ${SKILL_FILE} ${parsed.problem}`);
    }
    return { path: skillPath, frontmatter: parsed.frontmatter, files: contents };
  });
}
