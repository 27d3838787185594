/**
 * The `_meta` extensions add to list entries (`McpExtensionHooks.entryMeta`): asked once per
 * entry, when it is registered, so that rendered lists stay cached per catalog version. Each
 * extension adds keys of its own only (its identifier, or `{id}/...`); the entry's own `_meta`
 * keys win over them.
 */
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpEntryOf } from '../interfaces/mcp-extension-options.interface';
import { isJsonObject, type JSONObject } from '../protocol/messages/json-rpc';

/** What an extension adds to one entry's `_meta`, if anything. */
export type EntryMetaHook = (entry: McpEntryOf) => JSONObject | undefined;

interface Hook {
  readonly id: string;
  readonly hook: EntryMetaHook;
  readonly source: string;
}

export class EntryMetaHooks {
  private readonly hooks: Hook[] = [];

  add(id: string, hook: EntryMetaHook, source: string): void {
    this.hooks.push({ id, hook, source });
  }

  /** The entry's definition with what every extension adds to its `_meta`; the same object when none adds anything. */
  apply<Entry extends McpEntryOf>(entry: Entry): Entry['definition'] {
    const { definition } = entry;
    let added: JSONObject | undefined;
    for (const { id, hook, source } of this.hooks) {
      const meta = hook(entry);
      if (meta === undefined) {
        continue;
      }
      if (!isJsonObject(meta)) {
        throw new McpConfigurationError(`The entryMeta hook of ${source} ("${id}") must return an object or undefined`);
      }
      for (const key of Object.keys(meta)) {
        if (key !== id && !key.startsWith(`${id}/`)) {
          throw new McpConfigurationError(
            `The entryMeta hook of ${source} returned the _meta key "${key}": the extension "${id}" may add "${id}" or "${id}/..." only`,
          );
        }
      }
      added = { ...added, ...meta };
    }
    return added === undefined ? definition : { ...definition, _meta: { ...added, ...definition._meta } };
  }
}
