/**
 * The MCP console of the sample (`MCP_CONSOLE=1`), in real headless Chromium: the page is a
 * browser MCP client of the sample's own endpoint, and these tests use it as a person would (by
 * role and label, the names of the console's contract) and assert on what it shows. One sample
 * process for the file; a fresh browser context per test. Every test also checks that the page
 * threw nothing, broke no Content Security Policy rule and requested nothing from another origin
 * (test/support/browser.ts).
 *
 * `UPDATE_SCREENSHOTS=1` writes the screenshot of the README (docs/console.png).
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { useBrowser, waitForText, waitUntil, WAIT_MS } from '../support/browser';
import {
  activePanel,
  argumentsForm,
  callTool,
  connectionStatus,
  createNote,
  field,
  openConsole,
  openTab,
  panelButton,
  selectTool,
  serverFact,
  tab,
  toolButton,
  toolResult,
  waitForSuggestion,
} from '../support/console-page';
import { startSample, type SampleProcess } from '../support/console-sample';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
const CONNECTED = 'Connected to Notes 1.0.0';

/** The progress bar of the Tools panel. */
function progressBar(page: Page): Locator {
  return activePanel(page).getByRole('progressbar', { name: 'Progress' });
}

/** The bar's value as a fraction of its maximum (0 while it is indeterminate). */
function progressFraction(bar: Locator): Promise<number> {
  return bar.evaluate((element: any) => {
    const raw = element.getAttribute('value') ?? element.getAttribute('aria-valuenow');
    const max = Number(element.getAttribute('max') ?? element.getAttribute('aria-valuemax') ?? 1);
    return raw === null || !(max > 0) ? 0 : Number(raw) / max;
  });
}

/**
 * Starts recording every value the progress bar of the page takes (whatever element holds it at
 * the time: the UI may build a new one per call), as fractions of its maximum; the returned
 * function reads the record. A MutationObserver sees each value, however fast they follow.
 */
async function recordProgress(page: Page): Promise<() => Promise<number[]>> {
  await page.evaluate(() => {
    const scope = globalThis as any;
    const seen: number[] = [];
    scope.__progressSeen = seen;
    const read = (): void => {
      const bar = scope.document.querySelector('progress[aria-label="Progress"], [role="progressbar"]');
      if (bar === null) return;
      const raw = bar.getAttribute('value') ?? bar.getAttribute('aria-valuenow');
      const max = Number(bar.getAttribute('max') ?? bar.getAttribute('aria-valuemax') ?? 1);
      if (raw === null || !(max > 0)) return;
      const fraction = Number(raw) / max;
      if (seen.at(-1) !== fraction) seen.push(fraction);
    };
    new scope.MutationObserver(read).observe(scope.document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
  });
  return () => page.evaluate(() => [...((globalThis as any).__progressSeen as number[])]);
}

describe('console: the sample with MCP_CONSOLE=1', () => {
  let sample: SampleProcess;
  beforeAll(async () => {
    sample = await startSample({ MCP_CONSOLE: '1' });
  }, 90_000);
  afterAll(() => sample?.stop());

  const browser = useBrowser({
    origins: () => [sample.baseUrl],
    diagnostics: () => `sample output (last 4000 chars):\n${sample.output().slice(-4000)}`,
  });

  browser.test('connects to the endpoint and shows the server, its revisions and its tools', async ({ page }) => {
    await openConsole(page, sample.consoleUrl, CONNECTED);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('MCP console');
    expect(await connectionStatus(page).getAttribute('role')).toBe('status');

    await waitForText(serverFact(page, 'Name'), 'notes');
    expect(await serverFact(page, 'Title').textContent()).toContain('Notes');
    expect(await serverFact(page, 'Version').textContent()).toContain('1.0.0');
    expect(await serverFact(page, 'Description').textContent()).toContain('A small notes server built with nest-mcp');
    expect(await serverFact(page, 'Instructions').textContent()).toContain('Use search_notes before create_note');
    const revisions = (await serverFact(page, 'Revisions').textContent()) ?? '';
    expect(revisions.split(',').map((revision) => revision.trim())).toEqual(
      expect.arrayContaining(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']),
    );
    expect(await serverFact(page, 'Capabilities').textContent()).toContain('"tools"');
    expect(await serverFact(page, 'Endpoints').textContent()).toContain('/mcp');

    // The Tools tab is the first one, open at start.
    expect(await tab(page, 'Tools').getAttribute('aria-selected')).toBe('true');
    for (const name of ['echo', 'create_note', 'search_notes', 'note_stats', 'delete_note', 'build_report', 'whoami']) {
      await toolButton(page, name).waitFor({ timeout: WAIT_MS });
    }
    // The selected tool shows its description and annotations.
    await selectTool(page, 'echo');
    await waitForText(activePanel(page), 'Echoes the given text back');
    await activePanel(page).getByText('read-only', { exact: true }).waitFor({ timeout: WAIT_MS });
    await activePanel(page).getByText('idempotent', { exact: true }).waitFor({ timeout: WAIT_MS });
    await callTool(page, 'echo', { text: 'Hello from the console' }, 'Hello from the console');
  });

  browser.test(
    "fills the form of create_note (a class-validator DTO, with a tag) and shows the tool's result",
    async ({ page }) => {
      await openConsole(page, sample.consoleUrl, CONNECTED);
      const form = await selectTool(page, 'create_note');
      await field(form, 'title').fill('Console DTO note');
      await field(form, 'body').fill('Typed in the generated form.');
      // The array field: one item added, then typed in.
      const textboxes = await form.getByRole('textbox').count();
      await form.getByRole('button', { name: 'Add tags' }).click();
      await waitUntil(async () => (await form.getByRole('textbox').count()) === textboxes + 1, 'a new tags item');
      await form.getByRole('textbox').last().fill('console-tag');
      await panelButton(page, 'Call').click();
      const text = await waitForText(toolResult(page), /Created note \S+: Console DTO note/);
      expect(text).not.toContain('Tool error');

      // The tag reached the DTO: one note has it.
      await callTool(page, 'note_stats', { tag: 'console-tag' }, 'Structured content');
      await waitForText(toolResult(page), /"total":\s*1/);
    },
  );

  browser.test('shows the structured content of note_stats beside its output schema', async ({ page }) => {
    await openConsole(page, sample.consoleUrl, CONNECTED);
    await selectTool(page, 'note_stats');
    await waitForText(activePanel(page), 'Note statistics');
    await activePanel(page).locator('details summary', { hasText: 'Output schema' }).first().waitFor();
    await panelButton(page, 'Call').click();
    const result = toolResult(page);
    await waitForText(result, 'Structured content');
    await waitForText(result, /"total":\s*\d+/);
    await waitForText(result, /"tag":\s*null/);
    expect(await result.textContent()).toContain('Output schema');
  });

  browser.test(
    'shows the progress bar advance and the log lines of build_report, then its result',
    async ({ page }) => {
      await openConsole(page, sample.consoleUrl, CONNECTED);
      const form = await selectTool(page, 'build_report');
      await field(form, 'sections').fill('3');
      const seen = await recordProgress(page);
      await panelButton(page, 'Call').click();
      await waitForText(toolResult(page), 'Report ready: 3 sections');

      // The bar went through every section's value, in order, up to 3 of 3.
      const values = await seen();
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(values).toEqual(expect.arrayContaining([1 / 3, 2 / 3, 1]));
      expect(await progressFraction(progressBar(page))).toBe(1);
      await waitForText(activePanel(page), /3 \/ 3\s*—\s*Section 3 of 3/);
      const log = activePanel(page).getByRole('log', { name: 'Log' });
      for (const section of [1, 2, 3]) {
        await waitForText(log, `"section":${section}`);
      }
      expect(await log.textContent()).toMatch(/\[info\] reports: \{"section":1,"of":3\}/);
      await waitForText(toolResult(page), 'Structured content');

      // The README's screenshot: a call with its progress, log and result.
      await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
      const file =
        process.env.UPDATE_SCREENSHOTS === '1'
          ? join(ROOT, 'docs', 'console.png')
          : join(tmpdir(), 'nest-mcp-console.png');
      mkdirSync(join(file, '..'), { recursive: true });
      const png = await page.screenshot({ path: file, fullPage: false });
      expect(png.subarray(1, 4).toString()).toBe('PNG');
    },
  );

  browser.test('cancels a running call', async ({ page }) => {
    await openConsole(page, sample.consoleUrl, CONNECTED);
    const form = await selectTool(page, 'build_report');
    const cancel = panelButton(page, 'Cancel');
    expect(await cancel.isDisabled()).toBe(true);
    await field(form, 'sections').fill('20');
    await panelButton(page, 'Call').click();
    // Cancelled once it has begun: the first section reported.
    await waitUntil(async () => (await progressFraction(progressBar(page))) > 0, 'progress above 0');
    expect(await cancel.isEnabled()).toBe(true);
    await cancel.click();
    await waitForText(toolResult(page), 'Cancelled');
    await waitUntil(() => cancel.isDisabled(), 'the Cancel button to be disabled again');
    expect(await toolResult(page).textContent()).not.toContain('Report ready');
    expect(await panelButton(page, 'Call').isEnabled()).toBe(true);
  });

  browser.test(
    'keeps a running call while another tool is looked at, and shows its end on return',
    async ({ page }) => {
      await openConsole(page, sample.consoleUrl, CONNECTED);
      const form = await selectTool(page, 'build_report');
      await field(form, 'sections').fill('4');
      await panelButton(page, 'Call').click();
      await waitUntil(async () => (await progressFraction(progressBar(page))) > 0, 'progress above 0');

      // Another tool meanwhile: its own form, no result of the report in it.
      await callTool(page, 'echo', { text: 'meanwhile' }, 'meanwhile');
      expect(await toolResult(page).textContent()).not.toContain('Report ready');

      // Back: the same call, finished in the background, with what was typed still there.
      const again = await selectTool(page, 'build_report');
      expect(await field(again, 'sections').inputValue()).toBe('4');
      await waitForText(toolResult(page), 'Report ready: 4 sections');
      expect(await progressFraction(progressBar(page))).toBe(1);
    },
  );

  browser.test('answers the elicitation of delete_note: Accept deletes, Decline keeps', async ({ page }) => {
    await openConsole(page, sample.consoleUrl, CONNECTED);
    // The EditorGuard admits calls with this header; the console sends the extra headers typed here.
    await page.getByLabel('Extra headers').fill('x-notes-role: editor');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await waitForText(connectionStatus(page), CONNECTED);

    for (const { answer, outcome } of [
      { answer: 'Accept', outcome: 'Deleted note' },
      { answer: 'Decline', outcome: 'Kept note' },
    ]) {
      const id = await createNote(page, `To ${answer.toLowerCase()}`);
      const form = await selectTool(page, 'delete_note');
      await field(form, 'id').fill(id);
      await panelButton(page, 'Call').click();
      const dialog = page.getByRole('dialog', { name: 'Elicitation' });
      await waitForText(dialog, `Delete note ${id}? This cannot be undone.`);
      if (answer === 'Accept') {
        await dialog.getByLabel('Delete it').check();
      }
      await dialog.getByRole('button', { name: answer, exact: true }).click();
      await waitForText(toolResult(page), `${outcome} ${id}`);
      expect(await dialog.count()).toBe(0);
    }
    // The deleted note is gone, the kept one is still there.
    const found = await callTool(page, 'search_notes', { query: 'To ' }, /\d+: To/);
    expect(found).toContain('To decline');
    expect(found).not.toContain('To accept');
  });

  browser.test('starts build_report as a task, watches it in the Tasks tab and cancels it', async ({ page }) => {
    await openConsole(page, sample.consoleUrl, CONNECTED);
    const form = await selectTool(page, 'build_report');
    await field(form, 'sections').fill('20');
    await activePanel(page).getByLabel('Run as task').check();
    await panelButton(page, 'Call').click();
    const started = await waitForText(toolResult(page), /Started task \S+/);
    const taskId = /Started task (\S+)/.exec(started)![1].replace(/[.,;]$/, '');

    const panel = await openTab(page, 'Tasks');
    const task = panel.getByRole('list', { name: 'Tasks' }).getByRole('article', { name: `Task ${taskId}` });
    await waitForText(task, 'build_report');
    await task.getByText('working', { exact: true }).waitFor({ timeout: WAIT_MS });
    // The status message follows the sections (tasks/get polled every second).
    const first = Number(/Section (\d+) of 20/.exec(await waitForText(task, /Section \d+ of 20/))![1]);
    await waitForText(
      task,
      new RegExp(`Section (${[...Array(20 - first).keys()].map((n) => n + first + 1).join('|')}) of 20`),
    );

    await task.getByRole('button', { name: 'Cancel task', exact: true }).click();
    await task.getByText('cancelled', { exact: true }).waitFor({ timeout: WAIT_MS });
    expect(await task.getByText('working', { exact: true }).count()).toBe(0);
  });

  browser.test('reads a resource and a template, with the note id offered as a completion', async ({ page }) => {
    await openConsole(page, sample.consoleUrl, CONNECTED);
    const id = await createNote(page, 'Resource note', 'Read through the console.');

    const panel = await openTab(page, 'Resources');
    const contents = panel.getByRole('region', { name: 'Contents' });
    await panel.getByRole('list', { name: 'Resources' }).getByRole('button', { name: 'index' }).click();
    const index = await waitForText(contents, 'Resource note');
    expect(index).toContain('notes://index');
    expect(index).toContain(`{"id":"${id}","title":"Resource note"}`);

    await panel.getByRole('list', { name: 'Resource templates' }).getByRole('button', { name: 'note' }).click();
    const input = panel.getByLabel('id', { exact: true });
    await input.pressSequentially(id.slice(0, 1));
    await waitForSuggestion(input, id);
    await input.fill(id);
    await panelButton(page, 'Read').click();
    const text = await waitForText(contents, '# Resource note');
    expect(text).toContain('Read through the console.');
    expect(text).toContain(`notes://${id}`);
    expect(text).toContain('text/markdown');
  });

  browser.test('gets the summarize_note prompt with its arguments', async ({ page }) => {
    await openConsole(page, sample.consoleUrl, CONNECTED);
    const panel = await openTab(page, 'Prompts');
    await panel.getByRole('list', { name: 'Prompts' }).getByRole('button', { name: 'summarize_note' }).click();
    // Note 1 is the sample's "Welcome" note; style offers its two values.
    await field(panel, 'id').fill('1');
    const style = field(panel, 'style');
    await style.pressSequentially('p');
    await waitForSuggestion(style, 'prose');
    await style.fill('prose');
    await panelButton(page, 'Get prompt').click();
    const messages = panel.getByRole('region', { name: 'Messages' });
    const text = await waitForText(messages, 'Summarize this note as prose');
    expect(text).toContain('user');
    expect(text).toContain('# Welcome');
  });

  browser.test('listens to notifications: acknowledged, a resource update arrives, then stopped', async ({ page }) => {
    await openConsole(page, sample.consoleUrl, CONNECTED);
    let panel = await openTab(page, 'Notifications');
    await panel.getByLabel('Tools list changed').check();
    await panel.getByLabel('Resource URIs').fill('notes://index');
    await panelButton(page, 'Listen').click();
    // The status says what the server acknowledged.
    const listening = panel.getByText(/^Listening\b/);
    await listening.waitFor({ timeout: WAIT_MS });
    await waitForText(listening, 'toolsListChanged');
    await waitForText(listening, 'notes://index');

    // Creating a note updates notes://index, which the open listen stream reports.
    await createNote(page, 'Listened note');
    panel = await openTab(page, 'Notifications');
    const log = panel.getByRole('log', { name: 'Notifications' });
    const line = await waitForText(log, 'notifications/resources/updated');
    expect(line).toContain('notes://index');

    await panelButton(page, 'Stop').click();
    await panel.getByText(/^Stopped\b/).waitFor({ timeout: WAIT_MS });
  });

  browser.test(
    'is keyboard-usable and labelled: arrow keys move along the tabs, every field has a name',
    async ({ page }) => {
      await openConsole(page, sample.consoleUrl, CONNECTED);
      const focused = (): Promise<string> =>
        page.evaluate(() => (globalThis as any).document.activeElement?.textContent);
      await tab(page, 'Tools').focus();
      await page.keyboard.press('ArrowRight');
      expect((await focused()).trim()).toBe('Resources');
      await page.keyboard.press('Enter');
      await waitUntil(
        async () => (await tab(page, 'Resources').getAttribute('aria-selected')) === 'true',
        'Resources selected',
      );
      await page.getByRole('list', { name: 'Resources' }).waitFor({ timeout: WAIT_MS });
      await page.keyboard.press('ArrowRight');
      expect((await focused()).trim()).toBe('Prompts');
      await page.keyboard.press('Space');
      await waitUntil(
        async () => (await tab(page, 'Prompts').getAttribute('aria-selected')) === 'true',
        'Prompts selected',
      );
      await page.getByRole('list', { name: 'Prompts' }).waitFor({ timeout: WAIT_MS });
      expect(await tab(page, 'Tools').getAttribute('aria-selected')).toBe('false');
      // ArrowLeft goes back.
      await page.keyboard.press('ArrowLeft');
      expect((await focused()).trim()).toBe('Resources');

      // Every panel's fields: a tool with a form, a prompt with arguments, a template with variables.
      await tab(page, 'Tools').click();
      await selectTool(page, 'create_note');
      await argumentsForm(page).getByRole('button', { name: 'Add tags' }).click();
      await openTab(page, 'Prompts');
      await page.getByRole('list', { name: 'Prompts' }).getByRole('button', { name: 'summarize_note' }).click();
      await openTab(page, 'Resources');
      await page.getByRole('list', { name: 'Resource templates' }).getByRole('button', { name: 'note' }).click();
      await activePanel(page).getByLabel('id', { exact: true }).waitFor({ timeout: WAIT_MS });
      const unnamed = await page.locator('input, select, textarea').evaluateAll((elements: any[]) =>
        elements
          .filter((element) => element.type !== 'hidden')
          .filter((element) => {
            const labelledBy = (element.getAttribute('aria-labelledby') ?? '')
              .split(/\s+/)
              .filter(Boolean)
              .map((id: string) => element.ownerDocument.getElementById(id)?.textContent ?? '')
              .join('');
            const labels = Array.from(element.labels ?? [], (label: any) => label.textContent ?? '').join('');
            const name = `${element.getAttribute('aria-label') ?? ''}${labelledBy}${labels}${element.title ?? ''}`;
            return name.trim() === '';
          })
          .map((element) => element.outerHTML),
      );
      expect(unnamed).toEqual([]);
    },
  );
});
