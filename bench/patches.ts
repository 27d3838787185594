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
import type { HandlerContext } from '../lib/protocol/handlers/handler-context';
import { success, type JSONObject } from '../lib/protocol/messages/json-rpc';
import { McpError } from '../lib/protocol/messages/mcp-error';

export const PATCHES = ['lean-run'] as const;
export type PatchName = (typeof PATCHES)[number];

interface EngineInternals {
  run(request: ResolvedRequest): Promise<EngineOutcome>;
  readonly handlers: HandlerContext;
  readonly finisher: {
    finish(request: ResolvedRequest, result: JSONObject): JSONObject;
    error(id: ResolvedRequest['id'], error: McpError): EngineOutcome;
  };
}

function leanRun(): void {
  const engine = McpEngine.prototype as unknown as EngineInternals;
  const original = engine.run;
  engine.run = async function (this: EngineInternals, request) {
    const handler =
      request.method === 'tools/call' ? handleToolsCall : request.method === 'tools/list' ? handleToolsList : undefined;
    if (handler === undefined) {
      return original.call(this, request);
    }
    try {
      const result = await handler(this.handlers, request);
      return { type: 'response', response: success(request.id, this.finisher.finish(request, result)) };
    } catch (error) {
      if (error instanceof McpError) {
        return this.finisher.error(request.id, error);
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
