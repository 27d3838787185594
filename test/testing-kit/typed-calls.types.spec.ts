/**
 * The `types` tier of the testing kit: the compiler over typed-calls.types.ts
 * (test/support/expect-error-fixture.ts, as for `@McpTypedTool`). The right calls
 * compile, and every call marked `@ts-expect-error` fails, on its own line only, so CI sees a
 * widened `McpTestToolArgs` even though it runs no `tsc` on test/.
 */
import { join } from 'node:path';
import { expectErrorFixture } from '../support/expect-error-fixture';

const FIXTURE = join(__dirname, 'typed-calls.types.ts');

describe('typed calls through the test client (the TypeScript compiler over typed-calls.types.ts)', () => {
  const fixture = expectErrorFixture(FIXTURE);
  const { lines, directiveLines } = fixture;

  it('the fixture marks its wrong calls, each right above a call of the client', () => {
    expect(directiveLines).toHaveLength(6);
    for (const index of directiveLines) {
      expect(lines[index + 1].trim()).toMatch(/^(await )?client\.(callTool|startTask|streamTool)</);
    }
  });

  it('the right calls compile and every wrong call fails, at its own line only', () => {
    const { withDirectives, failingWithout } = fixture.check();
    // An unused @ts-expect-error (a wrong call that compiles) is itself an error.
    expect(withDirectives).toEqual([]);
    // Without the directives, the errors are exactly on the lines they marked.
    expect(failingWithout).toEqual(directiveLines.map((index) => index + 1));
  }, 120_000);
});
