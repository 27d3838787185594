// @ts-check
/**
 * The Resources tab: the server's resources and resource templates. A resource is read when it
 * is chosen; a template gets one input per variable of its RFC 6570 URI template (with the
 * server's completions as suggestions) and is read at the URI the values expand it to.
 */
import { attachCompletions } from './completions.js';
import { h, append, clear, uid } from './dom.js';
import { McpHttpError } from './mcp-client.js';
import { createResourceReader } from './resource-reader.js';
import { listAll } from './tools-panel.js';

/**
 * @typedef {import('./mcp-client.js').Json} Json
 * @typedef {import('./app.js').ConsoleContext} ConsoleContext
 * @typedef {{ uri: string, name: string, title?: string, description?: string, mimeType?: string }} Resource
 * @typedef {{ uriTemplate: string, name: string, title?: string, description?: string,
 *   mimeType?: string }} ResourceTemplate
 * @typedef {{ name: string, explode: boolean, prefix?: number }} VariableSpec
 * @typedef {{ literal: string } | { operator: string, variables: VariableSpec[] }} TemplatePart
 */

/**
 * RFC 6570 section 3.2.1: per operator, what comes first, between the values, whether the names
 * are written (`;`, `?`, `&`), what follows a name whose value is empty, and whether reserved
 * characters pass unencoded (`+`, `#`).
 */
const OPERATORS =
  /** @type {Record<string, { first: string, sep: string, named: boolean, ifEmpty: string, reserved: boolean }>} */ ({
    '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false },
    '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true },
    '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false },
    '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false },
    ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false },
    '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false },
    '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false },
    '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true },
  });

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

/**
 * Splits a URI template into its literals and its expressions (`{var}`, `{+var}`, `{/a,b}`,
 * `{?x,y*}`, `{var:3}`...). An unclosed `{` is kept as a literal.
 *
 * @param {string} template
 * @returns {TemplatePart[]}
 */
export function parseUriTemplate(template) {
  /** @type {TemplatePart[]} */
  const parts = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    const close = open < 0 ? -1 : template.indexOf('}', open);
    if (open < 0 || close < 0) {
      parts.push({ literal: template.slice(at) });
      break;
    }
    if (open > at) {
      parts.push({ literal: template.slice(at, open) });
    }
    let body = template.slice(open + 1, close);
    let operator = '';
    if (body !== '' && body[0] in OPERATORS) {
      operator = body[0];
      body = body.slice(1);
    }
    const variables = body
      .split(',')
      .map((spec) => spec.trim())
      .filter((spec) => spec !== '')
      .map((spec) => {
        const explode = spec.endsWith('*');
        const bare = explode ? spec.slice(0, -1) : spec;
        const colon = bare.indexOf(':');
        const prefix = colon < 0 ? undefined : Number.parseInt(bare.slice(colon + 1), 10);
        return {
          name: colon < 0 ? bare : bare.slice(0, colon),
          explode,
          ...(prefix === undefined || Number.isNaN(prefix) ? {} : { prefix }),
        };
      });
    parts.push({ operator, variables });
    at = close + 1;
  }
  return parts;
}

/**
 * The variable names of a URI template, each once, in the order they first appear.
 *
 * @param {string} template
 * @returns {string[]}
 */
export function templateVariables(template) {
  /** @type {string[]} */
  const names = [];
  for (const part of parseUriTemplate(template)) {
    if ('variables' in part) {
      for (const variable of part.variables) {
        if (!names.includes(variable.name)) {
          names.push(variable.name);
        }
      }
    }
  }
  return names;
}

/**
 * Percent-encodes what a URI may not carry as is: everything but the unreserved characters, or
 * (for `{+var}`, `{#var}` and literals) everything but the unreserved and reserved characters
 * and the percent-encoded triplets already there.
 *
 * @param {string} text
 * @param {boolean} allowReserved
 * @returns {string}
 */
function encode(text, allowReserved) {
  let out = '';
  const chars = Array.from(text);
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index];
    if (UNRESERVED.test(char) || (allowReserved && RESERVED.test(char))) {
      out += char;
    } else if (allowReserved && char === '%' && /^[0-9A-Fa-f]{2}$/.test(chars.slice(index + 1, index + 3).join(''))) {
      out += char;
    } else {
      for (const byte of new TextEncoder().encode(char)) {
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      }
    }
  }
  return out;
}

/**
 * Expands a URI template with string values (RFC 6570 levels 1 to 3, and the prefix and explode
 * modifiers of level 4 as they apply to strings). A variable that is missing is undefined: it
 * and its name are left out.
 *
 * @param {string} template
 * @param {Record<string, string | undefined>} values
 * @returns {string}
 */
export function expandUriTemplate(template, values) {
  let out = '';
  for (const part of parseUriTemplate(template)) {
    if ('literal' in part) {
      out += encode(part.literal, true);
      continue;
    }
    const operator = OPERATORS[part.operator];
    const pieces = [];
    for (const variable of part.variables) {
      const raw = values[variable.name];
      if (raw === undefined) {
        continue;
      }
      const value = encode(
        variable.prefix === undefined ? raw : Array.from(raw).slice(0, variable.prefix).join(''),
        operator.reserved,
      );
      if (!operator.named) {
        pieces.push(value);
      } else {
        const name = encode(variable.name, true);
        pieces.push(value === '' ? `${name}${operator.ifEmpty}` : `${name}=${value}`);
      }
    }
    if (pieces.length > 0) {
      out += operator.first + pieces.join(operator.sep);
    }
  }
  return out;
}

/**
 * The Resources tab (see the file comment).
 *
 * @param {ConsoleContext} ctx
 * @returns {{ element: HTMLElement, refresh(): Promise<void> }}
 */
export function createResourcesPanel(ctx) {
  const resourceList = h('ul', { role: 'list', 'aria-label': 'Resources', class: 'item-list' });
  const templateList = h('ul', { role: 'list', 'aria-label': 'Resource templates', class: 'item-list' });
  const resourcesHint = h('p', { class: 'hint', hidden: true }, 'This server lists no resources.');
  const templatesHint = h('p', { class: 'hint', hidden: true }, 'This server lists no resource templates.');
  const detail = h('div', { class: 'detail-head' }, h('p', { class: 'hint' }, 'Choose a resource or a template.'));
  const contents = h('div', { role: 'region', 'aria-label': 'Contents', class: 'result', 'aria-live': 'polite' });
  const element = h(
    'div',
    { class: 'split' },
    h(
      'nav',
      { class: 'items' },
      h('h3', {}, 'Resources'),
      resourceList,
      resourcesHint,
      h('h3', {}, 'Resource templates'),
      templateList,
      templatesHint,
    ),
    h('div', { class: 'detail' }, detail, h('h4', {}, 'Contents'), contents),
  );
  // Reads one URI into the Contents region; a newer read cancels an older one.
  const { read, abort: abortRead } = createResourceReader(ctx, contents);
  /** @type {string | undefined} what is selected: `resource:<uri>` or `template:<uriTemplate>` */
  let selected;
  /** @type {Resource[]} */
  let resources = [];
  /** @type {ResourceTemplate[]} */
  let templates = [];

  /** @param {string} key */
  function markCurrent(key) {
    selected = key;
    for (const button of element.querySelectorAll('nav button')) {
      button.setAttribute('aria-current', String(/** @type {HTMLElement} */ (button).dataset.key === key));
    }
  }

  /** @param {Resource} resource */
  function showResource(resource) {
    markCurrent(`resource:${resource.uri}`);
    clear(detail);
    append(detail, [
      h('h3', {}, resource.name),
      resource.title === undefined ? null : h('p', { class: 'title' }, resource.title),
      h('p', {}, h('code', {}, resource.uri), resource.mimeType === undefined ? null : ` ${resource.mimeType}`),
      resource.description === undefined ? null : h('p', { class: 'description' }, resource.description),
    ]);
    void read(resource.uri);
  }

  /** @param {ResourceTemplate} template */
  function showTemplate(template) {
    markCurrent(`template:${template.uriTemplate}`);
    abortRead();
    clear(contents);
    clear(detail);
    const prefix = uid('template');
    const names = templateVariables(template.uriTemplate);
    /** @type {Map<string, HTMLInputElement>} */
    const inputs = new Map();
    const expanded = h('code', { id: `${prefix}-uri` });

    /** @returns {Record<string, string>} the variables that have a value */
    const values = () =>
      Object.fromEntries(
        [...inputs].filter(([, input]) => input.value !== '').map(([name, input]) => [name, input.value]),
      );
    const showUri = () => {
      expanded.textContent = expandUriTemplate(template.uriTemplate, values());
    };

    const fields = names.map((name) => {
      const input = h('input', { type: 'text', id: `${prefix}-${inputs.size}`, spellcheck: false, onInput: showUri });
      inputs.set(name, input);
      const suggestions = attachCompletions(input, (value) => {
        const { [name]: _self, ...others } = values();
        return ctx.complete({ type: 'ref/resource', uri: template.uriTemplate }, name, value, others);
      });
      return h('p', { class: 'field' }, h('label', { for: input.id }, name), input, suggestions);
    });
    showUri();

    append(detail, [
      h('h3', {}, template.name),
      template.title === undefined ? null : h('p', { class: 'title' }, template.title),
      h('p', {}, h('code', {}, template.uriTemplate), template.mimeType === undefined ? null : ` ${template.mimeType}`),
      template.description === undefined ? null : h('p', { class: 'description' }, template.description),
      h(
        'form',
        {
          'aria-label': 'Template variables',
          class: 'call-form',
          onSubmit: (/** @type {SubmitEvent} */ event) => {
            event.preventDefault();
            void read(expandUriTemplate(template.uriTemplate, values()));
          },
        },
        fields,
        h('p', { class: 'hint' }, 'URI ', expanded),
        h('p', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Read')),
      ),
    ]);
  }

  /**
   * @param {string} text
   * @param {string | undefined} note
   * @param {string} key
   * @param {() => void} onClick
   */
  function itemButton(text, note, key, onClick) {
    return h(
      'li',
      {},
      h(
        'button',
        { type: 'button', class: 'item', 'data-key': key, 'aria-current': String(key === selected), onClick },
        h('span', { class: 'item-name' }, text),
        note === undefined ? null : h('span', { class: 'item-note' }, note),
      ),
    );
  }

  async function refresh() {
    const [listed, listedTemplates] = await Promise.all([
      listAll(ctx, 'resources/list', 'resources'),
      // A server may have resources and no templates method at all: that is an empty list.
      listAll(ctx, 'resources/templates/list', 'resourceTemplates').catch((error) => {
        if (error instanceof McpHttpError) {
          throw error;
        }
        return [];
      }),
    ]);
    resources = /** @type {Resource[]} */ (/** @type {unknown} */ (listed));
    templates = /** @type {ResourceTemplate[]} */ (/** @type {unknown} */ (listedTemplates));
    clear(resourceList);
    clear(templateList);
    for (const resource of resources) {
      resourceList.append(
        itemButton(resource.name, resource.uri, `resource:${resource.uri}`, () => showResource(resource)),
      );
    }
    for (const template of templates) {
      templateList.append(
        itemButton(template.name, template.uriTemplate, `template:${template.uriTemplate}`, () =>
          showTemplate(template),
        ),
      );
    }
    resourcesHint.hidden = resources.length > 0;
    templatesHint.hidden = templates.length > 0;
  }

  return { element, refresh };
}
