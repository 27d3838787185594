/**
 * tools/list and tools/call.
 */
import { McpErrorCode, isJsonObject, type JSONObject } from '../messages/json-rpc';
import { McpError, McpInternalError, McpToolError } from '../messages/mcp-error';
import { requireScopes } from '../calls/access';
import { listResult } from './list-result';
import { renderToolResult } from '../calls/render';
import { checkParamHeaders } from '../messages/request-headers';
import { toCallToolResult, toolErrorResult } from '../messages/results';
import type { ResolvedRequest } from '../calls/resolved-request';
import type { HandlerContext } from './handler-context';
import type { CallToolResult } from '../messages/mcp-types';
import type { McpToolEntry, McpValidationOutcome } from '../calls/catalog';
import { extensionRequired } from '../extensions/extensions';
import { shownTools } from './tool-lists';
import { handleSearchModeList, searchToolFor } from './tool-search.handler';
import { clientTakesTasks, taskMode, MCP_TASKS_EXTENSION } from '../tasks/task-mode';
import { isThenable, type Awaitable } from '../messages/thenables';

/**
 * tools/list: the tools shown to the client (`shownTools`), narrowed to what its caller may see;
 * in search mode, the search tool and the tools kept listed (`tool-search.handler.ts`).
 */
export async function handleToolsList(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const search = context.options.toolSearch;
  if (search !== undefined) {
    return handleSearchModeList(context, request, search);
  }
  const shown = shownTools(context, request);
  return listResult(
    context,
    request,
    'tools',
    shown.entries,
    shown.rendered,
    (tool) => tool.name as string,
    shown.variesByClient,
  );
}

/**
 * tools/call. Synchronous from end to end when the tool and its validators are: the engine then
 * answers without a turn of the microtask queue. Protocol errors are thrown.
 */
export function handleToolsCall(context: HandlerContext, request: ResolvedRequest): Awaitable<JSONObject> {
  const { params } = request;
  if (typeof params.name !== 'string') {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: name must be a string');
  }
  const args = params.arguments ?? {};
  if (!isJsonObject(args)) {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: arguments must be an object');
  }
  const search = context.options.toolSearch;
  const tool =
    search !== undefined && params.name === search.name
      ? searchToolFor(context, request, search)
      : context.catalog.getTool(params.name);
  if (tool === undefined) {
    throw new McpError(McpErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
  }
  requireScopes(tool.access, request.principal, `tool ${tool.name}`);
  if (request.era === 'modern' && request.facts.headers !== undefined && tool.paramHeaders.length > 0) {
    const mismatch = checkParamHeaders(request.facts.headers, tool.paramHeaders, args);
    if (mismatch !== undefined) {
      throw new McpError(McpErrorCode.HeaderMismatch, mismatch);
    }
  }
  const mode = taskMode(
    tool.taskSupport,
    context.tasks !== undefined && clientTakesTasks(request.era, request.revision, params, request.clientCapabilities),
    request.era,
  );
  switch (mode) {
    case 'refuse':
      throw request.era === 'modern'
        ? extensionRequired(
            MCP_TASKS_EXTENSION,
            `Tool ${tool.name} runs only as a task: the request must declare the ${MCP_TASKS_EXTENSION} extension`,
          )
        : new McpError(
            McpErrorCode.MethodNotFound,
            `Tool ${tool.name} must be called as a task: send the "task" param (protocol revision 2025-11-25)`,
          );
    case 'task':
    case 'escalate':
      return runAsTask(context, request, tool, args, mode);
    default:
      return runTool(context, request, tool, args);
  }
}

/**
 * A call run as a task, or escalated to one when it runs long. Apart from `handleToolsCall`, so
 * that a plain call pays nothing for the closure (see `Awaitable`).
 */
function runAsTask(
  context: HandlerContext,
  request: ResolvedRequest,
  tool: McpToolEntry,
  args: JSONObject,
  mode: 'task' | 'escalate',
): Promise<JSONObject> {
  const work = async (): Promise<JSONObject> => runTool(context, request, tool, args);
  return mode === 'task'
    ? context.taskCalls.runAsTask(context.tasks!, request, work)
    : context.taskCalls.runEscalating(context.tasks!, request, work);
}

/**
 * Runs one call of a tool: validates the arguments, invokes the tool, checks its output and
 * renders the result. A tool error becomes an error result; a protocol error is thrown. Each
 * step waits only for what answers with a promise.
 */
function runTool(
  context: HandlerContext,
  request: ResolvedRequest,
  tool: McpToolEntry,
  args: JSONObject,
): Awaitable<JSONObject> {
  const checked = tool.input.validate(args);
  return checked instanceof Promise
    ? invokeToolLater(context, request, tool, checked)
    : invokeTool(context, request, tool, checked);
}

/** `invokeTool` once asynchronous validation settles (a continuation of its own: see `Awaitable`). */
function invokeToolLater(
  context: HandlerContext,
  request: ResolvedRequest,
  tool: McpToolEntry,
  checked: Promise<McpValidationOutcome>,
): Promise<JSONObject> {
  return checked.then((input) => invokeTool(context, request, tool, input));
}

function invokeTool(
  context: HandlerContext,
  request: ResolvedRequest,
  tool: McpToolEntry,
  input: McpValidationOutcome,
): Awaitable<JSONObject> {
  if (!input.ok) {
    return renderToolResult(
      toolErrorResult(`Invalid arguments for tool ${tool.name}: ${input.message}`),
      request.revision,
      tool,
    );
  }
  const call = context.createCallContext(request, tool.name);
  let invoked: unknown;
  try {
    invoked = tool.invoke(input.value, call, request.facts.native);
  } catch (error) {
    return checkOutput(context, request, tool, failedCall(context, request, error));
  }
  return isThenable(invoked)
    ? checkOutputLater(context, request, tool, invoked)
    : checkOutput(context, request, tool, callResult(context, request, tool, invoked));
}

/** `checkOutput` once an asynchronous tool settles (a continuation of its own: see `Awaitable`). */
function checkOutputLater(
  context: HandlerContext,
  request: ResolvedRequest,
  tool: McpToolEntry,
  invoked: PromiseLike<unknown>,
): Promise<JSONObject> {
  return Promise.resolve(invoked).then(
    (value) => checkOutput(context, request, tool, callResult(context, request, tool, value)),
    (error: unknown) => checkOutput(context, request, tool, failedCall(context, request, error)),
  );
}

/** What a tool returned, as a result (a value it cannot be made into fails as the call would). */
function callResult(
  context: HandlerContext,
  request: ResolvedRequest,
  tool: McpToolEntry,
  value: unknown,
): CallToolResult {
  try {
    return toCallToolResult(value, tool.output !== undefined);
  } catch (error) {
    return failedCall(context, request, error);
  }
}

/**
 * A call that threw: a tool error's result, or a logged generic one; protocol errors go on, and
 * so does what a work told to stop throws (cancelled, its task ended, or its request answered
 * another way: a task that could not be made), unlogged.
 */
function failedCall(context: HandlerContext, request: ResolvedRequest, error: unknown): CallToolResult {
  if (error instanceof McpToolError) {
    return toolErrorResult(error.message);
  }
  const { scope } = request;
  if (error instanceof McpInternalError && !scope.aborted) {
    context.logFailure(request, error.failure);
    throw error;
  }
  if (error instanceof McpError || scope.aborted || scope.wasAbandoned || request.task?.closed === true) {
    throw error;
  }
  context.logFailure(request, error);
  return toolErrorResult('Internal tool error');
}

/** Checks a result against the tool's output schema, then renders it. */
function checkOutput(
  context: HandlerContext,
  request: ResolvedRequest,
  tool: McpToolEntry,
  result: CallToolResult,
): Awaitable<JSONObject> {
  if (tool.output === undefined || result.isError === true) {
    return renderToolResult(result, request.revision, tool);
  }
  if (result.structuredContent === undefined) {
    context.options.logger.warn(`Tool ${tool.name} declares an output schema but returned no structured content`);
    return renderToolResult(
      toolErrorResult(`Tool ${tool.name} returned no structured content`),
      request.revision,
      tool,
    );
  }
  const checked = tool.output.validate(result.structuredContent);
  return checked instanceof Promise
    ? renderCheckedLater(context, request, tool, result, checked)
    : renderChecked(context, request, tool, result, checked);
}

/** `renderChecked` once asynchronous validation settles (a continuation of its own: see `Awaitable`). */
function renderCheckedLater(
  context: HandlerContext,
  request: ResolvedRequest,
  tool: McpToolEntry,
  result: CallToolResult,
  checked: Promise<McpValidationOutcome>,
): Promise<JSONObject> {
  return checked.then((output) => renderChecked(context, request, tool, result, output));
}

function renderChecked(
  context: HandlerContext,
  request: ResolvedRequest,
  tool: McpToolEntry,
  result: CallToolResult,
  output: McpValidationOutcome,
): JSONObject {
  if (!output.ok) {
    context.options.logger.warn(`Tool ${tool.name} returned output that does not match its schema: ${output.message}`);
    return renderToolResult(
      toolErrorResult(`Invalid output from tool ${tool.name}: ${output.message}`),
      request.revision,
      tool,
    );
  }
  return renderToolResult(result, request.revision, tool);
}
