/** The public store-unavailable error: defined with the protocol's brand, where the engine reads it. */
export { McpStoreUnavailableError } from '../protocol/bounds/store-unavailable';
