/**
 * The ranking of `search_tools`: words out of a tool's name, title, description and parameter
 * names, each kept with the weight of the best field it appears in, and a query's words scored
 * against them. No regular expression is built from what a client sends, and the work is linear
 * in the query's words times the tools' words: the query is cut to `MAX_QUERY_TERMS` words, each
 * compared once with each word of each candidate.
 */
import { isJsonObject, type JSONObject } from '../messages/json-rpc';

/** The weight of a word found in each field: a name says more than a line of description. */
const WEIGHT = { name: 4, title: 3, parameter: 2, nestedParameter: 1, description: 1 } as const;

/** A word matched by prefix (`note` in `notes`) counts this share of an exact one. */
const PREFIX_SHARE = 0.5;

/** The shortest word a prefix match takes: `id` must be `id`, `not` may be `note`. */
const MIN_PREFIX = 3;

/** The most distinct words of a query that are scored; the rest are ignored. */
export const MAX_QUERY_TERMS = 32;

/** Words that tell no tool from another, left out of queries. */
const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'can',
  'for',
  'from',
  'i',
  'in',
  'is',
  'it',
  'me',
  'my',
  'of',
  'on',
  'or',
  'that',
  'the',
  'this',
  'to',
  'tool',
  'tools',
  'with',
]);

/** The words of one tool, each with the weight of the best field it appears in. */
export type ToolWords = ReadonlyMap<string, number>;

/** One tool found: its position among the candidates, and its score. */
export interface ToolHit {
  readonly position: number;
  readonly score: number;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
const UPPER = /\p{Lu}/u;
const LOWER = /\p{Ll}/u;

/**
 * The lower-cased words of `text`: runs of letters and digits, cut at every other character and
 * where a lower-case letter meets an upper-case one (`findOrderById` → find, order, by, id). One
 * pass over the text; each character is tested against fixed one-character classes.
 */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  let current = '';
  let previousLower = false;
  for (const char of text) {
    if (!WORD_CHAR.test(char)) {
      if (current.length > 0) words.push(current.toLowerCase());
      current = '';
      previousLower = false;
      continue;
    }
    if (previousLower && UPPER.test(char) && current.length > 0) {
      words.push(current.toLowerCase());
      current = '';
    }
    current += char;
    previousLower = LOWER.test(char);
  }
  if (current.length > 0) words.push(current.toLowerCase());
  return words;
}

/** The distinct words of a query worth scoring: no stop words, at most `MAX_QUERY_TERMS`. */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const word of wordsOf(query)) {
    if (terms.size === MAX_QUERY_TERMS) break;
    if (!STOP_WORDS.has(word)) terms.add(word);
  }
  return [...terms];
}

/**
 * The words of a tool as a definition gives them (`name`, `title`, `description`,
 * `inputSchema`): the names of its parameters, and of the properties of an object parameter
 * (one level down: a route's `body`), count as parameter names.
 */
export function toolWords(tool: {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: JSONObject;
}): ToolWords {
  const words = new Map<string, number>();
  const add = (text: string | undefined, weight: number): void => {
    if (text === undefined) return;
    for (const word of wordsOf(text)) {
      if ((words.get(word) ?? 0) < weight) words.set(word, weight);
    }
  };
  add(tool.name, WEIGHT.name);
  add(tool.title, WEIGHT.title);
  add(tool.description, WEIGHT.description);
  for (const [name, schema] of propertiesOf(tool.inputSchema)) {
    add(name, WEIGHT.parameter);
    for (const [nested] of propertiesOf(schema)) {
      add(nested, WEIGHT.nestedParameter);
    }
  }
  return words;
}

/** The `properties` of an object schema, as pairs; none for anything else. */
function propertiesOf(schema: unknown): Array<[string, unknown]> {
  if (!isJsonObject(schema) || !isJsonObject(schema.properties)) {
    return [];
  }
  return Object.entries(schema.properties);
}

/** How well one word of a query matches a tool: the weight of its field, less for a prefix. */
function termMatch(term: string, words: ToolWords): number {
  const exact = words.get(term);
  let best = exact ?? 0;
  if (term.length < MIN_PREFIX) {
    return best;
  }
  for (const [word, weight] of words) {
    if (weight * PREFIX_SHARE <= best || word.length < MIN_PREFIX) continue;
    if (word.startsWith(term) || term.startsWith(word)) {
      best = weight * PREFIX_SHARE;
    }
  }
  return best;
}

/**
 * The candidates that match `terms`, best first (ties keep the candidates' order), at most
 * `limit`. A word's matches are weighted by how rare it is among the candidates, so that `note`
 * on a server of notes ranks less than the word that tells one note route from another.
 */
export function rankTools(candidates: readonly ToolWords[], terms: readonly string[], limit: number): ToolHit[] {
  if (terms.length === 0 || candidates.length === 0) {
    return [];
  }
  const matches = candidates.map((words) => terms.map((term) => termMatch(term, words)));
  const rarity = terms.map((_term, index) => {
    const found = matches.reduce((count, row) => (row[index] > 0 ? count + 1 : count), 0);
    return found === 0 ? 0 : 1 + Math.log(candidates.length / found);
  });
  const hits: ToolHit[] = [];
  matches.forEach((row, position) => {
    const score = row.reduce((sum, match, index) => sum + match * rarity[index], 0);
    if (score > 0) hits.push({ position, score });
  });
  hits.sort((a, b) => b.score - a.score || a.position - b.position);
  return hits.slice(0, limit);
}
