import { McpErrorCode } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import type { ClientCapabilities } from '../messages/mcp-types';
import { clientSupports, extensionProblem, extensionRequired, ExtensionTable, isExtensionId } from './extensions';

describe('isExtensionId', () => {
  it.each([
    'com.example/notes-audit',
    'io.modelcontextprotocol/tasks',
    'io.modelcontextprotocol/oauth-client-credentials-v2',
    'x/y',
    'com.example-corp.a1/name_with.dots',
  ])('accepts %s', (id) => {
    expect(isExtensionId(id)).toBe(true);
  });

  it.each([
    ['no prefix', 'notes-audit'],
    ['an empty name', 'com.example/'],
    ['an empty prefix', '/notes'],
    ['a label starting with a digit', 'com.1example/notes'],
    ['a label ending with a hyphen', 'com.example-/notes'],
    ['an empty label', 'com..example/notes'],
    ['a name ending with a hyphen', 'com.example/notes-'],
    ['a name starting with a dot', 'com.example/.notes'],
    ['two slashes', 'com.example/notes/audit'],
    ['a space', 'com.example/notes audit'],
    ['a non-string', 42],
  ])('refuses %s', (_label, id) => {
    expect(isExtensionId(id)).toBe(false);
  });
});

describe('extensionProblem', () => {
  it('accepts an id alone, with settings, and with eras', () => {
    expect(
      extensionProblem([{ id: 'com.example/a' }, { id: 'com.example/b', settings: { x: 1 }, eras: ['modern'] }]),
    ).toBeUndefined();
  });

  it.each([
    ['not an array', {}, '', 'must be an array of { id, settings?, eras? }'],
    ['an entry that is not an object', ['com.example/a'], '[0]', 'must be an object { id, settings?, eras? }'],
    ['a malformed id', [{ id: 'notes' }], '[0].id', 'must be an extension identifier'],
    ['settings that are not an object', [{ id: 'com.example/a', settings: [] }], '[0].settings', 'must be an object'],
    ['an unknown era', [{ id: 'com.example/a', eras: ['future'] }], '[0].eras', 'must be a non-empty array'],
    ['no era', [{ id: 'com.example/a', eras: [] }], '[0].eras', 'must be a non-empty array'],
    ['a duplicate id', [{ id: 'com.example/a' }, { id: 'com.example/a' }], '[1].id', 'declared twice'],
  ])('names %s', (_label, value, at, reason) => {
    const problem = extensionProblem(value);
    expect(problem?.at).toBe(at);
    expect(problem?.reason).toContain(reason);
  });

  it('refuses an id the module declares itself', () => {
    expect(extensionProblem([{ id: 'io.modelcontextprotocol/tasks' }], ['io.modelcontextprotocol/tasks'])).toEqual({
      at: '[0].id',
      reason: expect.stringContaining('declared by the module'),
    });
  });
});

describe('ExtensionTable', () => {
  const table = new ExtensionTable([
    { id: 'io.modelcontextprotocol/tasks', eras: ['modern'] },
    { id: 'com.example/notes-audit', settings: { level: 'full' } },
    { id: 'com.example/legacy-only', settings: {}, eras: ['legacy'] },
  ]);

  it('advertises each extension with its settings in the eras it applies to, in declaration order', () => {
    expect(table.advertised('modern')).toEqual({
      'io.modelcontextprotocol/tasks': {},
      'com.example/notes-audit': { level: 'full' },
    });
    expect(Object.keys(table.advertised('modern')!)).toEqual([
      'io.modelcontextprotocol/tasks',
      'com.example/notes-audit',
    ]);
    expect(table.advertised('legacy')).toEqual({
      'com.example/notes-audit': { level: 'full' },
      'com.example/legacy-only': {},
    });
  });

  it('advertises nothing in an era no extension applies to', () => {
    expect(new ExtensionTable([]).advertised('modern')).toBeUndefined();
    expect(new ExtensionTable([{ id: 'com.example/a', eras: ['modern'] }]).advertised('legacy')).toBeUndefined();
  });

  it('adds a conditional extension while it holds, in the eras it applies to', () => {
    let holds = false;
    const table = new ExtensionTable(
      [{ id: 'com.example/a', eras: ['modern'] }],
      [{ extension: { id: 'com.example/views', settings: { mimeTypes: ['text/html'] } }, when: () => holds }],
    );
    expect(table.advertised('legacy')).toBeUndefined();
    expect(table.advertised('modern')).toEqual({ 'com.example/a': {} });
    holds = true;
    expect(table.advertised('legacy')).toEqual({ 'com.example/views': { mimeTypes: ['text/html'] } });
    expect(table.advertised('modern')).toEqual({
      'com.example/a': {},
      'com.example/views': { mimeTypes: ['text/html'] },
    });
    expect(table.advertised('modern')).toBe(table.advertised('modern'));
  });

  it('keeps its own copy of the settings', () => {
    const settings = { level: 'full' };
    const own = new ExtensionTable([{ id: 'com.example/a', settings }]);
    settings.level = 'changed';
    expect(own.advertised('legacy')).toEqual({ 'com.example/a': { level: 'full' } });
  });
});

describe('clientSupports', () => {
  const id = 'com.example/notes-audit';
  it.each([
    ['the extension as an object', { extensions: { [id]: {} } }, true],
    ['the extension with settings', { extensions: { [id]: { level: 1 } } }, true],
    ['no capabilities', {}, false],
    ['other extensions only', { extensions: { 'com.example/other': {} } }, false],
    ['the extension as true', { extensions: { [id]: true } }, false],
    ['the extension as an array', { extensions: { [id]: [] } }, false],
    ['extensions as an array', { extensions: [id] }, false],
  ])('%s → %s (the same lookup for a session or a request _meta)', (_label, capabilities, expected) => {
    expect(clientSupports(capabilities as ClientCapabilities, id)).toBe(expected);
  });

  it('never reads inherited properties', () => {
    expect(clientSupports({ extensions: {} }, '__proto__')).toBe(false);
    expect(clientSupports({ extensions: {} }, 'constructor')).toBe(false);
  });
});

describe('extensionRequired', () => {
  it('is a -32021 naming the extension in requiredCapabilities.extensions', () => {
    const error = extensionRequired('com.example/notes-audit');
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(McpErrorCode.MissingRequiredClientCapability);
    expect(error.message).toContain('com.example/notes-audit');
    expect(error.data).toEqual({ requiredCapabilities: { extensions: { 'com.example/notes-audit': {} } } });
  });

  it('takes the message of the caller', () => {
    expect(extensionRequired('com.example/a', 'needs a').message).toBe('needs a');
  });
});
