// @ts-check
/**
 * The Prompts tab: the server's prompts, and for the selected one an input per argument (the
 * server's completions as suggestions) and the messages `prompts/get` renders with them.
 */
import { h, append, clear, uid } from './dom.js';
import { McpHttpError } from './mcp-client.js';
import { renderPromptMessages } from './content-view.js';
import { describeError, listAll } from './tools-panel.js';
import { attachCompletions } from './completions.js';

/**
 * @typedef {import('./mcp-client.js').Json} Json
 * @typedef {import('./app.js').ConsoleContext} ConsoleContext
 * @typedef {{ name: string, title?: string, description?: string, required?: boolean }} PromptArgument
 * @typedef {{ name: string, title?: string, description?: string, arguments?: PromptArgument[] }} Prompt
 */

/**
 * The Prompts tab (see the file comment).
 *
 * @param {ConsoleContext} ctx
 * @returns {{ element: HTMLElement, refresh(): Promise<void> }}
 */
export function createPromptsPanel(ctx) {
  const list = h('ul', { role: 'list', 'aria-label': 'Prompts', class: 'item-list' });
  const detail = h('div', { class: 'detail' }, h('p', { class: 'hint' }, 'Choose a prompt.'));
  const element = h('div', { class: 'split' }, h('nav', { class: 'items' }, list), detail);
  /** @type {string | undefined} */
  let selected;
  /** @type {string | undefined} the definition shown, to keep what the person typed when a refresh changes nothing */
  let shown;

  /** @param {Prompt} prompt */
  function show(prompt) {
    selected = prompt.name;
    shown = JSON.stringify(prompt);
    for (const button of list.querySelectorAll('button')) {
      button.setAttribute('aria-current', String(button.dataset.name === prompt.name));
    }
    clear(detail);
    detail.append(promptView(ctx, prompt));
  }

  async function refresh() {
    const prompts = /** @type {Prompt[]} */ (/** @type {unknown} */ (await listAll(ctx, 'prompts/list', 'prompts')));
    clear(list);
    for (const prompt of prompts) {
      list.append(
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              class: 'item',
              'data-name': prompt.name,
              'aria-current': String(prompt.name === selected),
              onClick: () => show(prompt),
            },
            h('span', { class: 'item-name' }, prompt.name),
            prompt.title === undefined ? null : h('span', { class: 'item-note' }, prompt.title),
          ),
        ),
      );
    }
    const again = prompts.find((prompt) => prompt.name === selected);
    if (again !== undefined) {
      if (JSON.stringify(again) !== shown) {
        show(again);
      }
    } else if (prompts.length === 0) {
      clear(detail);
      detail.append(h('p', { class: 'hint' }, 'This server has no prompts.'));
    }
  }

  return { element, refresh };
}

/**
 * The selected prompt: what it is, its arguments and the messages it gives.
 *
 * @param {ConsoleContext} ctx
 * @param {Prompt} prompt
 * @returns {HTMLElement}
 */
function promptView(ctx, prompt) {
  const prefix = uid('prompt');
  const args = Array.isArray(prompt.arguments) ? prompt.arguments : [];
  /** @type {Map<string, HTMLInputElement>} */
  const inputs = new Map();
  const messages = h('div', { role: 'region', 'aria-label': 'Messages', class: 'result', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Get prompt');
  /** @type {AbortController | undefined} */
  let running;

  /** @returns {Record<string, string>} the arguments that have a value */
  const values = () =>
    Object.fromEntries(
      [...inputs].filter(([, input]) => input.value !== '').map(([name, input]) => [name, input.value]),
    );

  const fields = args.map((argument, index) => {
    const id = `${prefix}-${index}`;
    const helpId = typeof argument.description === 'string' ? `${id}-help` : undefined;
    const input = h('input', {
      type: 'text',
      id,
      spellcheck: false,
      required: argument.required === true,
      'aria-describedby': helpId,
    });
    inputs.set(argument.name, input);
    const suggestions = attachCompletions(input, (value) => {
      const { [argument.name]: _self, ...others } = values();
      return ctx.complete({ type: 'ref/prompt', name: prompt.name }, argument.name, value, others);
    });
    return h(
      'p',
      { class: 'field' },
      // The mark is for the eyes, and outside the label so that the input's name is the argument's
      // name; the input's `required` says it to assistive technology. One line with the label.
      h(
        'span',
        { class: 'field-label' },
        h('label', { for: id }, argument.name),
        argument.required === true ? h('span', { class: 'required', 'aria-hidden': 'true' }, ' *') : null,
      ),
      input,
      suggestions,
      helpId === undefined ? null : h('span', { id: helpId, class: 'hint help' }, argument.description),
    );
  });

  async function get() {
    running?.abort();
    const controller = new AbortController();
    running = controller;
    submit.disabled = true;
    clear(messages);
    try {
      const result = await ctx.client.request(
        'prompts/get',
        { name: prompt.name, arguments: values() },
        { signal: controller.signal, answer: ctx.answer },
      );
      clear(messages);
      append(messages, [
        typeof result.description === 'string' ? h('p', { class: 'description' }, result.description) : null,
        renderPromptMessages(result.messages),
      ]);
    } catch (error) {
      if (error instanceof McpHttpError) {
        ctx.showError(error);
      }
      clear(messages);
      messages.append(h('p', { class: 'error' }, describeError(error)));
    } finally {
      if (running === controller) {
        running = undefined;
        submit.disabled = false;
      }
    }
  }

  return h(
    'article',
    { class: 'prompt', 'aria-labelledby': `${prefix}-name` },
    h('h3', { id: `${prefix}-name` }, prompt.name),
    prompt.title === undefined ? null : h('p', { class: 'title' }, prompt.title),
    prompt.description === undefined ? null : h('p', { class: 'description' }, prompt.description),
    h(
      'form',
      {
        'aria-label': 'Arguments',
        class: 'call-form',
        onSubmit: (/** @type {SubmitEvent} */ event) => {
          event.preventDefault();
          void get();
        },
      },
      fields.length === 0 ? h('p', { class: 'hint' }, 'This prompt takes no arguments.') : fields,
      h('p', { class: 'actions' }, submit),
    ),
    h('h4', {}, 'Messages'),
    messages,
  );
}
