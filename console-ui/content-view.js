// @ts-check
/**
 * Renders what a server returns (tool results, resource contents, prompt messages) by content
 * type. Everything is built as nodes from the data, never as markup; media are shown only from
 * `data:` URLs built here from base64 and a well-formed MIME type, and only http(s) URIs become
 * links, so a server cannot make the page run or load anything.
 */
import { h } from './dom.js';

/**
 * @typedef {Record<string, any>} Block
 */

const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+$/;
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/**
 * Content blocks (text, image, audio, embedded resource, resource link); an unknown type is
 * shown as its JSON.
 *
 * @param {unknown} blocks
 * @returns {HTMLElement}
 */
export function renderContentBlocks(blocks) {
  const list = Array.isArray(blocks) ? blocks : blocks === undefined || blocks === null ? [] : [blocks];
  return h('div', { class: 'content-blocks' }, ...list.map((block) => renderBlock(block)));
}

/**
 * @param {unknown} value
 * @returns {HTMLElement}
 */
function renderBlock(value) {
  if (!isObject(value)) {
    return renderJson(value);
  }
  const block = value;
  switch (block.type) {
    case 'text':
      return h('pre', { class: 'content-text' }, asText(block.text));
    case 'image':
    case 'audio':
      return renderMedia(block.type, block.mimeType, block.data, `${block.type} (${asText(block.mimeType)})`);
    case 'resource':
      return h(
        'div',
        { class: 'content-resource' },
        h('p', { class: 'content-label' }, 'Embedded resource'),
        renderResourceItem(isObject(block.resource) ? block.resource : {}),
      );
    case 'resource_link':
      return renderResourceLink(block);
    default:
      return renderJson(block);
  }
}

/**
 * An `<img>` or `<audio>` from base64 data, or, when the MIME type or the data is not well-formed,
 * a text saying so (never a URL the server chose).
 *
 * @param {'image' | 'audio'} kind
 * @param {unknown} mimeType
 * @param {unknown} data
 * @param {string} name the accessible name
 * @returns {HTMLElement}
 */
function renderMedia(kind, mimeType, data, name) {
  const url = dataUrl(mimeType, data);
  if (url === undefined) {
    return h(
      'pre',
      { class: 'content-text content-invalid' },
      `${kind} with an invalid MIME type or data: ${asText(mimeType)}`,
    );
  }
  if (kind === 'image') {
    return h('img', { class: 'content-image', alt: name, src: url });
  }
  return h('audio', { class: 'content-audio', controls: true, src: url, 'aria-label': name });
}

/**
 * @param {unknown} mimeType
 * @param {unknown} data
 * @returns {string | undefined}
 */
function dataUrl(mimeType, data) {
  if (typeof mimeType !== 'string' || !MIME_TYPE.test(mimeType) || typeof data !== 'string' || !BASE64.test(data)) {
    return undefined;
  }
  return `data:${mimeType};base64,${data.replace(/\s+/g, '')}`;
}

/**
 * A resource link: its name (a link when the URI is http or https), its URI and MIME type.
 *
 * @param {Block} block
 * @returns {HTMLElement}
 */
function renderResourceLink(block) {
  const uri = asText(block.uri);
  const name = asText(block.name ?? block.uri);
  return h(
    'div',
    { class: 'content-link' },
    isWebUri(uri)
      ? h('a', { href: uri, rel: 'noopener noreferrer', target: '_blank' }, name)
      : h('span', { class: 'content-link-name' }, name),
    typeof block.title === 'string' ? h('span', { class: 'content-title' }, block.title) : null,
    ' ',
    h('code', { class: 'content-uri' }, uri),
    typeof block.mimeType === 'string' ? h('span', { class: 'content-mime' }, block.mimeType) : null,
    typeof block.description === 'string' ? h('p', { class: 'content-description' }, block.description) : null,
  );
}

/**
 * A tool result: a "Tool error" badge when `isError`, its content blocks, then its structured
 * content beside the tool's output schema.
 *
 * @param {unknown} result
 * @param {unknown} [outputSchema]
 * @returns {HTMLElement}
 */
export function renderToolResult(result, outputSchema) {
  const value = isObject(result) ? result : {};
  return h(
    'div',
    { class: value.isError === true ? 'tool-result tool-result-error' : 'tool-result' },
    value.isError === true ? h('p', { class: 'badge badge-error' }, 'Tool error') : null,
    renderContentBlocks(value.content),
    value.structuredContent === undefined
      ? null
      : h(
          'div',
          { class: 'structured' },
          h(
            'div',
            { class: 'structured-part' },
            h('h4', {}, 'Structured content'),
            renderJson(value.structuredContent),
          ),
          outputSchema === undefined
            ? null
            : h('div', { class: 'structured-part' }, h('h4', {}, 'Output schema'), renderJson(outputSchema)),
        ),
  );
}

/**
 * The contents of a `resources/read`: per item its URI and MIME type, then its text, image,
 * audio, or a download link for any other blob.
 *
 * @param {unknown} contents
 * @returns {HTMLElement}
 */
export function renderResourceContents(contents) {
  const list = Array.isArray(contents) ? contents : [];
  return h(
    'div',
    { class: 'resource-contents' },
    ...list.map((item) => renderResourceItem(isObject(item) ? item : {})),
  );
}

/**
 * @param {Block} item
 * @returns {HTMLElement}
 */
function renderResourceItem(item) {
  const uri = asText(item.uri);
  const mimeType = typeof item.mimeType === 'string' ? item.mimeType : undefined;
  /** @type {HTMLElement} */
  let body;
  if (typeof item.text === 'string') {
    body = h('pre', { class: 'content-text' }, item.text);
  } else if (typeof item.blob === 'string') {
    const url = dataUrl(mimeType ?? 'application/octet-stream', item.blob);
    if (url === undefined) {
      body = h(
        'pre',
        { class: 'content-text content-invalid' },
        `blob with an invalid MIME type or data: ${asText(mimeType)}`,
      );
    } else if (mimeType?.startsWith('image/')) {
      body = h('img', { class: 'content-image', alt: `image (${mimeType})`, src: url });
    } else if (mimeType?.startsWith('audio/')) {
      body = h('audio', { class: 'content-audio', controls: true, src: url, 'aria-label': `audio (${mimeType})` });
    } else {
      body = h(
        'a',
        { href: url, download: fileName(uri), class: 'content-download' },
        `Download (${decodedLength(item.blob)} bytes)`,
      );
    }
  } else {
    body = renderJson(item);
  }
  return h(
    'div',
    { class: 'resource-item' },
    h(
      'p',
      { class: 'resource-item-head' },
      h('code', { class: 'content-uri' }, uri),
      mimeType ? h('span', { class: 'content-mime' }, mimeType) : null,
    ),
    body,
  );
}

/**
 * The messages of a `prompts/get`: per message its role, then its content.
 *
 * @param {unknown} messages
 * @returns {HTMLElement}
 */
export function renderPromptMessages(messages) {
  const list = Array.isArray(messages) ? messages : [];
  return h(
    'div',
    { class: 'prompt-messages' },
    ...list.map((message) => {
      const value = isObject(message) ? message : {};
      return h(
        'div',
        { class: 'prompt-message' },
        h('p', { class: 'prompt-role' }, asText(value.role)),
        renderContentBlocks(value.content),
      );
    }),
  );
}

/**
 * Any value as pretty-printed JSON.
 *
 * @param {unknown} value
 * @returns {HTMLPreElement}
 */
export function renderJson(value) {
  let text;
  try {
    text = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    text = String(value);
  }
  return h('pre', { class: 'json' }, text);
}

/**
 * Whether a URI may become a link: only http and https (never `javascript:`, `data:`...).
 *
 * @param {string} uri
 */
export function isWebUri(uri) {
  try {
    const { protocol } = new URL(uri);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The number of bytes base64 text decodes to.
 *
 * @param {string} base64
 */
function decodedLength(base64) {
  const compact = base64.replace(/\s+/g, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((compact.length * 3) / 4) - padding);
}

/**
 * A download name from a URI's last path segment.
 *
 * @param {string} uri
 */
function fileName(uri) {
  const segment = uri.split(/[?#]/)[0].split('/').filter(Boolean).pop() ?? '';
  return segment.replace(/[^\w.-]+/g, '_') || 'download';
}

/** @param {unknown} value */
function asText(value) {
  if (typeof value === 'string') {
    return value;
  }
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
