/**
 * The console against a server that serves only legacy revisions (`revisions` without
 * 2026-07-28): `server/discover` is refused with -32022, so the page falls back to a legacy
 * session (the handshake, `Mcp-Session-Id`), where the server's questions ride the call's stream
 * and are answered by the person in the same dialogs; the session's GET stream stands in for
 * `subscriptions/listen`, and the session ends with the page.
 */
import { McpSessionService } from '../../lib';
import { ClientRequestsFixtureModule } from '../fixtures/client-requests-fixture';
import { startHttpApp, type HttpApp } from '../fixtures/http-app';
import { useBrowser, waitForText, waitUntil } from '../support/browser';
import {
  activePanel,
  field,
  openConsole,
  openTab,
  panelButton,
  selectTool,
  serverFact,
  toolResult,
} from '../support/console-page';

jest.setTimeout(90_000);

describe('console: a legacy session where the server has no 2026-07-28', () => {
  let http: HttpApp;
  let sessions: McpSessionService;
  beforeAll(async () => {
    http = await startHttpApp(
      ClientRequestsFixtureModule.forRoot({ console: true, revisions: ['2025-11-25', '2025-06-18'] }),
    );
    sessions = http.app.get(McpSessionService);
  }, 60_000);
  afterAll(async () => {
    await http?.close();
  });

  const browser = useBrowser({ origins: () => [http.baseUrl] });
  const url = () => `${http.baseUrl}/mcp/console`;

  browser.test('connects with the handshake and says so; the session ends with the page', async ({ page }) => {
    const before = await sessions.count();
    await openConsole(page, url(), 'Connected to client-requests-fixture 0.0.1 (a 2025-11-25 session)');
    expect(await serverFact(page, 'Revisions').textContent()).toBe('2025-11-25');
    expect(await sessions.count()).toBe(before + 1);
    await page.getByRole('list', { name: 'Tools' }).getByRole('button', { name: 'ask_chatty' }).waitFor();

    await page.close({ runBeforeUnload: true });
    await waitUntil(async () => (await sessions.count()) === before, 'the session to be deleted when the page goes');
  });

  browser.test(
    'a call logs and reports progress on its stream, and its question is answered by the person',
    async ({ page }) => {
      await openConsole(page, url(), /a 2025-11-25 session/);
      await selectTool(page, 'ask_chatty');
      await panelButton(page, 'Call').click();

      const dialog = page.getByRole('dialog', { name: 'Elicitation' });
      await waitForText(dialog, 'Chatty?');
      // What came before the question is on the page already.
      await waitForText(activePanel(page).getByRole('log', { name: 'Log' }), '[info] chatty: about to ask');
      await waitForText(activePanel(page).locator('.progress-text'), '1 / 2 — asking');
      await field(dialog, 'value').fill('yes');
      await dialog.getByRole('button', { name: 'Accept', exact: true }).click();

      await waitForText(toolResult(page), 'chatty action=accept');
      await waitForText(activePanel(page).locator('.progress-text'), '2 / 2 — answered');
    },
  );

  browser.test('sampling in a session: the reply typed by hand reaches the tool', async ({ page }) => {
    await openConsole(page, url(), /a 2025-11-25 session/);
    const form = await selectTool(page, 'ask_model');
    await field(form, 'prompt').fill('Name a colour');
    await panelButton(page, 'Call').click();
    const dialog = page.getByRole('dialog', { name: 'Sampling' });
    await waitForText(dialog, 'Name a colour');
    await dialog.getByLabel('Reply').fill('Teal');
    await dialog.getByRole('button', { name: 'Send reply' }).click();
    await waitForText(toolResult(page), 'model=human role=assistant text=Teal');
  });

  browser.test('a template read that asks for the roots, answered in the Roots dialog', async ({ page }) => {
    await openConsole(page, url(), /a 2025-11-25 session/);
    const panel = await openTab(page, 'Resources');
    await panel
      .getByRole('list', { name: 'Resource templates' })
      .getByRole('button', { name: /client-roots/ })
      .click();
    await panel.getByLabel('label', { exact: true }).fill('mine');
    await panelButton(page, 'Read').click();

    const dialog = page.getByRole('dialog', { name: 'Roots' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Add root' }).click();
    await dialog.getByLabel('Root URI 1').fill('file:///srv/legacy');
    await dialog.getByRole('button', { name: 'Send roots' }).click();
    await waitForText(
      panel.getByRole('region', { name: 'Contents' }),
      '{"label":"mine","roots":["file:///srv/legacy"]}',
    );
  });

  browser.test("the session's GET stream stands in for subscriptions/listen", async ({ page }) => {
    await openConsole(page, url(), /a 2025-11-25 session/);
    const panel = await openTab(page, 'Notifications');
    await panel.getByLabel('Tools list changed').check();
    await panelButton(page, 'Listen').click();
    await waitForText(panel, 'Listening');
    await panelButton(page, 'Stop').click();
    await waitForText(panel, 'Stopped');
  });
});
