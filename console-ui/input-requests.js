// @ts-check
/**
 * The person at the page answers the server's input requests (elicitation, sampling, roots) in
 * modal dialogs, one at a time: a server asking several questions, or several calls asking at
 * once, never stack dialogs on top of each other.
 */
import { renderContentBlocks, isWebUri } from './content-view.js';
import { append, h, uid } from './dom.js';
import { SchemaFormError, createSchemaForm } from './schema-form.js';

/**
 * @typedef {{ uri: string, name?: string }} Root
 * @typedef {{ method: string, params?: Record<string, any> }} InputRequest
 * @typedef {(inputRequests: Record<string, InputRequest>, options?: { signal?: AbortSignal }) => Promise<Record<string, unknown>>} Answer
 * @typedef {{ resolve: (value: unknown) => void, reject: (error: Error) => void }} Finish
 * @typedef {{ body: Node[], focus: () => void, onEscape: () => void }} DialogParts
 */

/** Dialogs wait for the one before them, whichever answer() opened it. */
let queue = Promise.resolve();

/**
 * Creates the `answer` function of the console context: for each input request, in key order,
 * a dialog the person answers; resolves with `{ [key]: response }`.
 *
 * @param {{ roots: () => Root[], setRoots: (roots: Root[]) => void }} options the roots the page
 *   keeps, shown (and saved when sent) by the "Roots" dialog
 * @returns {Answer}
 */
export function createAnswerer(options) {
  return async function answer(inputRequests, { signal } = {}) {
    /** @type {Record<string, unknown>} */
    const responses = {};
    for (const [key, request] of Object.entries(inputRequests ?? {})) {
      responses[key] = await oneAtATime(() => ask(request, options, signal));
    }
    return responses;
  };
}

/**
 * @param {() => Promise<unknown>} task
 * @returns {Promise<unknown>}
 */
function oneAtATime(task) {
  const run = queue.then(task);
  queue = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}

/**
 * @param {InputRequest} request
 * @param {{ roots: () => Root[], setRoots: (roots: Root[]) => void }} options
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<unknown>}
 */
function ask(request, options, signal) {
  const params = request?.params ?? {};
  switch (request?.method) {
    case 'elicitation/create':
      return params.mode === 'url' ? elicitUrl(params, signal) : elicitForm(params, signal);
    case 'sampling/createMessage':
      return sample(params, signal);
    case 'roots/list':
      return listRoots(options, signal);
    default:
      return Promise.reject(new Error(`The console cannot answer ${String(request?.method)}`));
  }
}

/**
 * @param {Record<string, any>} params
 * @param {AbortSignal | undefined} signal
 */
function elicitForm(params, signal) {
  return openDialog('Elicitation', signal, ({ resolve }) => {
    const form = createSchemaForm(params.requestedSchema ?? { type: 'object', properties: {} }, {
      idPrefix: uid('elicitation'),
    });
    const accept = button('Accept', () => {
      try {
        resolve({ action: 'accept', content: form.value() });
      } catch (error) {
        if (!(error instanceof SchemaFormError)) {
          throw error;
        }
        // The form shows the problems; the person fixes them and accepts again.
        form.focus();
      }
    });
    return {
      body: [
        message(params.message),
        form.element,
        buttons(
          accept,
          button('Decline', () => resolve({ action: 'decline' })),
          button('Cancel', () => resolve({ action: 'cancel' })),
        ),
      ],
      focus: () => {
        form.focus();
        if (!form.element.contains(document.activeElement)) {
          accept.focus();
        }
      },
      onEscape: () => resolve({ action: 'cancel' }),
    };
  });
}

/**
 * @param {Record<string, any>} params
 * @param {AbortSignal | undefined} signal
 */
function elicitUrl(params, signal) {
  return openDialog('Elicitation', signal, ({ resolve }) => {
    const url = typeof params.url === 'string' ? params.url : '';
    const link = isWebUri(url)
      ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, url)
      : h('code', {}, url);
    const accept = button('Accept', () => resolve({ action: 'accept' }));
    return {
      body: [
        message(params.message),
        h('p', { class: 'input-url' }, link),
        buttons(
          accept,
          button('Decline', () => resolve({ action: 'decline' })),
          button('Cancel', () => resolve({ action: 'cancel' })),
        ),
      ],
      focus: () => (link instanceof HTMLAnchorElement ? link : accept).focus(),
      onEscape: () => resolve({ action: 'cancel' }),
    };
  });
}

/**
 * @param {Record<string, any>} params
 * @param {AbortSignal | undefined} signal
 */
function sample(params, signal) {
  return openDialog('Sampling', signal, ({ resolve, reject }) => {
    const replyId = uid('sampling-reply');
    const modelId = uid('sampling-model');
    const reply = h('textarea', { id: replyId, rows: 5 });
    const model = h('input', { id: modelId, type: 'text', value: 'human' });
    const decline = () => reject(new Error('The person declined the sampling request'));
    const messages = Array.isArray(params.messages) ? params.messages : [];
    return {
      body: [
        h('h3', {}, 'Messages'),
        h(
          'div',
          { class: 'prompt-messages' },
          ...messages.map((entry) =>
            h(
              'div',
              { class: 'prompt-message' },
              h('p', { class: 'prompt-role' }, String(entry?.role ?? '')),
              renderContentBlocks(entry?.content),
            ),
          ),
        ),
        h(
          'dl',
          { class: 'input-facts' },
          typeof params.systemPrompt === 'string'
            ? [h('dt', {}, 'System prompt'), h('dd', {}, params.systemPrompt)]
            : null,
          params.maxTokens === undefined ? null : [h('dt', {}, 'Max tokens'), h('dd', {}, String(params.maxTokens))],
        ),
        h('div', { class: 'schema-form-field' }, h('label', { for: replyId }, 'Reply'), reply),
        h('div', { class: 'schema-form-field' }, h('label', { for: modelId }, 'Model'), model),
        buttons(
          button('Send reply', () =>
            resolve({
              role: 'assistant',
              content: { type: 'text', text: reply.value },
              model: model.value.trim() || 'human',
              stopReason: 'endTurn',
            }),
          ),
          button('Decline', decline),
        ),
      ],
      focus: () => reply.focus(),
      onEscape: decline,
    };
  });
}

/**
 * @param {{ roots: () => Root[], setRoots: (roots: Root[]) => void }} options
 * @param {AbortSignal | undefined} signal
 */
function listRoots(options, signal) {
  return openDialog('Roots', signal, ({ resolve, reject }) => {
    /** @type {Array<{ uri: string, name: string }>} */
    const rows = options.roots().map((root) => ({ uri: root.uri, name: root.name ?? '' }));
    const list = h('ol', { class: 'roots-list' });
    /** @type {HTMLInputElement[]} */
    let uriInputs = [];

    function render() {
      list.replaceChildren();
      uriInputs = rows.map((row, index) => {
        const n = index + 1;
        const uriId = uid('root-uri');
        const nameId = uid('root-name');
        const uri = h('input', { id: uriId, type: 'text', value: row.uri, onInput: () => (row.uri = uri.value) });
        const name = h('input', { id: nameId, type: 'text', value: row.name, onInput: () => (row.name = name.value) });
        append(list, [
          h(
            'li',
            { class: 'roots-row' },
            h('label', { for: uriId }, `Root URI ${n}`),
            uri,
            h('label', { for: nameId }, `Root name ${n}`),
            name,
            button(`Remove root ${n}`, () => {
              rows.splice(index, 1);
              render();
              (uriInputs[Math.min(index, uriInputs.length - 1)] ?? add).focus();
            }),
          ),
        ]);
        return uri;
      });
    }

    const add = button('Add root', () => {
      rows.push({ uri: '', name: '' });
      render();
      uriInputs[uriInputs.length - 1]?.focus();
    });
    render();
    return {
      body: [
        h('p', { class: 'input-message' }, 'The server asks for the roots the console shares with it.'),
        list,
        buttons(
          add,
          button('Send roots', () => {
            /** @type {Root[]} */
            const roots = rows
              .filter((row) => row.uri.trim() !== '')
              .map((row) =>
                row.name.trim() ? { uri: row.uri.trim(), name: row.name.trim() } : { uri: row.uri.trim() },
              );
            options.setRoots(roots);
            resolve({ roots });
          }),
        ),
      ],
      focus: () => (uriInputs[0] ?? add).focus(),
      // roots/list has no "cancel" answer: closing the dialog refuses the request.
      onEscape: () => reject(new Error('The person cancelled the roots request')),
    };
  });
}

/**
 * Opens a modal dialog named by its heading and settles when `build`'s buttons resolve or reject,
 * on Escape, or when `signal` aborts (then with an AbortError); the dialog is removed after.
 *
 * @param {string} title
 * @param {AbortSignal | undefined} signal
 * @param {(finish: Finish) => DialogParts} build
 * @returns {Promise<unknown>}
 */
function openDialog(title, signal, build) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    const headingId = uid('dialog-title');
    const dialog = h('dialog', { class: 'input-dialog', 'aria-labelledby': headingId });
    let done = false;
    /** @param {() => void} settle */
    const finish = (settle) => {
      if (done) {
        return;
      }
      done = true;
      signal?.removeEventListener('abort', onAbort);
      dialog.close();
      dialog.remove();
      settle();
    };
    const onAbort = () => finish(() => reject(abortError()));
    const parts = build({
      resolve: (value) => finish(() => resolve(value)),
      reject: (error) => finish(() => reject(error)),
    });
    append(dialog, [h('h2', { id: headingId }, title), ...parts.body]);
    dialog.addEventListener('cancel', (event) => {
      // Escape: the dialog closes through finish(), with the answer Escape means.
      event.preventDefault();
      parts.onEscape();
    });
    dialog.addEventListener('close', () => {
      // A close the page did not ask for (a second Escape the browser would not let be cancelled).
      if (!done) {
        parts.onEscape();
      }
    });
    document.body.append(dialog);
    dialog.showModal();
    parts.focus();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortError() {
  return new DOMException('Aborted', 'AbortError');
}

/** @param {unknown} text */
function message(text) {
  return h('p', { class: 'input-message' }, typeof text === 'string' ? text : '');
}

/**
 * @param {string} label
 * @param {() => void} onClick
 */
function button(label, onClick) {
  return h('button', { type: 'button', onClick }, label);
}

/** @param {...HTMLButtonElement} list */
function buttons(...list) {
  return h('div', { class: 'input-buttons' }, ...list);
}
