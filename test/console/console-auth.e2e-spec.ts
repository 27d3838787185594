/**
 * The console of a bearer-protected sample (`MCP_AUTH=bearer`), in real headless Chromium: the
 * page itself is public, the endpoint is not, so the console shows the endpoint's 401 and its
 * challenge until the person types the token; the token lives in sessionStorage only (this tab),
 * never in localStorage. And the sample without `MCP_CONSOLE` serves no console at all.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { useBrowser, waitForText, WAIT_MS } from '../support/browser';
import { connectionStatus, toolButton } from '../support/console-page';
import { startSample, type SampleProcess } from '../support/console-sample';

jest.setTimeout(120_000);

const TOKEN = randomBytes(24).toString('base64url');

/** Chooses bearer authentication, types `token` and clicks Connect. */
async function connectWith(page: Page, token: string): Promise<void> {
  await page.getByLabel('Authentication', { exact: true }).selectOption({ label: 'Bearer token' });
  await page.getByLabel('Bearer token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
}

describe('console: a bearer-protected sample', () => {
  let sample: SampleProcess;
  let plain: SampleProcess;
  beforeAll(async () => {
    [sample, plain] = await Promise.all([
      startSample({ MCP_CONSOLE: '1', MCP_AUTH: 'bearer', MCP_AUTH_SECRET: TOKEN }),
      startSample(),
    ]);
  }, 90_000);
  afterAll(() => Promise.all([sample?.stop(), plain?.stop()]));

  const browser = useBrowser({
    // The disabled console's origin too: one test opens it.
    origins: () => [sample.baseUrl, plain.baseUrl],
    diagnostics: () => `sample output (last 4000 chars):\n${sample.output().slice(-4000)}`,
  });

  browser.test(
    'shows the 401 and its challenge, takes the token, and keeps it for this tab only',
    async ({ page, newPage, newContext }) => {
      await page.goto(sample.consoleUrl);
      const alert = page.getByRole('alert');
      await waitForText(alert, '401 Unauthorized');
      await waitForText(alert, 'WWW-Authenticate: Bearer realm="mcp"');
      expect(await connectionStatus(page).textContent()).not.toMatch(/^Connected/);

      // Only the chosen kind's fields are shown.
      expect(await page.getByLabel('Bearer token', { exact: true }).isVisible()).toBe(false);
      await page.getByLabel('Authentication', { exact: true }).selectOption({ label: 'Bearer token' });
      await page.getByLabel('Bearer token', { exact: true }).waitFor({ timeout: WAIT_MS });
      expect(await page.getByLabel('Username', { exact: true }).isVisible()).toBe(false);

      // The wrong token is sent, refused, and the refusal shown again.
      const refused = page.waitForResponse(
        (response) => new URL(response.url()).pathname === '/mcp' && response.request().method() === 'POST',
      );
      await connectWith(page, `${TOKEN}-wrong`);
      const answer = await refused;
      expect(answer.status()).toBe(401);
      expect(await answer.request().headerValue('authorization')).toBe(`Bearer ${TOKEN}-wrong`);
      await waitForText(page.getByRole('alert'), '401 Unauthorized');
      expect(await connectionStatus(page).textContent()).not.toMatch(/^Connected/);

      await connectWith(page, TOKEN);
      await waitForText(connectionStatus(page), 'Connected to Notes 1.0.0');
      await toolButton(page, 'create_note').waitFor({ timeout: WAIT_MS });
      expect(await page.getByRole('alert').filter({ hasText: '401' }).count()).toBe(0);

      // The same tab, reloaded: still connected (sessionStorage), and nothing in localStorage.
      await page.reload();
      await waitForText(connectionStatus(page), 'Connected to Notes 1.0.0');
      await toolButton(page, 'echo').waitFor({ timeout: WAIT_MS });
      expect(await page.evaluate(() => (globalThis as any).localStorage.length)).toBe(0);

      // Another tab of the same browser profile shares localStorage, not sessionStorage: not connected.
      const tab = await newPage();
      await tab.goto(sample.consoleUrl);
      await waitForText(tab.getByRole('alert'), '401 Unauthorized');
      expect(await connectionStatus(tab).textContent()).not.toMatch(/^Connected/);

      // Another profile: not connected either.
      const other = await newContext();
      await other.page.goto(sample.consoleUrl);
      await waitForText(other.page.getByRole('alert'), '401 Unauthorized');
      expect(await other.page.evaluate(() => (globalThis as any).localStorage.length)).toBe(0);
    },
  );

  browser.test('the token is not in the page the server sends', async ({ page }) => {
    const response = await page.goto(sample.consoleUrl);
    expect(response?.status()).toBe(200);
    const html = await response!.text();
    expect(html).not.toContain(TOKEN);
    expect(html).toContain('<meta name="mcp-endpoint" content="/mcp">');
    await waitForText(page.getByRole('alert'), '401 Unauthorized');
  });

  it('serves no console without MCP_CONSOLE: the page and its assets are 404', async () => {
    for (const path of ['/mcp/console', '/mcp/console/assets/app.js', '/mcp/console/assets/console.css']) {
      const response = await fetch(new URL(path, plain.baseUrl));
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
    // The same sample's endpoint is there: only the console is off.
    const endpoint = await fetch(new URL('/mcp', plain.baseUrl), { method: 'GET' });
    expect(endpoint.status).not.toBe(404);
  });

  browser.test('the browser gets a 404 for the disabled console', async ({ page }) => {
    const response = await page.goto(`${plain.baseUrl}/mcp/console`);
    expect(response?.status()).toBe(404);
    expect(await page.locator('#app').count()).toBe(0);
  });
});
