import { StoreUnavailableError } from '../protocol/store-unavailable';

/**
 * A shared store (Redis) could not be reached or did not answer in time. Requests that need it
 * fail at once with this error rather than wait; the connection is retried in the background
 * and service resumes when the store is back.
 *
 * It carries the protocol's store-unavailable brand, so that the engine recognises it without
 * depending on this layer.
 *
 * @publicApi
 */
export class McpStoreUnavailableError extends StoreUnavailableError {
  constructor(message: string, cause?: unknown) {
    super(message, cause);
    this.name = 'McpStoreUnavailableError';
  }
}
