/**
 * The tool-call mode table: whether a call runs in place, is refused, becomes a task at once or
 * runs in place for a while and then becomes a task. One function for every transport.
 */
import { isJsonObject, type JSONObject } from '../messages/json-rpc';
import { clientSupports, type McpExtension } from '../extensions/extensions';
import { hasFeature, type McpEra, type McpRevision } from '../messages/revisions';
import type { ClientCapabilities } from '../messages/mcp-types';

/** Whether a tool may run as a task (see the tasks issue); `forbidden` by default. */
export type McpTaskSupport = 'forbidden' | 'optional' | 'required';

/** The id of the 2026-07-28 tasks extension. */
export const MCP_TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * The tasks extension as the server declares it when it runs tasks: without settings, and in
 * the modern era only (2025-11-25 has tasks in its core, with a capability of their own).
 */
export const TASKS_EXTENSION: McpExtension = Object.freeze({ id: MCP_TASKS_EXTENSION, eras: ['modern'] as const });

/**
 * How one tool call runs:
 * - `inline`: to completion, answered in place;
 * - `refuse`: not at all, the client cannot take the task the tool needs;
 * - `task`: as a task created before the call is answered with its handle (2025-11-25);
 * - `escalate`: in place for the inline window (`tasks.inlineMs`), then handed to a task (2026-07-28).
 */
export type TaskMode = 'inline' | 'refuse' | 'task' | 'escalate';

/**
 * | taskSupport          | client takes tasks | era    | mode     |
 * |----------------------|--------------------|--------|----------|
 * | forbidden            | any                | any    | inline   |
 * | optional             | no                 | any    | inline   |
 * | required             | no                 | any    | refuse   |
 * | optional or required | yes                | legacy | task     |
 * | optional or required | yes                | modern | escalate |
 */
export function taskMode(support: McpTaskSupport, clientTakesTasks: boolean, era: McpEra): TaskMode {
  if (support === 'forbidden') {
    return 'inline';
  }
  if (!clientTakesTasks) {
    return support === 'required' ? 'refuse' : 'inline';
  }
  return era === 'legacy' ? 'task' : 'escalate';
}

/** Whether a modern request declared the tasks extension in its client capabilities. */
export function declaresTasksExtension(capabilities: ClientCapabilities): boolean {
  return clientSupports(capabilities, MCP_TASKS_EXTENSION);
}

/**
 * Whether the client of one `tools/call` takes a task: in the modern era, when the request
 * declares the tasks extension; in the legacy era, when the call asks for one with the `task`
 * param, which only 2025-11-25 defines.
 */
export function clientTakesTasks(
  era: McpEra,
  revision: McpRevision | undefined,
  params: JSONObject,
  capabilities: ClientCapabilities,
): boolean {
  if (era === 'modern') {
    return declaresTasksExtension(capabilities);
  }
  return revision !== undefined && hasFeature(revision, 'coreTasks') && isJsonObject(params.task);
}
