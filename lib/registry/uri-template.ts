/**
 * Matching URIs against RFC 6570 URI templates: the reverse of expansion. Supported: simple
 * (`{id}`), reserved (`{+path}`), fragment (`{#f}`), label (`{.ext}`), path segment (`{/seg}`),
 * path parameter (`{;x}`), query (`{?a,b}`) and query continuation (`{&c}`) expressions, with
 * one or more variables. Explode and prefix modifiers are accepted and matched like plain
 * variables.
 *
 * A client sends the URI, so matching must not depend on how hostile it is: each template
 * compiles to a program (`template-program.ts`) matched in O(|uri| × |template|) time whatever
 * the two are. Where a template is ambiguous (`{a}.{b}`, `{a}{b}`), the earliest expression
 * takes the most it can, as it did when templates compiled to a regular expression.
 */
import { excluding, ProgramBuilder, type TemplateProgram } from './template-program';

/** Thrown for a template that is not valid RFC 6570 syntax. */
export class InvalidUriTemplateError extends Error {}

/** How a template treats the values its variables decode to. */
export interface UriTemplateOptions {
  /** Give variables any decoded value, path traversal and control characters included. */
  readonly allowUnsafeValues?: boolean;
}

type Operator = '' | '+' | '#' | '.' | '/' | '?' | '&' | ';';

interface Expression {
  operator: Operator;
  names: string[];
}

const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

function parseExpression(body: string, template: string): Expression {
  const first = body.charAt(0);
  const operator = ('+#./?&;'.includes(first) && first !== '' ? first : '') as Operator;
  const list = operator === '' ? body : body.slice(1);
  const names = list.split(',').map((spec) => spec.replace(/\*$/, '').replace(/:\d+$/, ''));
  if (names.length === 0 || names.some((name) => !VARNAME.test(name))) {
    throw new InvalidUriTemplateError(`Invalid expression {${body}} in URI template ${template}`);
  }
  return { operator, names };
}

/** The literals and expressions of a template, in order. */
function parseTemplate(template: string): Array<string | Expression> {
  const parts: Array<string | Expression> = [];
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf('{');
    if (open === -1) {
      if (rest.includes('}')) {
        throw new InvalidUriTemplateError(`Unbalanced "}" in URI template ${template}`);
      }
      parts.push(rest);
      break;
    }
    const close = rest.indexOf('}', open);
    if (close === -1 || rest.slice(0, open).includes('}')) {
      throw new InvalidUriTemplateError(`Unbalanced braces in URI template ${template}`);
    }
    if (open > 0) {
      parts.push(rest.slice(0, open));
    }
    parts.push(parseExpression(rest.slice(open + 1, close), template));
    rest = rest.slice(close + 1);
  }
  return parts;
}

/** What each operator's values may not contain, unencoded. */
const SIMPLE_ONE = excluding('/?#,');
const SIMPLE_LIST = excluding('/?#');
const RESERVED_ONE = excluding('?#,');
const RESERVED_LIST = excluding('?#');
const NO_COMMA = excluding(',');
const SEGMENT = excluding('/?#');
const QUERY = excluding('#');

/**
 * The instructions of one expression: one capture (slots `slot` and `slot + 1`) of what it
 * matched, still encoded; no save is reached when an optional expression (`{#f}`, `{.x}`,
 * `{?q}`, `{&q}`) takes no part.
 */
function emitExpression(program: ProgramBuilder, expression: Expression, slot: number): void {
  const count = expression.names.length;
  const save = (body: () => void): void => {
    program.save(slot);
    body();
    program.save(slot + 1);
  };
  switch (expression.operator) {
    // One capture per expression; several variables are split on the separator later
    // (simple expansion percent-encodes commas inside values).
    case '':
      return save(() => program.plus(count === 1 ? SIMPLE_ONE : SIMPLE_LIST));
    case '+':
      return save(() => program.plus(count === 1 ? RESERVED_ONE : RESERVED_LIST));
    case '#':
      return program.optional(() => {
        program.literal('#');
        save(() => {
          program.star(NO_COMMA);
          for (let index = 1; index < count; index++) {
            program.literal(',');
            program.star(NO_COMMA);
          }
        });
      });
    case '.':
      return program.optional(() => {
        program.literal('.');
        save(() => program.star(SEGMENT));
      });
    case '/': {
      // Up to `count` segments, each taken if it can be.
      const segments = (left: number): void => {
        program.optional(() => {
          program.literal('/');
          program.star(SEGMENT);
          if (left > 1) {
            segments(left - 1);
          }
        });
      };
      return save(() => segments(count));
    }
    case ';':
      return save(() =>
        program.repeat(() => {
          program.literal(';');
          program.star(SEGMENT);
        }),
      );
    case '?':
    case '&':
      return program.optional(() => {
        program.literal(expression.operator);
        save(() => program.star(QUERY));
      });
  }
}

/** A compiled URI template. */
export class UriTemplate {
  /** The variable names, in order of appearance. */
  readonly variables: readonly string[];
  /** The expressions, in order: expression `i` captures in slots `2i` and `2i + 1`. */
  private readonly expressions: Expression[] = [];
  private readonly program: TemplateProgram;
  /** The literal text before the first expression and after the last: a cheap first check. */
  private readonly prefix: string;
  private readonly suffix: string;
  private readonly allowUnsafeValues: boolean;

  constructor(
    readonly template: string,
    options: UriTemplateOptions = {},
  ) {
    const parts = parseTemplate(template);
    const variables: string[] = [];
    const builder = new ProgramBuilder();
    for (const part of parts) {
      if (typeof part === 'string') {
        builder.literal(part);
      } else {
        variables.push(...part.names);
        emitExpression(builder, part, this.expressions.length * 2);
        this.expressions.push(part);
      }
    }
    this.program = builder.build(this.expressions.length * 2);
    if (new Set(variables).size !== variables.length) {
      throw new InvalidUriTemplateError(`A variable appears twice in URI template ${template}`);
    }
    this.variables = variables;
    const first = parts[0];
    const last = parts[parts.length - 1];
    this.prefix = typeof first === 'string' ? first : '';
    this.suffix = parts.length > 1 && typeof last === 'string' ? last : '';
    this.allowUnsafeValues = options.allowUnsafeValues === true;
  }

  /**
   * The variables of `uri` if it matches the template, else `undefined`. Unless the template
   * allows unsafe values, a URI whose variables decode to a control character, a `..` path
   * segment, or (outside `{+x}` and `{#x}`) a `/` or `\` matches nothing: see
   * `McpResourceTemplateOptions.allowUnsafeValues`.
   */
  match(uri: string): Record<string, string> | undefined {
    if (
      uri.length < this.prefix.length + this.suffix.length ||
      !uri.startsWith(this.prefix) ||
      !uri.endsWith(this.suffix)
    ) {
      return undefined;
    }
    const captures = this.program.match(uri);
    if (captures === undefined) {
      return undefined;
    }
    try {
      return this.values(uri, captures);
    } catch {
      // Malformed percent-encoding or a wrong number of values: the URI does not name anything
      // this template serves.
      return undefined;
    }
  }

  private values(uri: string, captures: number[]): Record<string, string> | undefined {
    const values: Record<string, string> = {};
    // Query expressions (`{?a}{&b}`) share one query string: read its pairs once, then give each
    // variable its value, whichever expression names it.
    const pairs = new Map<string, string>();
    const pairNames: string[] = [];
    for (let position = 0; position < this.expressions.length; position++) {
      const expression = this.expressions[position];
      const start = captures[position * 2];
      const end = captures[position * 2 + 1];
      const captured = start === -1 || end === -1 ? undefined : uri.slice(start, end);
      switch (expression.operator) {
        case '':
        case '+': {
          const parts = expression.names.length === 1 ? [captured!] : captured!.split(',');
          if (parts.length !== expression.names.length) {
            return undefined;
          }
          expression.names.forEach((name, index) => (values[name] = decodeURIComponent(parts[index])));
          break;
        }
        case '#':
        case '.':
        case '/':
          assignList(expression, captured, values);
          break;
        case ';':
        case '?':
        case '&':
          readPairs(captured, pairs);
          pairNames.push(...expression.names);
          break;
      }
    }
    for (const name of pairNames) {
      const value = pairs.get(name);
      if (value !== undefined) {
        values[name] = value;
      }
    }
    if (!this.allowUnsafeValues) {
      for (const expression of this.expressions) {
        const reserved = expression.operator === '+' || expression.operator === '#';
        for (const name of expression.names) {
          const value = values[name];
          if (value !== undefined && isUnsafe(value, reserved)) {
            return undefined;
          }
        }
      }
    }
    return values;
  }
}

function assignList(expression: Expression, captured: string | undefined, values: Record<string, string>): void {
  if (captured === undefined || captured === '') {
    return;
  }
  const separator = expression.operator === '#' ? ',' : expression.operator;
  const parts = (expression.operator === '/' ? captured.slice(1) : captured).split(separator);
  expression.names.forEach((name, position) => {
    if (parts[position] !== undefined && parts[position] !== '') {
      values[name] = decodeURIComponent(parts[position]);
    }
  });
}

/** Reads `name=value` pairs (separated by `&` or `;`) into `pairs`; the first occurrence wins. */
function readPairs(captured: string | undefined, pairs: Map<string, string>): void {
  if (captured === undefined || captured === '') {
    return;
  }
  for (const pair of captured.split(/[&;]/)) {
    if (pair === '') {
      continue;
    }
    const equals = pair.indexOf('=');
    const name = decodeURIComponent(equals === -1 ? pair : pair.slice(0, equals));
    if (!pairs.has(name)) {
      pairs.set(name, equals === -1 ? '' : decodeURIComponent(pair.slice(equals + 1)));
    }
  }
}

const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const DOT = 0x2e;

/**
 * Whether a decoded value could reach outside what its handler meant to serve: a C0 control
 * character or DEL (a NUL cuts a file name short in native code; a newline forges log lines),
 * a `..` path segment (bounded by `/`, `\` or the value's ends), or, outside reserved
 * expressions, a `/` or `\` at all (a simple `{id}` names one segment).
 */
function isUnsafe(value: string, reserved: boolean): boolean {
  let segmentStart = 0;
  for (let index = 0; index <= value.length; index++) {
    const code = index === value.length ? SLASH : value.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) {
      return true;
    }
    if (code === SLASH || code === BACKSLASH) {
      if (!reserved && index < value.length) {
        return true;
      }
      if (
        index - segmentStart === 2 &&
        value.charCodeAt(segmentStart) === DOT &&
        value.charCodeAt(segmentStart + 1) === DOT
      ) {
        return true;
      }
      segmentStart = index + 1;
    }
  }
  return false;
}
