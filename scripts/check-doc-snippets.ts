/**
 * Type-checks every TypeScript block (```ts, ```typescript) of the docs against the package, as
 * a user who pastes it would compile it:
 *
 *   npm run docs:check                 (README.md, CONTRIBUTING.md, bench/README.md, docs/**\/*.md)
 *   npm run docs:check -- a.md b.md    (those pages only)
 *
 * The blocks of one page form one small project: a block right after a line
 * `<!-- file: src/notes.service.ts -->` is that file (so that later blocks import it as
 * `./notes.service`); any other block is a file of its own. Every page's files live under a
 * directory of their own inside the repository (virtual: nothing is written to disk), so that
 * they resolve the repository's devDependencies as an app resolves its own.
 *
 * `nest-mcp` (and every other entry of package.json `exports`) resolves to the package's source
 * entry, `lib/index.ts` for `dist/index.d.ts`: a snippet sees what a consumer imports, and a deep
 * import (`nest-mcp/dist/...`) does not resolve, as the exports map refuses it. The compiler
 * options are those of a consumer's CommonJS app (test/consumers/*\/cjs): strict, decorators
 * with metadata, `node` module resolution (the SDK's subpaths `@modelcontextprotocol/sdk/...js`
 * and `@modelcontextprotocol/client` resolve through their `typesVersions`), and every file a
 * module of its own (`moduleDetection: force`).
 *
 * All pages are checked by one TypeScript program (one compiler run). Errors are reported at
 * the Markdown line of the page: `docs/guides/x.md:42:7 TS2304: Cannot find name 'Foo'.`; only
 * the snippets' own diagnostics count (the package's source is checked by the repository's
 * own tsconfig).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import * as ts from 'typescript';
import { docPages } from './doc-pages';

const ROOT = resolve(__dirname, '..');
/** Where the pages' files seem to live: inside the repository, so node_modules resolves; never on disk. */
const VIRTUAL_DIR = '.doc-snippets';

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const FILE_MARKER = /^\s*<!--\s*file:\s*(\S+)\s*-->\s*$/;

/** One TypeScript block of a page. */
export interface Snippet {
  /** The page, from the repository root (`docs/guides/x.md`). */
  readonly page: string;
  /** The 1-based Markdown line of the block's first line of code (the line after the fence). */
  readonly line: number;
  /** Its path in the page's project: the marker's path, or `snippet-<line>.ts`. */
  readonly file: string;
  /** Whether a `<!-- file: ... -->` marker named it. */
  readonly named: boolean;
  readonly code: string;
}

/** A problem found: where (page and Markdown line) and what. */
export interface SnippetProblem {
  readonly page: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** The ```ts / ```typescript blocks of `markdown` (a page at `page`), in order. */
export function extractSnippets(page: string, markdown: string): Snippet[] {
  const lines = markdown.split(/\r?\n/);
  const snippets: Snippet[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = FENCE.exec(lines[index]);
    if (opening === null) {
      continue;
    }
    const [, indent, fence, info] = opening;
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length; end++) {
      const closing = /^(\s*)(`{3,}|~{3,})\s*$/.exec(lines[end]);
      if (closing !== null && closing[2][0] === fence[0] && closing[2].length >= fence.length) {
        break;
      }
      // As CommonMark does: the fence's indentation is taken off each line of the block.
      body.push(lines[end].replace(new RegExp(`^ {0,${indent.length}}`), ''));
    }
    if (['ts', 'typescript'].includes(info.toLowerCase())) {
      let before = index - 1;
      while (before >= 0 && lines[before].trim() === '') {
        before--;
      }
      const marker = before >= 0 ? FILE_MARKER.exec(lines[before]) : null;
      snippets.push({
        page,
        line: index + 2,
        file: marker !== null ? posix.normalize(marker[1]) : `snippet-${index + 2}.ts`,
        named: marker !== null,
        code: body.join('\n') + '\n',
      });
    }
    index = end;
  }
  return snippets;
}

/** `nest-mcp` and its other entry points (package.json `exports`), each to its source under lib/. */
export function packagePaths(root: string = ROOT): Record<string, string[]> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports?: Record<string, { types?: string } | string>;
  };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(manifest.exports ?? { '.': { types: './dist/index.d.ts' } })) {
    const types = typeof target === 'string' ? undefined : target.types;
    if (types === undefined || !/^\.\/dist\/.+\.d\.ts$/.test(types)) {
      continue;
    }
    const source = join(root, 'lib', types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts'));
    paths[subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`] = [source];
  }
  return paths;
}

/** The compiler options of a consumer's CommonJS Nest app, with `nest-mcp` mapped to its source. */
export function snippetCompilerOptions(root: string = ROOT): ts.CompilerOptions {
  return {
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    moduleDetection: ts.ModuleDetectionKind.Force,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: ['node'],
    strict: true,
    esModuleInterop: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    skipLibCheck: true,
    noEmit: true,
    paths: packagePaths(root),
  };
}

/** Where a page's file seems to live (absolute, virtual). */
function virtualPath(root: string, snippet: Pick<Snippet, 'page' | 'file'>): string {
  return join(root, VIRTUAL_DIR, snippet.page, snippet.file);
}

/** Problems of the page layout itself: a marked path outside its page's project, or named twice. */
function layoutProblems(snippets: readonly Snippet[]): SnippetProblem[] {
  const problems: SnippetProblem[] = [];
  const seen = new Map<string, Snippet>();
  for (const snippet of snippets) {
    const at = { page: snippet.page, line: snippet.line - 1, column: 1 };
    if (snippet.named && (snippet.file.startsWith('../') || posix.isAbsolute(snippet.file))) {
      problems.push({ ...at, message: `the file ${snippet.file} is outside the page's project` });
    } else if (snippet.named && !/\.tsx?$/.test(snippet.file)) {
      problems.push({ ...at, message: `the file ${snippet.file} of a TypeScript block must end in .ts` });
    }
    const key = `${snippet.page}\n${snippet.file}`;
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push({ ...at, message: `the file ${snippet.file} is already the block at line ${first.line - 1}` });
    } else {
      seen.set(key, snippet);
    }
  }
  return problems;
}

export interface SnippetCheck {
  readonly snippets: readonly Snippet[];
  readonly problems: readonly SnippetProblem[];
}

/**
 * Type-checks the snippets of `pages` (paths from `root`) in one program; `read` gives a page's
 * text (by default, the file).
 */
export function checkSnippets(
  pages: readonly string[],
  root: string = ROOT,
  read: (page: string) => string = (page) => readFileSync(join(root, page), 'utf8'),
): SnippetCheck {
  const snippets = pages.flatMap((page) => extractSnippets(page, read(page)));
  const problems = layoutProblems(snippets);
  const byPath = new Map<string, Snippet>();
  for (const snippet of snippets) {
    if (!byPath.has(virtualPath(root, snippet))) {
      byPath.set(virtualPath(root, snippet), snippet);
    }
  }
  const directories = new Set<string>();
  for (const path of byPath.keys()) {
    for (let dir = dirname(path); dir.startsWith(join(root, VIRTUAL_DIR)); dir = dirname(dir)) {
      directories.add(dir);
    }
  }

  const options = snippetCompilerOptions(root);
  const host = ts.createCompilerHost(options, true);
  // The real host's own methods, bound, for every path outside the pages' projects.
  const real = {
    fileExists: host.fileExists.bind(host),
    readFile: host.readFile.bind(host),
    directoryExists: host.directoryExists?.bind(host) ?? ((path: string) => ts.sys.directoryExists(path)),
    getSourceFile: host.getSourceFile.bind(host),
  };
  host.fileExists = (path) => byPath.has(path) || real.fileExists(path);
  host.readFile = (path) => byPath.get(path)?.code ?? real.readFile(path);
  host.directoryExists = (path) => directories.has(path) || real.directoryExists(path);
  host.getSourceFile = (path, languageVersion, onError, shouldCreate) => {
    const snippet = byPath.get(path);
    return snippet !== undefined
      ? ts.createSourceFile(path, snippet.code, languageVersion, true)
      : real.getSourceFile(path, languageVersion, onError, shouldCreate);
  };
  const program = ts.createProgram({ rootNames: [...byPath.keys()], options, host });

  const at = (diagnostic: ts.Diagnostic): SnippetProblem => {
    const message = `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    const snippet = diagnostic.file === undefined ? undefined : byPath.get(diagnostic.file.fileName);
    if (snippet === undefined || diagnostic.file === undefined || diagnostic.start === undefined) {
      return {
        page: snippet?.page ?? '(compiler)',
        line: snippet === undefined ? 0 : snippet.line,
        column: 1,
        message,
      };
    }
    const position = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return { page: snippet.page, line: snippet.line + position.line, column: position.character + 1, message };
  };
  problems.push(...program.getOptionsDiagnostics().map(at), ...program.getGlobalDiagnostics().map(at));
  for (const path of byPath.keys()) {
    const file = program.getSourceFile(path)!;
    problems.push(...program.getSyntacticDiagnostics(file).map(at), ...program.getSemanticDiagnostics(file).map(at));
  }
  problems.sort((a, b) => a.page.localeCompare(b.page) || a.line - b.line || a.column - b.column);
  return { snippets, problems };
}

/** `page:line:column message`, one line each. */
export function formatProblems(problems: readonly SnippetProblem[]): string[] {
  return problems.map(({ page, line, column, message }) => `${page}:${line}:${column} ${message}`);
}

if (require.main === module) {
  const started = Date.now();
  const pages = process.argv.length > 2 ? process.argv.slice(2) : docPages(ROOT);
  const { snippets, problems } = checkSnippets(pages);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  for (const line of formatProblems(problems)) {
    process.stderr.write(`${line}\n`);
  }
  process.stdout.write(
    `${snippets.length} TypeScript blocks in ${pages.length} pages: ${problems.length} problem(s) (${seconds} s)\n`,
  );
  process.exitCode = problems.length === 0 ? 0 : 1;
}
