/**
 * A route's path as its router reads it, and that path filled with a call's values. Two
 * syntaxes: path-to-regexp v8 (Express 5: `:id`, optional groups `{/:id}`, wildcards `*splat`
 * and `{*splat}`, `\` escapes) and find-my-way (Fastify: `:id`, `:id(regex)`, a last optional
 * `:id?`, the wildcard `*`, `::` for a colon). Pure; the route paths it reads are the
 * application's, never a caller's.
 */
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { McpError } from '../protocol/messages/mcp-error';

/** Which router reads the path: Express 5's path-to-regexp, or Fastify's find-my-way. */
export type PathSyntax = 'path-to-regexp' | 'find-my-way';

/** One parameter of a route path, as a tool input. */
export interface PathParam {
  /** The input's name: the parameter's, or `wildcard` for find-my-way's unnamed `*`. */
  readonly name: string;
  /** Inside an optional group (`{/:id}`, `:id?`, `{*splat}`): the input is not required. */
  readonly optional: boolean;
  /** Matches several segments: its value may hold `/`. */
  readonly wildcard: boolean;
}

type Token =
  | { readonly kind: 'text'; readonly value: string }
  | { readonly kind: 'param'; readonly param: PathParam }
  | { readonly kind: 'group'; readonly tokens: readonly Token[] };

/** The input name of find-my-way's unnamed wildcard (`/files/*`, read with `@Param('*')`). */
export const FIND_MY_WAY_WILDCARD = 'wildcard';

const IDENTIFIER_START = /[$_\p{ID_Start}]/u;
const IDENTIFIER_PART = /[$\u200c\u200d\p{ID_Continue}]/u;

function readName(path: string, start: number): { name: string; end: number } {
  if (path[start] === '"') {
    let end = start + 1;
    let name = '';
    while (end < path.length && path[end] !== '"') {
      name += path[end] === '\\' ? (path[++end] ?? '') : path[end];
      end += 1;
    }
    return { name, end: end + 1 };
  }
  let end = start;
  if (end < path.length && IDENTIFIER_START.test(path[end])) {
    end += 1;
    while (end < path.length && IDENTIFIER_PART.test(path[end])) {
      end += 1;
    }
  }
  return { name: path.slice(start, end), end };
}

function parsePathToRegexp(path: string): Token[] {
  let index = 0;
  const parse = (optional: boolean): Token[] => {
    const tokens: Token[] = [];
    let text = '';
    const flush = (): void => {
      if (text !== '') {
        tokens.push({ kind: 'text', value: text });
        text = '';
      }
    };
    while (index < path.length) {
      const char = path[index];
      if (char === '\\') {
        text += path[index + 1] ?? '';
        index += 2;
      } else if (char === '{') {
        flush();
        index += 1;
        tokens.push({ kind: 'group', tokens: parse(true) });
      } else if (char === '}') {
        index += 1;
        break;
      } else if (char === ':' || char === '*') {
        flush();
        const { name, end } = readName(path, index + 1);
        tokens.push({ kind: 'param', param: { name, optional, wildcard: char === '*' } });
        index = end;
      } else {
        text += char;
        index += 1;
      }
    }
    flush();
    return tokens;
  };
  return parse(false);
}

/** find-my-way ends a parameter name at these characters. */
const FIND_MY_WAY_NAME_ENDS = '(-./:?*';

function parseFindMyWay(path: string): Token[] {
  const tokens: Token[] = [];
  let text = '';
  let index = 0;
  while (index < path.length) {
    const char = path[index];
    if (char === ':' && path[index + 1] === ':') {
      text += ':';
      index += 2;
    } else if (char === '*') {
      if (text !== '') {
        tokens.push({ kind: 'text', value: text });
        text = '';
      }
      tokens.push({ kind: 'param', param: { name: FIND_MY_WAY_WILDCARD, optional: true, wildcard: true } });
      index += 1;
    } else if (char === ':') {
      let end = index + 1;
      while (end < path.length && !FIND_MY_WAY_NAME_ENDS.includes(path[end])) {
        end += 1;
      }
      const name = path.slice(index + 1, end);
      if (path[end] === '(') {
        // The parameter's regular expression: skipped (the router checks the value).
        let depth = 0;
        do {
          if (path[end] === '\\') {
            end += 1;
          } else if (path[end] === '(') {
            depth += 1;
          } else if (path[end] === ')') {
            depth -= 1;
          }
          end += 1;
        } while (end < path.length && depth > 0);
      }
      const optional = path[end] === '?';
      const param: Token = { kind: 'param', param: { name, optional, wildcard: false } };
      if (optional && text.endsWith('/')) {
        // `/notes/:id?` serves `/notes` too: the slash goes with the parameter.
        text = text.slice(0, -1);
        if (text !== '') {
          tokens.push({ kind: 'text', value: text });
        }
        tokens.push({ kind: 'group', tokens: [{ kind: 'text', value: '/' }, param] });
      } else {
        if (text !== '') {
          tokens.push({ kind: 'text', value: text });
        }
        tokens.push(optional ? { kind: 'group', tokens: [param] } : param);
      }
      text = '';
      index = optional ? end + 1 : end;
    } else {
      text += char;
      index += 1;
    }
  }
  if (text !== '') {
    tokens.push({ kind: 'text', value: text });
  }
  return tokens;
}

function paramsOf(tokens: readonly Token[]): PathParam[] {
  return tokens.flatMap((token) =>
    token.kind === 'param' ? [token.param] : token.kind === 'group' ? paramsOf(token.tokens) : [],
  );
}

/** A path parameter's value as text: a scalar as written, anything else as its JSON. */
function textOf(value: unknown): string {
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint'
      ? value.toString()
      : (JSON.stringify(value) ?? '');
}

function invalid(message: string): McpError {
  return new McpError(McpErrorCode.InvalidParams, message);
}

/**
 * One segment of a value, URL-encoded. An empty segment, `.` or `..` would make the router
 * serve another path (`/notes/` is the list, `/notes/..` the parent): refused.
 */
function encodeSegment(name: string, segment: string): string {
  if (segment === '' || segment === '.' || segment === '..') {
    throw invalid(`The path parameter "${name}" may not be empty, "." or "..", nor hold such a segment`);
  }
  return encodeURIComponent(segment);
}

/** A route path read once; its parameters and the path filled with a call's values. */
export class RoutePathTemplate {
  /** Every parameter, in the order of the path; a name used twice is listed twice. */
  readonly params: readonly PathParam[];
  private readonly tokens: readonly Token[];

  constructor(
    readonly path: string,
    syntax: PathSyntax,
  ) {
    this.tokens = syntax === 'find-my-way' ? parseFindMyWay(path) : parsePathToRegexp(path);
    this.params = paramsOf(this.tokens);
  }

  /**
   * The path with each parameter's value URL-encoded, a wildcard's segment by segment (its `/`
   * kept); an optional group whose parameter has no value dropped.
   * @throws McpError (-32602) for a required parameter without a value, or a value (or a
   * wildcard's segment) that is empty, `.` or `..`
   */
  fill(values: Readonly<Record<string, unknown>>): string {
    return this.render(this.tokens, values, true) ?? '/';
  }

  private render(
    tokens: readonly Token[],
    values: Readonly<Record<string, unknown>>,
    required: boolean,
  ): string | undefined {
    let out = '';
    for (const token of tokens) {
      if (token.kind === 'text') {
        out += token.value;
      } else if (token.kind === 'group') {
        out += this.render(token.tokens, values, false) ?? '';
      } else {
        const { name, wildcard } = token.param;
        const value = values[name];
        if (value === undefined || value === null) {
          if (required && !token.param.optional) {
            throw invalid(`The path parameter "${name}" is required`);
          }
          return undefined;
        }
        const text = textOf(value);
        out += wildcard
          ? text
              .split('/')
              .map((segment) => encodeSegment(name, segment))
              .join('/')
          : encodeSegment(name, text);
      }
    }
    return out;
  }
}
