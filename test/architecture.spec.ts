/**
 * The layer rules of docs/ARCHITECTURE (README, Layout) that a compiler does not check:
 * - no import cycle anywhere in lib/ (type-only imports and re-exports count: a cycle of types
 *   still ties the files together);
 * - no import cycle between the folders of lib/ either: each file belongs to its own folder
 *   (`lib/transports/http`, `lib/transports/http/sse`, `lib/` for the root files), every import
 *   from one folder into another is an edge, and the graph of folders has no cycle. A nested
 *   folder is a folder of its own: a parent may import its child, but then the child may not
 *   import its parent (that would close a cycle), the same as for any two folders;
 * - lib/protocol imports nothing outside itself but node built-ins: it is the framework-free core;
 * - lib/testing (the `nest-mcp/testing` entry) uses the library as an application does: its own
 *   files, the public API (lib/index.ts), node built-ins and the Nest peers, nothing internal.
 *
 * The imports are read with the TypeScript compiler's own scanner, so every form counts
 * (`import`, `import type`, `export ... from`, `require`, `import()`).
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

const ROOT = resolve(__dirname, '..');
const LIB = join(ROOT, 'lib');
const PROTOCOL = join(LIB, 'protocol');
const TESTING = join(LIB, 'testing');
/**
 * The packages lib/testing may import besides node built-ins: the peers an application has, and
 * nest-mcp itself (the root entry's types, named as an application names them).
 */
const TESTING_PACKAGES = ['@nestjs/common', '@nestjs/core', 'nest-mcp'];

/**
 * Cycles outside lib/protocol that other work removes: each is the sorted list of its files
 * (relative to the repository). MUST BE EMPTY: it exists only while those changes are in
 * flight, and is emptied when they are merged. Never add a cycle of lib/protocol here.
 */
const KNOWN_CYCLES_OUTSIDE_PROTOCOL: ReadonlyArray<readonly string[]> = [];

/**
 * Folder cycles that the moves of issue 37 remove, each the sorted list of its folders. MUST END
 * EMPTY, like the list above.
 */
const KNOWN_FOLDER_CYCLES: ReadonlyArray<readonly string[]> = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      return sourceFiles(path);
    }
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const isSpec = (file: string): boolean => /\.(spec|e2e-spec)\.ts$/.test(file);
const rel = (file: string): string => relative(ROOT, file).split(sep).join('/');

/** The module specifiers `file` imports or re-exports, types included. */
function specifiersOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((imported) => imported.fileName);
}

/** The file a relative specifier of `from` names, or `undefined` when it names none in the tree. */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, join(base, 'index.ts'), base].find(
    (candidate) => candidate.endsWith('.ts') && existsSync(candidate),
  );
}

const LIB_FILES = sourceFiles(LIB).filter((file) => !isSpec(file));

/** The import graph of lib/ (specs left out: nothing imports them). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of LIB_FILES) {
    const targets = specifiersOf(file)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolveRelative(file, specifier))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The graph of the folders of lib/: an edge for every import from a file of one folder into another. */
function folderGraph(files: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = dirname(file);
    const edges = folders.get(from) ?? new Set<string>();
    folders.set(from, edges);
    for (const target of targets) {
      if (dirname(target) !== from) {
        edges.add(dirname(target));
      }
    }
  }
  return new Map([...folders].map(([folder, edges]) => [folder, [...edges].sort()]));
}

/** The strongly connected components of more than one file, or of one that imports itself (Tarjan). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) {
        components.push(component);
      }
    }
  };
  for (const node of graph.keys()) {
    if (!index.has(node)) {
      visit(node);
    }
  }
  return components;
}

/** One cycle through the files of a component, as `a -> b -> ... -> a`, to show where it closes. */
function describeCycle(graph: Map<string, string[]>, component: readonly string[]): string {
  const members = new Set(component);
  const start = [...component].sort()[0];
  // Breadth-first from `start` back to itself, inside the component: the shortest loop.
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) {
        continue;
      }
      if (next === start) {
        const path = [node];
        while (path[0] !== start) {
          path.unshift(previous.get(path[0])!);
        }
        return [...path, start].map(rel).join(' -> ');
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return component.map(rel).join(', ');
}

const keyOf = (files: readonly string[]): string => [...files].sort().join(' | ');

describe('architecture', () => {
  const graph = importGraph();

  it('reads every import form, type-only imports and re-exports included', () => {
    const found = ts.preProcessFile(
      "import type { A } from './a';\nexport { B } from './b';\nexport type { C } from './c';\nimport './d';",
      true,
      true,
    );
    expect(found.importedFiles.map((file) => file.fileName)).toEqual(['./a', './b', './c', './d']);
  });

  it('has no import cycle in lib/ beyond the known ones being removed', () => {
    const known = new Set(KNOWN_CYCLES_OUTSIDE_PROTOCOL.map(keyOf));
    const unknown = cyclesOf(graph)
      .filter((component) => !known.has(keyOf(component.map(rel))))
      .map((component) => describeCycle(graph, component));
    expect(unknown).toEqual([]);
  });

  it('has no import cycle between the folders of lib/ beyond the known ones being removed', () => {
    const folders = folderGraph(graph);
    const known = new Set(KNOWN_FOLDER_CYCLES.map(keyOf));
    const unknown = cyclesOf(folders)
      .filter((component) => !known.has(keyOf(component.map(rel))))
      .map((component) => describeCycle(folders, component));
    expect(unknown).toEqual([]);
  });

  it('lists only folder cycles that still exist (the known list shrinks to empty)', () => {
    const found = new Set(cyclesOf(folderGraph(graph)).map((component) => keyOf(component.map(rel))));
    expect(KNOWN_FOLDER_CYCLES.map(keyOf).filter((key) => !found.has(key))).toEqual([]);
  });

  it('allows no cycle of lib/protocol in the known list (which must end empty)', () => {
    const protocolCycles = KNOWN_CYCLES_OUTSIDE_PROTOCOL.filter((cycle) =>
      cycle.some((file) => file.startsWith('lib/protocol/')),
    );
    expect(protocolCycles).toEqual([]);
  });

  it('keeps lib/protocol closed: no import leaves it but node built-ins', () => {
    const leaks: string[] = [];
    for (const file of sourceFiles(PROTOCOL)) {
      for (const specifier of specifiersOf(file)) {
        if (specifier.startsWith('node:')) {
          continue;
        }
        const target = specifier.startsWith('.') ? resolve(dirname(file), specifier) : undefined;
        if (target === undefined || !(target + sep).startsWith(PROTOCOL + sep)) {
          leaks.push(`${rel(file)} imports '${specifier}'`);
        }
      }
    }
    expect(leaks).toEqual([]);
  });

  it('keeps lib/testing on the public API: lib/index.ts or nest-mcp, its own files, node built-ins, the Nest peers (and the in-memory socket)', () => {
    const leaks: string[] = [];
    for (const file of sourceFiles(TESTING).filter((path) => !isSpec(path))) {
      for (const specifier of specifiersOf(file)) {
        if (specifier.startsWith('node:') || TESTING_PACKAGES.includes(specifier)) {
          continue;
        }
        const target = specifier.startsWith('.') ? resolveRelative(file, specifier) : undefined;
        const own = target !== undefined && dirname(target) === TESTING;
        // The in-memory socket (node built-ins only) is the one internal file it shares, with route tools.
        if (!own && target !== join(LIB, 'index.ts') && target !== join(LIB, 'shared', 'memory-connection.ts')) {
          leaks.push(`${rel(file)} imports '${specifier}'`);
        }
      }
    }
    expect(leaks).toEqual([]);
  });
});
