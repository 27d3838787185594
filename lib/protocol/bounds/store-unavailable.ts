/**
 * A shared store (Redis) that cannot serve: it cannot be reached, does not answer in time, or
 * refuses for now (out of memory, read-only during a failover, loading...). The stores live
 * outside the protocol, so the protocol recognises their error by a brand rather than by its
 * class: a brand survives subclassing in another layer and duplicate copies of the package.
 */
import type { RefusalLog } from './refusal-log';

/**
 * The answer a client gets while the store is away: JSON-RPC -32603 with this message, and on
 * HTTP (before its answer began) 503 with `Retry-After`.
 */
export const STORE_UNAVAILABLE_MESSAGE = 'Service unavailable: the server state store cannot serve now; retry shortly';

/** Marks the errors of an unreachable store; registered globally so that every copy agrees. */
const STORE_UNAVAILABLE_BRAND: unique symbol = Symbol.for('nest-mcp:store-unavailable');
/** Marks an outage the store has logged already (see `logStoreUnavailable`). */
const STORE_REPORTED: unique symbol = Symbol.for('nest-mcp:store-reported');

/**
 * A shared store (Redis) could not be reached, did not answer in time, or refused to serve for
 * now (out of memory, read-only, loading...). Requests that need it fail at once with this error
 * rather than wait (HTTP: 503 with `Retry-After`, a JSON-RPC -32603); the connection is retried
 * in the background and service resumes when the store is back. A store of your own throws it
 * for the same conditions.
 *
 * It carries the protocol's store-unavailable brand, so that the engine recognises it even
 * from another copy of the package.
 *
 * @publicApi
 */
export class McpStoreUnavailableError extends Error {
  /** Marks the error as a store outage, for every loaded copy of the package. */
  readonly [STORE_UNAVAILABLE_BRAND] = true;
  /**
   * The store did not answer in time (or the connection dropped once the command was sent):
   * what was asked (a write, a publish) may still have been done.
   */
  readonly unconfirmed: boolean;

  constructor(message: string, cause?: unknown, options: { unconfirmed?: boolean } = {}) {
    super(message, { cause });
    this.name = 'McpStoreUnavailableError';
    this.unconfirmed = options.unconfirmed === true;
  }
}

/** Whether `error` says that a shared store is away (a condition to retry after, not a bug). */
export function isStoreUnavailable(error: unknown): error is McpStoreUnavailableError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [STORE_UNAVAILABLE_BRAND]?: unknown })[STORE_UNAVAILABLE_BRAND] === true
  );
}

/**
 * Marks `error` as logged by the store that threw it (the Redis hub logs each outage once a
 * minute), so that whoever meets it later logs it at debug level only.
 */
export function markReported<E extends McpStoreUnavailableError>(error: E): E {
  (error as { [STORE_REPORTED]?: true })[STORE_REPORTED] = true;
  return error;
}

function isReported(error: McpStoreUnavailableError): boolean {
  return (error as { [STORE_REPORTED]?: true })[STORE_REPORTED] === true;
}

/**
 * The one log line of a store outage met by `where` (a request, a replay write...): a debug line
 * when the store reported it already, else a warning at most once a minute (`log`'s rate), the
 * rest as debug lines. An outage is not a bug: no stack trace.
 */
export function logStoreUnavailable(log: RefusalLog, where: string, error: McpStoreUnavailableError): void {
  const line = `${where}: ${error.message}`;
  if (isReported(error)) {
    log.debug(line);
  } else {
    log.warn('store-unavailable', line);
  }
}

/**
 * How a log line names something sent through the store that failed (`what`: "publish the
 * status of task 42"): not done, or, when the store did not answer in time, perhaps done after
 * all (the store may carry it out once it answers). The error's message follows.
 */
function failedSend(what: string, error: unknown): string {
  return isStoreUnavailable(error) && error.unconfirmed
    ? `Could not confirm "${what}" (the store did not answer in time, and may still carry it out)`
    : `Could not ${what}`;
}

/**
 * Logs something sent through the store that failed (see `failedSend`), with the error's
 * message: a debug line when the store reported the outage already (it warns once a minute),
 * else a warning.
 */
export function logFailedSend(
  logger: { warn(message: string): void; debug?(message: string): void },
  what: string,
  error: unknown,
): void {
  const line = `${failedSend(what, error)}: ${error instanceof Error ? error.message : String(error)}`;
  if (isStoreUnavailable(error) && isReported(error)) {
    logger.debug?.(line);
  } else {
    logger.warn(line);
  }
}
