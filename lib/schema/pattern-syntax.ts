/**
 * The structure of a JSON Schema `pattern` (ECMA-262 with the `u` flag, as ajv compiles it):
 * alternatives, groups, repetitions, assertions, and atoms that each match one code point. What
 * an atom matches is left to the platform's own RegExp (`linear-pattern.ts` asks it about one
 * character at a time), so only the structure is parsed here, and `.`, `\s`, `\p{...}` or a
 * class keep their exact ECMAScript meaning.
 *
 * The source must be a valid `u` pattern (the caller compiles it with `new RegExp(source, 'u')`
 * first): the grammar is then strict enough that atoms can be cut out without interpreting them.
 */

/** A part of a pattern the linear engine cannot run: what needs backtracking. */
export class UnsupportedPatternError extends Error {}

export type PatternNode =
  | { readonly kind: 'empty' }
  /** One code point: `literal` when the pattern spells it, else `source` for the platform to test. */
  | { readonly kind: 'atom'; readonly source: string; readonly literal?: number }
  | { readonly kind: 'sequence'; readonly items: readonly PatternNode[] }
  | { readonly kind: 'choice'; readonly options: readonly PatternNode[] }
  /** `max` is `Infinity` for an unbounded repetition. */
  | { readonly kind: 'repeat'; readonly body: PatternNode; readonly min: number; readonly max: number }
  | { readonly kind: 'assertion'; readonly test: Assertion }
  /** `(?=body)`, or `(?!body)` when `negated`. */
  | { readonly kind: 'lookahead'; readonly negated: boolean; readonly body: PatternNode };

/** `^` and `$` (no `m` flag: the ends of the input), `\b` and `\B`. */
export type Assertion = 'start' | 'end' | 'boundary' | 'not-boundary';

const EMPTY: PatternNode = { kind: 'empty' };
const HEX4 = /^[0-9A-Fa-f]{4}$/;

/** Parses a valid `u`-mode pattern; throws UnsupportedPatternError for what needs backtracking. */
export function parsePattern(source: string): PatternNode {
  return new PatternParser(source).parse();
}

class PatternParser {
  private index = 0;

  constructor(private readonly source: string) {}

  parse(): PatternNode {
    const node = this.disjunction();
    if (this.index !== this.source.length) {
      throw new UnsupportedPatternError(`unexpected "${this.source[this.index]}" at ${this.index}`);
    }
    return node;
  }

  private disjunction(): PatternNode {
    const options = [this.alternative()];
    while (this.source[this.index] === '|') {
      this.index++;
      options.push(this.alternative());
    }
    return options.length === 1 ? options[0] : { kind: 'choice', options };
  }

  private alternative(): PatternNode {
    const items: PatternNode[] = [];
    while (this.index < this.source.length && this.source[this.index] !== '|' && this.source[this.index] !== ')') {
      items.push(this.term());
    }
    return items.length === 0 ? EMPTY : items.length === 1 ? items[0] : { kind: 'sequence', items };
  }

  private term(): PatternNode {
    const { source } = this;
    const character = source[this.index];
    // A `u` pattern takes no quantifier after an assertion: none is looked for.
    if (character === '^' || character === '$') {
      this.index++;
      return { kind: 'assertion', test: character === '^' ? 'start' : 'end' };
    }
    if (character === '\\' && (source[this.index + 1] === 'b' || source[this.index + 1] === 'B')) {
      this.index += 2;
      return { kind: 'assertion', test: source[this.index - 1] === 'b' ? 'boundary' : 'not-boundary' };
    }
    if (source.startsWith('(?=', this.index) || source.startsWith('(?!', this.index)) {
      // A `u` pattern takes no quantifier after a lookahead either.
      const negated = source[this.index + 2] === '!';
      this.index += 3;
      return { kind: 'lookahead', negated, body: this.groupBody() };
    }
    return this.quantified(character === '(' ? this.group() : this.atom());
  }

  private group(): PatternNode {
    const { source } = this;
    if (source.startsWith('(?:', this.index)) {
      this.index += 3;
    } else if (
      source.startsWith('(?<', this.index) &&
      source[this.index + 3] !== '=' &&
      source[this.index + 3] !== '!'
    ) {
      this.index = source.indexOf('>', this.index) + 1; // a named group: the name is of no use here
    } else if (source[this.index + 1] === '?') {
      throw new UnsupportedPatternError(source[this.index + 2] === '<' ? 'a lookbehind' : 'a modifier group');
    } else {
      this.index++;
    }
    return this.groupBody();
  }

  private groupBody(): PatternNode {
    const body = this.disjunction();
    this.index++; // `)`
    return body;
  }

  private quantified(body: PatternNode): PatternNode {
    const { source } = this;
    let min: number;
    let max: number;
    switch (source[this.index]) {
      case '*':
        [min, max] = [0, Infinity];
        this.index++;
        break;
      case '+':
        [min, max] = [1, Infinity];
        this.index++;
        break;
      case '?':
        [min, max] = [0, 1];
        this.index++;
        break;
      case '{': {
        const close = source.indexOf('}', this.index);
        const [low, high] = source.slice(this.index + 1, close).split(',');
        min = Number(low);
        max = high === undefined ? min : high === '' ? Infinity : Number(high);
        this.index = close + 1;
        break;
      }
      default:
        return body;
    }
    if (source[this.index] === '?') {
      this.index++; // lazy: the same strings match
    }
    return { kind: 'repeat', body, min, max };
  }

  private atom(): PatternNode {
    const { source } = this;
    const start = this.index;
    const character = source[start];
    if (character === '[') {
      let end = start + 1;
      if (source[end] === '^') {
        end++;
      }
      // A `u` class holds no nested class: the first unescaped `]` closes it (`[]` is empty).
      while (source[end] !== ']') {
        end += source[end] === '\\' ? 2 : 1;
      }
      this.index = end + 1;
      return { kind: 'atom', source: source.slice(start, this.index) };
    }
    if (character === '\\') {
      this.index = this.escapeEnd(start);
      const text = source.slice(start, this.index);
      // An identity escape (`\.`, `\/`...) spells its character.
      return this.index - start === 2 && /[$()*+./?[\\\]^{|}]/.test(text[1])
        ? { kind: 'atom', source: text, literal: text.charCodeAt(1) }
        : { kind: 'atom', source: text };
    }
    if (character === '.') {
      this.index++;
      return { kind: 'atom', source: '.' };
    }
    const literal = source.codePointAt(start)!;
    this.index += literal > 0xffff ? 2 : 1;
    return { kind: 'atom', source: source.slice(start, this.index), literal };
  }

  /** Where the escape at `start` ends. */
  private escapeEnd(start: number): number {
    const { source } = this;
    const letter = source[start + 1];
    switch (letter) {
      case 'p':
      case 'P':
        return source.indexOf('}', start) + 1;
      case 'u': {
        if (source[start + 2] === '{') {
          return source.indexOf('}', start) + 1;
        }
        // A surrogate pair spelt as two escapes is one code point in a `u` pattern.
        const lead = parseInt(source.slice(start + 2, start + 6), 16);
        const trail = source.slice(start + 8, start + 12);
        if (
          lead >= 0xd800 &&
          lead <= 0xdbff &&
          source.startsWith('\\u', start + 6) &&
          HEX4.test(trail) &&
          parseInt(trail, 16) >= 0xdc00 &&
          parseInt(trail, 16) <= 0xdfff
        ) {
          return start + 12;
        }
        return start + 6;
      }
      case 'x':
        return start + 4;
      case 'c':
        return start + 3;
      case 'k':
        throw new UnsupportedPatternError('a backreference');
      default:
        if (letter >= '1' && letter <= '9') {
          throw new UnsupportedPatternError('a backreference');
        }
        // \d \D \s \S \w \W, \f \n \r \t \v, \0, and identity escapes: one character.
        return start + 2;
    }
  }
}
