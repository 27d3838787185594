// @ts-check
/**
 * Reads a resource into a region of a tab (the Resources and Skills tabs): one read at a time,
 * a newer read aborting an older one, whose answer then never lands.
 */
import { h, clear } from './dom.js';
import { McpHttpError } from './mcp-client.js';
import { renderResourceContents } from './content-view.js';
import { describeError } from './tools-panel.js';

/**
 * @typedef {import('./app.js').ConsoleContext} ConsoleContext
 */

/**
 * @param {ConsoleContext} ctx
 * @param {HTMLElement} contents where each read's contents (or its error) are shown
 * @returns {{ read: (uri: string) => Promise<void>, abort: () => void }}
 */
export function createResourceReader(ctx, contents) {
  /** @type {AbortController | undefined} */
  let reading;

  /** @param {string} uri */
  async function read(uri) {
    reading?.abort();
    const controller = new AbortController();
    reading = controller;
    clear(contents);
    contents.append(h('p', { class: 'hint' }, `Reading ${uri}…`));
    try {
      const result = await ctx.client.request(
        'resources/read',
        { uri },
        { signal: controller.signal, answer: ctx.answer },
      );
      if (reading === controller) {
        clear(contents);
        contents.append(renderResourceContents(result.contents));
      }
    } catch (error) {
      if (reading !== controller) {
        return; // a newer read replaced this one
      }
      if (error instanceof McpHttpError) {
        ctx.showError(error);
      }
      clear(contents);
      contents.append(h('p', { class: 'error' }, describeError(error)));
    } finally {
      if (reading === controller) {
        reading = undefined;
      }
    }
  }

  return {
    read,
    abort() {
      reading?.abort();
    },
  };
}
