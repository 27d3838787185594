/**
 * The waits the specs share: a pause, a turn of the event loop, and polling until a condition
 * holds. One copy here instead of one per spec.
 */

/** Resolves after `ms` milliseconds (real time). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves after one turn of the event loop: what is queued (promises, I/O callbacks) has run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface WaitOptions {
  /** How long between two checks. @default 10 */
  intervalMs?: number;
  /** What the failure adds about the last state (`; last: …`). */
  describeLast?: () => string | Promise<string>;
}

/**
 * Checks `check` until it holds, then resolves; rejects, naming `what`, once `timeoutMs` have
 * passed. An error thrown by `check` rejects at once (wrap it to poll through failures).
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5000,
  { intervalMs = 10, describeLast }: WaitOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) {
      return;
    }
    if (Date.now() > deadline) {
      const last = describeLast === undefined ? '' : `; last: ${await describeLast()}`;
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${last}`);
    }
    await delay(intervalMs);
  }
}
