/**
 * The console's Resources, Prompts, Notifications and Tasks panels in real headless Chromium,
 * against the real sample app: each panel is mounted alone on a test page (test/console/panels-page)
 * served by the app itself, on the origin of its /mcp, with the console's Content-Security-Policy,
 * and driven as a person would. The assertions are on what the page shows. Two test tools join
 * the sample's for what it has no tool for (a task that asks, a task that fails).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Browser, Page } from 'playwright-core';
// The policy the console's own pages are sent with: the harness pages run under the same one.
import { CONSOLE_CSP as CSP } from '../../lib/console/console.controller';
import { launchChromium } from '../support/browser';
import { Injectable, Module } from '@nestjs/common';
import { setTimeout as pause } from 'node:timers/promises';
import { McpCtx, type McpCallContext, McpError, McpNotifier, McpTool } from 'nest-mcp';
import { AppModule } from '../../sample/app.module';
import { startHttpApp, type HttpApp } from '../fixtures/http-app';

const ROOT = join(__dirname, '../..');
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.html': 'text/html; charset=utf-8' };

/**
 * Serves the console's modules and the test page at their paths in the repository
 * (`/console-ui/<module>.js`, `/test/console/panels-page/<file>`), so that the page imports
 * them by the same relative paths the type check resolves; each with the console's headers.
 * Anything else goes on to the app.
 */
function staticFiles(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const match = /^\/(console-ui|test\/console\/panels-page)\/([a-z][a-z-]*\.(js|html))$/.exec(
    new URL(req.url ?? '/', 'http://x').pathname,
  );
  if (req.method !== 'GET' || match === null) {
    next();
    return;
  }
  const file = join(ROOT, match[1], match[2]);
  readFile(file).then(
    (body) => {
      res.writeHead(200, {
        'Content-Type': TYPES[`.${match[3]}`],
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
      });
      res.end(body);
    },
    () => {
      res.writeHead(404).end();
    },
  );
}

/**
 * Two task tools beside the sample's, for what the sample has no tool for: a task that asks the
 * person a question, and one that fails. Each first outlives the inline window (100 ms), so that
 * the call becomes a task.
 */
@Injectable()
class PanelTestTools {
  @McpTool({ description: 'Asks for a name, as a task', taskSupport: 'optional' })
  async ask_in_task(@McpCtx() ctx: McpCallContext) {
    await pause(300, undefined, { signal: ctx.signal });
    const answer = await ctx.elicit(
      {
        message: 'What is your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      { key: 'name' },
    );
    return `Hello, ${String(answer.content?.name)}!`;
  }

  @McpTool({ description: 'Fails, as a task', taskSupport: 'optional' })
  async fail_in_task(@McpCtx() ctx: McpCallContext) {
    await pause(300, undefined, { signal: ctx.signal });
    throw new McpError(-32050, 'Quota exceeded');
  }
}

@Module({ imports: [AppModule], providers: [PanelTestTools] })
class PanelTestModule {}

/** The sample (and the test tools) on Express, the test page and the console's modules beside its /mcp. */
function startApp(): Promise<HttpApp> {
  return startHttpApp(PanelTestModule, {
    platform: 'express',
    configure: (app) => {
      (app.getHttpAdapter().getInstance() as { use(handler: typeof staticFiles): void }).use(staticFiles);
    },
  });
}

describe('console panels in Chromium against the sample', () => {
  const savedAuth = process.env.MCP_AUTH;
  let http: HttpApp;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    delete process.env.MCP_AUTH;
    http = await startApp();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await http?.close();
    if (savedAuth !== undefined) process.env.MCP_AUTH = savedAuth;
  });

  beforeEach(async () => {
    problems = [];
    page = await browser.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // A refused request (the 400 of an unknown note) is logged by Chromium itself: not a page problem.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        problems.push(`console error: ${message.text()}`);
      }
    });
  });

  afterEach(async () => {
    const violations = await page
      .evaluate(() => (globalThis as unknown as { panelTest?: { cspViolations: string[] } }).panelTest?.cspViolations)
      .catch(() => undefined);
    await page.close();
    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
  });

  /** Opens the test page with one panel, once it has listed what it shows. */
  async function open(
    panel: 'resources' | 'prompts' | 'listen' | 'tasks',
    options: { app?: HttpApp; capabilities?: Record<string, unknown> } = {},
  ): Promise<void> {
    const query = new URLSearchParams({ panel });
    if (options.capabilities !== undefined) {
      query.set('capabilities', JSON.stringify(options.capabilities));
    }
    const response = await page.goto(
      `${(options.app ?? http).baseUrl}/test/console/panels-page/index.html?${query.toString()}`,
    );
    expect(response?.headers()['content-security-policy']).toBe(CSP);
    await page.waitForFunction(() => (globalThis as unknown as { panelTest?: { ready: boolean } }).panelTest?.ready);
  }

  /** Calls a tool through the page's own McpConsoleClient. */
  function callInPage(name: string, args: Record<string, unknown>, tasks = false): Promise<Record<string, any>> {
    return page.evaluate(
      ([tool, toolArgs, asTask]) =>
        (
          globalThis as unknown as {
            panelTest: { client: { request(m: string, p: object, o: object): Promise<Record<string, any>> } };
          }
        ).panelTest.client.request('tools/call', { name: tool, arguments: toolArgs }, { tasks: asTask }),
      [name, args, tasks] as const,
    );
  }

  /** Creates a note through the page's client; its id. */
  async function createNote(title: string): Promise<string> {
    const result = await callInPage('create_note', { title, body: `The body of ${title}.` });
    const text = String(result.content?.[0]?.text);
    const id = /^Created note (\S+): /.exec(text)?.[1];
    if (id === undefined) {
      throw new Error(`create_note answered ${text}`);
    }
    return id;
  }

  /** Starts `tool` as a task through the page's client and hands it to the Tasks panel; its id. */
  async function startTask(tool: string, args: Record<string, unknown>): Promise<string> {
    const created = await callInPage(tool, args, true);
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    await page.evaluate(
      ([task, name]) =>
        (
          globalThis as unknown as { panelTest: { ctx: { watchTask(task: object, name: string): void } } }
        ).panelTest.ctx.watchTask(task, name),
      [created, tool] as const,
    );
    return String(created.taskId);
  }

  it('lists resources and templates, reads a resource, completes and reads a template', async () => {
    await open('resources');
    const id = await createNote('Panel note');
    const resources = page.getByRole('list', { name: 'Resources', exact: true });
    const templates = page.getByRole('list', { name: 'Resource templates' });
    expect(await resources.getByRole('button').allTextContents()).toContain('indexnotes://index');
    expect(await templates.getByRole('button').allTextContents()).toEqual(['notenotes://{id}']);

    await resources.getByRole('button', { name: /^index/ }).click();
    const contents = page.getByRole('region', { name: 'Contents' });
    await contents.locator('pre').waitFor();
    expect(await contents.locator('code').first().textContent()).toBe('notes://index');
    const listed = JSON.parse((await contents.locator('pre').textContent()) ?? '') as unknown;
    expect(listed).toContainEqual({ id, title: 'Panel note' });

    await templates.getByRole('button', { name: /^note/ }).click();
    expect(await page.getByText('One note, as Markdown').isVisible()).toBe(true);
    const variable = page.getByLabel('id', { exact: true });
    // Typed as a person does: the completion is asked on input, after a pause.
    await variable.pressSequentially(id);
    const suggestion = page.locator(`datalist#${await variable.getAttribute('id')}-suggestions option`);
    await suggestion.first().waitFor({ state: 'attached' });
    expect(await suggestion.evaluateAll((options) => options.map((option) => option.getAttribute('value')))).toEqual([
      id,
    ]);
    expect(await page.locator('form code').textContent()).toBe(`notes://${id}`);
    await page.getByRole('button', { name: 'Read' }).click();
    await contents.getByText('# Panel note').waitFor();
    expect(await contents.locator('pre').textContent()).toBe('# Panel note\n\nThe body of Panel note.\n');

    // An unknown note: the server's error, in the Contents region.
    // Enter in a variable's input reads too (the form's submit).
    await variable.fill('nope');
    await variable.press('Enter');
    await contents.getByText(/^Error -32602: No note nope/).waitFor();
  }, 60_000);

  it('gets a prompt with its arguments, completions offered', async () => {
    await open('prompts');
    const prompts = page.getByRole('list', { name: 'Prompts' });
    expect(await prompts.getByRole('button').allTextContents()).toContain('summarize_note');
    await prompts.getByRole('button', { name: 'summarize_note' }).click();
    expect(await page.getByRole('heading', { level: 3 }).textContent()).toBe('summarize_note');
    expect(await page.getByText('Asks the model to summarize one note').isVisible()).toBe(true);

    const id = page.getByLabel('id', { exact: true });
    expect(await id.getAttribute('required')).toBe('');
    expect(await page.getByRole('combobox', { name: 'id', exact: true }).count()).toBe(1);
    expect(await page.locator('p.field', { has: id }).locator('[aria-hidden="true"]').textContent()).toBe(' *');
    expect(
      await page
        .locator('p.field', { has: page.getByLabel('style') })
        .locator('[aria-hidden="true"]')
        .count(),
    ).toBe(0);
    // The argument's description is the input's description.
    const helpId = await id.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${helpId}"]`).textContent()).toBe('The note to summarize');
    const style = page.getByLabel('style', { exact: true });
    expect(await style.getAttribute('required')).toBeNull();

    await id.fill('1');
    await style.pressSequentially('p');
    const suggestion = page.locator(`datalist#${await style.getAttribute('id')}-suggestions option`);
    await suggestion.first().waitFor({ state: 'attached' });
    expect(await suggestion.evaluateAll((options) => options.map((option) => option.getAttribute('value')))).toEqual([
      'prose',
    ]);
    await style.fill('prose');
    // A refresh (as a list change brings) that changes nothing keeps what the person typed.
    await page.evaluate(() =>
      (globalThis as unknown as { panelTest: { panel: { refresh(): Promise<void> } } }).panelTest.panel.refresh(),
    );
    expect(await id.inputValue()).toBe('1');
    expect(await prompts.getByRole('button', { name: 'summarize_note' }).getAttribute('aria-current')).toBe('true');
    await page.getByRole('button', { name: 'Get prompt' }).click();
    const messages = page.getByRole('region', { name: 'Messages' });
    await messages.getByText(/Summarize this note as prose/).waitFor();
    expect(await messages.locator('.prompt-role').textContent()).toBe('user');
    expect(await messages.locator('pre').textContent()).toBe(
      'Summarize this note as prose:\n\n# Welcome\n\nThis server keeps notes in memory.',
    );
  }, 60_000);

  it('listens: acknowledged, notifications logged, list changes handed on, then stopped', async () => {
    await open('listen');
    for (const label of ['Tools list changed', 'Prompts list changed', 'Resources list changed']) {
      const box = page.getByLabel(label);
      expect(await box.isEnabled()).toBe(true);
      expect(await box.isChecked()).toBe(true);
    }
    await page.getByLabel('Prompts list changed').uncheck();
    await page.getByLabel('Resource URIs').fill('notes://index, notes://1');
    expect(await page.getByRole('button', { name: 'Stop' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Listen' }).click();
    await page
      .getByText(
        'Listening (acknowledged: toolsListChanged, resourcesListChanged, resourceSubscriptions (notes://index, notes://1))',
      )
      .waitFor();
    expect(await page.getByRole('button', { name: 'Listen' }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Tools list changed').isDisabled()).toBe(true);

    const log = page.getByRole('log', { name: 'Notifications' });
    await createNote('Heard note');
    await log.getByText('notifications/resources/updated').waitFor();
    expect(await log.locator('li').first().textContent()).toMatch(
      /^\d{1,2}:\d{2}:\d{2}.* notifications\/resources\/updated \{"uri":"notes:\/\/index"\}$/,
    );
    expect(await log.locator('li time').first().getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    await http.app.get(McpNotifier).toolsChanged();
    await log.getByText('notifications/tools/list_changed').waitFor();
    await page.getByRole('list', { name: 'List changes' }).getByText('tools').waitFor();
    expect(await log.locator('li').count()).toBe(2);

    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Listen' }).isEnabled()).toBe(true);
    expect(await page.getByLabel('Prompts list changed').isChecked()).toBe(false);
  }, 60_000);

  it('offers only what the server has: a server with tools list changes only', async () => {
    await open('listen', { capabilities: { tools: { listChanged: true }, resources: {} } });
    expect(await page.getByLabel('Tools list changed').isEnabled()).toBe(true);
    for (const label of ['Prompts list changed', 'Resources list changed', 'Resource URIs']) {
      expect(await page.getByLabel(label).isDisabled()).toBe(true);
    }
    expect(await page.getByLabel('Prompts list changed').isChecked()).toBe(false);
    await page.getByRole('button', { name: 'Listen' }).click();
    await page.getByText('Listening (acknowledged: toolsListChanged)', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped', { exact: true }).waitFor();
    expect(await page.getByLabel('Resources list changed').isDisabled()).toBe(true);
  }, 60_000);

  it('watches a task: status and message advance, Cancel task cancels it, Remove removes it', async () => {
    await open('tasks');
    const empty = page.getByText('No tasks yet: call a tool with “Run as task”.');
    expect(await empty.isVisible()).toBe(true);
    const taskId = await startTask('build_report', { sections: 20 });
    const article = page.getByRole('list', { name: 'Tasks' }).getByRole('article', { name: `Task ${taskId}` });
    await article.waitFor();
    expect(await empty.isVisible()).toBe(false);
    expect(await article.getByRole('heading').textContent()).toBe('build_report');
    expect(await article.locator('.task-status').textContent()).toBe('working');
    expect(await article.getByRole('button', { name: 'Answer' }).isVisible()).toBe(false);

    // The status message follows the sections, poll after poll.
    const message = article.locator('.task-message');
    await article.locator('.task-message', { hasText: /^Section \d+ of 20$/ }).waitFor();
    const first = Number(/^Section (\d+)/.exec((await message.textContent()) ?? '')?.[1]);
    const later = Array.from({ length: 20 - first }, (_, index) => first + 1 + index).join('|');
    await article.locator('.task-message', { hasText: new RegExp(`^Section (${later}) of 20$`) }).waitFor();
    expect(await article.locator('.task-status').textContent()).toBe('working');

    await article.getByRole('button', { name: 'Cancel task' }).click();
    await article.locator('.task-status', { hasText: /^cancelled$/ }).waitFor();
    expect(await message.textContent()).toBe('Cancelled by the client');
    expect(await article.getByRole('button', { name: 'Cancel task' }).isDisabled()).toBe(true);
    expect(await article.getByRole('region').textContent()).toBe('');

    await article.getByRole('button', { name: 'Remove' }).click();
    await article.waitFor({ state: 'detached' });
    expect(await empty.isVisible()).toBe(true);
  }, 60_000);

  it('polls a short task to completed and shows its result', async () => {
    await open('tasks');
    const taskId = await startTask('build_report', { sections: 1 });
    const article = page.getByRole('article', { name: `Task ${taskId}` });
    await article.locator('.task-status', { hasText: /^completed$/ }).waitFor();
    const result = article.getByRole('region', { name: `Result of task ${taskId}` });
    expect(await result.locator('pre.content-text').textContent()).toBe('Report ready: 1 section');
    expect(await result.getByRole('heading', { name: 'Structured content' }).isVisible()).toBe(true);
    expect(JSON.parse((await result.locator('pre.json').textContent()) ?? '')).toEqual({
      sections: 1,
      titles: ['Section 1'],
      taskId,
    });
    expect(await article.getByRole('button', { name: 'Cancel task' }).isDisabled()).toBe(true);
    expect(await article.locator('time').count()).toBe(2);
  }, 60_000);

  it('answers a task that asks: Answer shows while input_required, sends tasks/update, the task completes', async () => {
    await open('tasks');
    const taskId = await startTask('ask_in_task', {});
    const article = page.getByRole('article', { name: `Task ${taskId}` });
    await article.locator('.task-status', { hasText: /^input_required$/ }).waitFor();
    const answerButton = article.getByRole('button', { name: 'Answer' });
    expect(await answerButton.isVisible()).toBe(true);
    await answerButton.click();
    await article.locator('.task-status', { hasText: /^completed$/ }).waitFor();
    expect(await article.locator('pre.content-text').textContent()).toBe('Hello, Ada!');
    expect(await answerButton.isVisible()).toBe(false);
    // The stub was asked exactly the server's question.
    expect(
      await page.evaluate(() => (globalThis as unknown as { panelTest: { answered: unknown[] } }).panelTest.answered),
    ).toEqual([
      {
        name: {
          method: 'elicitation/create',
          params: {
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          },
        },
      },
    ]);
  }, 60_000);

  it('shows a failed task with its error', async () => {
    await open('tasks');
    const taskId = await startTask('fail_in_task', {});
    const article = page.getByRole('article', { name: `Task ${taskId}` });
    await article.locator('.task-status', { hasText: /^failed$/ }).waitFor();
    expect(await article.getByRole('region').textContent()).toBe('Error -32050: Quota exceeded');
    expect(await article.getByRole('button', { name: 'Cancel task' }).isDisabled()).toBe(true);
  }, 60_000);

  it('shows that the server ended the stream when it shuts down', async () => {
    // An app of its own: this one is shut down while the page listens.
    const own = await startApp();
    try {
      await open('listen', { app: own });
      await page.getByRole('button', { name: 'Listen' }).click();
      await page
        .getByText(/^Listening \(acknowledged: toolsListChanged, promptsListChanged, resourcesListChanged\)$/)
        .waitFor();
      await own.close();
      await page.getByText('Stopped (the server ended the stream)').waitFor();
      expect(await page.getByRole('button', { name: 'Listen' }).isEnabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Stop' }).isDisabled()).toBe(true);
    } finally {
      await own.close();
    }
  }, 60_000);
});
