/**
 * The matching program of a URI template, and its matcher: linear in the URI whatever the
 * template, where a backtracking regular expression is quadratic (`{a}.{b}`) or exponential
 * (`{;x}`) in it.
 *
 * A program is a small automaton: literals and character classes that consume the URI, splits
 * (ordered: the first branch is the one a backtracking matcher would try first), jumps, saves of
 * the position into capture slots, and the end. `match` runs it in two passes, each
 * O(|uri| × |program|):
 *
 * 1. backwards, from the end of the URI: at each position, the consuming instructions from which
 *    the rest of the URI can be matched to the end of the program;
 * 2. forwards, one thread: at each split, the first branch that leads to such an instruction.
 *
 * With the first pass known, the second never takes a branch that fails, so it finds, without
 * backtracking, the first success in the order a backtracking matcher tries them: the same
 * captures it gave (the earliest expression of `{a}.{b}` takes the most it can).
 */

/** Consumes the literal text `arg` (an index into `literals`). */
const LITERAL = 0;
/** Consumes one character that is not among the ASCII ones of the set `arg` (an index into `classes`). */
const CLASS = 1;
/** Goes on at `next` if it can lead to a match, else at `alt`. */
const SPLIT = 2;
/** Goes on at `next`. */
const JUMP = 3;
/** Records the position in capture slot `arg`, then goes on at `next`. */
const SAVE = 4;
/** The end of the program: a match when the URI ends here. */
const MATCH = 5;

/** A set of ASCII characters (`excluded[code] === 1`) that a class does not consume. */
export type ExcludedCharacters = Uint8Array;

/** The set of `characters` (ASCII only). */
export function excluding(characters: string): ExcludedCharacters {
  const excluded = new Uint8Array(128);
  for (const character of characters) {
    excluded[character.charCodeAt(0)] = 1;
  }
  return excluded;
}

/** Builds a program, instruction after instruction (each goes on at the next by default). */
export class ProgramBuilder {
  private readonly op: number[] = [];
  private readonly arg: number[] = [];
  private readonly next: number[] = [];
  private readonly alt: number[] = [];
  private readonly classes: ExcludedCharacters[] = [];
  private readonly literals: string[] = [];

  private emit(op: number, arg = 0): number {
    const index = this.op.length;
    this.op.push(op);
    this.arg.push(arg);
    this.next.push(index + 1);
    this.alt.push(-1);
    return index;
  }

  literal(text: string): void {
    if (text.length > 0) {
      this.literals.push(text);
      this.emit(LITERAL, this.literals.length - 1);
    }
  }

  /** Records the position in capture slot `slot`. */
  save(slot: number): void {
    this.emit(SAVE, slot);
  }

  private consume(excluded: ExcludedCharacters): number {
    let index = this.classes.indexOf(excluded);
    if (index === -1) {
      index = this.classes.push(excluded) - 1;
    }
    return this.emit(CLASS, index);
  }

  /** `[^excluded]*`, greedy. */
  star(excluded: ExcludedCharacters): void {
    const split = this.emit(SPLIT);
    const consume = this.consume(excluded);
    this.next[consume] = split;
    this.alt[split] = this.op.length;
  }

  /** `[^excluded]+`, greedy. */
  plus(excluded: ExcludedCharacters): void {
    const consume = this.consume(excluded);
    const split = this.emit(SPLIT);
    this.next[split] = consume;
    this.alt[split] = this.op.length;
  }

  /** `(?:body)?`, greedy. */
  optional(body: () => void): void {
    const split = this.emit(SPLIT);
    body();
    this.alt[split] = this.op.length;
  }

  /** `(?:body)*`, greedy; `body` must start with a literal (an empty round would loop). */
  repeat(body: () => void): void {
    const split = this.emit(SPLIT);
    const first = this.op.length;
    body();
    if (this.op[first] !== LITERAL) {
      throw new Error('a repeated body must start with a literal');
    }
    const jump = this.emit(JUMP);
    this.next[jump] = split;
    this.alt[split] = this.op.length;
  }

  /** Ends the program. */
  build(slots: number): TemplateProgram {
    this.emit(MATCH);
    return new TemplateProgram(this.op, this.arg, this.next, this.alt, this.classes, this.literals, slots);
  }
}

/**
 * finishes[position * words ...]: during one match, the consumers from which uri[position..] can
 * be matched to the end of the program. One buffer for every program (matching is synchronous),
 * as long as the longest URI matched times the widest program.
 */
let finishes = new Uint32Array(0);

/** A program, ready to match URIs. */
export class TemplateProgram {
  /** The consuming instructions (and the end), by bit number. */
  private readonly consumers: readonly number[];
  /** How many 32-bit words a set of consumers takes. */
  private readonly words: number;
  /** For each instruction, the set of consumers it reaches without consuming (itself, if it consumes). */
  private readonly reach: Uint32Array;
  private readonly matchBit: number;

  constructor(
    private readonly op: readonly number[],
    private readonly arg: readonly number[],
    private readonly next: readonly number[],
    private readonly alt: readonly number[],
    private readonly classes: readonly ExcludedCharacters[],
    private readonly literals: readonly string[],
    private readonly slots: number,
  ) {
    const consumers: number[] = [];
    const bitOf = new Int32Array(op.length).fill(-1);
    op.forEach((code, pc) => {
      if (code === LITERAL || code === CLASS || code === MATCH) {
        bitOf[pc] = consumers.push(pc) - 1;
      }
    });
    this.consumers = consumers;
    this.matchBit = bitOf[op.length - 1];
    this.words = (consumers.length + 31) >>> 5;
    this.reach = new Uint32Array(op.length * this.words);
    const done = new Uint8Array(op.length);
    const fill = (pc: number): void => {
      if (done[pc] === 1) {
        return;
      }
      // No path without consumption loops (each repeated body starts with a literal), so the
      // recursion ends; 2 marks an instruction in progress, in case one ever did.
      if (done[pc] === 2) {
        throw new Error('a loop that consumes nothing');
      }
      done[pc] = 2;
      const into = pc * this.words;
      if (bitOf[pc] !== -1) {
        this.reach[into + (bitOf[pc] >>> 5)] |= 1 << (bitOf[pc] & 31);
      } else {
        const targets = op[pc] === SPLIT ? [next[pc], alt[pc]] : [next[pc]];
        for (const target of targets) {
          fill(target);
          for (let word = 0; word < this.words; word++) {
            this.reach[into + word] |= this.reach[target * this.words + word];
          }
        }
      }
      done[pc] = 1;
    };
    op.forEach((_, pc) => fill(pc));
  }

  /** Whether a path from `pc` can match the URI from `position` to the end (after the backward pass). */
  private canFinish(pc: number, position: number): boolean {
    const { reach, words } = this;
    for (let word = 0; word < words; word++) {
      if ((reach[pc * words + word] & finishes[position * words + word]) !== 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * The capture slots of the first match of the whole `uri`, in the order a backtracking
   * matcher tries them (-1 for a slot no save reached); `undefined` when it does not match.
   */
  match(uri: string): number[] | undefined {
    const { op, arg, next, alt, classes, literals, consumers, words } = this;
    const length = uri.length;
    const size = (length + 1) * words;
    if (finishes.length < size) {
      finishes = new Uint32Array(size);
    } else {
      finishes.fill(0, 0, size);
    }
    finishes[length * words + (this.matchBit >>> 5)] = 1 << (this.matchBit & 31);
    for (let position = length - 1; position >= 0; position--) {
      const code = uri.charCodeAt(position);
      for (let bit = 0; bit < consumers.length; bit++) {
        const pc = consumers[bit];
        let end = position + 1;
        if (op[pc] === CLASS) {
          if (code < 128 && classes[arg[pc]][code] === 1) {
            continue;
          }
        } else if (op[pc] === LITERAL) {
          const text = literals[arg[pc]];
          if (text.charCodeAt(0) !== code || !uri.startsWith(text, position)) {
            continue;
          }
          end = position + text.length;
        } else {
          continue;
        }
        if (this.canFinish(next[pc], end)) {
          finishes[position * words + (bit >>> 5)] |= 1 << (bit & 31);
        }
      }
    }
    if (!this.canFinish(0, 0)) {
      return undefined;
    }
    const captures = new Array<number>(this.slots).fill(-1);
    let position = 0;
    let pc = 0;
    for (;;) {
      switch (op[pc]) {
        case SPLIT:
          pc = this.canFinish(next[pc], position) ? next[pc] : alt[pc];
          break;
        case JUMP:
          pc = next[pc];
          break;
        case SAVE:
          captures[arg[pc]] = position;
          pc = next[pc];
          break;
        case MATCH:
          return captures;
        default:
          // A consumer this path only reaches because it can finish from here.
          position += op[pc] === CLASS ? 1 : literals[arg[pc]].length;
          pc = next[pc];
      }
    }
  }
}
