/**
 * Filler tools for the tools/list scenarios, of the shape of `tool-shape.ts`, registered through
 * `McpRegistry.addTool`.
 */
import type { INestApplication } from '@nestjs/common';
import { McpRegistry, type McpToolDefinition } from 'nest-mcp';
import { fillerTool } from './tool-shape';

/** `count` tool definitions named `bench_<area>_<verb>_<n>`, in a stable order. */
export function benchTools(count: number): McpToolDefinition[] {
  const tools: McpToolDefinition[] = [];
  for (let i = 0; i < count; i++) {
    const shape = fillerTool(i, 'bench', 3);
    const { name } = shape;
    tools.push({ ...shape, handler: (args: { query: string }) => `${name}: ${args.query}` });
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
