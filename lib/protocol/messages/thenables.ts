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
 *
 * Where such a function goes on after a promise, the continuation (`pending.then((value) =>
 * ...)`) is made in a small function of its own (named `...Later`), not inline: V8 allocates
 * the variables a closure captures when the function that makes it is called, whichever branch
 * runs, so an inline continuation would cost every synchronous request an object too.
 */
export type Awaitable<T> = T | Promise<T>;

/**
 * `promise`'s value, or `undefined` once `ms` passed without it (a rejection still rejects):
 * for a wait that must not hold longer than `ms` (a shutdown's, a connection's).
 */
export async function within<T>(promise: PromiseLike<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `value`, once `pending` has settled well: the continuation a function would otherwise make inline (see `Awaitable`). */
export function settledAs<T>(pending: PromiseLike<unknown>, value: T): Promise<T> {
  return Promise.resolve(pending).then(() => value);
}
