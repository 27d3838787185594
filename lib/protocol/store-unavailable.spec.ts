import { isStoreUnavailable, StoreUnavailableError, STORE_UNAVAILABLE_MESSAGE } from './store-unavailable';

describe('store unavailable', () => {
  it('is recognised by its brand, whatever builds on it', () => {
    class LayerError extends StoreUnavailableError {}
    expect(isStoreUnavailable(new StoreUnavailableError('down'))).toBe(true);
    expect(isStoreUnavailable(new LayerError('down'))).toBe(true);
  });

  it('is recognised across copies of the module (the brand is a registered symbol)', () => {
    const copy = Object.assign(new Error('down'), { [Symbol.for('nest-mcp:store-unavailable')]: true });
    expect(isStoreUnavailable(copy)).toBe(true);
  });

  it.each([new Error('down'), 'down', undefined, null, { message: 'down' }])('%p is not', (value) => {
    expect(isStoreUnavailable(value)).toBe(false);
  });

  it('keeps its cause and tells clients to retry', () => {
    const cause = new Error('ECONNREFUSED');
    expect(new StoreUnavailableError('down', cause).cause).toBe(cause);
    expect(STORE_UNAVAILABLE_MESSAGE).toMatch(/retry/);
  });
});
