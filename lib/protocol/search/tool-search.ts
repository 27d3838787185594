/**
 * Search mode: for a server with many tools, `tools/list` answers one tool, `search_tools`, and
 * the tools the application keeps listed, instead of every tool; the model finds the others by a
 * few words and calls them by name, as any tool. Framework-free rules: the settings, the search
 * tool's entry, its arguments and the definitions it answers. The handler that serves it is
 * `handlers/tool-search.handler.ts`; the ranking is `tool-score.ts`.
 */
import { isJsonObject, type JSONObject } from '../messages/json-rpc';
import type { McpCompiledSchema, McpToolEntry, McpValidationOutcome } from '../calls/catalog';
import type { ToolSearchSettings } from '../calls/engine-options';

export type { ToolSearchSettings } from '../calls/engine-options';

/** The arguments of one search, checked. */
export interface ToolSearchQuery {
  readonly query: string;
  readonly limit: number;
}

/** The default description of the search tool. */
export const DEFAULT_SEARCH_DESCRIPTION =
  "Finds this server's tools by a few words: what the tool does, its name or the name of a " +
  'parameter. Answers the definitions of the best matches (name, description, input schema), ' +
  'best first. Call a tool found with its name and arguments, as any listed tool.';

/** The definition fields a search answers of each tool found. */
const ANSWERED_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** The search tool's arguments, checked by hand: the protocol has no schema validator of its own. */
function checkQuery(value: unknown, settings: ToolSearchSettings): McpValidationOutcome {
  if (!isJsonObject(value)) {
    return { ok: false, message: 'the arguments must be an object' };
  }
  const extra = Object.keys(value).find((key) => key !== 'query' && key !== 'limit');
  if (extra !== undefined) {
    return { ok: false, message: `unknown argument ${JSON.stringify(extra.slice(0, 64))}` };
  }
  const { query, limit } = value;
  if (typeof query !== 'string' || query.length === 0 || query.length > settings.maxQueryLength) {
    return { ok: false, message: `query must be a string of 1 to ${settings.maxQueryLength} characters` };
  }
  if (
    limit !== undefined &&
    !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= settings.maxLimit)
  ) {
    return { ok: false, message: `limit must be an integer from 1 to ${settings.maxLimit}` };
  }
  const checked: ToolSearchQuery = { query, limit: (limit as number | undefined) ?? settings.defaultLimit };
  return { ok: true, value: checked };
}

function inputSchema(settings: ToolSearchSettings): McpCompiledSchema {
  return {
    jsonSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: settings.maxQueryLength,
          description: 'A few words to look for in the names, descriptions and parameter names of the tools',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: settings.maxLimit,
          default: settings.defaultLimit,
          description: 'The most tools to answer',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    validate: (value) => checkQuery(value, settings),
  };
}

/** The answer's shape: what the search itself produces, so it is not checked again. */
const OUTPUT: McpCompiledSchema = {
  jsonSchema: {
    type: 'object',
    properties: {
      tools: {
        type: 'array',
        description: 'The definitions of the tools found, best first',
        items: {
          type: 'object',
          properties: { name: { type: 'string' }, inputSchema: { type: 'object' } },
          required: ['name', 'inputSchema'],
        },
      },
    },
    required: ['tools'],
  },
  validate: (value) => ({ ok: true, value }),
};

/**
 * The search tool as a catalog entry, for `tools/list` and the call's checks. It runs only
 * through {@link withSearch}: the search needs the request, which an entry's handler is not given.
 */
export function searchToolEntry(settings: ToolSearchSettings): McpToolEntry {
  return {
    name: settings.name,
    description: settings.description,
    input: inputSchema(settings),
    output: OUTPUT,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    taskSupport: 'forbidden',
    paramHeaders: [],
    invoke: () => {
      throw new Error(`${settings.name} runs with its request (withSearch)`);
    },
  };
}

/** The search tool's entry for one call: its handler runs `search` with the checked arguments. */
export function withSearch(entry: McpToolEntry, search: (query: ToolSearchQuery) => unknown): McpToolEntry {
  return { ...entry, invoke: (args) => search(args as ToolSearchQuery) };
}

/** What a search answers of a tool found: its definition as `tools/list` renders it, without `_meta`. */
export function foundTool(rendered: JSONObject): JSONObject {
  const found: JSONObject = {};
  for (const field of ANSWERED_FIELDS) {
    if (rendered[field] !== undefined) {
      found[field] = rendered[field];
    }
  }
  return found;
}
