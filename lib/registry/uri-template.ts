/**
 * Matching URIs against RFC 6570 URI templates: the reverse of expansion. Supported: simple
 * (`{id}`), reserved (`{+path}`), fragment (`{#f}`), label (`{.ext}`), path segment (`{/seg}`),
 * query (`{?a,b}`) and query continuation (`{&c}`) expressions, with one or more variables.
 * Explode and prefix modifiers are accepted and matched like plain variables.
 */

/** Thrown for a template that is not valid RFC 6570 syntax. */
export class InvalidUriTemplateError extends Error {}

interface Expression {
  operator: '' | '+' | '#' | '.' | '/' | '?' | '&' | ';';
  names: string[];
}

const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function parseExpression(body: string, template: string): Expression {
  const first = body.charAt(0);
  const operator = ('+#./?&;'.includes(first) && first !== '' ? first : '') as Expression['operator'];
  const list = operator === '' ? body : body.slice(1);
  const names = list.split(',').map((spec) => spec.replace(/\*$/, '').replace(/:\d+$/, ''));
  if (names.length === 0 || names.some((name) => !VARNAME.test(name))) {
    throw new InvalidUriTemplateError(`Invalid expression {${body}} in URI template ${template}`);
  }
  return { operator, names };
}

/** A compiled URI template. */
export class UriTemplate {
  /** The variable names, in order of appearance. */
  readonly variables: readonly string[];
  private readonly pattern: RegExp;
  /** For each capture group: the expression it belongs to. */
  private readonly groups: Expression[] = [];

  constructor(readonly template: string) {
    const variables: string[] = [];
    let source = '^';
    let rest = template;
    while (rest.length > 0) {
      const open = rest.indexOf('{');
      if (open === -1) {
        if (rest.includes('}')) {
          throw new InvalidUriTemplateError(`Unbalanced "}" in URI template ${template}`);
        }
        source += escapeRegExp(rest);
        break;
      }
      const close = rest.indexOf('}', open);
      if (close === -1 || rest.slice(0, open).includes('}')) {
        throw new InvalidUriTemplateError(`Unbalanced braces in URI template ${template}`);
      }
      source += escapeRegExp(rest.slice(0, open));
      const expression = parseExpression(rest.slice(open + 1, close), template);
      variables.push(...expression.names);
      source += this.expressionPattern(expression);
      this.groups.push(expression);
      rest = rest.slice(close + 1);
    }
    if (new Set(variables).size !== variables.length) {
      throw new InvalidUriTemplateError(`A variable appears twice in URI template ${template}`);
    }
    this.variables = variables;
    this.pattern = new RegExp(`${source}$`);
  }

  private expressionPattern(expression: Expression): string {
    const count = expression.names.length;
    switch (expression.operator) {
      // One capture group per expression; several variables are split on the separator later
      // (simple expansion percent-encodes commas inside values).
      case '':
        return count === 1 ? '([^/?#,]+)' : '([^/?#]+)';
      case '+':
        return count === 1 ? '([^?#,]+)' : '([^?#]+)';
      case '#':
        return `(?:#(${Array(count).fill('[^,]*').join(',')}))?`;
      case '.':
        return `(?:\\.([^/?#]*))?`;
      case '/':
        return `((?:/[^/?#]*){0,${count}})`;
      case ';':
        return `((?:;[^/?#]*)*)`;
      case '?':
        return `(?:\\?([^#]*))?`;
      case '&':
        return `(?:&([^#]*))?`;
    }
  }

  /** The variables of `uri` if it matches the template, else `undefined`. */
  match(uri: string): Record<string, string> | undefined {
    const found = this.pattern.exec(uri);
    if (found === null) {
      return undefined;
    }
    const values: Record<string, string> = {};
    // Query expressions (`{?a}{&b}`) share one query string: read its pairs once, then give each
    // variable its value, whichever expression names it.
    const pairs = new Map<string, string>();
    const pairNames: string[] = [];
    try {
      this.groups.forEach((expression, position) => {
        const captured = found[position + 1];
        switch (expression.operator) {
          case '':
          case '+': {
            const parts = expression.names.length === 1 ? [captured] : captured.split(',');
            if (parts.length !== expression.names.length) {
              throw new Error('wrong number of values');
            }
            expression.names.forEach((name, index) => (values[name] = decodeURIComponent(parts[index])));
            break;
          }
          case '#':
          case '.':
          case '/':
            this.assignList(expression, captured, values);
            break;
          case ';':
          case '?':
          case '&':
            readPairs(captured, pairs);
            pairNames.push(...expression.names);
            break;
        }
      });
    } catch {
      // Malformed percent-encoding or a wrong number of values: the URI does not name anything
      // this template serves.
      return undefined;
    }
    for (const name of pairNames) {
      const value = pairs.get(name);
      if (value !== undefined) {
        values[name] = value;
      }
    }
    return values;
  }

  private assignList(expression: Expression, captured: string | undefined, values: Record<string, string>): void {
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
