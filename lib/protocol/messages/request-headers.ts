/**
 * The request metadata headers of 2026-07-28 (SEP-2243): `Mcp-Method`, `Mcp-Name` and the
 * `Mcp-Param-*` headers a tool declares with `x-mcp-header`. The server checks each against the
 * body; any disagreement is a HeaderMismatch (-32020, HTTP 400).
 */
import { isJsonObject, type JSONObject } from './json-rpc';

/** A tool argument mirrored into an `Mcp-Param-{name}` header. */
export interface ParamHeaderBinding {
  /** The `x-mcp-header` value, as declared. */
  readonly name: string;
  /** The lower-cased HTTP header name, `mcp-param-<name>`. */
  readonly header: string;
  /** The chain of `properties` keys from the schema root to the argument. */
  readonly path: readonly string[];
  readonly type: 'string' | 'integer' | 'boolean';
}

/** Read access to request headers by lower-cased name. */
export type McpHeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** A decimal number, as an integer argument may be written in a header. */
const DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
/** Visible ASCII, space and tab: what a plain header value may hold. */
const SAFE_VALUE = /^[\x20-\x7e\t]*$/;

/** Thrown when an input schema carries an invalid `x-mcp-header` annotation. */
export class InvalidParamHeaderError extends Error {}

/**
 * Reads the `x-mcp-header` bindings of an input schema and checks every rule of the
 * specification: token syntax, case-insensitive uniqueness, primitive type, and static
 * reachability through `properties` only.
 */
export function extractParamHeaders(schema: JSONObject): ParamHeaderBinding[] {
  const bindings: ParamHeaderBinding[] = [];
  const seen = new Set<string>();

  const visit = (node: unknown, path: string[], reachable: boolean, where: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, path, false, `${where}/${index}`));
      return;
    }
    if (!isJsonObject(node)) {
      return;
    }
    if ('x-mcp-header' in node) {
      const name = node['x-mcp-header'];
      if (!reachable || path.length === 0) {
        throw new InvalidParamHeaderError(
          `x-mcp-header at ${where || '/'} is not reachable from the schema root through "properties" only`,
        );
      }
      if (typeof name !== 'string' || !TOKEN.test(name)) {
        throw new InvalidParamHeaderError(`x-mcp-header at ${where} must be a non-empty HTTP token`);
      }
      const type = node.type;
      if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
        throw new InvalidParamHeaderError(
          `x-mcp-header "${name}" must annotate a string, integer or boolean property (got ${JSON.stringify(type)})`,
        );
      }
      const lower = name.toLowerCase();
      if (seen.has(lower)) {
        throw new InvalidParamHeaderError(`x-mcp-header "${name}" is declared twice (names are case-insensitive)`);
      }
      seen.add(lower);
      bindings.push({ name, header: `mcp-param-${lower}`, path: [...path], type });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && isJsonObject(value)) {
        for (const [property, child] of Object.entries(value)) {
          visit(child, [...path, property], reachable, `${where}/properties/${property}`);
        }
      } else if (key !== 'x-mcp-header') {
        // Anything below another keyword (items, oneOf, $defs, ...) is not statically reachable.
        visit(value, path, false, `${where}/${key}`);
      }
    }
  };

  visit(schema, [], true, '');
  return bindings;
}

/** Returns the single value of a header, or `undefined`. Repeated headers are joined. */
export function headerValue(headers: McpHeaderBag, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) {
    return undefined;
  }
  return (Array.isArray(value) ? value.join(', ') : value).trim();
}

/**
 * Decodes a header value that may use the `=?base64?...?=` sentinel. Returns `undefined` when
 * the value is malformed (invalid characters, or a sentinel that does not decode to UTF-8).
 */
export function decodeHeaderValue(raw: string): string | undefined {
  // The sentinel pattern is "starts with =?base64? and ends with ?=". A value of that shape can
  // only be an encoded one (clients must encode literals that look like it), so it must decode.
  if (
    raw.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length &&
    raw.startsWith(SENTINEL_PREFIX) &&
    raw.endsWith(SENTINEL_SUFFIX)
  ) {
    const encoded = raw.slice(SENTINEL_PREFIX.length, raw.length - SENTINEL_SUFFIX.length);
    // Only canonical, padded base64 counts: Buffer.from would accept almost anything.
    if (!BASE64.test(encoded) || Buffer.from(encoded, 'base64').toString('base64') !== encoded) {
      return undefined;
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'));
    } catch {
      return undefined;
    }
  }
  // Anything else, including a value that only starts like the sentinel, is a plain value.
  return SAFE_VALUE.test(raw) ? raw : undefined;
}

/**
 * Checks `Mcp-Method` and `Mcp-Name` against a modern request. `field` is the body field the
 * method mirrors into `Mcp-Name` (the method table's `nameParam`), if any. Returns the mismatch
 * message, or `undefined` when the headers agree with the body.
 */
export function checkStandardHeaders(
  headers: McpHeaderBag,
  method: string,
  field: string | undefined,
  params: JSONObject | undefined,
): string | undefined {
  const methodHeader = headerValue(headers, 'mcp-method');
  if (methodHeader === undefined) {
    return 'Header mismatch: Mcp-Method header is required';
  }
  if (methodHeader !== method) {
    return `Header mismatch: Mcp-Method header value '${methodHeader}' does not match body value '${method}'`;
  }
  if (field === undefined) {
    return undefined;
  }
  const bodyValue = params?.[field];
  const rawName = headerValue(headers, 'mcp-name');
  if (rawName === undefined) {
    return 'Header mismatch: Mcp-Name header is required';
  }
  const name = decodeHeaderValue(rawName);
  if (name === undefined) {
    return 'Header mismatch: Mcp-Name header value is malformed';
  }
  if (typeof bodyValue !== 'string' || name !== bodyValue) {
    return `Header mismatch: Mcp-Name header value '${rawName}' does not match body value '${String(bodyValue)}'`;
  }
  return undefined;
}

/**
 * Checks the `Mcp-Param-*` headers of a tool call against its arguments. Returns the mismatch
 * message, or `undefined`.
 */
export function checkParamHeaders(
  headers: McpHeaderBag,
  bindings: readonly ParamHeaderBinding[],
  args: JSONObject,
): string | undefined {
  for (const binding of bindings) {
    const bodyValue = readPath(args, binding.path);
    const raw = headerValue(headers, binding.header);
    const headerName = `Mcp-Param-${binding.name}`;
    if (bodyValue === undefined || bodyValue === null) {
      if (raw !== undefined) {
        return `Header mismatch: ${headerName} header is present but the argument is absent`;
      }
      continue;
    }
    if (raw === undefined) {
      return `Header mismatch: ${headerName} header is required when the argument is present`;
    }
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) {
      return `Header mismatch: ${headerName} header value contains invalid characters`;
    }
    if (!sameValue(decoded, bodyValue, binding.type)) {
      return `Header mismatch: ${headerName} header value '${raw}' does not match the argument`;
    }
  }
  return undefined;
}

function readPath(value: JSONObject, path: readonly string[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    if (!isJsonObject(current)) {
      return undefined;
    }
    current = current[key];
  }
  return current;
}

function sameValue(header: string, body: unknown, type: ParamHeaderBinding['type']): boolean {
  switch (type) {
    case 'integer': {
      // Compared as numbers ("42.0" equals 42), but only decimal notation is a number here.
      const parsed = DECIMAL.test(header) ? Number(header) : NaN;
      return typeof body === 'number' && parsed === body;
    }
    case 'boolean':
      return typeof body === 'boolean' && header === String(body);
    default:
      return typeof body === 'string' && header === body;
  }
}
