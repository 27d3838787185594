/**
 * The sample's console on Fastify: the same AppModule with `MCP_CONSOLE=1`, served by the Fastify
 * adapter in this process, opened in real headless Chromium. The page, its assets (with the
 * Content Security Policy) and the MCP calls it makes go through Fastify's routes.
 */
import { startHttpApp, type HttpApp } from '../fixtures/http-app';
import { useBrowser } from '../support/browser';
import { callTool, openConsole, toolButton } from '../support/console-page';

jest.setTimeout(90_000);

describe('console: the sample on Fastify', () => {
  let http: HttpApp;
  const saved = process.env.MCP_CONSOLE;
  beforeAll(async () => {
    // The sample reads MCP_CONSOLE when its module is loaded: set it first, then load the module.
    process.env.MCP_CONSOLE = '1';
    delete process.env.MCP_AUTH;
    const { AppModule } = await import('../../sample/app.module');
    http = await startHttpApp(AppModule, { platform: 'fastify' });
  }, 60_000);
  afterAll(async () => {
    await http?.close();
    if (saved === undefined) delete process.env.MCP_CONSOLE;
    else process.env.MCP_CONSOLE = saved;
  });

  const browser = useBrowser({ origins: () => [http.baseUrl] });

  browser.test('opens the console, lists the tools and calls echo', async ({ page }) => {
    await openConsole(page, `${http.baseUrl}/mcp/console`, 'Connected to Notes 1.0.0');
    for (const name of ['echo', 'create_note', 'build_report']) {
      await toolButton(page, name).waitFor();
    }
    const text = await callTool(page, 'echo', { text: 'Served by Fastify' }, 'Served by Fastify');
    expect(text).not.toContain('Tool error');
  });

  it('answers the page and an asset with the console headers', async () => {
    const page = await fetch(`${http.baseUrl}/mcp/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/mcp/console/assets/app.js"></script>');

    const asset = await fetch(`${http.baseUrl}/mcp/console/assets/app.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('etag')).toBeTruthy();
  });
});
