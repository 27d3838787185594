import { headerValue, isSettableHeader, MAX_HEADER_INPUT } from './route-headers';

describe('route tool header inputs', () => {
  it('lets a caller set a plain header, never a forwarded, framing or reserved one', () => {
    expect(isSettableHeader('x-tenant', new Set())).toBe(true);
    for (const name of ['authorization', 'forwarded', 'x-forwarded-for', 'host', 'content-length', 'connection']) {
      expect(isSettableHeader(name, new Set())).toBe(false);
    }
    expect(isSettableHeader('transfer-encoding', new Set())).toBe(false);
    expect(isSettableHeader('x-api-key', new Set(['x-api-key']))).toBe(false);
  });

  it('refuses a value with a line break, too long, or not a string (-32602)', () => {
    expect(headerValue('x-tenant', 'acme')).toBe('acme');
    for (const value of ['a\r\nx-admin: 1', 'x'.repeat(MAX_HEADER_INPUT + 1), 3, 'a\u0000b']) {
      expect(() => headerValue('x-tenant', value)).toThrow(expect.objectContaining({ code: -32602 }));
    }
  });
});
