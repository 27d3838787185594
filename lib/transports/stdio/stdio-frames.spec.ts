import { StdioFrameReader } from './stdio-frames';

/** A reader with a cap of `max` bytes that records what it hands over, oversize lines as `<oversize>`. */
function reader(max = 64): { push(chunk: Buffer | string): void; end(): void; seen: string[] } {
  const seen: string[] = [];
  const frames = new StdioFrameReader(max, {
    frame: (line) => seen.push(line),
    oversize: () => seen.push('<oversize>'),
  });
  return { push: (chunk) => frames.push(chunk), end: () => frames.end(), seen };
}

describe('StdioFrameReader', () => {
  it('hands over one frame per line, in order, several lines per chunk', () => {
    const frames = reader();
    frames.push('{"a":1}\n{"b":2}\n');
    expect(frames.seen).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('joins a frame split across chunks, and holds an unfinished line until its newline', () => {
    const frames = reader();
    frames.push('{"a":');
    frames.push('1}');
    expect(frames.seen).toEqual([]);
    frames.push('\n{"b"');
    expect(frames.seen).toEqual(['{"a":1}']);
    frames.push(':2}\n');
    expect(frames.seen).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('decodes a UTF-8 character split between two chunks whole', () => {
    const frames = reader();
    const bytes = Buffer.from('"über"\n', 'utf8');
    // "ü" is two bytes (0xc3 0xbc): the cut falls between them.
    frames.push(bytes.subarray(0, 2));
    frames.push(bytes.subarray(2));
    expect(frames.seen).toEqual(['"über"']);
  });

  it('drops the \\r of \\r\\n line endings, also when the \\r ends a chunk', () => {
    const frames = reader();
    frames.push('{"a":1}\r\n{"b":2}\r');
    frames.push('\n');
    expect(frames.seen).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('ignores blank lines: empty, \\r only, whitespace only', () => {
    const frames = reader();
    frames.push('\n\n\r\n   \n\t\r\n{"a":1}\n\n');
    expect(frames.seen).toEqual(['{"a":1}']);
  });

  it('accepts a line of exactly the cap, with or without \\r', () => {
    const frames = reader(8);
    frames.push('12345678\n12345678\r\n');
    expect(frames.seen).toEqual(['12345678', '12345678']);
  });

  it('reports a line one byte over the cap once, skips it, and reads the next line', () => {
    const frames = reader(8);
    frames.push('123456789\n{"a":1}\n');
    expect(frames.seen).toEqual(['<oversize>', '{"a":1}']);
  });

  it('reports an oversize line as soon as it goes over the cap, before its newline arrives', () => {
    const frames = reader(8);
    frames.push('1234567890');
    expect(frames.seen).toEqual(['<oversize>']);
    frames.push('more and more');
    frames.push('and more\n{"a":1}\n');
    expect(frames.seen).toEqual(['<oversize>', '{"a":1}']);
  });

  it('does not buffer an oversize line: its later chunks are dropped, not held', () => {
    const seen: string[] = [];
    const frames = new StdioFrameReader(16, {
      frame: (line) => seen.push(line),
      oversize: () => seen.push('<oversize>'),
    });
    // What the reader holds of the line being read.
    const held = (): number => (frames as unknown as { pending: number }).pending;
    const pieces = (): unknown[] => (frames as unknown as { pieces: unknown[] }).pieces;
    frames.push('x'.repeat(10));
    expect(held()).toBe(10);
    frames.push('x'.repeat(10));
    for (let i = 0; i < 100; i += 1) {
      frames.push(Buffer.alloc(64 * 1024, 0x78));
    }
    expect(held()).toBe(0);
    expect(pieces()).toHaveLength(0);
    frames.push('tail\n{"ok":true}\n');
    expect(seen).toEqual(['<oversize>', '{"ok":true}']);
  });

  it('reports two oversize lines in a row separately', () => {
    const frames = reader(4);
    frames.push('123456\n7890123\n{}\n');
    expect(frames.seen).toEqual(['<oversize>', '<oversize>', '{}']);
  });

  it('hands over a last line without newline when the input ends', () => {
    const frames = reader();
    frames.push('{"a":1}\n{"b":2}');
    expect(frames.seen).toEqual(['{"a":1}']);
    frames.end();
    expect(frames.seen).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('hands over nothing at the end of the input inside an oversize line or after a newline', () => {
    const oversize = reader(4);
    oversize.push('123456');
    oversize.end();
    expect(oversize.seen).toEqual(['<oversize>']);
    const clean = reader();
    clean.push('{}\n');
    clean.end();
    expect(clean.seen).toEqual(['{}']);
  });
});
