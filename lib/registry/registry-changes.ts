/** The registry's change tracking: a version for list caches, and listeners of each change. */

/** The lists a change touches; each maps to one `list_changed` notification. */
export type McpRegistryChangeKind = 'tools' | 'resources' | 'prompts';

/** Listener of registry changes. */
export type McpRegistryListener = (kind: McpRegistryChangeKind) => void;

/** Counts the changes and tells the listeners of each one. */
export class RegistryChanges {
  private revision = 0;
  private readonly listeners = new Set<McpRegistryListener>();

  /** Increases on every change. */
  get version(): number {
    return this.revision;
  }

  /** @returns a function that removes the listener. */
  listen(listener: McpRegistryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Records a change of `kind`; `true`, so that a removal can answer with it. */
  changed(kind: McpRegistryChangeKind): true {
    this.revision += 1;
    for (const listener of this.listeners) {
      listener(kind);
    }
    return true;
  }
}
