import { dispositionFileName, safeFileName } from './content-disposition';

describe('dispositionFileName', () => {
  it.each([
    ['attachment; filename="report.pdf"', 'report.pdf'],
    ['attachment; filename=report.pdf', 'report.pdf'],
    ['inline;filename = "a;b.txt" ; size=3', 'a;b.txt'],
    ['attachment; filename="say \\"hi\\".txt"', 'say "hi".txt'],
    ['attachment; filename="fallback.pdf"; filename*=UTF-8\'\'r%C3%A9sum%C3%A9.pdf', 'résumé.pdf'],
    ["attachment; filename*=iso-8859-1'en'caf%E9.txt", 'café.txt'],
    ['attachment; FILENAME="upper.txt"', 'upper.txt'],
    ['attachment; filename="first.txt"; filename="second.txt"', 'first.txt'],
  ])('reads %s', (header, name) => {
    expect(dispositionFileName(header)).toBe(name);
  });

  it.each([
    [undefined],
    ['attachment'],
    ['inline; size=3'],
    ['attachment; filename=""'],
    [`attachment; filename="${'a'.repeat(5000)}"`],
  ])('finds no name in %s', (header) => {
    expect(dispositionFileName(header)).toBeUndefined();
  });

  it('falls back to filename when filename* is in a charset it does not read, or badly encoded', () => {
    expect(dispositionFileName("attachment; filename=plain.txt; filename*=koi8-r''x.txt")).toBe('plain.txt');
    expect(dispositionFileName("attachment; filename=plain.txt; filename*=UTF-8''%E0%A4%A")).toBe('plain.txt');
  });

  it('keeps an unterminated quoted name as far as it goes', () => {
    expect(dispositionFileName('attachment; filename="open.txt')).toBe('open.txt');
  });
});

describe('safeFileName', () => {
  it('keeps the last path segment, without control characters', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('C:\\Users\\me\\notes.txt')).toBe('notes.txt');
    expect(safeFileName('bad\u0000\u001b[31mname\u007f.txt')).toBe('bad[31mname.txt');
  });

  it('refuses what leaves nothing to name', () => {
    expect(safeFileName('..')).toBeUndefined();
    expect(safeFileName('dir/')).toBeUndefined();
    expect(safeFileName(' \u0001 ')).toBeUndefined();
  });

  it('bounds the length in characters', () => {
    expect([...(safeFileName('é'.repeat(300)) ?? '')]).toHaveLength(255);
  });
});
