/**
 * The YAML frontmatter of a `SKILL.md`, parsed as hosts parse it (YAML 1.2 core schema, a byte
 * order mark and CRLF line ends removed) into the JSON object the skill's entry carries verbatim.
 */
import { parse } from 'yaml';
import { isJsonObject, type JSONObject } from '../protocol/messages/json-rpc';

/** The frontmatter of `markdown`, or what is wrong with it. */
export function parseFrontmatter(markdown: string): { frontmatter: JSONObject } | { problem: string } {
  const text = markdown.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  if (!text.startsWith('---\n')) {
    return { problem: 'must begin with YAML frontmatter between "---" lines' };
  }
  const end = text.indexOf('\n---', 3);
  const after = text.charAt(end + 4);
  if (end === -1 || (after !== '' && after !== '\n')) {
    return { problem: 'has no closing "---" line after its frontmatter' };
  }
  let value: unknown;
  try {
    value = parse(text.slice(4, end + 1), { schema: 'core', uniqueKeys: true });
  } catch (error) {
    return { problem: `has frontmatter that is not valid YAML: ${(error as Error).message.split('\n')[0]}` };
  }
  if (!isJsonObject(value)) {
    return { problem: 'has frontmatter that is not a mapping' };
  }
  const fault = jsonFault(value, 'frontmatter');
  return fault === undefined ? { frontmatter: value } : { problem: `has frontmatter that JSON cannot carry: ${fault}` };
}

/**
 * Where `value` holds what JSON cannot carry as it is (infinities, NaN, a `__proto__` key, a
 * tagged value such as `!!binary`), if anywhere.
 */
function jsonFault(value: unknown, at: string): string | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    return `${at} is ${value}`;
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => jsonFault(item, `${at}[${index}]`)).find((fault) => fault !== undefined);
  }
  if (typeof value === 'object' && value !== null) {
    if (Object.getPrototypeOf(value) !== Object.prototype) {
      return `${at} is not a plain value (a tagged ${value.constructor?.name ?? 'object'})`;
    }
    for (const [key, item] of Object.entries(value)) {
      const fault = key === '__proto__' ? `${at} has a "__proto__" key` : jsonFault(item, `${at}.${key}`);
      if (fault !== undefined) {
        return fault;
      }
    }
  }
  return undefined;
}
