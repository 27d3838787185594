/**
 * The documents the docs checks read (snippet type-check, link check): README.md, CONTRIBUTING.md,
 * bench/README.md and every Markdown page under docs/, as paths from the repository root with
 * `/` separators, in a stable order. A document that does not exist (yet) is left out.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The documents at fixed places; docs/**\/*.md come after them. */
export const TOP_DOCUMENTS = ['README.md', 'CONTRIBUTING.md', 'bench/README.md'] as const;

/** Every `.md` file under `dir` (a path from `root`), recursively, sorted. */
function markdownUnder(root: string, dir: string): string[] {
  if (!existsSync(join(root, dir))) {
    return [];
  }
  return readdirSync(join(root, dir), { withFileTypes: true })
    .flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        return markdownUnder(root, path);
      }
      return entry.isFile() && entry.name.endsWith('.md') ? [path] : [];
    })
    .sort();
}

/** The documents of the repository at `root` that exist. */
export function docPages(root: string): string[] {
  return [...TOP_DOCUMENTS.filter((page) => existsSync(join(root, page))), ...markdownUnder(root, 'docs')];
}
