/**
 * The options of `McpModule.forRoot()` as the code declares them, for the docs defaults check:
 * every property of `McpModuleOptions` and `McpModuleExtras` (lib/interfaces), by its full dotted
 * name (`http.maxBodyBytes`, `auth.bearer.jwt.clockToleranceSec`), with the text of its
 * `@default` TSDoc tag when it has one.
 *
 * A name is a path of properties: the walk enters a property's type when it is an interface or
 * an object type of lib/ (each member of a union: `telemetry?: McpTelemetryOptions | false`
 * gives `telemetry.tracerProvider`...), and a record of those, whose entries' options are named
 * with `*` (`auth.basic.users.*.id`); it stops at classes, functions, arrays and types of other
 * packages, whose members are not options of their own.
 *
 * Also the docs side: the option rows of a Markdown page (its tables whose first header cell is
 * `Option`), and the rule both are compared by.
 */
import { relative, resolve } from 'node:path';
import * as ts from 'typescript';

const ROOT = resolve(__dirname, '..', '..');
/** The options' roots: `forRoot(options)` takes both (the extras shape the module graph). */
const ROOTS = [
  { file: 'lib/interfaces/mcp-module-options.interface.ts', name: 'McpModuleOptions' },
  { file: 'lib/interfaces/mcp-module-extras.interface.ts', name: 'McpModuleExtras' },
] as const;
/** Deeper than any option (`auth.bearer.jwt.jwks.keys` is 4): a guard against a cycle. */
const MAX_DEPTH = 6;

/** One option as the code declares it. */
export interface DeclaredOption {
  readonly name: string;
  /** The `@default` tag's text, as written (several lines joined), or undefined. */
  readonly default: string | undefined;
  /** Where it is declared: `lib/...ts:line`. */
  readonly at: string;
}

function tagText(tag: ts.JSDocTag): string {
  return (ts.getTextOfJSDocComment(tag.comment) ?? '').replace(/\s+/g, ' ').trim();
}

/** Whether the walk enters `type`: an object type of lib/ that is no class, function or array. */
function isOptionGroup(checker: ts.TypeChecker, type: ts.Type, root: string): boolean {
  if ((type.flags & ts.TypeFlags.Object) === 0 || checker.isArrayType(type) || checker.isTupleType(type)) {
    return false;
  }
  if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) {
    return false;
  }
  if (checker.getIndexInfosOfType(type).length > 0) {
    return false;
  }
  const declarations = (type.aliasSymbol ?? type.getSymbol())?.getDeclarations() ?? [];
  return (
    declarations.length > 0 &&
    declarations.every(
      (declaration) =>
        (ts.isInterfaceDeclaration(declaration) || ts.isTypeLiteralNode(declaration)) &&
        !relative(resolve(root, 'lib'), declaration.getSourceFile().fileName).startsWith('..'),
    )
  );
}

/**
 * Every option of `McpModule.forRoot()`, in the order the walk meets them. One declaration may
 * have several names (an interface used in two places: `auth.bearer.tokens.*.scopes` and
 * `auth.apiKey.keys.*.scopes`), and one name several declarations (`name` is in both roots).
 */
export function declaredOptions(root: string = ROOT): DeclaredOption[] {
  const files = ROOTS.map(({ file }) => resolve(root, file));
  const program = ts.createProgram(files, {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    types: ['node'],
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const options: DeclaredOption[] = [];
  const seen = new Set<string>();

  const enter = (type: ts.Type, name: string, depth: number): void => {
    for (const member of type.isUnion() ? type.types : [type]) {
      if (isOptionGroup(checker, member, root)) {
        walk(member, `${name}.`, depth + 1);
      } else if ((member.flags & ts.TypeFlags.Object) !== 0 && !checker.isArrayType(member)) {
        // A record (`Record<string, McpPrincipalInit>`): its entries' options, as `name.*.option`.
        const entries = checker.getIndexInfosOfType(member).find((info) => info.keyType.flags & ts.TypeFlags.String);
        if (entries !== undefined && checker.getPropertiesOfType(member).length === 0) {
          const value = checker.getNonNullableType(entries.type);
          if (isOptionGroup(checker, value, root)) {
            walk(value, `${name}.*.`, depth + 1);
          }
        }
      }
    }
  };

  const walk = (type: ts.Type, prefix: string, depth: number): void => {
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.getDeclarations()?.[0];
      if (declaration === undefined || ts.isMethodSignature(declaration)) {
        continue;
      }
      const name = `${prefix}${property.getName()}`;
      const source = declaration.getSourceFile();
      const at = `${relative(root, source.fileName)}:${source.getLineAndCharacterOfPosition(declaration.getStart()).line + 1}`;
      const tag = ts.getJSDocTags(declaration).find((candidate) => candidate.tagName.text === 'default');
      if (!seen.has(`${name} ${at}`)) {
        seen.add(`${name} ${at}`);
        options.push({ name, default: tag === undefined ? undefined : tagText(tag), at });
      }
      if (depth < MAX_DEPTH) {
        enter(checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, declaration)), name, depth);
      }
    }
  };

  for (const [index, { name }] of ROOTS.entries()) {
    const source = program.getSourceFile(files[index]);
    const declaration = source?.statements.find(
      (statement): statement is ts.InterfaceDeclaration =>
        ts.isInterfaceDeclaration(statement) && statement.name.text === name,
    );
    if (declaration === undefined) {
      throw new Error(`${ROOTS[index].file} declares no interface ${name}`);
    }
    walk(checker.getTypeAtLocation(declaration), '', 0);
  }
  return options;
}

/** Every `@default` tag written in `files` (paths from `root`), as `file:line`. */
export function defaultTagsIn(files: readonly string[], root: string = ROOT): string[] {
  const found: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, ts.sys.readFile(resolve(root, file)) ?? '', ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isPropertySignature(node) && ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'default')) {
        found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** One option row of the docs. */
export interface DocumentedOption {
  readonly name: string;
  /** The default cell as written (`—` for none). */
  readonly default: string;
  /** The 1-based line of the row. */
  readonly line: number;
}

/** The cells of a table row (`| a | b |`), split on unescaped pipes outside code spans. */
function cellsOf(row: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let ticks = 0;
  const text = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '\\' && text[index + 1] === '|') {
      cell += '|';
      index++;
    } else if (char === '`') {
      let run = 0;
      while (text[index + run] === '`') run++;
      ticks = ticks === 0 ? run : ticks === run ? 0 : ticks;
      cell += '`'.repeat(run);
      index += run - 1;
    } else if (char === '|' && ticks === 0) {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += char;
    }
  }
  cells.push(cell.trim());
  return cells;
}

/**
 * The rows of the tables of `markdown` whose first header cell is `Option`: first cell the
 * option's dotted name as a code span, second cell its default.
 */
export function documentedOptions(markdown: string): { rows: DocumentedOption[]; problems: string[] } {
  const rows: DocumentedOption[] = [];
  const problems: string[] = [];
  const lines = markdown.split(/\r?\n/);
  let inTable = false;
  lines.forEach((line, index) => {
    if (!/^\s*\|/.test(line)) {
      inTable = false;
      return;
    }
    const cells = cellsOf(line);
    const next = lines[index + 1] ?? '';
    if (/^\s*\|?\s*:?-{3,}/.test(next)) {
      // A header row: its table is an option table when it starts with `Option`.
      inTable = /^options?$/i.test(cells[0]);
      return;
    }
    if (!inTable || /^\s*\|?\s*:?-{3,}/.test(line)) {
      return;
    }
    const name = /^`([A-Za-z_$][\w$]*(?:\.(?:[A-Za-z_$][\w$]*|\*))*)`$/.exec(cells[0]);
    if (name === null || cells.length < 2) {
      problems.push(`line ${index + 1}: an option row starts with the option's name in backticks, then its default`);
      return;
    }
    rows.push({ name: name[1], default: cells[1], line: index + 1 });
  });
  return { rows, problems };
}

/**
 * The rule a documented default is compared by: the TSDoc `@default` text exactly, except for
 * backticks (a page may put the whole value in one code span, or only its code), runs of
 * spaces, and `_` digit separators (`30_000` is `30000`). `—` (or nothing) means no default.
 */
export function normalizeDefault(text: string | undefined): string {
  if (text === undefined) {
    return '—';
  }
  const plain = text
    .replace(/`/g, '')
    .replace(/(?<=\d)_(?=\d)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return plain === '' || plain === '-' ? '—' : plain;
}

/**
 * What is wrong with the option rows of `markdown` (the page `page`) against `declared`: a row
 * that names no option, or repeats another, a default that differs from the TSDoc of every
 * declaration of its name (by `normalizeDefault`), and a declaration with a `@default` that no
 * row documents under any of its names (a default is written once). Each `page:line: ...`.
 */
export function defaultProblems(page: string, markdown: string, declared: readonly DeclaredOption[]): string[] {
  const { rows, problems: layout } = documentedOptions(markdown);
  const problems = layout.map((problem) => `${page}:${problem.replace(/^line /, '')}`);
  if (rows.length === 0) {
    return [...problems, `${page}: no option table (a table whose first header cell is "Option")`];
  }
  const byName = new Map<string, DeclaredOption[]>();
  for (const option of declared) {
    byName.set(option.name, [...(byName.get(option.name) ?? []), option]);
  }
  /** The declarations some row documents (by `at`), and the rows so far (by name and default). */
  const covered = new Set<string>();
  const rowsSeen = new Map<string, number>();
  for (const row of rows) {
    const candidates = byName.get(row.name) ?? [];
    const written = normalizeDefault(row.default);
    const key = `${row.name}\n${written}`;
    const first = rowsSeen.get(key);
    if (first !== undefined) {
      problems.push(`${page}:${row.line}: \`${row.name}\` has a row already, at line ${first}`);
      continue;
    }
    rowsSeen.set(key, row.line);
    if (candidates.length === 0) {
      problems.push(`${page}:${row.line}: \`${row.name}\` is no option of McpModule.forRoot()`);
      continue;
    }
    const matching = candidates.filter((option) => normalizeDefault(option.default) === written);
    if (matching.length === 0) {
      const code = candidates.map((option) => `${normalizeDefault(option.default)} (${option.at})`).join(' or ');
      problems.push(`${page}:${row.line}: \`${row.name}\` defaults to ${code}, not ${written}`);
    }
    // A row with a wrong default is reported as such, not also as a missing row.
    (matching.length > 0 ? matching : candidates).forEach((option) => covered.add(option.at));
  }
  const reported = new Set<string>();
  for (const option of declared) {
    if (option.default !== undefined && !covered.has(option.at) && !reported.has(option.at)) {
      reported.add(option.at);
      const names = declared.filter((other) => other.at === option.at).map((other) => `\`${other.name}\``);
      problems.push(`${page}: ${names.join(' or ')} (default ${option.default}, ${option.at}) has no row`);
    }
  }
  return problems;
}
