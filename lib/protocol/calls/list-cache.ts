/**
 * Rendered list entries, cached per catalog version and revision: `tools/list` with many tools
 * is served without re-rendering every entry on every request. A list that differs by what the
 * client declared (the tools of a client without MCP Apps support) is another variant, under a
 * key of its own: one client's rendering is never served to the other.
 */
import type { JSONObject } from '../messages/json-rpc';

export class ListCache {
  private version = -1;
  private readonly entries = new Map<string, JSONObject[]>();
  private readonly facts = new Map<string, unknown>();

  /**
   * The rendering of `kind` for `revision` (and `variant`, `''` for the list everyone sees),
   * computed once per catalog version.
   */
  get(
    kind: string,
    version: number,
    revision: string | undefined,
    render: () => JSONObject[],
    variant = '',
  ): JSONObject[] {
    this.sync(version);
    const key = listKey(kind, revision, variant);
    let rendered = this.entries.get(key);
    if (rendered === undefined) {
      rendered = flatten(render());
      this.entries.set(key, rendered);
    }
    return rendered;
  }

  /** A fact about the catalog (which tools are for views alone...), computed once per catalog version. */
  memo<T>(name: string, version: number, compute: () => T): T {
    this.sync(version);
    if (this.facts.has(name)) {
      return this.facts.get(name) as T;
    }
    const value = compute();
    this.facts.set(name, value);
    return value;
  }

  /** Forgets what was computed for an older catalog version. */
  private sync(version: number): void {
    if (version !== this.version) {
      this.entries.clear();
      this.facts.clear();
      this.version = version;
    }
  }
}

/** The key of one rendering: kind, revision and variant. */
function listKey(kind: string, revision: string | undefined, variant: string): string {
  return `${kind}|${revision ?? '-'}|${variant}`;
}

/**
 * A copy made of flat strings. Names and descriptions built by concatenation are V8 cons strings
 * (ropes), and `JSON.stringify` walks a rope every time it writes one: the list is serialized on
 * every request, so it pays once here instead (measured in `npm run bench`, tools/list of 1,000
 * tools: the server spent 5.6 ms a request where the floor, holding parsed copies, spent 3.5 ms).
 * The entries are JSON by construction: they go to the client as they are.
 */
function flatten(entries: JSONObject[]): JSONObject[] {
  return JSON.parse(JSON.stringify(entries)) as JSONObject[];
}
