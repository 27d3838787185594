import { StoreUnavailableError } from '../protocol/bounds/store-unavailable';

/**
 * A shared store (Redis) could not be reached, did not answer in time, or refused to serve for
 * now (out of memory, read-only, loading...). Requests that need it fail at once with this error
 * rather than wait (HTTP: 503 with `Retry-After`, a JSON-RPC -32603); the connection is retried
 * in the background and service resumes when the store is back.
 *
 * It carries the protocol's store-unavailable brand, so that the engine recognises it without
 * depending on this layer.
 *
 * @publicApi
 */
export class McpStoreUnavailableError extends StoreUnavailableError {
  /**
   * @param options `unconfirmed`: the store did not answer in time, so what was asked may still
   * have been done.
   */
  constructor(message: string, cause?: unknown, options?: { unconfirmed?: boolean }) {
    super(message, cause, options);
    this.name = 'McpStoreUnavailableError';
  }
}
