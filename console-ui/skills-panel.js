// @ts-check
/**
 * The Skills tab (the `io.modelcontextprotocol/skills` extension): the skills the server lists,
 * each with its frontmatter and its files (URI, size, SHA-256 digest); a file is read with
 * `resources/read` when it is chosen.
 */
import { h, append, clear } from './dom.js';
import { createResourceReader } from './resource-reader.js';
import { listAll } from './tools-panel.js';

/**
 * @typedef {import('./app.js').ConsoleContext} ConsoleContext
 * @typedef {{ uri: string, digest: string, size: number }} SkillFile
 * @typedef {{ uri: string, frontmatter: { name: string, description: string, [key: string]: unknown },
 *   resources: SkillFile[] | 'dynamic' }} Skill
 */

/** The extension's identifier. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/**
 * The Skills tab (see the file comment).
 *
 * @param {ConsoleContext} ctx
 * @returns {{ element: HTMLElement, refresh(): Promise<void> }}
 */
export function createSkillsPanel(ctx) {
  const list = h('ul', { role: 'list', 'aria-label': 'Skills', class: 'item-list' });
  const hint = h('p', { class: 'hint', hidden: true }, 'This server lists no skills.');
  const detail = h('div', { class: 'detail-head' }, h('p', { class: 'hint' }, 'Choose a skill.'));
  const contents = h('div', { role: 'region', 'aria-label': 'Skill file', class: 'result', 'aria-live': 'polite' });
  const element = h(
    'div',
    { class: 'split' },
    h('nav', { class: 'items' }, h('h3', {}, 'Skills'), list, hint),
    h('div', { class: 'detail' }, detail, h('h4', {}, 'File'), contents),
  );
  const { read } = createResourceReader(ctx, contents);

  /** @param {Skill} skill */
  function show(skill) {
    for (const button of list.querySelectorAll('button')) {
      button.setAttribute('aria-current', String(/** @type {HTMLElement} */ (button).dataset.uri === skill.uri));
    }
    clear(detail);
    const files = skill.resources;
    append(detail, [
      h('h3', {}, skill.frontmatter.name),
      h('p', { class: 'description' }, skill.frontmatter.description),
      h('p', {}, h('code', {}, skill.uri)),
      h(
        'details',
        {},
        h('summary', {}, 'Frontmatter'),
        h('pre', { class: 'json' }, JSON.stringify(skill.frontmatter, null, 2)),
      ),
      files === 'dynamic'
        ? h('p', { class: 'hint' }, 'Its files are generated: the server publishes no digests.')
        : h(
            'table',
            { class: 'skill-files', 'aria-label': 'Files' },
            h('thead', {}, h('tr', {}, h('th', {}, 'File'), h('th', {}, 'Size'), h('th', {}, 'Digest'))),
            h(
              'tbody',
              {},
              files.map((file) =>
                h(
                  'tr',
                  {},
                  h(
                    'td',
                    {},
                    h('button', { type: 'button', class: 'link', onClick: () => void read(file.uri) }, file.uri),
                  ),
                  h('td', {}, `${file.size} B`),
                  h('td', {}, h('code', {}, file.digest)),
                ),
              ),
            ),
          ),
    ]);
    void read(skill.uri);
  }

  async function refresh() {
    clear(list);
    const declared = ctx.server()?.capabilities.extensions;
    if (typeof declared !== 'object' || declared === null || !(SKILLS_EXTENSION in declared)) {
      hint.textContent = 'This server does not serve skills.';
      hint.hidden = false;
      return;
    }
    const skills = /** @type {Skill[]} */ (/** @type {unknown} */ (await listAll(ctx, 'skills/list', 'skills')));
    for (const skill of skills) {
      list.append(
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              class: 'item',
              'data-uri': skill.uri,
              'aria-current': 'false',
              onClick: () => show(skill),
            },
            h('span', { class: 'item-name' }, skill.frontmatter.name),
            h('span', { class: 'item-note' }, skill.uri),
          ),
        ),
      );
    }
    hint.textContent = 'This server lists no skills.';
    hint.hidden = skills.length > 0;
  }

  return { element, refresh };
}
