/**
 * Experiments, never the default: monkeypatches applied to the MCP server child (through
 * `bench/main.ts --patch <name>`) to measure what a piece of lib/ costs by running without it.
 * They change behaviour (no cancellation, no deadline) and exist only to size a suggestion.
 *
 *   lean-run   McpEngine.run for tools/call and tools/list without its call scope (cancellation,
 *              deadline watch, early settlement): the handler is awaited
 *              directly. Upper bound of what a cheaper cancellation/deadline design can save.
 */
import { McpEngine, type EngineOutcome, type ResolvedRequest } from '../lib/protocol/engine';
import { handleToolsCall, handleToolsList } from '../lib/protocol/handlers/tools.handler';
import { success, type JsonObject, type JsonRpcRequest } from '../lib/protocol/json-rpc';
import { McpError } from '../lib/protocol/mcp-error';

export const PATCHES = ['lean-run'] as const;
export type PatchName = (typeof PATCHES)[number];

interface EngineInternals {
  run(request: ResolvedRequest, message: JsonRpcRequest): Promise<EngineOutcome>;
  finish(request: ResolvedRequest, result: JsonObject): JsonObject;
  respondError(id: ResolvedRequest['id'], error: McpError): EngineOutcome;
}

function leanRun(): void {
  const engine = McpEngine.prototype as unknown as EngineInternals;
  const original = engine.run;
  engine.run = async function (this: EngineInternals, request, message) {
    const handler =
      request.method === 'tools/call' ? handleToolsCall : request.method === 'tools/list' ? handleToolsList : undefined;
    if (handler === undefined) {
      return original.call(this, request, message);
    }
    try {
      const result = await handler(this as unknown as McpEngine, request);
      return { type: 'response', response: success(request.id, this.finish(request, result)) };
    } catch (error) {
      if (error instanceof McpError) {
        return this.respondError(request.id, error);
      }
      throw error;
    }
  };
}

export function applyPatches(names: readonly string[]): void {
  for (const name of names) {
    switch (name) {
      case 'lean-run':
        leanRun();
        break;
      default:
        throw new Error(`unknown patch ${name}; known: ${PATCHES.join(', ')}`);
    }
  }
}
