import { McpErrorCode } from './json-rpc';
import { McpError } from './mcp-error';
import { decodeCursor, encodeCursor, paginate, type Page } from './pagination';

interface Item {
  name: string;
}

const NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
const ITEMS: Item[] = NAMES.map((name) => ({ name }));
const key = (item: Item): string => item.name;
const names = (page: Page<Item>): string[] => page.items.map(key);

/** Follows nextCursor until the last page; returns the pages seen. */
function walk(items: readonly Item[], pageSize: number): Array<Page<Item>> {
  const pages: Array<Page<Item>> = [];
  let cursor: string | undefined;
  do {
    const page = paginate(items, key, cursor, pageSize);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages.length < 100);
  return pages;
}

function expectInvalidCursor(run: () => unknown): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(McpError);
  expect((thrown as McpError).code).toBe(McpErrorCode.InvalidParams);
  expect((thrown as McpError).code).toBe(-32602);
}

describe('paginate', () => {
  it('returns everything in one page when pageSize is 0', () => {
    const page = paginate(ITEMS, key, undefined, 0);
    expect(names(page)).toEqual(NAMES);
    expect(page.nextCursor).toBeUndefined();
  });

  it.each([[5], [6], [100]])('returns everything without a cursor when pageSize %i covers the list', (pageSize) => {
    const page = paginate(ITEMS, key, undefined, pageSize);
    expect(names(page)).toEqual(NAMES);
    expect(page.nextCursor).toBeUndefined();
  });

  it.each<[number, string[][]]>([
    [1, [['alpha'], ['bravo'], ['charlie'], ['delta'], ['echo']]],
    [2, [['alpha', 'bravo'], ['charlie', 'delta'], ['echo']]],
    [
      3,
      [
        ['alpha', 'bravo', 'charlie'],
        ['delta', 'echo'],
      ],
    ],
    [4, [['alpha', 'bravo', 'charlie', 'delta'], ['echo']]],
  ])('with pageSize %i, walking the cursors visits every item once, in order', (pageSize, expected) => {
    const pages = walk(ITEMS, pageSize);
    expect(pages.map(names)).toEqual(expected);
    expect(pages.slice(0, -1).every((page) => typeof page.nextCursor === 'string')).toBe(true);
    expect(pages[pages.length - 1].nextCursor).toBeUndefined();
  });

  it('handles an empty list', () => {
    expect(paginate([], key, undefined, 2)).toEqual({ items: [] });
    expect(paginate([], key, undefined, 0)).toEqual({ items: [] });
  });

  it('with pageSize 0 and a cursor, returns everything after the cursor', () => {
    expect(names(paginate(ITEMS, key, encodeCursor('bravo'), 0))).toEqual(['charlie', 'delta', 'echo']);
  });

  describe('the next page starts strictly after the cursor key', () => {
    it('when the key still exists', () => {
      expect(names(paginate(ITEMS, key, encodeCursor('charlie'), 10))).toEqual(['delta', 'echo']);
    });

    it('when the key was removed between calls', () => {
      const first = paginate(ITEMS, key, undefined, 2);
      const remaining = ITEMS.filter((item) => item.name !== 'bravo');
      expect(names(paginate(remaining, key, first.nextCursor, 2))).toEqual(['charlie', 'delta']);
    });

    it('when an item was added before the key between calls', () => {
      const first = paginate(ITEMS, key, undefined, 2);
      const grown = [{ name: 'aardvark' }, ...ITEMS];
      expect(names(paginate(grown, key, first.nextCursor, 2))).toEqual(['charlie', 'delta']);
    });

    it('when the key falls between two items', () => {
      expect(names(paginate(ITEMS, key, encodeCursor('bz'), 10))).toEqual(['charlie', 'delta', 'echo']);
    });

    it('when the key is past the end', () => {
      expect(paginate(ITEMS, key, encodeCursor('zulu'), 2)).toEqual({ items: [] });
    });

    it('when the key is before the start', () => {
      expect(names(paginate(ITEMS, key, encodeCursor(''), 2))).toEqual(['alpha', 'bravo']);
    });
  });
});

describe('cursors', () => {
  it.each([['alpha'], ['tools/with space'], ['file:///a?b=c#d'], ['ünïcødé ✓'], ['']])(
    'round-trip %p opaquely',
    (lastKey) => {
      const cursor = encodeCursor(lastKey);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      if (lastKey !== '') {
        expect(cursor).not.toContain(lastKey);
      }
      expect(decodeCursor(cursor)).toBe(lastKey);
    },
  );

  it('the cursor of a page is the encoded key of its last item', () => {
    expect(paginate(ITEMS, key, undefined, 2).nextCursor).toBe(encodeCursor('bravo'));
  });

  it.each<[string, unknown]>([
    ['an empty string', ''],
    ['a number', 42],
    ['null', null],
    ['an object', { after: 'alpha' }],
    ['characters outside base64url', 'not a cursor!'],
    ['standard base64 with padding', Buffer.from('c1:alpha').toString('base64')],
    ['base64url of a key without our prefix', Buffer.from('alpha').toString('base64url')],
    ['base64url of another prefix', Buffer.from('c2:alpha').toString('base64url')],
    ['an over-long cursor', 'A'.repeat(4097)],
  ])('refuses %s with Invalid params (-32602)', (_label, cursor) => {
    expectInvalidCursor(() => decodeCursor(cursor));
    expectInvalidCursor(() => paginate(ITEMS, key, cursor, 2));
  });
});
