import { LOG_TEXT_MAX_LENGTH, logList, logStack, logText } from './log-text';

describe('logText', () => {
  it.each<[string, unknown, string]>([
    ['a plain value as it is', 'tools/call', 'tools/call'],
    ['a number', 42, '42'],
    ['null', null, 'null'],
    ['a newline and a carriage return', '1\r\n[Nest] FAKE', '1\\r\\n[Nest] FAKE'],
    ['a tab, a backspace, a form feed', 'a\tb\bc\fd', 'a\\tb\\bc\\fd'],
    ['NUL and ESC (a terminal sequence)', 'x\u0000\u001b[31mred', 'x\\u0000\\u001b[31mred'],
    ['DEL', 'a\u007fb', 'a\\u007fb'],
    ['C1 controls (NEL, CSI)', 'a\u0085b\u009bc', 'a\\u0085b\\u009bc'],
    ['the line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['characters that are not controls', 'zoë ✓ 😀 \\n "q"', 'zoë ✓ 😀 \\n "q"'],
  ])('%s', (_label, value, expected) => {
    expect(logText(value)).toBe(expected);
  });

  it('returns a safe string within the length as it is', () => {
    const value = 'notes://a/b';
    expect(logText(value)).toBe(value);
  });

  it(`cuts a value longer than ${LOG_TEXT_MAX_LENGTH} characters, with an ellipsis`, () => {
    const text = logText('x'.repeat(1_000_000));
    expect(text).toBe(`${'x'.repeat(LOG_TEXT_MAX_LENGTH)}…`);
    expect(logText('abcdef', 3)).toBe('abc…');
    expect(logText('abc', 3)).toBe('abc');
  });

  it('cuts before escaping, so a long run of controls stays bounded', () => {
    expect(logText('\n'.repeat(10), 4)).toBe('\\n\\n\\n\\n…');
  });

  it('never cuts a surrogate pair in two', () => {
    expect(logText('ab😀cd', 3)).toBe('ab…');
    expect(logText('ab😀cd', 4)).toBe('ab😀…');
  });

  it('leaves no raw line break in any value', () => {
    let every = '';
    for (let code = 0; code < 0x3000; code += 1) {
      every += String.fromCharCode(code);
    }
    expect(logText(every, every.length)).not.toMatch(/[\n\r\u0085\u2028\u2029]/);
  });
});

describe('logStack', () => {
  it('escapes the message in the first line of a stack, and keeps the frames', () => {
    const error = new Error('no note 1\n[Nest] FAKE');
    const stack = logStack(error)!;
    expect(stack.startsWith('Error: no note 1\\n[Nest] FAKE\n    at ')).toBe(true);
    expect(stack.split('\n').some((line) => line.includes('[Nest] FAKE') && !line.startsWith('Error:'))).toBe(false);
  });

  it('keeps a stack whose first line is not the message as it is', () => {
    const error = new Error('plain');
    error.stack = 'custom stack';
    expect(logStack(error)).toBe('custom stack');
  });

  it('is undefined for what is not an Error', () => {
    expect(logStack('boom')).toBeUndefined();
  });
});

describe('logList', () => {
  it('names up to `max` items and counts the rest', () => {
    expect(logList([], 3)).toBe('');
    expect(logList(['a', 'b'], 3)).toBe('a, b');
    expect(logList(['a', 'b', 'c'], 3)).toBe('a, b, c');
    expect(logList(['a', 'b', 'c', 'd', 'e'], 3)).toBe('a, b, c and 2 more');
  });
});
