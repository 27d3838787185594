// @ts-check
/**
 * The sample's MCP App: a card for the note `create_note` just made. The host sends it the
 * call's arguments (title, body, tags) and then its result (the new note's id, in the text); its
 * button calls `note_stats` back through the host and shows the count. It speaks to the host
 * only through the App class of @modelcontextprotocol/ext-apps (postMessage), which also reports
 * its size as its content grows. scripts/build-browser-bundles.mjs bundles it into the HTML.
 */
import { App } from '@modelcontextprotocol/ext-apps';

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
function byId(id) {
  const element = document.getElementById(id);
  if (element === null) {
    throw new Error(`note-card.html has no #${id}`);
  }
  return element;
}

const title = byId('title');
const body = byId('body');
const tags = byId('tags');
const result = byId('result');
const count = /** @type {HTMLButtonElement} */ (byId('count'));
const answer = byId('answer');
/** @type {string | undefined} */
let firstTag;

const app = new App({ name: 'Note card', version: '1.0.0' }, {}, { autoResize: true });

/**
 * @typedef {import('@modelcontextprotocol/ext-apps').McpUiToolInputNotification['params']} ToolInput
 * @typedef {import('@modelcontextprotocol/ext-apps').McpUiToolResultNotification['params']} ToolResult
 */

/** @param {ToolInput} params */
app.ontoolinput = (params) => {
  const args = /** @type {Record<string, unknown>} */ (params.arguments ?? {});
  title.textContent = typeof args.title === 'string' ? args.title : '(untitled)';
  body.textContent = typeof args.body === 'string' ? args.body : '';
  const list = Array.isArray(args.tags)
    ? args.tags.filter((/** @type {unknown} */ tag) => typeof tag === 'string').map(String)
    : [];
  firstTag = list[0];
  tags.replaceChildren(...list.map((tag) => Object.assign(document.createElement('li'), { textContent: tag })));
  count.textContent = firstTag === undefined ? 'Count notes' : `Count notes tagged ${firstTag}`;
};

/** @param {ToolResult['content']} content */
function textOf(content) {
  return content.map((block) => (block.type === 'text' ? block.text : '')).join(' ');
}

/** @param {ToolResult} params */
app.ontoolresult = ({ content, isError }) => {
  const text = textOf(content);
  result.textContent = isError === true ? `Not created: ${text}` : text;
  count.disabled = false;
};

count.addEventListener('click', () => {
  count.disabled = true;
  app
    .callServerTool({ name: 'note_stats', arguments: firstTag === undefined ? {} : { tag: firstTag } })
    .then(({ structuredContent, content, isError }) => {
      const stats = /** @type {{ total?: unknown, tag?: unknown } | undefined} */ (structuredContent);
      if (isError === true || typeof stats?.total !== 'number') {
        answer.textContent = textOf(content);
        return;
      }
      const noun = stats.total === 1 ? 'note' : 'notes';
      answer.textContent =
        typeof stats.tag === 'string' ? `${stats.total} ${noun} tagged ${stats.tag}` : `${stats.total} ${noun} in all`;
    })
    .catch((/** @type {unknown} */ error) => {
      answer.textContent = `The host refused: ${error instanceof Error ? error.message : String(error)}`;
    })
    .finally(() => {
      count.disabled = false;
    });
});

app.connect().catch((/** @type {unknown} */ error) => {
  title.textContent = `Not connected to the host: ${error instanceof Error ? error.message : String(error)}`;
});
