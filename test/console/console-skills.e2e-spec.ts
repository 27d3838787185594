/**
 * The Skills tab of the MCP console, in real headless Chromium, on the sample (`MCP_CONSOLE=1`):
 * the sample's skill is listed with its URI; choosing it shows its description, its frontmatter
 * and its files with their sizes and SHA-256 digests (as the files on disk give them), and reads
 * its SKILL.md; choosing another file reads that one.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useBrowser, waitForText, WAIT_MS } from '../support/browser';
import { openConsole, openTab } from '../support/console-page';
import { startSample, type SampleProcess } from '../support/console-sample';

jest.setTimeout(120_000);

const SKILL_DIR = join(__dirname, '..', '..', 'sample', 'skills', 'notes-workflow');

function digestOf(path: string): { size: number; digest: string } {
  const bytes = readFileSync(join(SKILL_DIR, path));
  return { size: bytes.length, digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}` };
}

describe('console: the Skills tab on the sample', () => {
  let sample: SampleProcess;
  beforeAll(async () => {
    sample = await startSample({ MCP_CONSOLE: '1' });
  }, 90_000);
  afterAll(() => sample?.stop());

  const browser = useBrowser({
    origins: () => [sample.baseUrl],
    diagnostics: () => `sample output (last 4000 chars):\n${sample.output().slice(-4000)}`,
  });

  browser.test('lists the sample skill, shows its files with their digests and reads them', async ({ page }) => {
    await openConsole(page, sample.consoleUrl, 'Connected to Notes 1.0.0');
    const panel = await openTab(page, 'Skills');
    const skill = panel.getByRole('list', { name: 'Skills' }).getByRole('button', { name: /notes-workflow/ });
    await skill.waitFor({ timeout: WAIT_MS });
    expect(await skill.textContent()).toContain('skill://notes-workflow/SKILL.md');
    await skill.click();

    await waitForText(panel, 'Search before creating');
    const files = panel.getByRole('table', { name: 'Files' });
    for (const path of ['SKILL.md', 'references/tags.md']) {
      const { size, digest } = digestOf(path);
      const row = files.getByRole('row').filter({ hasText: `skill://notes-workflow/${path}` });
      await waitForText(row, digest);
      expect(await row.textContent()).toContain(`${size} B`);
    }
    // The SKILL.md is read when the skill is chosen; another file when it is chosen.
    const contents = panel.getByRole('region', { name: 'Skill file' });
    await waitForText(contents, '# Working with the notes server');
    await files.getByRole('button', { name: 'skill://notes-workflow/references/tags.md' }).click();
    await waitForText(contents, 'Tag conventions');
  });
});
