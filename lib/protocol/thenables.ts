/**
 * Whether a value is a promise or another thenable. Where a handler or a store may answer with a
 * value or a promise, the hot path awaits only promises: an `await` of a plain value still costs
 * a turn of the microtask queue.
 */
export function isThenable<T = unknown>(value: unknown): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/**
 * A value, or a promise of it. The request path returns this where its work may finish
 * synchronously (a tool that answers at once): each async frame it skips saves a promise and a
 * turn of the microtask queue.
 */
export type Awaitable<T> = T | Promise<T>;
