/**
 * Cancel, seen from the server: the console's Cancel button stops the handler itself (its
 * `ctx.signal` aborts), in the modern era (the stream is closed) and in a legacy session
 * (`notifications/cancelled` as well), with and without a global prefix and URI versioning, on
 * both platforms. The page is found at the versioned path, and its requests go to the versioned
 * endpoint.
 */
import { MATRIX, startTransportsApp, type TransportsApp } from '../fixtures/transports-fixture';
import { useBrowser, waitForText, waitUntil } from '../support/browser';
import { field, openConsole, panelButton, selectTool, toolResult } from '../support/console-page';

jest.setTimeout(90_000);

const ERAS = [
  { era: 'modern', revisions: undefined, connected: /^Connected to transports-fixture/ },
  { era: 'legacy', revisions: ['2025-11-25' as const], connected: /a 2025-11-25 session/ },
];

describe.each(MATRIX)('console cancel ($title)', ({ platform, routing }) => {
  describe.each(ERAS)('$era era', ({ era, revisions, connected }) => {
    let app: TransportsApp;
    beforeAll(async () => {
      app = await startTransportsApp(
        { console: true, ...(revisions === undefined ? {} : { revisions }) },
        platform,
        routing,
      );
    }, 60_000);
    afterAll(async () => {
      await app?.close();
    });

    const browser = useBrowser({ origins: () => [app.baseUrl] });

    browser.test('Cancel aborts the running handler, and the page says Cancelled', async ({ page }) => {
      await openConsole(page, app.route('mcp/console').href, connected);
      const label = `console-cancel-${platform}-${routing.versioned ? 'v1' : 'plain'}-${era}`;
      const form = await selectTool(page, 'wait_for_abort');
      await field(form, 'label').fill(label);
      await panelButton(page, 'Call').click();
      await app.probe.waitFor('started', label, 10_000);

      await panelButton(page, 'Cancel').click();
      await waitForText(toolResult(page), 'Cancelled');
      // The handler's own signal aborted: it did not run on to its limit.
      await app.probe.waitFor('aborted', label, 10_000);
      await waitUntil(() => app.probe.running === 0, 'the handler to return');
      expect(app.probe.saw('finished', label)).toBe(false);
    });
  });
});
