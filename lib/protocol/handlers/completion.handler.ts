/**
 * completion/complete: argument completion for prompts and resource templates.
 */
import { McpErrorCode, isJsonObject, type JSONObject } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import type { ResolvedRequest } from '../calls/resolved-request';
import type { HandlerContext } from './handler-context';
import type { McpCompletionHandler } from '../calls/catalog';
import { requireScopes, type EntryAccess } from '../calls/access';
import { checkUriLength } from '../messages/resource-uri';

/** The most values one completion result may carry. */
const MAX_VALUES = 100;

/** The completion handler of `argument`; completing needs the scopes of the prompt or template. */
function findHandler(context: HandlerContext, request: ResolvedRequest, ref: JSONObject, argument: string) {
  let owner:
    { readonly access?: EntryAccess; readonly completions: Readonly<Record<string, McpCompletionHandler>> } | undefined;
  if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
    owner = context.catalog.getPrompt(ref.name);
  } else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
    checkUriLength(ref.uri, context.options.maxUriLength, 'ref.uri');
    owner = context.catalog.getTemplate(ref.uri);
  } else {
    throw new McpError(
      McpErrorCode.InvalidParams,
      'Invalid params: ref must be a ref/prompt with a name or a ref/resource with a uri',
    );
  }
  if (owner === undefined) {
    return undefined;
  }
  requireScopes(owner.access, request.principal, `completions of ${String(ref.name ?? ref.uri)}`);
  return owner.completions[argument];
}

export async function handleComplete(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const { ref, argument, context: given } = request.params;
  if (!isJsonObject(ref)) {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: ref is required');
  }
  if (!isJsonObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: argument must have a name and a value');
  }
  const handler = findHandler(context, request, ref, argument.name);
  if (handler === undefined) {
    return { completion: { values: [], hasMore: false } };
  }
  const known = isJsonObject(given) && isJsonObject(given.arguments) ? given.arguments : {};
  const args: Record<string, string> = {};
  for (const [name, value] of Object.entries(known)) {
    if (typeof value === 'string') {
      args[name] = value;
    }
  }
  let answer;
  try {
    answer = await handler(argument.value, {
      arguments: args,
      call: context.createCallContext(request, argument.name),
    });
  } catch (error) {
    if (error instanceof McpError || request.scope.aborted) {
      throw error;
    }
    context.logFailure(request, error);
    throw new McpError(McpErrorCode.InternalError, 'Internal completion error');
  }
  const all = (Array.isArray(answer) ? answer : answer.values).filter(
    (value): value is string => typeof value === 'string',
  );
  const values = all.slice(0, MAX_VALUES);
  const completion: JSONObject = { values, total: Array.isArray(answer) ? all.length : (answer.total ?? all.length) };
  completion.hasMore = Array.isArray(answer) ? all.length > MAX_VALUES : (answer.hasMore ?? all.length > MAX_VALUES);
  return { completion };
}
