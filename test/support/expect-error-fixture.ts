/**
 * Type tests by the TypeScript compiler: a fixture whose wrong uses each carry `@ts-expect-error`
 * compiles cleanly, and without the directives fails exactly on the lines they marked. The specs
 * of the `types` tier check typed APIs with it (`@McpTypedTool`, the testing kit's typed calls),
 * since Jest's swc strips types.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const DIRECTIVE = /^\s*\/\/ @ts-expect-error\b/;

/** The compiler options of the project (tsconfig.json), without emitting anything. */
function projectOptions(): ts.CompilerOptions {
  const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  return { ...ts.parseJsonConfigFileContent(config, ts.sys, ROOT).options, noEmit: true };
}

/**
 * Type-checks `fixture`, its text replaced by `text` when given: the program's own diagnostics and
 * the fixture's. Only the fixture's: the library it imports is checked by `npm run lint`, and
 * checking its files again here tripled each spec's time.
 */
function check(fixture: string, options: ts.CompilerOptions, text?: string, oldProgram?: ts.Program) {
  const host = ts.createCompilerHost(options);
  if (text !== undefined) {
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, language, ...rest) =>
      fileName === fixture ? ts.createSourceFile(fileName, text, language) : getSourceFile(fileName, language, ...rest);
  }
  const program = ts.createProgram({ rootNames: [fixture], options, host, oldProgram });
  const file = program.getSourceFile(fixture)!;
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(file),
    ...program.getSemanticDiagnostics(file),
  ];
  return { program, diagnostics };
}

function describeDiagnostic(diagnostic: ts.Diagnostic): string {
  const where =
    diagnostic.file && diagnostic.start !== undefined
      ? `${diagnostic.file.fileName}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1}`
      : '(no file)';
  return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
}

/** A fixture of wrong uses marked `@ts-expect-error`. */
export interface ExpectErrorFixture {
  /** The fixture's lines. */
  readonly lines: string[];
  /** The (0-based) lines that hold a directive. */
  readonly directiveLines: number[];
  /**
   * Compiles it twice: the diagnostics with the directives (none when every wrong use fails),
   * and the (0-based) lines that fail without them, sorted.
   */
  check(): { withDirectives: string[]; failingWithout: number[] };
}

/** The fixture at `path`. */
export function expectErrorFixture(path: string): ExpectErrorFixture {
  const lines = readFileSync(path, 'utf8').split('\n');
  const directiveLines = lines.flatMap((line, index) => (DIRECTIVE.test(line) ? [index] : []));
  return {
    lines,
    directiveLines,
    check() {
      const options = projectOptions();
      const checked = check(path, options);
      const stripped = lines.map((line) => (DIRECTIVE.test(line) ? '' : line)).join('\n');
      const { diagnostics } = check(path, options, stripped, checked.program);
      // A diagnostic outside the fixture (or with no place) counts as a line that should not fail.
      const failing = new Set(
        diagnostics.map((diagnostic) =>
          diagnostic.file?.fileName === path
            ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start!).line
            : -1,
        ),
      );
      return {
        withDirectives: checked.diagnostics.map(describeDiagnostic),
        failingWithout: [...failing].sort((a, b) => a - b),
      };
    },
  };
}
