/**
 * A shared store (Redis) that cannot be reached. The stores live outside the protocol, so the
 * protocol recognises their error by a brand rather than by its class: a brand survives
 * subclassing in another layer and duplicate copies of the package.
 */

/** The answer a client gets while the store is away (JSON-RPC -32603; HTTP 503 before any handler ran). */
export const STORE_UNAVAILABLE_MESSAGE = 'Service unavailable: the server state store cannot be reached; retry shortly';

/** Marks the errors of an unreachable store; registered globally so that every copy agrees. */
const STORE_UNAVAILABLE_BRAND: unique symbol = Symbol.for('nest-mcp:store-unavailable');

/**
 * The error a store throws when it cannot be reached or does not answer in time. The public
 * `McpStoreUnavailableError` builds on it.
 */
export class StoreUnavailableError extends Error {
  readonly [STORE_UNAVAILABLE_BRAND] = true;

  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** Whether `error` says that a shared store is away (a condition to retry after, not a bug). */
export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [STORE_UNAVAILABLE_BRAND]?: unknown })[STORE_UNAVAILABLE_BRAND] === true
  );
}
