import { classifyMessage, failure, isJsonObject, notification, success } from './json-rpc';

describe('classifyMessage', () => {
  describe('requests', () => {
    it.each([
      ['an integer id', 1],
      ['id 0', 0],
      ['a negative id', -7],
      ['a string id', 'abc'],
      ['an empty string id', ''],
    ])('reads a request with %s', (_label, id) => {
      expect(classifyMessage({ jsonrpc: '2.0', id, method: 'tools/list' })).toEqual({
        kind: 'request',
        message: { jsonrpc: '2.0', id, method: 'tools/list', params: undefined },
      });
    });

    it('keeps the params object and drops unknown top-level members', () => {
      const params = { name: 'echo', arguments: { text: 'hi' }, _meta: { progressToken: 1 } };
      const classified = classifyMessage({ jsonrpc: '2.0', id: 9, method: 'tools/call', params, extra: true });
      expect(classified).toEqual({
        kind: 'request',
        message: { jsonrpc: '2.0', id: 9, method: 'tools/call', params },
      });
    });
  });

  describe('notifications', () => {
    it.each([
      ['without params', { jsonrpc: '2.0', method: 'notifications/initialized' }, undefined],
      [
        'with params',
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } },
        { requestId: 3 },
      ],
    ])('reads a notification %s', (_label, value, params) => {
      expect(classifyMessage(value)).toEqual({
        kind: 'notification',
        message: { jsonrpc: '2.0', method: value.method, params },
      });
    });
  });

  describe('responses', () => {
    it('reads a success response', () => {
      expect(classifyMessage({ jsonrpc: '2.0', id: 4, result: { ok: true } })).toEqual({
        kind: 'response',
        message: { jsonrpc: '2.0', id: 4, result: { ok: true } },
      });
    });

    it('reads an error response', () => {
      expect(
        classifyMessage({ jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'nope', data: { a: 1 } } }),
      ).toEqual({
        kind: 'response',
        message: { jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'nope', data: { a: 1 } } },
      });
    });

    it('reads an error response whose id could not be read (id null)', () => {
      const classified = classifyMessage({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      expect(classified).toMatchObject({ kind: 'response', message: { id: null, error: { code: -32700 } } });
    });

    it('fills a missing error message with an empty string', () => {
      expect(classifyMessage({ jsonrpc: '2.0', id: 1, error: { code: -1 } })).toMatchObject({
        kind: 'response',
        message: { error: { code: -1, message: '' } },
      });
    });

    it.each([
      ['a success with id null', { jsonrpc: '2.0', id: null, result: {} }],
      ['a success whose result is not an object', { jsonrpc: '2.0', id: 1, result: 'ok' }],
      ['an error without a numeric code', { jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'm' } }],
      ['an error that is not an object', { jsonrpc: '2.0', id: 1, error: 'boom' }],
      ['a response with an object id', { jsonrpc: '2.0', id: {}, result: {} }],
    ])('refuses %s', (_label, value) => {
      expect(classifyMessage(value)).toMatchObject({ kind: 'invalid', isNotification: false });
    });
  });

  describe('invalid messages', () => {
    it.each([
      ['null', null],
      ['a number', 42],
      ['a string', '{"jsonrpc":"2.0"}'],
      ['a boolean', true],
      ['an array', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]],
      ['undefined', undefined],
    ])('%s is not a JSON-RPC object', (_label, value) => {
      expect(classifyMessage(value)).toEqual({
        kind: 'invalid',
        id: null,
        reason: expect.stringContaining('not a JSON-RPC object'),
        isNotification: false,
      });
    });

    it.each([
      ['missing', { id: 5, method: 'ping' }, 5, false],
      ['"1.0"', { jsonrpc: '1.0', id: 'a', method: 'ping' }, 'a', false],
      ['the number 2', { jsonrpc: 2, id: 6, method: 'ping' }, 6, false],
      ['missing, on a notification', { method: 'notifications/initialized' }, null, true],
    ])('a jsonrpc member %s is invalid', (_label, value, id, isNotification) => {
      expect(classifyMessage(value)).toEqual({
        kind: 'invalid',
        id,
        reason: expect.stringContaining('jsonrpc must be "2.0"'),
        isNotification,
      });
    });

    it.each([
      ['null', null],
      ['an object', { n: 1 }],
      ['an array', [1]],
      ['a fraction', 1.5],
      ['a boolean', true],
    ])('an id that is %s is invalid (and not echoed)', (_label, id) => {
      expect(classifyMessage({ jsonrpc: '2.0', id, method: 'ping' })).toEqual({
        kind: 'invalid',
        id: null,
        reason: expect.stringContaining('id must be a string or an integer'),
        isNotification: false,
      });
    });

    it.each([
      ['a number', 42],
      ['null', null],
      ['an empty string', ''],
      ['an object', { name: 'ping' }],
    ])('a method that is %s is invalid, and the readable id is kept', (_label, method) => {
      expect(classifyMessage({ jsonrpc: '2.0', id: 11, method })).toEqual({
        kind: 'invalid',
        id: 11,
        reason: expect.stringContaining('method must be a string'),
        isNotification: false,
      });
    });

    it('an invalid method on a notification is flagged as a notification', () => {
      expect(classifyMessage({ jsonrpc: '2.0', method: 7 })).toMatchObject({
        kind: 'invalid',
        id: null,
        isNotification: true,
      });
    });

    it.each([
      ['an array', [1, 2]],
      ['a string', 'x'],
      ['a number', 3],
      ['null', null],
      ['a boolean', false],
    ])('params that are %s are invalid, and the readable id is kept', (_label, params) => {
      expect(classifyMessage({ jsonrpc: '2.0', id: 'req-1', method: 'tools/list', params })).toEqual({
        kind: 'invalid',
        id: 'req-1',
        reason: expect.stringContaining('params must be an object'),
        isNotification: false,
      });
    });

    it('invalid params on a notification are flagged as a notification', () => {
      expect(classifyMessage({ jsonrpc: '2.0', method: 'notifications/progress', params: [] })).toMatchObject({
        kind: 'invalid',
        isNotification: true,
      });
    });

    it('an object with an id but neither method nor result/error is invalid, keeping the id', () => {
      expect(classifyMessage({ jsonrpc: '2.0', id: 3 })).toEqual({
        kind: 'invalid',
        id: 3,
        reason: expect.stringContaining('missing method'),
        isNotification: false,
      });
    });

    it('an object with neither id nor method is invalid (not a notification)', () => {
      expect(classifyMessage({ jsonrpc: '2.0' })).toMatchObject({ kind: 'invalid', id: null, isNotification: false });
    });

    it.each([
      ['{}', {}],
      ['{"a":1}', { a: 1 }],
      ['{"jsonrpc":"1.0"}', { jsonrpc: '1.0' }],
    ])('%s is an invalid request to answer, not a notification to drop', (_label, value) => {
      expect(classifyMessage(value)).toEqual({
        kind: 'invalid',
        id: null,
        reason: expect.stringContaining('jsonrpc must be "2.0"'),
        isNotification: false,
      });
    });
  });
});

describe('envelope helpers', () => {
  it('success builds a response around the result', () => {
    expect(success(1, { a: 1 })).toEqual({ jsonrpc: '2.0', id: 1, result: { a: 1 } });
  });

  it('failure includes data only when given', () => {
    expect(failure(2, -32602, 'bad')).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'bad' } });
    expect('data' in failure(2, -32602, 'bad').error).toBe(false);
    expect(failure(null, -32700, 'Parse error', { at: 3 })).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error', data: { at: 3 } },
    });
  });

  it('notification includes params only when given', () => {
    expect(notification('notifications/tools/list_changed')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
    });
    expect(notification('notifications/progress', { progress: 1 })).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progress: 1 },
    });
  });

  it.each([
    [{}, true],
    [{ a: 1 }, true],
    [[], false],
    [null, false],
    ['x', false],
    [1, false],
  ])('isJsonObject(%p) is %s', (value, expected) => {
    expect(isJsonObject(value)).toBe(expected);
  });
});
