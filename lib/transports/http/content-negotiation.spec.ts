import { postHeadersRefusal } from './content-negotiation';

describe('postHeadersRefusal', () => {
  const json = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

  it.each([
    ['application/json'],
    ['application/json; charset=utf-8'],
    ['application/json;charset=UTF-8'],
    ['application/json; charset="utf-8"'],
    ['application/json; charset=utf8'],
    ['application/vnd.api+json'],
    ['APPLICATION/JSON'],
  ])('admits Content-Type %s', (contentType) => {
    expect(postHeadersRefusal({ ...json, 'content-type': contentType }, 'json-and-sse')).toBeUndefined();
  });

  it.each([
    ['text/plain', 'Unsupported Media Type: Content-Type must be application/json'],
    ['application/jsonx', 'Unsupported Media Type: Content-Type must be application/json'],
    ['application/json; charset=latin1', 'Unsupported Media Type: charset "latin1" is not supported; send UTF-8'],
    ['application/json; charset=utf-16', 'Unsupported Media Type: charset "utf-16" is not supported; send UTF-8'],
  ])('refuses Content-Type %s with 415', (contentType, message) => {
    expect(postHeadersRefusal({ ...json, 'content-type': contentType }, 'json')).toEqual({
      status: 415,
      error: { jsonrpc: '2.0', id: null, error: { code: -32600, message } },
    });
  });

  it.each([['identity'], ['IDENTITY'], ['']])('admits Content-Encoding %p', (encoding) => {
    expect(postHeadersRefusal({ ...json, 'content-encoding': encoding }, 'status')).toBeUndefined();
  });

  it.each([['gzip'], ['br'], ['deflate, gzip']])('refuses Content-Encoding %s with 415', (encoding) => {
    expect(postHeadersRefusal({ ...json, 'content-encoding': encoding }, 'status')).toMatchObject({
      status: 415,
      error: { error: { message: expect.stringContaining(`Content-Encoding "${encoding}" is not supported`) } },
    });
  });

  it('quotes what the client sent, short and printable', () => {
    const refusal = postHeadersRefusal(
      { 'content-type': `application/json; charset=${'x'.repeat(100)}\u0001` },
      'json',
    );
    expect(refusal?.error.error.message).toBe(
      `Unsupported Media Type: charset "${'x'.repeat(40)}" is not supported; send UTF-8`,
    );
  });

  it('checks Accept first, for the answer the endpoint gives', () => {
    const headers = { accept: 'application/json', 'content-type': 'text/plain' };
    expect(postHeadersRefusal(headers, 'json-and-sse')?.status).toBe(406);
    expect(postHeadersRefusal(headers, 'json')?.status).toBe(415);
    expect(postHeadersRefusal({ accept: 'text/html', 'content-type': 'text/plain' }, 'status')?.status).toBe(415);
  });
});
