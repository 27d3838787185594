/**
 * The server's questions answered by the person at the console, through a real server's tools:
 * sampling (the request shown, a reply typed by hand), roots (a list the person edits, kept for
 * the next question), URL elicitation (a link), two questions in two rounds, and three at once in
 * one round. The fixture's tools return what they received, so the Result shows what reached the
 * handler, not only what the page sent.
 */
import { ClientRequestsFixtureModule } from '../fixtures/client-requests-fixture';
import { startHttpApp, type HttpApp } from '../fixtures/http-app';
import { useBrowser, waitForText } from '../support/browser';
import { field, openConsole, panelButton, selectTool, toolResult } from '../support/console-page';
import type { Page } from 'playwright-core';

jest.setTimeout(90_000);

/** Waits for the dialog named `name` and returns it. */
async function dialogNamed(page: Page, name: string) {
  const dialog = page.getByRole('dialog', { name });
  await dialog.waitFor();
  return dialog;
}

describe('console: the person answers the server', () => {
  let http: HttpApp;
  beforeAll(async () => {
    http = await startHttpApp(ClientRequestsFixtureModule.forRoot({ console: true }));
  }, 60_000);
  afterAll(async () => {
    await http?.close();
  });

  const browser = useBrowser({ origins: () => [http.baseUrl] });
  const open = (page: Page) =>
    openConsole(page, `${http.baseUrl}/mcp/console`, /^Connected to client-requests-fixture/);

  browser.test(
    'sampling: the request is shown, and the reply typed by hand is what the tool gets',
    async ({ page }) => {
      await open(page);
      const form = await selectTool(page, 'ask_model');
      await field(form, 'prompt').fill('Write a haiku about tests');
      await panelButton(page, 'Call').click();

      const dialog = await dialogNamed(page, 'Sampling');
      await waitForText(dialog, 'Write a haiku about tests');
      await waitForText(dialog, '50');
      await dialog.getByLabel('Reply').fill('Green checks at dawn');
      await dialog.getByLabel('Model').fill('a-person');
      await dialog.getByRole('button', { name: 'Send reply' }).click();

      await waitForText(toolResult(page), 'model=a-person role=assistant text=Green checks at dawn');
      expect(await page.getByRole('dialog').count()).toBe(0);
    },
  );

  browser.test('sampling declined: the call ends with an error the page shows', async ({ page }) => {
    await open(page);
    const form = await selectTool(page, 'ask_model');
    await field(form, 'prompt').fill('Anything');
    await panelButton(page, 'Call').click();
    const dialog = await dialogNamed(page, 'Sampling');
    await dialog.getByRole('button', { name: 'Decline' }).click();
    await waitForText(toolResult(page), 'declined');
    // The call is over: Call is usable again, Cancel is not.
    expect(await panelButton(page, 'Call').isEnabled()).toBe(true);
    expect(await panelButton(page, 'Cancel').isEnabled()).toBe(false);
  });

  browser.test('roots: the person edits the list; the next question starts from it', async ({ page }) => {
    await open(page);
    await selectTool(page, 'ask_roots');
    await panelButton(page, 'Call').click();

    let dialog = await dialogNamed(page, 'Roots');
    await dialog.getByRole('button', { name: 'Add root' }).click();
    await dialog.getByLabel('Root URI 1').fill('file:///work/app');
    await dialog.getByLabel('Root name 1').fill('app');
    await dialog.getByRole('button', { name: 'Add root' }).click();
    await dialog.getByLabel('Root URI 2').fill('file:///work/docs');
    await dialog.getByLabel('Root name 2').fill('docs');
    await dialog.getByRole('button', { name: 'Send roots' }).click();
    await waitForText(toolResult(page), 'roots=app@file:///work/app,docs@file:///work/docs');

    // Asked again: the list the person made is there; removing one sends the rest.
    await panelButton(page, 'Call').click();
    dialog = await dialogNamed(page, 'Roots');
    expect(await dialog.getByLabel('Root URI 1').inputValue()).toBe('file:///work/app');
    expect(await dialog.getByLabel('Root URI 2').inputValue()).toBe('file:///work/docs');
    await dialog.getByRole('button', { name: 'Remove root 1' }).click();
    await dialog.getByRole('button', { name: 'Send roots' }).click();
    await waitForText(toolResult(page), 'roots=docs@file:///work/docs');
  });

  browser.test('URL elicitation: the URL is a link the person opens; Accept reaches the tool', async ({ page }) => {
    await open(page);
    const form = await selectTool(page, 'ask_url');
    await field(form, 'url').fill('https://login.example.com/start?flow=42');
    await panelButton(page, 'Call').click();

    const dialog = await dialogNamed(page, 'Elicitation');
    await waitForText(dialog, 'Please sign in');
    const link = dialog.getByRole('link', { name: 'https://login.example.com/start?flow=42' });
    expect(await link.getAttribute('href')).toBe('https://login.example.com/start?flow=42');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toContain('noopener');
    await dialog.getByRole('button', { name: 'Accept', exact: true }).click();
    await waitForText(toolResult(page), 'action=accept');
  });

  browser.test('two questions in two rounds: the second one knows the first answer', async ({ page }) => {
    await open(page);
    await selectTool(page, 'ask_sequence');
    await panelButton(page, 'Call').click();

    let dialog = await dialogNamed(page, 'Elicitation');
    await waitForText(dialog, 'Step 1: your name?');
    await dialog.getByLabel(/^\s*name\b/).fill('Grace');
    await dialog.getByRole('button', { name: 'Accept', exact: true }).click();

    dialog = await dialogNamed(page, 'Elicitation');
    await waitForText(dialog, 'Step 2: Grace, your color?');
    await dialog.getByLabel(/^\s*color\b/).fill('violet');
    await dialog.getByRole('button', { name: 'Accept', exact: true }).click();

    await waitForText(toolResult(page), 'Grace likes violet');
  });

  browser.test(
    'three questions in one round: elicitation, sampling and roots, one dialog at a time',
    async ({ page }) => {
      await open(page);
      await selectTool(page, 'ask_together');
      await panelButton(page, 'Call').click();

      const seen: string[] = [];
      for (let answered = 0; answered < 3; answered += 1) {
        const dialog = page.getByRole('dialog');
        await dialog.waitFor();
        // Never two at once.
        expect(await page.getByRole('dialog').count()).toBe(1);
        const heading = page.locator(`#${await dialog.getAttribute('aria-labelledby')}`);
        const name = (await heading.textContent()) ?? '';
        seen.push(name);
        if (name === 'Elicitation') {
          await dialog.getByLabel(/^\s*name\b/).fill('Linus');
          await dialog.getByRole('button', { name: 'Accept', exact: true }).click();
        } else if (name === 'Sampling') {
          await dialog.getByLabel('Reply').fill('Hello');
          await dialog.getByRole('button', { name: 'Send reply' }).click();
        } else {
          await dialog.getByRole('button', { name: 'Add root' }).click();
          await dialog.getByLabel('Root URI 1').fill('file:///one');
          await dialog.getByRole('button', { name: 'Send roots' }).click();
        }
        // This dialog is gone (the next one, if any, is another element).
        await heading.waitFor({ state: 'detached' });
      }
      expect([...seen].sort()).toEqual(['Elicitation', 'Roots', 'Sampling']);
      await waitForText(toolResult(page), 'Hello Linus (1 roots)');
    },
  );
});
