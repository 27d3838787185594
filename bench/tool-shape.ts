/**
 * The shape of the bench's filler tools, shared by the tools/list scenarios (`bench-tools.ts`,
 * registered through `McpRegistry.addTool`) and the cold-start app (`cold-start/app.ts`,
 * decorated methods): a realistic description, a small input schema (a string, a bounded integer
 * and an enum) and annotations, about the size of a typical hand-written tool. It imports
 * nothing, so that the cold-start build (plain `node`, no tsconfig paths) can compile it too.
 */
const AREAS = ['inventory', 'billing', 'shipping', 'accounts', 'reports', 'search', 'calendar', 'files'] as const;
const VERBS = ['get', 'list', 'find', 'update', 'archive', 'export', 'count', 'sync'] as const;

/** Filler tool `i`: `<prefix>_<area>_<verb>_<i, padded to width>`, in a stable order. */
export function fillerTool(
  i: number,
  prefix: string,
  width: number,
): {
  name: string;
  description: string;
  input: Record<string, unknown>;
  annotations: { readOnlyHint: boolean; idempotentHint: boolean };
} {
  const area = AREAS[i % AREAS.length];
  const verb = VERBS[Math.floor(i / AREAS.length) % VERBS.length];
  const label = prefix === 'bench' ? 'Bench' : 'Cold-start';
  return {
    name: `${prefix}_${area}_${verb}_${String(i).padStart(width, '0')}`,
    description: `${label} tool ${i}: ${verb}s ${area} records matching a query, with paging and a sort order.`,
    input: {
      type: 'object',
      properties: {
        query: { type: 'string', description: `What to look for in ${area}` },
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'How many records to return' },
        order: { type: 'string', enum: ['asc', 'desc'], description: 'Sort order' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: verb !== 'update' && verb !== 'archive', idempotentHint: true },
  };
}
