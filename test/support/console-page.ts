/**
 * The MCP console's page as the browser tests use it: by role and accessible name, the names of
 * the contract (the UI and these tests agree on them; see console-ui/app.js). Nothing here
 * reaches into the page's code or its private markup.
 */
import type { Locator, Page } from 'playwright-core';
import { waitForText, waitUntil, WAIT_MS } from './browser';

/** The connection status line. */
export function connectionStatus(page: Page): Locator {
  return page.locator('#connection-status');
}

/** Opens the console and waits for its status to say `connected` (e.g. "Connected to Notes 1.0.0"). */
export async function openConsole(
  page: Page,
  url: string,
  connected: string | RegExp = /^Connected to /,
): Promise<void> {
  const response = await page.goto(url);
  if (response?.status() !== 200) {
    throw new Error(`GET ${url} answered ${response?.status()}`);
  }
  await waitForText(connectionStatus(page), connected);
}

/** A section of the page by its heading ("Connection", "Server"). */
export function section(page: Page, heading: string): Locator {
  return page.locator('section').filter({ has: page.getByRole('heading', { name: heading, exact: true }) });
}

/** The value (`<dd>`) of a term (`<dt>`) of the Server section's list. */
export function serverFact(page: Page, term: string): Locator {
  return section(page, 'Server')
    .locator('dt')
    .filter({ hasText: new RegExp(`^\\s*${term}\\s*$`) })
    .locator('xpath=following-sibling::dd[1]');
}

/** A tab of the tab list. */
export function tab(page: Page, name: string): Locator {
  return page.getByRole('tablist').getByRole('tab', { name, exact: true });
}

/**
 * The visible tab panel: the others are hidden, and a hidden element has no role. Scoping to it
 * keeps apart the fields of panels that share a label (`id` is a tool argument, a template
 * variable and a prompt argument).
 */
export function activePanel(page: Page): Locator {
  return page.getByRole('tabpanel');
}

/** Clicks a tab and waits until it is the selected one. */
export async function openTab(page: Page, name: string): Promise<Locator> {
  const target = tab(page, name);
  if ((await target.getAttribute('aria-selected')) !== 'true') {
    await target.click();
  }
  await waitUntil(
    async () => (await target.getAttribute('aria-selected')) === 'true',
    `the ${name} tab to be selected`,
  );
  return activePanel(page);
}

/** The button of a tool in the Tools list. */
export function toolButton(page: Page, name: string): Locator {
  return page.getByRole('list', { name: 'Tools' }).getByRole('button', { name });
}

/** Opens the Tools tab, selects `name` and waits for its heading; returns the Arguments form. */
export async function selectTool(page: Page, name: string): Promise<Locator> {
  const panel = await openTab(page, 'Tools');
  await toolButton(page, name).click();
  await panel.getByRole('heading', { level: 3, name, exact: true }).waitFor({ timeout: WAIT_MS });
  return argumentsForm(page);
}

/** The schema form of the selected tool. */
export function argumentsForm(page: Page): Locator {
  return activePanel(page).getByRole('form', { name: 'Arguments' });
}

/**
 * A field of a form by its label: the label starts with the property name (a required mark may
 * follow it).
 */
export function field(form: Locator, name: string): Locator {
  return form.getByLabel(new RegExp(`^\\s*${name}\\b`));
}

/** The Result region of the Tools panel. */
export function toolResult(page: Page): Locator {
  return activePanel(page).getByRole('region', { name: 'Result' });
}

/** A button of the visible panel, by its exact name. */
export function panelButton(page: Page, name: string): Locator {
  return activePanel(page).getByRole('button', { name, exact: true });
}

/**
 * Selects `tool`, fills `fields` (label → text), clicks Call and waits until the Result shows
 * `expected`; returns the Result's text.
 */
export async function callTool(
  page: Page,
  tool: string,
  fields: Record<string, string>,
  expected: string | RegExp,
): Promise<string> {
  const form = await selectTool(page, tool);
  for (const [name, value] of Object.entries(fields)) {
    await field(form, name).fill(value);
  }
  await panelButton(page, 'Call').click();
  return waitForText(toolResult(page), expected);
}

/** Creates a note through the create_note form; returns its id. */
export async function createNote(page: Page, title: string, body = `Body of ${title}`): Promise<string> {
  const text = await callTool(page, 'create_note', { title, body }, `: ${title}`);
  const id = /Created note (\S+): /.exec(text)?.[1];
  if (id === undefined) {
    throw new Error(`No note id in the result ${JSON.stringify(text)}`);
  }
  return id;
}

/** The `<option>` values of the `<datalist>` of `input` (its completions). */
export function suggestionsOf(input: Locator): Promise<string[]> {
  return input.evaluate((element: any) =>
    Array.from((element.list?.options ?? []) as ArrayLike<{ value: string }>, (option) => option.value),
  );
}

/** Waits until the completions of `input` include `value`; returns them. */
export async function waitForSuggestion(input: Locator, value: string): Promise<string[]> {
  let last: string[] = [];
  await waitUntil(
    async () => {
      last = await suggestionsOf(input);
      return last.includes(value);
    },
    `the completions of ${String(input)} to offer ${JSON.stringify(value)}`,
    WAIT_MS,
    () => JSON.stringify(last),
  );
  return last;
}
