/**
 * Real headless Chromium for the console's browser tests: Debian's `chromium` package driven by
 * playwright-core (which downloads no browser of its own). One browser per test file, a fresh
 * context (cookies, storage, cache) per test, so that no test sees another's sessionStorage.
 *
 * Every test declared with {@link BrowserHarness.test} also checks, once its body passed, what a
 * person would never see but must not happen: an uncaught error in the page, a Content Security
 * Policy violation, a request to an origin other than the page's own. A failing test keeps a
 * screenshot of the page under the system's temporary directory and names it in the error.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { waitUntil as waitUntilHolds } from './waiting';

/** The Chromium binary: `CHROMIUM_PATH`, else Debian's. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The viewport of every page (and of the screenshot in docs/). */
export const VIEWPORT = { width: 1280, height: 900 } as const;

/** How long a wait for a state of the page lasts before it fails. */
export const WAIT_MS = 15_000;

/** Launches Chromium (`executablePath`, Debian's by default), or fails saying how to install it. */
export async function launchChromium(executablePath: string = CHROMIUM_PATH): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(
      `No Chromium at ${executablePath}: the console's browser tests drive a real Chromium. ` +
        'Install it with `apt-get install chromium` (Debian), or set CHROMIUM_PATH to a Chromium binary.',
    );
  }
  // Run as root in CI: Chromium's sandbox needs an unprivileged user.
  return chromium.launch({ executablePath, args: ['--no-sandbox'] });
}

/** What went wrong in a page without failing an assertion by itself. */
export interface PageProblems {
  /** Uncaught exceptions and unhandled rejections (`pageerror`). */
  readonly pageErrors: string[];
  /** Console messages about the Content Security Policy (Chromium logs each violation). */
  readonly cspViolations: string[];
  /** Every URL the page requested, in order. */
  readonly requests: string[];
}

/** One test's browser: its context, its first page, and what was recorded on every page of it. */
export interface BrowserSession {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly problems: PageProblems;
  /** Another page (tab) in the same context, watched like the first one. */
  newPage(): Promise<Page>;
  /** Another context (another browser profile: no shared storage), watched too; closed with this one. */
  newContext(): Promise<{ context: BrowserContext; page: Page }>;
}

export interface BrowserHarnessOptions {
  /** The only origins the pages may request (read when a test ends): the app(s) under test. */
  origins: () => string[];
  /** Text appended to the error of a failing test (the server's output, for instance). */
  diagnostics?: () => string;
}

export interface BrowserHarness {
  /** A test with a fresh browser context; see the module comment for what it checks after `body`. */
  test(name: string, body: (session: BrowserSession) => Promise<void>, timeoutMs?: number): void;
}

/** Records page errors, CSP messages and requests of `page` into `problems`. */
function watchPage(page: Page, problems: PageProblems): void {
  page.on('pageerror', (error) => problems.pageErrors.push(error.stack ?? String(error)));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) {
      problems.cspViolations.push(message.text());
    }
  });
  page.on('request', (request) => problems.requests.push(request.url()));
}

/** The requests of `problems` that went to none of `origins` (data:, blob: and about: URLs are local). */
export function foreignRequests(problems: PageProblems, origins: string[]): string[] {
  const allowed = new Set(origins.map((origin) => new URL(origin).origin));
  return problems.requests.filter((url) => !/^(data|blob|about):/.test(url) && !allowed.has(new URL(url).origin));
}

async function newWatchedContext(browser: Browser, problems: PageProblems, contexts: BrowserContext[]) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  contexts.push(context);
  // Actions wait for their element as long as the waits of these helpers do, not Playwright's 30 s.
  context.setDefaultTimeout(WAIT_MS);
  // A violation also fires `securitypolicyviolation`; logging it says which directive, in case
  // Chromium's own console message is ever missing (init scripts are not subject to the CSP).
  await context.addInitScript(() => {
    (globalThis as any).addEventListener('securitypolicyviolation', (event: any) => {
      console.error(`Content Security Policy violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  context.on('page', (page) => watchPage(page, problems));
  const page = await context.newPage();
  return { context, page };
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
}

/**
 * Registers the hooks of a browser test file (Chromium launched once, closed after the file) and
 * returns the `test` function that gives each test its own context.
 */
export function useBrowser(options: BrowserHarnessOptions): BrowserHarness {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });

  return {
    test(name, body, timeoutMs = 60_000) {
      it(
        name,
        async () => {
          if (browser === undefined) {
            throw new Error('Chromium did not start (see the error of beforeAll)');
          }
          const problems: PageProblems = { pageErrors: [], cspViolations: [], requests: [] };
          const contexts: BrowserContext[] = [];
          const { context, page } = await newWatchedContext(browser, problems, contexts);
          const session: BrowserSession = {
            context,
            page,
            problems,
            newPage: () => context.newPage(),
            newContext: () => newWatchedContext(browser!, problems, contexts),
          };
          try {
            await body(session);
            expect({
              pageErrors: problems.pageErrors,
              cspViolations: problems.cspViolations,
              foreignRequests: foreignRequests(problems, options.origins()),
            }).toEqual({ pageErrors: [], cspViolations: [], foreignRequests: [] });
          } catch (error) {
            const file = join(tmpdir(), `nest-mcp-console-${slug(name)}.png`);
            const shot = await page
              .screenshot({ path: file, fullPage: true })
              .then(() => `screenshot of the page: ${file}`)
              .catch((reason: unknown) => `no screenshot (${String(reason)})`);
            process.stderr.write(`[${name}] ${shot}\n`);
            if (error instanceof Error) {
              const extra = options.diagnostics?.();
              error.message += `\n${shot}${extra ? `\n${extra}` : ''}`;
            }
            throw error;
          } finally {
            await Promise.all(contexts.map((each) => each.close().catch(() => undefined)));
          }
        },
        timeoutMs,
      );
    },
  };
}

/**
 * Waits until `condition` resolves true (it is asked again on every animation frame's worth of
 * time), or fails after `timeoutMs` with `description` and what `describeLast` says then.
 */
export async function waitUntil(
  condition: () => Promise<boolean> | boolean,
  description: string,
  timeoutMs: number = WAIT_MS,
  describeLast?: () => Promise<string> | string,
): Promise<void> {
  return waitUntilHolds(condition, description, timeoutMs, { intervalMs: 25, describeLast });
}

/** The text of `locator` (its first match), or '' while it does not exist. */
export async function textOf(locator: Locator): Promise<string> {
  return (await locator.count()) === 0 ? '' : ((await locator.first().textContent()) ?? '');
}

/**
 * Waits until the text of `locator` contains `expected` (a string) or matches it (a RegExp), and
 * returns that text.
 */
export async function waitForText(
  locator: Locator,
  expected: string | RegExp,
  timeoutMs: number = WAIT_MS,
): Promise<string> {
  let text = '';
  await waitUntil(
    async () => {
      text = await textOf(locator);
      return typeof expected === 'string' ? text.includes(expected) : expected.test(text);
    },
    `${String(locator)} to show ${String(expected)}`,
    timeoutMs,
    () => JSON.stringify(text),
  );
  return text;
}
