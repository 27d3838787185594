/**
 * subscriptions/listen (2026-07-28): a long-lived request whose stream carries the change
 * notifications the client asked for, until the client closes it or the server ends it.
 */
import type { JSONObject } from '../messages/json-rpc';
import { readSubscriptionFilter } from '../calls/subscription-hub';
import type { ResolvedRequest } from '../calls/resolved-request';
import type { HandlerContext } from './handler-context';
import { McpErrorCode } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import { taskOwner } from '../calls/task-owner';
import { declaresTasksExtension, MCP_TASKS_EXTENSION } from '../tasks/task-mode';
import type { TaskPort } from '../tasks/task-port';
import { extensionRequired } from '../extensions/extensions';
import { checkUriLength } from '../messages/resource-uri';

/** How many task ids one listen request may name. */
const MAX_TASK_IDS = 1_000;

/**
 * The task ids a listener may hear of: those its caller owns (others are left out, as unknown
 * ones are). Asking for any needs the tasks extension (-32021).
 */
async function ownedTaskIds(tasks: TaskPort, request: ResolvedRequest, taskIds: readonly string[]): Promise<string[]> {
  if (taskIds.length === 0) {
    return [];
  }
  if (!declaresTasksExtension(request.clientCapabilities)) {
    throw extensionRequired(
      MCP_TASKS_EXTENSION,
      `Missing required client capability: task notifications need the ${MCP_TASKS_EXTENSION} extension`,
    );
  }
  if (taskIds.length > MAX_TASK_IDS) {
    throw new McpError(McpErrorCode.InvalidParams, `Invalid params: at most ${MAX_TASK_IDS} taskIds per subscription`);
  }
  const owner = taskOwner(request);
  const found = await Promise.all(taskIds.map((id) => tasks.get(id)));
  return taskIds.filter((_, index) => found[index]?.owner === owner);
}

export async function handleListen(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const { facts, scope } = request;
  // Reading the signal is what makes the scope listen to the transport's cancellation (the
  // client closing the stream); a listener that is already gone is never registered.
  const { signal } = scope;
  if (signal.aborted) {
    throw signal.reason;
  }
  let filter = readSubscriptionFilter(request.params.notifications);
  for (const uri of filter.resourceSubscriptions ?? []) {
    checkUriLength(uri, context.options.maxUriLength, 'a resourceSubscriptions uri');
  }
  if (filter.taskIds !== undefined) {
    // A server without tasks does not know the key, and ignores it like any unknown one.
    const { taskIds, ...rest } = filter;
    filter =
      context.tasks === undefined ? rest : { ...rest, taskIds: await ownedTaskIds(context.tasks, request, taskIds) };
  }
  facts.channel.hold?.();
  const subscription = context.subscriptions.open(request.id, filter, facts.channel);
  // The context answers nothing to a cancelled request; removing the subscription right away
  // keeps nothing of a client that went away.
  signal.addEventListener('abort', () => subscription.cancel(), { once: true });
  await subscription.ended;
  return subscription.finalResult();
}
