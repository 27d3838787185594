import type { CallToolResult, ContentBlock, PromptMessage } from './mcp-types';
import { toCallToolResult, toGetPromptResult, toolErrorResult, toReadResourceResult } from './results';

const image: ContentBlock = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
const textBlock: ContentBlock = { type: 'text', text: 'hello' };

describe('toCallToolResult', () => {
  describe('without an output schema', () => {
    it.each<[string, unknown, CallToolResult]>([
      ['undefined', undefined, { content: [] }],
      ['null', null, { content: [] }],
      ['a string', 'hi', { content: [{ type: 'text', text: 'hi' }] }],
      ['an empty string', '', { content: [{ type: 'text', text: '' }] }],
      ['a content block', image, { content: [image] }],
      ['an array of content blocks', [textBlock, image], { content: [textBlock, image] }],
      ['a plain object', { a: 1, b: [true] }, { content: [{ type: 'text', text: '{"a":1,"b":[true]}' }] }],
      ['a number', 42, { content: [{ type: 'text', text: '42' }] }],
      ['a boolean', false, { content: [{ type: 'text', text: 'false' }] }],
      ['an empty array', [], { content: [{ type: 'text', text: '[]' }] }],
      ['a mixed array', [textBlock, 1], { content: [{ type: 'text', text: '[{"type":"text","text":"hello"},1]' }] }],
    ])('reads %s', (_label, value, expected) => {
      expect(toCallToolResult(value, false)).toEqual(expected);
    });

    it('takes a CallToolResult as is, as a copy (the engine completes it in place)', () => {
      const result: CallToolResult = { content: [textBlock], isError: true, _meta: { a: 1 } };
      const read = toCallToolResult(result, false);
      expect(read).toEqual(result);
      expect(read).not.toBe(result);
    });

    it('mirrors structuredContent as text when a CallToolResult has no content', () => {
      expect(toCallToolResult({ content: [], structuredContent: { n: 1 } }, false)).toEqual({
        content: [{ type: 'text', text: '{"n":1}' }],
        structuredContent: { n: 1 },
      });
    });
  });

  describe('with an output schema', () => {
    it.each<[string, unknown]>([
      ['a plain object', { hits: 2 }],
      ['an array', [1, 2]],
      ['a number', 7],
      ['a content-block-shaped object (data, not content)', image],
    ])('turns %s into structuredContent mirrored as JSON text', (_label, value) => {
      expect(toCallToolResult(value, true)).toEqual({
        content: [{ type: 'text', text: JSON.stringify(value) }],
        structuredContent: value,
      });
    });

    it('keeps a string as text without structuredContent', () => {
      expect(toCallToolResult('done', true)).toEqual({ content: [{ type: 'text', text: 'done' }] });
    });

    it('keeps a full result with its own content, as a copy', () => {
      const result: CallToolResult = { content: [textBlock], structuredContent: { hits: 1 } };
      const read = toCallToolResult(result, true);
      expect(read).toEqual(result);
      expect(read).not.toBe(result);
    });
  });
});

describe('toolErrorResult', () => {
  it('is an isError result carrying the message as text', () => {
    expect(toolErrorResult('boom')).toEqual({ content: [{ type: 'text', text: 'boom' }], isError: true });
  });
});

describe('toReadResourceResult', () => {
  const uri = 'test://doc';

  it.each<[string, unknown, string | undefined, unknown]>([
    ['a string', 'body', undefined, [{ uri, text: 'body' }]],
    [
      'a string with a registered mimeType',
      'body',
      'text/markdown',
      [{ uri, text: 'body', mimeType: 'text/markdown' }],
    ],
    ['a Buffer', Buffer.from('hi'), 'image/png', [{ uri, blob: 'aGk=', mimeType: 'image/png' }]],
    ['a Uint8Array', new Uint8Array([0, 255]), undefined, [{ uri, blob: 'AP8=' }]],
    ['a { text } object', { text: 't' }, 'text/plain', [{ uri, text: 't', mimeType: 'text/plain' }]],
    [
      'a { text, mimeType } object',
      { text: 't', mimeType: 'text/csv' },
      'text/plain',
      [{ uri, text: 't', mimeType: 'text/csv' }],
    ],
    ['a { blob } object', { blob: 'AAAA' }, undefined, [{ uri, blob: 'AAAA' }]],
    [
      'an array of contents',
      [{ text: 'a' }, { blob: 'AA==', mimeType: 'image/gif' }],
      undefined,
      [
        { uri, text: 'a' },
        { uri, blob: 'AA==', mimeType: 'image/gif' },
      ],
    ],
    ['any other object (JSON text)', { a: 1 }, undefined, [{ uri, text: '{"a":1}', mimeType: 'application/json' }]],
    [
      'an object with a registered mimeType',
      { a: 1 },
      'application/vnd.x+json',
      [{ uri, text: '{"a":1}', mimeType: 'application/vnd.x+json' }],
    ],
    ['a number', 5, undefined, [{ uri, text: '5', mimeType: 'application/json' }]],
    ['null', null, undefined, [{ uri, text: 'null', mimeType: 'application/json' }]],
  ])('reads %s', (_label, value, mimeType, contents) => {
    expect(toReadResourceResult(value, uri, mimeType)).toEqual({ contents });
  });

  it('fills the URI of contents that lack one and keeps those that have one', () => {
    const result = toReadResourceResult(
      { contents: [{ text: 'a' }, { uri: 'test://other', text: 'b' }], _meta: { x: 1 } },
      uri,
      undefined,
    );
    expect(result).toEqual({
      contents: [
        { uri, text: 'a' },
        { uri: 'test://other', text: 'b' },
      ],
      _meta: { x: 1 },
    });
  });
});

describe('toGetPromptResult', () => {
  const message: PromptMessage = { role: 'user', content: { type: 'text', text: 'Hi' } };
  const reply: PromptMessage = { role: 'assistant', content: image };

  it.each<[string, unknown, string | undefined, unknown]>([
    ['a string', 'Hello', undefined, { messages: [{ role: 'user', content: { type: 'text', text: 'Hello' } }] }],
    ['an array of messages', [message, reply], undefined, { messages: [message, reply] }],
    ['an empty array', [], undefined, { messages: [] }],
    [
      'a full result',
      { messages: [message], description: 'own' },
      'default',
      { messages: [message], description: 'own' },
    ],
    [
      'a result without description',
      { messages: [message] },
      'default',
      { description: 'default', messages: [message] },
    ],
    [
      'a string, with the registered description',
      'x',
      'd',
      { description: 'd', messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] },
    ],
  ])('reads %s', (_label, value, description, expected) => {
    expect(toGetPromptResult(value, description)).toEqual(expected);
  });

  it.each<[string, unknown]>([
    ['a number', 42],
    ['undefined', undefined],
    ['an object without messages', { text: 'x' }],
    ['a message with an unknown role', [{ role: 'system', content: { type: 'text', text: 'x' } }]],
    ['a message whose content has no type', [{ role: 'user', content: { text: 'x' } }]],
    ['a result with a bad message', { messages: [message, { role: 'user' }] }],
  ])('refuses %s', (_label, value) => {
    expect(toGetPromptResult(value, 'd')).toBeUndefined();
  });
});
