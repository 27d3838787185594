import { LinearPattern, MAX_NFA_STATES, UnsupportedPatternError } from './linear-pattern';

/** What JavaScript's RegExp says, with the flag JSON Schema patterns take. */
const native = (source: string, input: string): boolean => new RegExp(source, 'u').test(input);

/** A small seeded generator (mulberry32): the same patterns and strings on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('LinearPattern', () => {
  describe('answers as JavaScript RegExp with the u flag', () => {
    it.each<[pattern: string, inputs: string[]]>([
      ['^[a-z0-9-]{3,8}$', ['abc', 'ab', 'abc-123', 'abcdefghi', 'ABC', '']],
      ['^\\d{4}-\\d{2}-\\d{2}$', ['2026-01-31', '2026-1-31', ' 2026-01-31', '٢٠٢٦-01-31']],
      ['mcp', ['mcp', 'an mcp server', 'MCP', '', 'mc p']],
      ['^$', ['', 'a', '\n']],
      ['', ['', 'anything']],
      ['a|', ['', 'b']],
      ['^.$', ['a', '\n', '\r', '\u2028', '\u2029', '😀', '\ud83d', 'ab']],
      ['^\\s$', [' ', '\t', '\v', '\u00a0', '\ufeff', '\u2003', '\u3000', 'a', '\u200b']],
      ['^\\S+$', ['abc', 'a b', '\u00a0']],
      ['^\\w+\\b', ['word', 'é', '_x']],
      ['\\bcat\\b', ['cat', 'a cat!', 'concat', 'cats', 'écat']],
      ['\\Bcat', ['concat', 'cat', ' cat']],
      ['^\\p{L}+$', ['Grüße', 'Ωμέγα', 'abc1', '']],
      ['^\\p{Script=Greek}+$', ['Ωμέγα', 'Omega']],
      ['^\\P{L}$', ['1', 'a', '😀']],
      ['^[[:]+$', ['[:', ':', 'a']],
      ['^[^]$', ['x', '\n', '😀']],
      ['[]', ['', 'a']],
      ['^😀+$', ['😀😀', '😀', '\ud83d']],
      ['^\\u{1F600}$', ['😀']],
      ['^\\ud83d\\ude00$', ['😀', '\ud83d\ude00']],
      ['^\\ud83d', ['\ud83d', '😀']],
      ['^[\\ud83d\\ude00a]$', ['😀', 'a', '\ud83d']],
      ['^\\x41\\u0042\\cJ\\0$', ['AB\n\0']],
      ['^a\\.b\\/c\\$$', ['a.b/c$', 'aXb/c$']],
      ['^[\\]\\\\-]+$', [']\\-', 'a']],
      ['^(?:ab|a)(?:bc|c)$', ['abc', 'abbc', 'ac']],
      ['^(?<year>\\d{4})-(?<month>\\d\\d)$', ['2026-07', '2026-7']],
      ['^(a|ab)(c|bcd)(d*)$', ['abcd', 'abcdd', 'abd']],
      ['^(a*)*$', ['', 'aaaa', 'aab']],
      ['^(a{2,3}){2}$', ['aaaa', 'aaaaaa', 'aaaaaaa', 'aaa']],
      ['^a{0}b$', ['b', 'ab']],
      ['^a{2,}?$', ['a', 'aa', 'aaaaa']],
      ['x*?y', ['xxy', 'y', 'xx']],
      ['^(?=a)a', ['a', 'ab', 'b']],
      ['^(?=.*\\d)(?=.*[a-z])(?!.*\\s).{8,}$', ['abcdefg1', 'abcdefgh', '12345678', 'abc def1', 'a1']],
      ['^(?!admin$)[a-z]+$', ['admin', 'admins', 'ada']],
      [
        '^(?=.{1,12}\\.?$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\\.[a-z0-9]+)*\\.?$',
        ['a.b', 'example.com', 'a-very-long.domain', '-a'],
      ],
      [
        '^(?=[\\s\\S]*[\\p{Extended_Pictographic}\\p{Regional_Indicator}\\u20E3])[\\p{Extended_Pictographic}\\p{Emoji_Component}]+$',
        ['😀', '😀😀', '1', '#\u20e3', 'a'],
      ],
    ])('%s', (pattern, inputs) => {
      const linear = new LinearPattern(pattern);
      for (const input of inputs) {
        expect([input, linear.test(input)]).toEqual([input, native(pattern, input)]);
      }
    });

    it('on thousands of generated patterns and strings', () => {
      const next = random(34);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
      const atoms = [
        'a',
        'b',
        '.',
        '\\d',
        '\\w',
        '\\s',
        '\\S',
        '[ab]',
        '[^a]',
        '[a-c]',
        '\\.',
        'é',
        '😀',
        '\\p{L}',
        '[]',
        '[^]',
        '-',
      ];
      const assertions = ['^', '$', '\\b', '\\B'];
      const quantifiers = ['', '', '*', '+', '?', '{2}', '{0,3}', '{1,}', '*?'];
      const pattern = (depth: number): string => {
        const roll = next();
        if (depth === 0 || roll < 0.3) {
          return next() < 0.15 ? pick(assertions) : pick(atoms) + pick(quantifiers);
        }
        if (roll < 0.6) {
          return pattern(depth - 1) + pattern(depth - 1);
        }
        if (roll < 0.7) {
          return `${pattern(depth - 1)}|${pattern(depth - 1)}`;
        }
        return `(${pick(['', '?:'])}${pattern(depth - 1)})${pick(quantifiers)}`;
      };
      // Lookaheads right after a leading ^, the only place the engine takes them.
      const whole = (): string =>
        next() < 0.15 ? `^(?${pick(['=', '!'])}${pattern(2)})(?:${pattern(3)})` : pattern(4);
      const characters = ['a', 'b', 'c', '1', ' ', '\n', '.', '-', 'é', '😀', '\ud83d', 'A', '_', '\u00a0'];
      let compared = 0;
      for (let round = 0; round < 1_500; round++) {
        const source = whole();
        const linear = new LinearPattern(source);
        for (let sample = 0; sample < 20; sample++) {
          let input = '';
          for (let length = Math.floor(next() * 10); length > 0; length--) {
            input += pick(characters);
          }
          if (linear.test(input) !== native(source, input)) {
            throw new Error(`${JSON.stringify(source)} on ${JSON.stringify(input)}: not as RegExp`);
          }
          compared++;
        }
      }
      expect(compared).toBe(30_000);
    });
  });

  describe('time', () => {
    // JavaScript's RegExp backtracks for seconds (exponentially, or with the cube of the length)
    // on each; the linear engine takes a few milliseconds. Warmed first on a shorter string, so
    // that what is timed is testing, not compiling.
    it.each<[pattern: string, unit: string, count: number, tail: string]>([
      ['^(a+)+$', 'a', 30, '!'],
      ['^(a|a)*$', 'a', 40, '!'],
      ['^(\\w+\\s?)*$', 'word ', 30, '!'],
      ['\\d+\\d+x', '1', 50_000, ''],
      ['^(a|b|ab)*c$', 'ab', 50_000, ''],
    ])('%s on a hostile string in under 50 ms', (source, unit, count, tail) => {
      const pattern = new LinearPattern(source);
      const warmUp = `${unit.repeat(Math.ceil(count / 10))}${tail}`;
      for (let round = 0; round < 3; round++) {
        pattern.test(warmUp);
      }
      const input = `${unit.repeat(count)}${tail}`;
      const started = performance.now();
      expect(pattern.test(input)).toBe(false);
      expect(performance.now() - started).toBeLessThan(50);
    });

    it('keeps its answers when the cache of states starts over', () => {
      // (a|b)*a(a|b){11}: 4096 states of the DFA, past the most kept.
      const source = '(a|b)*a(a|b){11}$';
      const pattern = new LinearPattern(source);
      const next = random(7);
      for (let round = 0; round < 50; round++) {
        let input = '';
        for (let length = 0; length < 400; length++) {
          input += next() < 0.5 ? 'a' : 'b';
        }
        expect(pattern.test(input)).toBe(native(source, input));
      }
    });
  });

  describe('refuses what needs backtracking', () => {
    it.each([
      ['a backreference', '^(a)\\1$'],
      ['a backreference', '(?<x>a)\\k<x>'],
      ['a lookahead other than right after a leading ^', 'a(?!b)'],
      ['a lookahead other than right after a leading ^', '(?=a)a'],
      ['a lookahead other than right after a leading ^', '^a(?=b)'],
      ['a lookahead other than right after a leading ^', '^(?=a)|b'],
      ['a lookbehind', '(?<=a)b'],
      ['a lookbehind', '(?<!a)b'],
      [`a repetition count past ${MAX_NFA_STATES}`, `^a{${MAX_NFA_STATES + 1}}$`],
      [`more than ${MAX_NFA_STATES} states once its repetitions are counted out`, '^(a{100}){100}$'],
    ])('%s: %s', (reason, source) => {
      expect(() => new LinearPattern(source)).toThrow(new UnsupportedPatternError(reason));
    });

    it('refuses an invalid pattern with the SyntaxError of RegExp', () => {
      expect(() => new LinearPattern('(')).toThrow(SyntaxError);
      expect(() => new LinearPattern('^\\-$')).toThrow(SyntaxError);
    });
  });

  it('is keyed by its source, as ajv keys the patterns it compiles', () => {
    expect(String(new LinearPattern('^a$'))).toBe('/^a$/u');
    expect(String(new LinearPattern('^b$'))).toBe('/^b$/u');
  });
});
