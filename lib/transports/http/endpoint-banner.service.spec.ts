import { LISTED_NAMES, listNames } from './endpoint-banner.service';

describe('listNames', () => {
  const names = (count: number): string[] => Array.from({ length: count }, (_, index) => `tool_${index + 1}`);

  it('lists every name up to the bound', () => {
    expect(listNames(['a', 'b', 'c'])).toBe('a, b, c');
    expect(listNames(names(LISTED_NAMES))).toBe(names(LISTED_NAMES).join(', '));
  });

  it('lists the first names and counts the rest past the bound', () => {
    const line = listNames(names(LISTED_NAMES + 7));
    expect(line).toBe(`${names(LISTED_NAMES).join(', ')} and 7 more`);
    expect(line).not.toContain(`tool_${LISTED_NAMES + 1}`);
  });
});
