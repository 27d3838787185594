// @ts-check
/**
 * Completions as suggestions: a `<datalist>` beside a text input, filled from the server's
 * `completion/complete` as the person types. The schema form, the template variables and the
 * prompt arguments all use this one.
 */
import { h, clear } from './dom.js';

/** Debounce of the completion requests: one per pause in typing, not one per key. */
const COMPLETE_DELAY_MS = 150;

/**
 * Gives an input a `<datalist>` filled from `complete` once the person pauses typing; an answer
 * that arrives after a newer question was asked is dropped, so suggestions never go back in time.
 * Returns the datalist, to be placed beside the input.
 *
 * @param {HTMLInputElement} input
 * @param {(value: string) => Promise<string[]>} complete
 * @returns {HTMLDataListElement}
 */
export function attachCompletions(input, complete) {
  const list = h('datalist', { id: `${input.id}-suggestions` });
  // `list` is a read-only property of inputs: it is set as an attribute.
  input.setAttribute('list', list.id);
  input.autocomplete = 'off';
  let asked = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      asked += 1;
      const question = asked;
      complete(input.value).then(
        (values) => {
          if (question === asked) {
            list.replaceChildren(
              ...(Array.isArray(values) ? values : []).map((value) => h('option', { value: String(value) })),
            );
          }
        },
        () => {
          // A failed completion means no suggestions: the field still works.
          if (question === asked) {
            clear(list);
          }
        },
      );
    }, COMPLETE_DELAY_MS);
  });
  return list;
}
