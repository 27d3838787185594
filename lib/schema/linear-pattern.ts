/**
 * JSON Schema `pattern`s tested in time linear in the string, whatever the pattern: the engine
 * the module's ajv instances get as `code.regExp`. ajv would compile each pattern to a native
 * RegExp, which backtracks: `^(a+)+$` took 14 s on a 30-character argument, and an unanchored
 * `\d+\d+x` grows with the cube of a string's length.
 *
 * A pattern is parsed for its structure (`pattern-syntax.ts`) and compiled to a Thompson NFA
 * whose consuming states each test one code point: a literal by comparison, anything else (`.`,
 * a class, `\s`, `\p{...}`) by the platform's own RegExp made of that atom alone, sticky at the
 * position, so that every atom keeps its exact ECMAScript meaning and no backtracking is
 * possible (a fixed one-character test). The NFA is run as a lazy DFA: each set of states met
 * becomes a state whose transitions are kept (every ASCII one, the first MAX_WIDE_TRANSITIONS
 * others), so a pattern in use costs about one table read per character; at most
 * MAX_DFA_STATES are kept per pattern (then the cache starts over), and a character never costs
 * more than one step over the NFA's states: O(|string| × |NFA|) in the worst case.
 *
 * Backreferences, lookbehinds and lookaheads but those right after a leading `^` (see
 * LinearPattern) need backtracking: such a pattern, and one whose NFA would pass MAX_NFA_STATES,
 * is refused (UnsupportedPatternError) when it is compiled.
 */
import { type Assertion, parsePattern, type PatternNode, UnsupportedPatternError } from './pattern-syntax';

export { UnsupportedPatternError } from './pattern-syntax';

/** The most NFA states a pattern may compile to (repetition counts are expanded). */
export const MAX_NFA_STATES = 4_000;
/** The most DFA states kept per pattern before the cache starts over. */
const MAX_DFA_STATES = 1_000;
/** The most transitions on other than ASCII characters kept per DFA state. */
const MAX_WIDE_TRANSITIONS = 64;

// NFA instructions.
/** Consumes a code point that matcher `arg` accepts, then goes on at `out`. */
const CHAR = 0;
/** Goes on at `out` and at `alt`. */
const SPLIT = 1;
/** Goes on at `out` when assertion `arg` holds here. */
const ASSERT = 2;
/** A match ends here. */
const MATCH = 3;

const ASSERTIONS: readonly Assertion[] = ['start', 'end', 'boundary', 'not-boundary'];

/** Tests one code point: by comparison, or by the platform's RegExp of the atom (ASCII answers kept). */
interface CharMatcher {
  readonly literal: number;
  /** For each ASCII code, 1 when the atom accepts it; `undefined` for a literal. */
  readonly ascii?: Uint8Array;
  /** The atom alone, sticky and unicode: tests the code point at `lastIndex`. */
  readonly native?: RegExp;
}

function isWord(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x5f
  );
}

/** A set of NFA states before their closure, and where it stands: one state of the lazy DFA. */
class DfaState {
  /** Transitions on ASCII codes, filled as they are met. */
  readonly next: Array<DfaState | undefined> = new Array<DfaState | undefined>(128);
  /** Transitions on other code points, the first MAX_WIDE_TRANSITIONS met. */
  wide: Map<number, DfaState> | undefined;
  /** Whether a match ends at the end of the input from here; `undefined` until asked. */
  acceptsAtEnd: boolean | undefined;

  constructor(
    readonly kernel: Int32Array,
    readonly atStart: boolean,
    readonly afterWord: boolean,
  ) {}
}

/** Transitions to these end the test. */
const MATCHED = new DfaState(new Int32Array(0), false, false);
const DEAD = new DfaState(new Int32Array(0), false, false);

/**
 * A pattern compiled for linear-time tests; what ajv's `code.regExp` must return.
 *
 * Lookaheads right after a leading `^` (`^(?=.*\d)(?!.*\s).{8,}$`, zod's `emoji` and `hostname`)
 * look from the start of the string only, so each is a pattern of its own: the whole matches
 * where `^(?:A)` does for each `(?=A)`, `^(?:B)` does not for each `(?!B)`, and the rest does.
 * A lookahead anywhere else is refused, as lookbehinds are.
 */
export class LinearPattern {
  private readonly conditions: ReadonlyArray<{ readonly automaton: Automaton; readonly negated: boolean }>;
  private readonly automaton: Automaton;

  /** @throws UnsupportedPatternError when the pattern needs backtracking or is too large. */
  constructor(readonly source: string) {
    // A SyntaxError here is ajv's own refusal, as before.
    new RegExp(source, 'u');
    const root = parsePattern(source);
    const items = root.kind === 'sequence' ? root.items : [root];
    const conditions: Array<{ automaton: Automaton; negated: boolean }> = [];
    let rest = 1;
    if (items[0].kind === 'assertion' && items[0].test === 'start') {
      for (let item = items[rest]; item?.kind === 'lookahead'; item = items[++rest]) {
        conditions.push({
          automaton: new Automaton({ kind: 'sequence', items: [items[0], item.body] }),
          negated: item.negated,
        });
      }
    }
    this.conditions = conditions;
    this.automaton = new Automaton(
      conditions.length === 0 ? root : { kind: 'sequence', items: [items[0], ...items.slice(rest)] },
    );
  }

  /** What ajv keys a pattern by (one shared key would give every pattern the first one's test). */
  toString(): string {
    return `/${this.source}/u`;
  }

  /** Whether the pattern matches somewhere in `input`, as `new RegExp(source, 'u').test(input)`. */
  test(input: string): boolean {
    for (const { automaton, negated } of this.conditions) {
      if (automaton.test(input) === negated) {
        return false;
      }
    }
    return this.automaton.test(input);
  }
}

/** One pattern without lookaround, as a lazy DFA over its NFA. */
class Automaton {
  private readonly op: number[] = [];
  private readonly arg: number[] = [];
  private readonly out: number[] = [];
  private readonly alt: number[] = [];
  private readonly matchers: CharMatcher[] = [];
  private readonly start: number;
  /** Whether a match may start past position 0 (false when every path starts with `^`). */
  private readonly seedsEverywhere: boolean;
  private readonly usesBoundaries: boolean;
  /**
   * The character every match starts with, when the pattern spells one and nothing else can
   * start a match (`mcp`, `x-[a-z]+`): a test finds where to start with `indexOf`. Else ''.
   */
  private readonly lead: string;
  private states = new Map<string, DfaState>();
  private initial: DfaState;
  // Scratch space of one step, reused.
  private readonly marks: Int32Array;
  private mark = 0;
  private readonly stack: number[] = [];
  private readonly consumers: number[] = [];

  constructor(root: PatternNode) {
    const atoms = new Map<string, number>();
    const matchState = this.emit(MATCH, 0, -1);
    this.start = this.compile(root, matchState, atoms);
    this.marks = new Int32Array(this.op.length);
    this.usesBoundaries = this.op.some((op, state) => op === ASSERT && this.arg[state] >= 2);
    this.seedsEverywhere = this.reachesWithoutStart(this.start);
    this.lead = this.seedsEverywhere ? this.leadOf(this.start) : '';
    this.initial = this.intern(new Int32Array(0), true, false);
  }

  /** Whether the pattern matches somewhere in `input`. */
  test(input: string): boolean {
    let state = this.initial;
    const { length } = input;
    for (let position = 0; position < length;) {
      if (this.lead !== '' && state.kernel.length === 0) {
        // No match in progress: until the next lead character, every character leads back here.
        const found = input.indexOf(this.lead, position);
        if (found === -1) {
          break;
        }
        position = found;
      }
      let code = input.charCodeAt(position);
      let width = 1;
      if (code >= 0xd800 && code <= 0xdbff && position + 1 < length) {
        const low = input.charCodeAt(position + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          code = (code - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
          width = 2;
        }
      }
      let next = code < 128 ? state.next[code] : state.wide?.get(code);
      if (next === undefined) {
        next = this.step(state, code, input, position);
        if (code < 128) {
          state.next[code] = next;
        } else if ((state.wide ??= new Map()).size < MAX_WIDE_TRANSITIONS) {
          state.wide.set(code, next);
        }
      }
      if (next === MATCHED) {
        return true;
      }
      if (next === DEAD) {
        return false;
      }
      state = next;
      position += width;
    }
    state.acceptsAtEnd ??= this.close(state, true, false);
    return state.acceptsAtEnd;
  }

  private emit(op: number, arg: number, out: number, alt = -1): number {
    if (this.op.length >= MAX_NFA_STATES) {
      throw new UnsupportedPatternError(`more than ${MAX_NFA_STATES} states once its repetitions are counted out`);
    }
    this.op.push(op);
    this.arg.push(arg);
    this.out.push(out);
    this.alt.push(alt);
    return this.op.length - 1;
  }

  /** Emits `node` so that it goes on at `next`; returns where it starts. */
  private compile(node: PatternNode, next: number, atoms: Map<string, number>): number {
    switch (node.kind) {
      case 'empty':
        return next;
      case 'atom':
        return this.emit(CHAR, this.matcherOf(node.source, node.literal, atoms), next);
      case 'assertion':
        return this.emit(ASSERT, ASSERTIONS.indexOf(node.test), next);
      case 'lookahead':
        throw new UnsupportedPatternError('a lookahead other than right after a leading ^');
      case 'sequence': {
        let start = next;
        for (let index = node.items.length - 1; index >= 0; index--) {
          start = this.compile(node.items[index], start, atoms);
        }
        return start;
      }
      case 'choice': {
        const starts = node.options.map((option) => this.compile(option, next, atoms));
        let start = starts[starts.length - 1];
        for (let index = starts.length - 2; index >= 0; index--) {
          start = this.emit(SPLIT, 0, starts[index], start);
        }
        return start;
      }
      case 'repeat': {
        const { body, min, max } = node;
        if (min > MAX_NFA_STATES || (max !== Infinity && max > MAX_NFA_STATES)) {
          throw new UnsupportedPatternError(`a repetition count past ${MAX_NFA_STATES}`);
        }
        let tail: number;
        if (max === Infinity) {
          const loop = this.emit(SPLIT, 0, -1, next);
          this.out[loop] = this.compile(body, loop, atoms);
          tail = loop;
        } else {
          tail = next;
          for (let count = min; count < max; count++) {
            tail = this.emit(SPLIT, 0, this.compile(body, tail, atoms), next);
          }
        }
        for (let count = 0; count < min; count++) {
          tail = this.compile(body, tail, atoms);
        }
        return tail;
      }
    }
  }

  private matcherOf(source: string, literal: number | undefined, atoms: Map<string, number>): number {
    let index = atoms.get(source);
    if (index === undefined) {
      let matcher: CharMatcher;
      if (literal !== undefined) {
        matcher = { literal };
      } else {
        const native = new RegExp(source, 'uy');
        const ascii = new Uint8Array(128);
        for (let code = 0; code < 128; code++) {
          native.lastIndex = 0;
          ascii[code] = native.test(String.fromCharCode(code)) ? 1 : 0;
        }
        matcher = { literal: -1, ascii, native };
      }
      index = this.matchers.push(matcher) - 1;
      atoms.set(source, index);
    }
    return index;
  }

  /** Whether a consuming state or the match is reachable from `state` without passing `^`. */
  private reachesWithoutStart(state: number): boolean {
    const seen = new Uint8Array(this.op.length);
    const stack = [state];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (seen[at] === 1) {
        continue;
      }
      seen[at] = 1;
      switch (this.op[at]) {
        case CHAR:
        case MATCH:
          return true;
        case SPLIT:
          stack.push(this.out[at], this.alt[at]);
          break;
        case ASSERT:
          if (ASSERTIONS[this.arg[at]] !== 'start') {
            stack.push(this.out[at]);
          }
      }
    }
    return false;
  }

  /** The one literal character every path from `state` consumes first, if there is one; else ''. */
  private leadOf(state: number): string {
    const seen = new Uint8Array(this.op.length);
    const stack = [state];
    let lead = -1;
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (seen[at] === 1) {
        continue;
      }
      seen[at] = 1;
      switch (this.op[at]) {
        case CHAR: {
          const { literal } = this.matchers[this.arg[at]];
          if (literal === -1 || (lead !== -1 && literal !== lead)) {
            return '';
          }
          lead = literal;
          break;
        }
        case SPLIT:
          stack.push(this.out[at], this.alt[at]);
          break;
        default:
          // An assertion or an empty match: every position must be looked at.
          return '';
      }
    }
    return lead === -1 || lead > 0xffff || (lead >= 0xd800 && lead <= 0xdfff) ? '' : String.fromCharCode(lead);
  }

  /**
   * Follows every move that consumes nothing from the states of `from` (and from the start,
   * where a match may start), with the assertions as they hold between the previous character
   * and the next (`nextWord`; `atEnd` past the last). Leaves the consuming states reached in
   * `this.consumers`; returns whether the match state was reached.
   */
  private close(from: DfaState, atEnd: boolean, nextWord: boolean): boolean {
    const { op, arg, out, alt, marks, stack, consumers } = this;
    const mark = ++this.mark;
    consumers.length = 0;
    stack.length = 0;
    for (let index = from.kernel.length - 1; index >= 0; index--) {
      stack.push(from.kernel[index]);
    }
    if (from.atStart || this.seedsEverywhere) {
      stack.push(this.start);
    }
    let matched = false;
    while (stack.length > 0) {
      const state = stack.pop()!;
      if (marks[state] === mark) {
        continue;
      }
      marks[state] = mark;
      switch (op[state]) {
        case CHAR:
          consumers.push(state);
          break;
        case SPLIT:
          stack.push(alt[state], out[state]);
          break;
        case ASSERT: {
          let holds: boolean;
          switch (arg[state]) {
            case 0:
              holds = from.atStart;
              break;
            case 1:
              holds = atEnd;
              break;
            default:
              holds = (from.afterWord !== nextWord) === (arg[state] === 2);
          }
          if (holds) {
            stack.push(out[state]);
          }
          break;
        }
        default:
          matched = true;
      }
    }
    return matched;
  }

  /** The state after `code` (at `position` of `input`), or MATCHED, or DEAD. */
  private step(from: DfaState, code: number, input: string, position: number): DfaState {
    const word = isWord(code);
    if (this.close(from, false, word)) {
      return MATCHED;
    }
    const { consumers, matchers, arg, out, marks } = this;
    const mark = ++this.mark;
    const kernel: number[] = [];
    for (const state of consumers) {
      const matcher = matchers[arg[state]];
      let accepts: boolean;
      if (matcher.literal !== -1) {
        accepts = matcher.literal === code;
      } else if (code < 128) {
        accepts = matcher.ascii![code] === 1;
      } else {
        matcher.native!.lastIndex = position;
        accepts = matcher.native!.test(input);
      }
      const target = out[state];
      if (accepts && marks[target] !== mark) {
        marks[target] = mark;
        kernel.push(target);
      }
    }
    if (kernel.length === 0 && !this.seedsEverywhere) {
      return DEAD;
    }
    return this.intern(Int32Array.from(kernel).sort(), false, this.usesBoundaries && word);
  }

  private intern(kernel: Int32Array, atStart: boolean, afterWord: boolean): DfaState {
    const key = `${atStart ? 's' : ''}${afterWord ? 'w' : ''}:${kernel.join(',')}`;
    let state = this.states.get(key);
    if (state === undefined) {
      if (this.states.size >= MAX_DFA_STATES) {
        // Start over: the states met so far are dropped once no test runs through them.
        this.states = new Map();
        this.initial = new DfaState(new Int32Array(0), true, false);
        this.states.set('s:', this.initial);
        if (atStart && kernel.length === 0 && !afterWord) {
          return this.initial;
        }
      }
      state = new DfaState(kernel, atStart, afterWord);
      this.states.set(key, state);
    }
    return state;
  }
}
