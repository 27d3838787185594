/**
 * The `types` tier of the testing kit: the compiler over typed-calls.types.ts (the way
 * lib/decorators/mcp-typed-tool.decorator.spec.ts checks `@McpTypedTool`). The right calls
 * compile, and every call marked `@ts-expect-error` fails, on its own line only, so CI sees a
 * widened `McpTestToolArgs` even though it runs no `tsc` on test/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(__dirname, 'typed-calls.types.ts');
const DIRECTIVE = /^\s*\/\/ @ts-expect-error\b/;

/** The compiler options of the project (tsconfig.json), without emitting anything. */
function projectOptions(): ts.CompilerOptions {
  const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  return { ...ts.parseJsonConfigFileContent(config, ts.sys, ROOT).options, noEmit: true };
}

/** Type-checks the fixture, its text replaced by `text` when given. */
function check(options: ts.CompilerOptions, text?: string, oldProgram?: ts.Program) {
  const host = ts.createCompilerHost(options);
  if (text !== undefined) {
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, language, ...rest) =>
      fileName === FIXTURE ? ts.createSourceFile(fileName, text, language) : getSourceFile(fileName, language, ...rest);
  }
  const program = ts.createProgram({ rootNames: [FIXTURE], options, host, oldProgram });
  return { program, diagnostics: ts.getPreEmitDiagnostics(program) };
}

function describeDiagnostic(diagnostic: ts.Diagnostic): string {
  const where =
    diagnostic.file && diagnostic.start !== undefined
      ? `${diagnostic.file.fileName}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1}`
      : '(no file)';
  return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
}

describe('typed calls through the test client (the TypeScript compiler over typed-calls.types.ts)', () => {
  const lines = readFileSync(FIXTURE, 'utf8').split('\n');
  const directiveLines = lines.flatMap((line, index) => (DIRECTIVE.test(line) ? [index] : []));

  it('the fixture marks its wrong calls, each right above a call of the client', () => {
    expect(directiveLines).toHaveLength(6);
    for (const index of directiveLines) {
      expect(lines[index + 1].trim()).toMatch(/^(await )?client\.(callTool|startTask|streamTool)</);
    }
  });

  it('the right calls compile and every wrong call fails, at its own line only', () => {
    const options = projectOptions();
    const checked = check(options);
    // An unused @ts-expect-error (a wrong call that compiles) is itself an error.
    expect(checked.diagnostics.map(describeDiagnostic)).toEqual([]);

    const stripped = lines.map((line) => (DIRECTIVE.test(line) ? '' : line)).join('\n');
    const { diagnostics } = check(options, stripped, checked.program);
    const failing = new Set(
      diagnostics.map((diagnostic) => {
        expect(diagnostic.file?.fileName).toBe(FIXTURE);
        return diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start!).line;
      }),
    );
    expect([...failing].sort((a, b) => a - b)).toEqual(directiveLines.map((index) => index + 1));
  }, 120_000);
});
