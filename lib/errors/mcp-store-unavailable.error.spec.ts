import { isStoreUnavailable } from '../protocol/bounds/store-unavailable';
import { STORE_UNAVAILABLE } from '../shared/mcp.messages';
import { STORE_UNAVAILABLE_MESSAGE } from '../protocol/bounds/store-unavailable';
import { McpStoreUnavailableError } from './mcp-store-unavailable.error';

describe('McpStoreUnavailableError', () => {
  it('keeps its public name and class, and carries the protocol brand', () => {
    const error = new McpStoreUnavailableError('Redis is unreachable', new Error('ECONNREFUSED'));
    expect(error).toBeInstanceOf(McpStoreUnavailableError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('McpStoreUnavailableError');
    expect(isStoreUnavailable(error)).toBe(true);
  });

  it('answers clients with the one message the protocol owns', () => {
    expect(STORE_UNAVAILABLE).toBe(STORE_UNAVAILABLE_MESSAGE);
  });
});
