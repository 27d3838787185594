// @ts-check
/* global document, window, setTimeout */
/**
 * The page of test/console/widgets.e2e-spec.ts: it mounts the console's widgets (loaded from
 * console-ui through the test's static server, under the console's CSP) and exposes hooks on
 * `window.harness` for the test to create them and read what they return.
 */
import {
  renderContentBlocks,
  renderJson,
  renderPromptMessages,
  renderResourceContents,
  renderToolResult,
} from '../../../console-ui/content-view.js';
import { createAnswerer } from '../../../console-ui/input-requests.js';
import { SchemaFormError, createSchemaForm } from '../../../console-ui/schema-form.js';

const stage = /** @type {HTMLElement} */ (document.getElementById('stage'));

/** @type {string[]} */
const violations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});

/** @type {ReturnType<typeof createSchemaForm> | undefined} */
let form;
/** @type {Array<{ name: string, value: string, allValues: Record<string, unknown> }>} */
let completeCalls = [];
/** Completion answers wait until the test releases them, so it decides their order. */
/** @type {Map<string, (suggestions: string[]) => void>} */
const pendingCompletions = new Map();
const words = ['alpha', 'alpine', 'amber', 'beta'];

/** @type {Array<{ uri: string, name?: string }>} */
let savedRoots = [{ uri: 'file:///home/me/project', name: 'project' }];
const answer = createAnswerer({ roots: () => savedRoots, setRoots: (roots) => (savedRoots = roots) });
/** @type {AbortController | undefined} */
let controller;
/** @type {Promise<unknown> | undefined} */
let outcome;

/** @type {Record<string, (...args: any[]) => HTMLElement>} */
const renderers = { renderContentBlocks, renderJson, renderPromptMessages, renderResourceContents, renderToolResult };

const harness = {
  /**
   * @param {unknown} schema
   * @param {{ completions?: boolean }} [options]
   */
  mountForm(schema, options = {}) {
    completeCalls = [];
    pendingCompletions.clear();
    form = createSchemaForm(schema, {
      idPrefix: 'field',
      complete: options.completions
        ? (name, value, allValues) => {
            completeCalls.push({ name, value, allValues });
            return new Promise((resolve) => pendingCompletions.set(value, resolve));
          }
        : undefined,
    });
    stage.replaceChildren(form.element);
  },
  formValue() {
    try {
      return { ok: true, value: form?.value() };
    } catch (error) {
      return {
        ok: false,
        isSchemaFormError: error instanceof SchemaFormError,
        problems: error instanceof SchemaFormError ? error.problems : [String(error)],
      };
    }
  },
  /** @param {unknown} value */
  formSetValue(value) {
    form?.setValue(value);
  },
  formFocus() {
    form?.focus();
  },
  completeCalls: () => completeCalls,
  /**
   * Answers the completion asked for `value` with the words starting with it, and waits for the
   * form to have handled the answer.
   *
   * @param {string} value
   */
  async releaseCompletion(value) {
    pendingCompletions.get(value)?.(words.filter((word) => word.startsWith(value)));
    await new Promise((resolve) => setTimeout(resolve, 0));
  },
  /** @param {string} id */
  datalistOptions(id) {
    const list = document.getElementById(id);
    return list instanceof HTMLDataListElement ? [...list.options].map((option) => option.value) : undefined;
  },
  /**
   * @param {string} renderer
   * @param {...unknown} args
   */
  render(renderer, ...args) {
    stage.replaceChildren(renderers[renderer](...args));
  },
  /** @param {Record<string, any>} requests */
  startAnswer(requests) {
    controller = new AbortController();
    outcome = answer(requests, { signal: controller.signal }).then(
      (value) => ({ status: 'fulfilled', value }),
      (error) => ({
        status: 'rejected',
        name: error instanceof Error || error instanceof DOMException ? error.name : typeof error,
        message: error instanceof Error || error instanceof DOMException ? error.message : String(error),
      }),
    );
  },
  abort() {
    controller?.abort();
  },
  outcome: () => outcome,
  roots: () => savedRoots,
  /** @param {Array<{ uri: string, name?: string }>} roots */
  setRoots(roots) {
    savedRoots = roots;
  },
  /** The label of the focused control, or its text for a button or link. */
  focused() {
    const active = document.activeElement;
    if (
      active instanceof HTMLInputElement ||
      active instanceof HTMLTextAreaElement ||
      active instanceof HTMLSelectElement
    ) {
      return active.labels?.[0]?.textContent ?? '';
    }
    return active?.textContent ?? '';
  },
  openDialogs: () => document.querySelectorAll('dialog[open]').length,
  violations: () => violations,
};

Object.assign(window, { harness });
document.body.dataset.ready = 'true';
