/** A map kept with a sorted snapshot of its values: the registry's table of one kind of entry. */

function byKey<T>(key: (item: T) => string) {
  return (a: T, b: T): number => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

/**
 * Entries by key, with where each was declared. The sorted snapshot is rebuilt lazily after a
 * change, so that list answers share one array until the next change.
 */
export class SortedTable<T> {
  private readonly items = new Map<string, T>();
  /** Where each entry was declared (a class and method), for error messages. */
  private readonly sources = new Map<string, string | undefined>();
  private sorted: T[] | undefined;

  constructor(private readonly keyOf: (item: T) => string) {}

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  set(item: T, source: string | undefined): void {
    this.items.set(this.keyOf(item), item);
    this.sources.set(this.keyOf(item), source);
    this.sorted = undefined;
  }

  sourceOf(key: string): string | undefined {
    return this.sources.get(key);
  }

  delete(key: string): boolean {
    this.sources.delete(key);
    const removed = this.items.delete(key);
    if (removed) {
      this.sorted = undefined;
    }
    return removed;
  }

  values(): readonly T[] {
    this.sorted ??= [...this.items.values()].sort(byKey(this.keyOf));
    return this.sorted;
  }
}
