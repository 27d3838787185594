/**
 * Filler tools for the tools/list scenarios: each has a realistic description, a small input
 * schema (a string, a bounded integer and an enum) and annotations, about the size of a typical
 * hand-written tool.
 */
import type { INestApplication } from '@nestjs/common';
import { McpRegistry, type McpToolDefinition } from 'nest-mcp';

const AREAS = ['inventory', 'billing', 'shipping', 'accounts', 'reports', 'search', 'calendar', 'files'] as const;
const VERBS = ['get', 'list', 'find', 'update', 'archive', 'export', 'count', 'sync'] as const;

/** `count` tool definitions named `bench_<area>_<verb>_<n>`, in a stable order. */
export function benchTools(count: number): McpToolDefinition[] {
  const tools: McpToolDefinition[] = [];
  for (let i = 0; i < count; i++) {
    const area = AREAS[i % AREAS.length];
    const verb = VERBS[Math.floor(i / AREAS.length) % VERBS.length];
    const name = `bench_${area}_${verb}_${String(i).padStart(3, '0')}`;
    tools.push({
      name,
      description: `Bench tool ${i}: ${verb}s ${area} records matching a query, with paging and a sort order.`,
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
      handler: (args: { query: string }) => `${name}: ${args.query}`,
    });
  }
  return tools;
}

/**
 * Tops the application's registry up with filler tools until it holds BENCH_TOOL_COUNT (default
 * 100) tools; returns how many it holds. Run after `app.init()` (discovery).
 */
export function fillRegistry(app: INestApplication): number {
  const registry = app.get(McpRegistry);
  const wanted = Number(process.env.BENCH_TOOL_COUNT ?? 100);
  for (const tool of benchTools(Math.max(0, wanted - registry.listTools().length))) {
    registry.addTool(tool);
  }
  return registry.listTools().length;
}
