/**
 * The public API on record: the package's exports, as API Extractor reports them, are those of
 * the committed api/nest-mcp.api.md (the root entry) and api/nest-mcp-stdio.api.md
 * (`nest-mcp/stdio`). A change to the exported surface (a name, a signature, a
 * type a public signature reaches) fails here until the report is written again
 * (`npm run api:report`) and committed, so that review sees it.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

it('matches api/nest-mcp.api.md and api/nest-mcp-stdio.api.md', async () => {
  const outcome = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'scripts', 'api-report.mjs'), '--check'],
      { cwd: ROOT, timeout: 170_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), output: stdout + stderr }),
    );
  });
  expect(outcome).toEqual({
    code: 0,
    output: expect.stringMatching(/matches api\/nest-mcp\.api\.md\.\n[^]*matches api\/nest-mcp-stdio\.api\.md\./),
  });
}, 180_000);
