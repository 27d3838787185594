/**
 * The console's widgets (console-ui: schema-form.js, content-view.js, input-requests.js) in
 * real headless Chromium, served by a static server with the console's Content-Security-Policy.
 * The page (test/console/widgets-page) mounts them through `window.harness`; the assertions are
 * on what the page shows (by role and label) and on what the widgets return.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import type { Browser, Page } from 'playwright-core';
// The policy the console's own pages are sent with: the harness pages run under the same one.
import { CONSOLE_CSP as CSP } from '../../lib/console/console.controller';
import { launchChromium } from '../support/browser';

const ROOT = join(__dirname, '..', '..');
const SERVED = [join(ROOT, 'console-ui') + sep, join(ROOT, 'test', 'console', 'widgets-page') + sep];
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** A WAV of 80 silent 8-bit samples at 8 kHz (10 ms). */
function wav(): string {
  const samples = 80;
  const buffer = Buffer.alloc(44 + samples, 128);
  buffer.write('RIFF', 0);
  buffer.writeUInt32LE(36 + samples, 4);
  buffer.write('WAVEfmt ', 8);
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20);
  buffer.writeUInt16LE(1, 22);
  buffer.writeUInt32LE(8000, 24);
  buffer.writeUInt32LE(8000, 28);
  buffer.writeUInt16LE(1, 32);
  buffer.writeUInt16LE(8, 34);
  buffer.write('data', 36);
  buffer.writeUInt32LE(samples, 40);
  return buffer.toString('base64');
}

type Harness = Record<string, (...args: any[]) => any>;
declare const harness: Harness;
// Page functions run in the browser; the spec is compiled without the DOM lib.
declare const document: { querySelector(selector: string): any };

let server: Server;
let base: string;
let browser: Browser;
let page: Page;
let pageProblems: string[];

jest.setTimeout(60_000);

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = normalize(join(ROOT, decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)));
    // Only the two folders the page needs, nothing else of the repository.
    if (!SERVED.some((folder) => path.startsWith(folder)) || !TYPES[extname(path)]) {
      response.writeHead(404, { 'Content-Security-Policy': CSP }).end();
      return;
    }
    readFile(path).then(
      (body) =>
        response
          .writeHead(200, {
            'Content-Type': TYPES[extname(path)],
            'Content-Security-Policy': CSP,
            'X-Content-Type-Options': 'nosniff',
            'Cache-Control': 'no-store',
          })
          .end(body),
      () => response.writeHead(404, { 'Content-Security-Policy': CSP }).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

beforeEach(async () => {
  pageProblems = [];
  page = await browser.newPage();
  page.setDefaultTimeout(5_000);
  page.on('pageerror', (error) => pageProblems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) {
      pageProblems.push(`csp: ${message.text()}`);
    }
  });
  await page.goto(`${base}/test/console/widgets-page/index.html`);
  await page.locator('body[data-ready="true"]').waitFor({ state: 'attached' });
});

afterEach(async () => {
  const violations: string[] = await page.evaluate(() => harness.violations());
  await page.close();
  expect([...pageProblems, ...violations]).toEqual([]);
});

const formValue = () => page.evaluate(() => harness.formValue());
const mountForm = (schema: unknown, options: { completions?: boolean } = {}) =>
  page.evaluate(([s, o]) => harness.mountForm(s, o), [schema, options] as const);

describe('schema-form.js', () => {
  const issueSchema = {
    type: 'object',
    required: ['title', 'count', 'done', 'tags'],
    properties: {
      title: { type: 'string', description: 'What the issue is about', minLength: 2, maxLength: 40, pattern: '^\\S' },
      kind: { type: 'string', enum: ['bug', 'feature'] },
      priority: {
        oneOf: [
          { const: 1, title: 'Low' },
          { const: 2, title: 'High' },
        ],
      },
      due: { type: 'string', format: 'date' },
      email: { type: 'string', format: 'email' },
      site: { type: 'string', format: 'uri' },
      count: { type: 'integer', minimum: 0 },
      ratio: { type: 'number' },
      done: { type: 'boolean' },
      urgent: { type: 'boolean' },
      note: { type: ['string', 'null'] },
      level: { type: 'integer', default: 3 },
      tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
      owner: {
        type: 'object',
        title: 'Owner',
        required: ['name'],
        properties: { name: { type: 'string' }, age: { type: 'integer' } },
      },
      extra: { $ref: '#/$defs/extra' },
    },
  };

  it('renders every field kind with its label, attributes, help text and defaults', async () => {
    await mountForm(issueSchema);
    const title = page.getByLabel('title', { exact: true });
    expect(await title.getAttribute('type')).toBe('text');
    expect(await title.getAttribute('required')).toBe('');
    expect(await title.getAttribute('minlength')).toBe('2');
    expect(await title.getAttribute('maxlength')).toBe('40');
    expect(await title.getAttribute('pattern')).toBe('^\\S');
    const helpId = await title.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${helpId}"]`).textContent()).toBe('What the issue is about');
    // The label is exactly the name; the required mark beside it is hidden from assistive technology.
    expect(await page.locator(`label[for="${await title.getAttribute('id')}"]`).textContent()).toBe('title');
    expect(
      await page.locator(`label[for="${await title.getAttribute('id')}"] + [aria-hidden="true"]`).textContent(),
    ).toBe(' *');
    expect(await page.getByLabel('kind', { exact: true }).evaluate((e) => e.tagName)).toBe('SELECT');
    expect(await page.getByLabel('priority', { exact: true }).evaluate((e) => e.tagName)).toBe('SELECT');
    expect(await page.getByLabel('due', { exact: true }).getAttribute('type')).toBe('date');
    expect(await page.getByLabel('email', { exact: true }).getAttribute('type')).toBe('email');
    expect(await page.getByLabel('site', { exact: true }).getAttribute('type')).toBe('url');
    const count = page.getByLabel('count', { exact: true });
    expect([
      await count.getAttribute('type'),
      await count.getAttribute('step'),
      await count.getAttribute('min'),
    ]).toEqual(['number', '1', '0']);
    expect(await page.getByLabel('ratio', { exact: true }).getAttribute('step')).toBe('any');
    expect(await page.getByRole('checkbox', { name: 'done' }).isChecked()).toBe(false);
    expect(await page.getByLabel('level', { exact: true }).inputValue()).toBe('3');
    // minItems: one item is there from the start.
    expect(await page.getByLabel('tags 1', { exact: true }).count()).toBe(1);
    const owner = page.getByRole('group', { name: 'Owner' });
    expect(await owner.getByLabel('name', { exact: true }).count()).toBe(1);
    expect(await owner.getByLabel('age', { exact: true }).getAttribute('type')).toBe('number');
    // $ref: the raw JSON editor for that field.
    expect(await page.getByLabel('extra', { exact: true }).evaluate((e) => e.tagName)).toBe('TEXTAREA');
    expect(await page.getByRole('checkbox', { name: 'Edit as JSON' }).isChecked()).toBe(false);
  });

  it('lists the missing required fields and bad numbers, in the form too', async () => {
    await mountForm(issueSchema);
    await page.getByLabel('count', { exact: true }).fill('2.5');
    await page.getByLabel('extra', { exact: true }).fill('{nope');
    const result = await formValue();
    expect(result.ok).toBe(false);
    expect(result.isSchemaFormError).toBe(true);
    expect(result.problems).toEqual([
      'title is required',
      'count must be an integer',
      'tags 1 is required',
      expect.stringMatching(/^extra: invalid JSON/),
    ]);
    const alert = page.getByRole('alert');
    expect(await alert.getByRole('listitem').allTextContents()).toEqual(result.problems);
    expect(await page.getByLabel('title', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    // An optional nested object left empty is left out, its own required fields not asked for.
    expect(result.problems.join()).not.toMatch(/Owner/);
  });

  it('returns the value: numbers as numbers, enums and consts as their values, empty optionals left out', async () => {
    await mountForm(issueSchema);
    await page.getByLabel('title', { exact: true }).fill('Crash on start');
    await page.getByLabel('kind', { exact: true }).selectOption({ label: 'feature' });
    await page.getByLabel('priority', { exact: true }).selectOption({ label: 'High' });
    await page.getByLabel('due', { exact: true }).fill('2026-12-24');
    await page.getByLabel('count', { exact: true }).fill('4');
    await page.getByLabel('ratio', { exact: true }).fill('0.25');
    await page.getByLabel('tags 1', { exact: true }).fill('ui');
    await page.getByRole('button', { name: 'Add tags' }).click();
    await page.getByLabel('tags 2', { exact: true }).fill('console');
    await page.getByRole('button', { name: 'Add tags' }).click();
    await page.getByLabel('tags 3', { exact: true }).fill('mcp');
    await page.getByRole('button', { name: 'Remove tags 1' }).click();
    // The items are renumbered: the old second is now the first.
    expect(await page.getByLabel('tags 1', { exact: true }).inputValue()).toBe('console');
    expect(await page.getByLabel('tags 3', { exact: true }).count()).toBe(0);
    await page.getByRole('group', { name: 'Owner' }).getByLabel('age', { exact: true }).fill('40');
    await page.getByLabel('extra', { exact: true }).fill('{"a": [1, 2]}');
    await page.getByRole('checkbox', { name: 'urgent' }).check();
    expect(await formValue()).toEqual({ ok: false, isSchemaFormError: true, problems: ['Owner.name is required'] });
    await page.getByRole('group', { name: 'Owner' }).getByLabel('name', { exact: true }).fill('Ada');
    expect(await formValue()).toEqual({
      ok: true,
      value: {
        title: 'Crash on start',
        kind: 'feature',
        priority: 2,
        due: '2026-12-24',
        count: 4,
        ratio: 0.25,
        done: false,
        urgent: true,
        level: 3,
        tags: ['console', 'mcp'],
        owner: { name: 'Ada', age: 40 },
        extra: { a: [1, 2] },
      },
    });
    expect(await page.getByRole('alert').isHidden()).toBe(true);
  });

  it('round-trips through "Edit as JSON", and keeps the JSON view on a parse error', async () => {
    await mountForm(issueSchema);
    await page.getByLabel('title', { exact: true }).fill('First');
    await page.getByLabel('count', { exact: true }).fill('1');
    await page.getByLabel('tags 1', { exact: true }).fill('a');
    const json = page.getByLabel('Arguments (JSON)');
    expect(await json.isHidden()).toBe(true);
    await page.getByRole('checkbox', { name: 'Edit as JSON' }).check();
    expect(JSON.parse(await json.inputValue())).toEqual({
      title: 'First',
      count: 1,
      done: false,
      level: 3,
      tags: ['a'],
    });
    expect(await page.getByLabel('title', { exact: true }).isHidden()).toBe(true);

    await json.fill('{"title": "Second", "count": 7, "tags": ["x", "y"], "owner": {"name": "Bo"}, "more": true}');
    expect(await formValue()).toEqual({
      ok: true,
      value: { title: 'Second', count: 7, tags: ['x', 'y'], owner: { name: 'Bo' }, more: true },
    });
    await page.getByRole('checkbox', { name: 'Edit as JSON' }).uncheck();
    expect(await page.getByLabel('title', { exact: true }).inputValue()).toBe('Second');
    expect(await page.getByLabel('count', { exact: true }).inputValue()).toBe('7');
    expect(await page.getByLabel('tags 2', { exact: true }).inputValue()).toBe('y');
    expect(await page.getByRole('group', { name: 'Owner' }).getByLabel('name', { exact: true }).inputValue()).toBe(
      'Bo',
    );
    // A key the fields do not show is kept.
    expect((await formValue()).value).toEqual({
      title: 'Second',
      count: 7,
      done: false,
      tags: ['x', 'y'],
      owner: { name: 'Bo' },
      more: true,
    });

    await page.getByRole('checkbox', { name: 'Edit as JSON' }).check();
    await json.fill('{"title": ');
    // click(), not uncheck(): the checkbox is meant to stay ticked.
    await page.getByRole('checkbox', { name: 'Edit as JSON' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/^Arguments \(JSON\): invalid JSON/);
    expect(await page.getByRole('checkbox', { name: 'Edit as JSON' }).isChecked()).toBe(true);
    expect(await json.isVisible()).toBe(true);
    expect(await formValue()).toMatchObject({ ok: false, problems: [expect.stringMatching(/invalid JSON/)] });
  });

  it('setValue fills the fields (arrays and nested objects included) and focus() reaches the first', async () => {
    await mountForm(issueSchema);
    await page.evaluate(() =>
      harness.formSetValue({
        title: 'Set',
        tags: ['p', 'q', 'r'],
        owner: { name: 'Cy', age: 3 },
        done: true,
        priority: 1,
      }),
    );
    expect(await page.getByLabel('tags 3', { exact: true }).inputValue()).toBe('r');
    expect(await page.getByRole('checkbox', { name: 'done' }).isChecked()).toBe(true);
    expect(await page.getByLabel('priority', { exact: true }).locator('option:checked').textContent()).toBe('Low');
    await page.evaluate(() => harness.formFocus());
    expect(await page.evaluate(() => harness.focused())).toBe('title');
  });

  it('nullable, default booleans and arrays of objects', async () => {
    await mountForm({
      type: 'object',
      required: ['note'],
      properties: {
        note: { type: ['string', 'null'] },
        notify: { type: 'boolean', default: true },
        people: {
          type: 'array',
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        },
      },
    });
    expect(await page.getByRole('checkbox', { name: 'notify' }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: 'notify' }).uncheck();
    await page.getByRole('button', { name: 'Add people' }).click();
    await page.getByRole('group', { name: 'people 1' }).getByLabel('name').fill('Di');
    // A required nullable left empty is null; an unticked boolean whose default is true is false.
    expect(await formValue()).toEqual({ ok: true, value: { note: null, notify: false, people: [{ name: 'Di' }] } });
  });

  it('falls back to the raw JSON editor for a schema it cannot render', async () => {
    await mountForm({ type: 'object', additionalProperties: { type: 'string' } });
    expect(await page.getByRole('checkbox', { name: 'Edit as JSON' }).count()).toBe(0);
    expect(await formValue()).toEqual({ ok: true, value: {} });
    await page.getByLabel('Arguments (JSON)').fill('{"x": "1"}');
    expect(await formValue()).toEqual({ ok: true, value: { x: '1' } });
    await mountForm({
      type: 'object',
      properties: { shape: { oneOf: [{ type: 'object', properties: { r: { type: 'number' } } }, { type: 'string' }] } },
    });
    expect(await page.getByLabel('shape').evaluate((e) => e.tagName)).toBe('TEXTAREA');
  });

  it('fills a datalist from complete(), dropping an answer that arrives after a newer one', async () => {
    await mountForm(
      { type: 'object', properties: { city: { type: 'string' }, country: { type: 'string' } } },
      { completions: true },
    );
    await page.getByLabel('country').fill('FR');
    await page.waitForFunction(() => harness.completeCalls().length === 1);
    await page.getByLabel('city').fill('a');
    await page.waitForFunction(() => harness.completeCalls().length === 2);
    await page.getByLabel('city').fill('al');
    await page.waitForFunction(() => harness.completeCalls().length === 3);
    const calls = await page.evaluate(() => harness.completeCalls());
    expect(calls.slice(1)).toEqual([
      { name: 'city', value: 'a', allValues: { city: 'a', country: 'FR' } },
      { name: 'city', value: 'al', allValues: { city: 'al', country: 'FR' } },
    ]);
    const listId = await page.getByLabel('city').getAttribute('list');
    await page.evaluate(() => harness.releaseCompletion('al'));
    await page.evaluate(() => harness.releaseCompletion('a'));
    expect(await page.evaluate((id) => harness.datalistOptions(id), listId)).toEqual(['alpha', 'alpine']);
  });
});

describe('content-view.js', () => {
  it('renders text, image, audio, embedded resources and resource links', async () => {
    const audio = wav();
    await page.evaluate(
      ([png, sound]) =>
        harness.render('renderContentBlocks', [
          { type: 'text', text: '<b>not bold</b>' },
          { type: 'image', mimeType: 'image/png', data: png },
          { type: 'image', mimeType: 'image/png" onerror="x', data: png },
          { type: 'audio', mimeType: 'audio/wav', data: sound },
          { type: 'resource', resource: { uri: 'docs://readme', mimeType: 'text/markdown', text: '# Readme' } },
          { type: 'resource_link', uri: 'https://example.com/a', name: 'The site', mimeType: 'text/html' },
          { type: 'resource_link', uri: 'javascript:alert(1)', name: 'Sneaky' },
          { type: 'resource_link', uri: 'file:///tmp/x.txt', name: 'Local file' },
        ]),
      [PNG, audio],
    );
    expect(await page.locator('pre.content-text').first().textContent()).toBe('<b>not bold</b>');
    expect(await page.locator('b').count()).toBe(0);
    const image = page.getByRole('img', { name: 'image (image/png)' });
    await page.waitForFunction(() => document.querySelector('img')?.complete === true);
    expect(await image.evaluate((e: any) => [e.naturalWidth, e.src.slice(0, 22)])).toEqual([
      1,
      'data:image/png;base64,',
    ]);
    expect(await page.locator('img').count()).toBe(1);
    expect(await page.getByText('image with an invalid MIME type or data: image/png" onerror="x').count()).toBe(1);
    const player = page.locator('audio');
    expect(await player.getAttribute('aria-label')).toBe('audio (audio/wav)');
    expect(await player.evaluate((e: any) => [e.controls, e.src.startsWith('data:audio/wav;base64,')])).toEqual([
      true,
      true,
    ]);
    await page.waitForFunction(() => document.querySelector('audio').readyState >= 1);
    expect(await page.getByText('docs://readme').count()).toBe(1);
    expect(await page.getByText('# Readme').count()).toBe(1);
    const link = page.getByRole('link', { name: 'The site' });
    expect([
      await link.getAttribute('href'),
      await link.getAttribute('rel'),
      await link.getAttribute('target'),
    ]).toEqual(['https://example.com/a', 'noopener noreferrer', '_blank']);
    expect(await page.getByText('text/html').count()).toBe(1);
    // Only http(s) becomes a link; the rest is text.
    expect(await page.getByRole('link').count()).toBe(1);
    expect(await page.getByText('javascript:alert(1)').count()).toBe(1);
    expect(await page.getByText('Local file').count()).toBe(1);
  });

  it('renders a tool result: the error badge, structured content beside the output schema', async () => {
    await page.evaluate(() =>
      harness.render(
        'renderToolResult',
        { isError: true, content: [{ type: 'text', text: 'It broke' }], structuredContent: { total: 3 } },
        { type: 'object', properties: { total: { type: 'integer' } } },
      ),
    );
    expect(await page.getByText('Tool error', { exact: true }).count()).toBe(1);
    expect(await page.getByText('It broke').count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'Structured content' }).count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'Output schema' }).count()).toBe(1);
    expect(JSON.parse((await page.locator('pre.json').first().textContent()) ?? '')).toEqual({ total: 3 });
    expect(JSON.parse((await page.locator('pre.json').nth(1).textContent()) ?? '')).toEqual({
      type: 'object',
      properties: { total: { type: 'integer' } },
    });
    await page.evaluate(() => harness.render('renderToolResult', { content: [{ type: 'text', text: 'fine' }] }));
    expect(await page.getByText('Tool error').count()).toBe(0);
    expect(await page.getByRole('heading').count()).toBe(0);
  });

  it('renders resource contents: text, image and audio blobs, a download link for other blobs', async () => {
    await page.evaluate(
      ([png, sound]) =>
        harness.render('renderResourceContents', [
          { uri: 'docs://a.txt', mimeType: 'text/plain', text: 'hello' },
          { uri: 'img://dot.png', mimeType: 'image/png', blob: png },
          { uri: 'snd://beep.wav', mimeType: 'audio/wav', blob: sound },
          { uri: 'bin://data/file.bin', mimeType: 'application/octet-stream', blob: 'AQIDBAU=' },
        ]),
      [PNG, wav()],
    );
    expect(await page.getByText('docs://a.txt').count()).toBe(1);
    expect(await page.getByText('text/plain').count()).toBe(1);
    expect(await page.locator('pre.content-text').textContent()).toBe('hello');
    expect(await page.getByRole('img', { name: 'image (image/png)' }).count()).toBe(1);
    expect(await page.locator('audio[controls]').count()).toBe(1);
    const download = page.getByRole('link', { name: 'Download (5 bytes)' });
    expect(await download.getAttribute('download')).toBe('file.bin');
    expect(await download.getAttribute('href')).toBe('data:application/octet-stream;base64,AQIDBAU=');
  });

  it('renders prompt messages and JSON', async () => {
    await page.evaluate(() =>
      harness.render('renderPromptMessages', [
        { role: 'user', content: { type: 'text', text: 'Review this' } },
        { role: 'assistant', content: { type: 'text', text: 'Looks good' } },
      ]),
    );
    expect(await page.locator('.prompt-role').allTextContents()).toEqual(['user', 'assistant']);
    expect(await page.locator('.prompt-message pre.content-text').allTextContents()).toEqual([
      'Review this',
      'Looks good',
    ]);
    await page.evaluate(() => harness.render('renderJson', { a: [1, { b: null }] }));
    expect(await page.locator('pre.json').textContent()).toBe(JSON.stringify({ a: [1, { b: null }] }, null, 2));
  });
});

describe('input-requests.js', () => {
  const outcome = () => page.evaluate(() => harness.outcome());
  const start = (requests: unknown) => page.evaluate((r) => harness.startAnswer(r), requests);
  const elicitation = {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: 'Who are you?',
      requestedSchema: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          age: { type: 'integer' },
          subscribe: { type: 'boolean' },
          plan: { type: 'string', enum: ['free', 'pro'] },
        },
      },
    },
  };

  it('Elicitation: a modal dialog with the form, focused; Accept sends the content once it is valid', async () => {
    await start({ who: elicitation });
    const dialog = page.getByRole('dialog', { name: 'Elicitation' });
    await dialog.waitFor();
    expect(await dialog.evaluate((e: any) => e.open && e.matches(':modal'))).toBe(true);
    expect(await dialog.getByText('Who are you?').count()).toBe(1);
    expect(await page.evaluate(() => harness.focused())).toBe('name');
    await dialog.getByRole('button', { name: 'Accept' }).click();
    expect(await dialog.getByRole('alert').textContent()).toBe('name is required');
    await dialog.getByLabel('name').fill('Ada');
    await dialog.getByLabel('age').fill('36');
    await dialog.getByLabel('plan').selectOption('pro');
    await dialog.getByRole('button', { name: 'Accept' }).click();
    expect(await outcome()).toEqual({
      status: 'fulfilled',
      value: { who: { action: 'accept', content: { name: 'Ada', age: 36, plan: 'pro' } } },
    });
    await dialog.waitFor({ state: 'detached' });
  });

  it('Elicitation: Decline, Escape (cancel), and URL mode as a link', async () => {
    await start({ who: elicitation });
    await page.getByRole('dialog', { name: 'Elicitation' }).getByRole('button', { name: 'Decline' }).click();
    expect(await outcome()).toEqual({ status: 'fulfilled', value: { who: { action: 'decline' } } });

    await start({ who: elicitation });
    await page.getByRole('dialog', { name: 'Elicitation' }).waitFor();
    await page.keyboard.press('Escape');
    expect(await outcome()).toEqual({ status: 'fulfilled', value: { who: { action: 'cancel' } } });
    expect(await page.evaluate(() => harness.openDialogs())).toBe(0);

    await start({
      login: {
        method: 'elicitation/create',
        params: {
          mode: 'url',
          message: 'Sign in there',
          url: 'https://auth.example.com/start?x=1',
          elicitationId: 'e1',
        },
      },
    });
    const dialog = page.getByRole('dialog', { name: 'Elicitation' });
    const link = dialog.getByRole('link', { name: 'https://auth.example.com/start?x=1' });
    expect([await link.getAttribute('target'), await link.getAttribute('rel')]).toEqual([
      '_blank',
      'noopener noreferrer',
    ]);
    expect(await dialog.getByText('Sign in there').count()).toBe(1);
    await dialog.getByRole('button', { name: 'Accept' }).click();
    expect(await outcome()).toEqual({ status: 'fulfilled', value: { login: { action: 'accept' } } });
  });

  it('Sampling: shows the request, sends the reply typed by hand; Decline rejects', async () => {
    const sampling = {
      method: 'sampling/createMessage',
      params: {
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the report' } }],
        systemPrompt: 'You are terse.',
        maxTokens: 200,
      },
    };
    await start({ s: sampling });
    const dialog = page.getByRole('dialog', { name: 'Sampling' });
    await dialog.waitFor();
    expect(await dialog.getByText('Summarise the report').count()).toBe(1);
    expect(await dialog.getByText('You are terse.').count()).toBe(1);
    expect(await dialog.getByText('200', { exact: true }).count()).toBe(1);
    expect(await page.evaluate(() => harness.focused())).toBe('Reply');
    expect(await dialog.getByLabel('Model').inputValue()).toBe('human');
    await dialog.getByLabel('Reply').fill('All fine.');
    await dialog.getByRole('button', { name: 'Send reply' }).click();
    expect(await outcome()).toEqual({
      status: 'fulfilled',
      value: {
        s: { role: 'assistant', content: { type: 'text', text: 'All fine.' }, model: 'human', stopReason: 'endTurn' },
      },
    });

    await start({ s: sampling });
    await page.getByRole('dialog', { name: 'Sampling' }).getByRole('button', { name: 'Decline' }).click();
    expect(await outcome()).toEqual({
      status: 'rejected',
      name: 'Error',
      message: 'The person declined the sampling request',
    });

    // Escape declines too: sampling has no cancel answer.
    await start({ s: sampling });
    await page.getByRole('dialog', { name: 'Sampling' }).waitFor();
    await page.keyboard.press('Escape');
    expect(await outcome()).toEqual({
      status: 'rejected',
      name: 'Error',
      message: 'The person declined the sampling request',
    });
  });

  it('Roots: edits the list, sends it and saves it', async () => {
    await start({ r: { method: 'roots/list' } });
    const dialog = page.getByRole('dialog', { name: 'Roots' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Root URI 1').inputValue()).toBe('file:///home/me/project');
    expect(await dialog.getByLabel('Root name 1').inputValue()).toBe('project');
    expect(await page.evaluate(() => harness.focused())).toBe('Root URI 1');
    await dialog.getByRole('button', { name: 'Add root' }).click();
    expect(await page.evaluate(() => harness.focused())).toBe('Root URI 2');
    await dialog.getByLabel('Root URI 2').fill('file:///srv/data');
    await dialog.getByRole('button', { name: 'Add root' }).click();
    await dialog.getByLabel('Root URI 3').fill('file:///tmp');
    await dialog.getByLabel('Root name 3').fill('scratch');
    await dialog.getByRole('button', { name: 'Remove root 1' }).click();
    expect(await dialog.getByLabel('Root URI 1').inputValue()).toBe('file:///srv/data');
    await dialog.getByRole('button', { name: 'Send roots' }).click();
    const roots = [{ uri: 'file:///srv/data' }, { uri: 'file:///tmp', name: 'scratch' }];
    expect(await outcome()).toEqual({ status: 'fulfilled', value: { r: { roots } } });
    expect(await page.evaluate(() => harness.roots())).toEqual(roots);

    // roots/list has no cancel answer: Escape refuses the request and leaves the saved roots alone.
    await start({ r: { method: 'roots/list' } });
    await page.getByRole('dialog', { name: 'Roots' }).getByLabel('Root URI 1').fill('file:///changed');
    await page.keyboard.press('Escape');
    expect(await outcome()).toEqual({
      status: 'rejected',
      name: 'Error',
      message: 'The person cancelled the roots request',
    });
    expect(await page.evaluate(() => harness.roots())).toEqual(roots);
  });

  it('asks one dialog at a time, in key order', async () => {
    await start({ first: elicitation, second: { method: 'roots/list' } });
    await page.getByRole('dialog', { name: 'Elicitation' }).waitFor();
    expect(await page.evaluate(() => harness.openDialogs())).toBe(1);
    await page.getByRole('dialog').getByLabel('name').fill('Bo');
    await page.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('dialog', { name: 'Roots' }).waitFor();
    expect(await page.evaluate(() => harness.openDialogs())).toBe(1);
    await page.getByRole('button', { name: 'Send roots' }).click();
    expect(await outcome()).toEqual({
      status: 'fulfilled',
      value: {
        first: { action: 'accept', content: { name: 'Bo' } },
        second: { roots: [{ uri: 'file:///home/me/project', name: 'project' }] },
      },
    });
  });

  it('an aborted signal closes the dialog and rejects with an AbortError', async () => {
    await start({ s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } });
    await page.getByRole('dialog', { name: 'Sampling' }).waitFor();
    await page.evaluate(() => harness.abort());
    expect(await outcome()).toEqual({ status: 'rejected', name: 'AbortError', message: 'Aborted' });
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });
});
