/**
 * Rendered list entries, cached per catalog version and revision: `tools/list` with many tools
 * is served without re-rendering every entry on every request.
 */
import type { JsonObject } from './json-rpc';

export class ListCache {
  private version = -1;
  private readonly entries = new Map<string, JsonObject[]>();

  /** The rendering of `kind` for `revision`, computed once per catalog version. */
  get(kind: string, version: number, revision: string | undefined, render: () => JsonObject[]): JsonObject[] {
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    const key = `${kind}|${revision ?? '-'}`;
    let rendered = this.entries.get(key);
    if (rendered === undefined) {
      rendered = render();
      this.entries.set(key, rendered);
    }
    return rendered;
  }
}
