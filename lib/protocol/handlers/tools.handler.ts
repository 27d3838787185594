/**
 * tools/list and tools/call.
 */
import { ErrorCode, isJsonObject, type JsonObject } from '../json-rpc';
import { McpError, McpToolError } from '../mcp-error';
import { requireScopes } from '../access';
import { listResult } from './list-result';
import { renderTool, renderToolResult } from '../render';
import { checkParamHeaders } from '../request-headers';
import { toCallToolResult, toolErrorResult } from '../results';
import type { ResolvedRequest } from '../resolved-request';
import type { HandlerContext } from './handler-context';
import type { CallToolResult } from '../mcp-types';
import type { ToolEntry } from '../catalog';
import { clientTakesTasks, taskMode, TASKS_EXTENSION, TASKS_EXTENSION_REQUIRED } from '../tasks/task-mode';
import { isThenable } from '../thenables';

export async function handleToolsList(context: HandlerContext, request: ResolvedRequest): Promise<JsonObject> {
  const { catalog } = context;
  const rendered = context.lists.get('tools', catalog.version, request.revision, () =>
    catalog.listTools().map((tool) => renderTool(tool, request.revision)),
  );
  return listResult(context, request, 'tools', catalog.listTools(), rendered, (tool) => tool.name as string);
}

export async function handleToolsCall(context: HandlerContext, request: ResolvedRequest): Promise<JsonObject> {
  const { params } = request;
  if (typeof params.name !== 'string') {
    throw new McpError(ErrorCode.InvalidParams, 'Invalid params: name must be a string');
  }
  const args = params.arguments ?? {};
  if (!isJsonObject(args)) {
    throw new McpError(ErrorCode.InvalidParams, 'Invalid params: arguments must be an object');
  }
  const tool = context.catalog.getTool(params.name);
  if (tool === undefined) {
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
  }
  requireScopes(tool.access, request.principal, `tool ${tool.name}`);
  if (request.era === 'modern' && request.facts.headers !== undefined && tool.paramHeaders.length > 0) {
    const mismatch = checkParamHeaders(request.facts.headers, tool.paramHeaders, args);
    if (mismatch !== undefined) {
      throw new McpError(ErrorCode.HeaderMismatch, mismatch);
    }
  }
  const mode = taskMode(
    tool.taskSupport,
    context.tasks !== undefined && clientTakesTasks(request.era, request.revision, params, request.clientCapabilities),
    request.era,
  );
  const work = (): Promise<JsonObject> => runTool(context, request, tool, args);
  switch (mode) {
    case 'refuse':
      throw request.era === 'modern'
        ? new McpError(
            ErrorCode.MissingRequiredClientCapability,
            `Tool ${tool.name} runs only as a task: the request must declare the ${TASKS_EXTENSION} extension`,
            TASKS_EXTENSION_REQUIRED,
          )
        : new McpError(
            ErrorCode.MethodNotFound,
            `Tool ${tool.name} must be called as a task: send the "task" param (protocol revision 2025-11-25)`,
          );
    case 'task':
      return context.taskCalls.runAsTask(context.tasks!, request, work);
    case 'escalate':
      return context.taskCalls.runEscalating(context.tasks!, request, work);
    default:
      // Awaited here: returning the promise from an async function would cost two more turns
      // of the microtask queue to adopt it.
      return await work();
  }
}

/**
 * Runs one call of a tool: validates the arguments, invokes the tool, checks its output and
 * renders the result. A tool error becomes an error result; a protocol error is thrown.
 */
async function runTool(
  context: HandlerContext,
  request: ResolvedRequest,
  tool: ToolEntry,
  args: JsonObject,
): Promise<JsonObject> {
  // Validators of JSON Schema answer synchronously: await only those that do not.
  const checked = tool.input.validate(args);
  const input = checked instanceof Promise ? await checked : checked;
  if (!input.ok) {
    return renderToolResult(
      toolErrorResult(`Invalid arguments for tool ${tool.name}: ${input.message}`),
      request.revision,
      tool,
    );
  }
  const call = context.createCallContext(request, tool.name);
  let result: CallToolResult;
  try {
    const invoked = tool.invoke(input.value, call, request.facts.native);
    // A tool that answers synchronously costs no turn of the microtask queue.
    result = toCallToolResult(isThenable(invoked) ? await invoked : invoked, tool.output !== undefined);
  } catch (error) {
    if (error instanceof McpToolError) {
      result = toolErrorResult(error.message);
    } else if (error instanceof McpError || request.scope.aborted || request.task?.closed === true) {
      throw error;
    } else {
      context.logFailure(request, error);
      result = toolErrorResult('Internal tool error');
    }
  }
  if (tool.output !== undefined && result.isError !== true) {
    if (result.structuredContent === undefined) {
      context.options.logger.warn(`Tool ${tool.name} declares an output schema but returned no structured content`);
      result = toolErrorResult(`Tool ${tool.name} returned no structured content`);
    } else {
      const checkedOutput = tool.output.validate(result.structuredContent);
      const output = checkedOutput instanceof Promise ? await checkedOutput : checkedOutput;
      if (!output.ok) {
        context.options.logger.warn(
          `Tool ${tool.name} returned output that does not match its schema: ${output.message}`,
        );
        result = toolErrorResult(`Invalid output from tool ${tool.name}: ${output.message}`);
      }
    }
  }
  return renderToolResult(result, request.revision, tool);
}
