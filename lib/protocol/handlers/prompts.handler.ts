/**
 * prompts/list and prompts/get.
 */
import { McpErrorCode, isJsonObject, type JSONObject } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import { requireScopes } from '../calls/access';
import { listResult } from './list-result';
import { renderPrompt } from '../calls/render';
import { toGetPromptResult } from '../messages/results';
import type { ResolvedRequest } from '../calls/resolved-request';
import type { HandlerContext } from './handler-context';
import { copyOf } from '../messages/object-copies';

export async function handlePromptsList(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const { catalog } = context;
  const rendered = context.lists.get('prompts', catalog.version, request.revision, () =>
    catalog.listPrompts().map((prompt) => renderPrompt(prompt, request.revision)),
  );
  return listResult(context, request, 'prompts', catalog.listPrompts(), rendered, (prompt) => prompt.name as string);
}

export async function handlePromptsGet(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const { params } = request;
  if (typeof params.name !== 'string') {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: name must be a string');
  }
  const prompt = context.catalog.getPrompt(params.name);
  if (prompt === undefined) {
    throw new McpError(McpErrorCode.InvalidParams, `Unknown prompt: ${params.name}`);
  }
  requireScopes(prompt.access, request.principal, `prompt ${prompt.name}`);
  const args = params.arguments ?? {};
  if (!isJsonObject(args) || Object.values(args).some((value) => typeof value !== 'string')) {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: arguments must map names to strings');
  }
  for (const argument of prompt.arguments) {
    if (argument.required === true && args[argument.name] === undefined) {
      throw new McpError(McpErrorCode.InvalidParams, `Missing required argument: ${argument.name}`);
    }
  }
  const call = context.createCallContext(request, prompt.name);
  let value: unknown;
  try {
    value = await prompt.get(args as Record<string, string>, call, request.facts.native);
  } catch (error) {
    if (error instanceof McpError || request.scope.aborted) {
      throw error;
    }
    context.logFailure(request, error);
    throw new McpError(McpErrorCode.InternalError, 'Internal prompt error');
  }
  const result = toGetPromptResult(value, prompt.description);
  if (result === undefined) {
    context.logFailure(request, new Error(`prompt ${prompt.name} returned neither messages nor a string`));
    throw new McpError(McpErrorCode.InternalError, 'Internal prompt error');
  }
  return copyOf(result);
}
