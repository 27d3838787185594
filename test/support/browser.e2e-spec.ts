/**
 * The browser harness itself (test/support/browser.ts): it must see what the console's tests
 * rely on it to see, or their "no problem" checks would pass for nothing. A small local server
 * serves pages that break the Content Security Policy, throw, or request another origin.
 */
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { foreignRequests, launchChromium, useBrowser, waitUntil } from './browser';

const CSP = "default-src 'none'; script-src 'self'; img-src 'self'";

const PAGES: Record<string, { type: string; body: string }> = {
  // An inline script: the CSP refuses it.
  '/inline': {
    type: 'text/html',
    body: '<!doctype html><title>inline</title><script>document.title = "ran";</script>',
  },
  // An allowed script that throws.
  '/throws': { type: 'text/html', body: '<!doctype html><title>throws</title><script src="/throw.js"></script>' },
  '/throw.js': { type: 'text/javascript', body: 'throw new Error("thrown by the page");' },
  // An image from another origin (the CSP refuses it too, but the request is the point here).
  '/foreign': { type: 'text/html', body: '<!doctype html><title>foreign</title><img src="http://127.0.0.2:9/x.png">' },
};

describe('the browser harness', () => {
  let server: Server;
  let origin = '';
  beforeAll(async () => {
    server = createServer((request, response) => {
      const page = PAGES[request.url ?? ''];
      if (page === undefined) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': page.type, 'content-security-policy': CSP }).end(page.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const browser = useBrowser({ origins: () => [origin] });

  browser.test('records a Content Security Policy violation', async ({ page, problems }) => {
    await page.goto(`${origin}/inline`);
    await waitUntil(() => problems.cspViolations.length > 0, 'a CSP violation');
    expect(await page.title()).toBe('inline');
    expect(problems.cspViolations.join('\n')).toMatch(/script-src/);
    problems.cspViolations.length = 0;
  });

  browser.test('records an uncaught error of the page', async ({ page, problems }) => {
    await page.goto(`${origin}/throws`);
    await waitUntil(() => problems.pageErrors.length > 0, 'a page error');
    expect(problems.pageErrors[0]).toContain('thrown by the page');
    problems.pageErrors.length = 0;
  });

  browser.test('records the requests to another origin', async ({ page, problems }) => {
    await page.goto(`${origin}/foreign`);
    await waitUntil(() => foreignRequests(problems, [origin]).length > 0, 'a foreign request');
    expect(foreignRequests(problems, [origin])).toEqual(['http://127.0.0.2:9/x.png']);
    // Left for the harness's own check would fail the test: cleared, with the CSP message it caused.
    problems.requests.length = 0;
    problems.cspViolations.length = 0;
  });

  it('says how to install Chromium when the binary is missing', async () => {
    await expect(launchChromium('/nonexistent/chromium')).rejects.toThrow(/apt-get install chromium/);
  });
});
