import type { ClusterLink } from '../cluster/cluster-link.interface';
import {
  DEFAULT_KEY_PREFIX,
  invalidAnswer,
  type ClientMethod,
  type InputRequest,
} from '../protocol/messages/client-requests';
import { McpErrorCode, isJsonObject, type JSONObject } from '../protocol/messages/json-rpc';
import { McpError } from '../protocol/messages/mcp-error';
import type { LiveTask, LiveTasks } from './live-tasks';
import {
  isTerminal,
  type McpTaskRecord,
  type McpTaskStatus,
  type McpTaskStore,
} from '../interfaces/task-store.interface';

/**
 * Applies a change to a task that is not terminal, stores it, then tells the listeners.
 * Resolves with the stored task, or `undefined` when the task is gone, terminal or unchanged.
 */
export type TaskTransition = (
  id: string,
  change: (record: McpTaskRecord) => McpTaskRecord | undefined,
) => Promise<McpTaskRecord | undefined>;

/**
 * The answers of `tasks/update` to questions the task asked (`methodOf` names the method of the
 * question under a key; other keys are ignored). An answer of the wrong shape refuses them all
 * (-32602), before any is used.
 */
function checkedAnswers(responses: JSONObject, methodOf: (key: string) => ClientMethod | undefined): JSONObject {
  const accepted: JSONObject = {};
  for (const [key, answer] of Object.entries(responses)) {
    const method = methodOf(key);
    if (method === undefined) {
      continue;
    }
    const invalid = invalidAnswer(method, answer);
    if (invalid !== undefined) {
      throw new McpError(McpErrorCode.InvalidParams, `Invalid params: inputResponses.${key}: ${invalid}`);
    }
    accepted[key] = answer;
  }
  return accepted;
}

/** A key of the task's own, ranked per method as a multi round-trip round ranks them. */
function nextKey(live: LiveTask, method: string): string {
  const prefix = DEFAULT_KEY_PREFIX[method as ClientMethod] ?? 'input';
  let rank = live.ranks.get(prefix) ?? 0;
  let key: string;
  do {
    rank += 1;
    key = `${prefix}-${rank}`;
  } while (live.issued.has(key));
  live.ranks.set(prefix, rank);
  return key;
}

/**
 * What tasks ask their client, in both eras: modern questions stored on the task and answered by
 * `tasks/update` (here, or relayed to the instance that runs the task), and the legacy count of
 * requests sent on the session and not answered yet. Either keeps the task `input_required`.
 */
export class TaskQuestions {
  constructor(
    private readonly live: LiveTasks,
    private readonly store: McpTaskStore,
    private readonly link: ClusterLink,
    private readonly transition: TaskTransition,
  ) {}

  /**
   * Modern era: asks the client a question through the task. The task moves to
   * `input_required` with the question under `key`, and the answer comes with `tasks/update`.
   */
  async ask(id: string, key: string | undefined, request: InputRequest): Promise<JSONObject> {
    const live = this.live.get(id);
    if (live === undefined) {
      throw new McpError(McpErrorCode.InternalError, `${request.method}: the task is over`);
    }
    const chosen = key ?? nextKey(live, request.method);
    if (live.issued.has(chosen)) {
      throw new McpError(McpErrorCode.InternalError, `Input key "${chosen}" was used before in this task`);
    }
    live.issued.add(chosen);
    const answer = new Promise<JSONObject>((resolve, reject) => live.pending.set(chosen, { request, resolve, reject }));
    let stored: McpTaskRecord | undefined;
    try {
      stored = await this.transition(id, (record) => ({
        ...record,
        status: 'input_required',
        statusMessage: 'Waiting for input from the client',
        inputRequests: { ...record.inputRequests, [chosen]: { method: request.method, params: request.params } },
      }));
    } catch (error) {
      // Never asked (the store is away): nothing may settle the answer later, unawaited.
      live.pending.delete(chosen);
      throw error;
    }
    if (stored === undefined) {
      live.pending.delete(chosen);
      throw new McpError(McpErrorCode.InternalError, `${request.method}: the task is over`);
    }
    return answer;
  }

  /**
   * Modern era (`tasks/update`): answers questions of a task. Answers to keys the task does not
   * wait for are ignored; an answer of the wrong shape is refused (-32602) before any is used.
   */
  async answer(id: string, responses: unknown): Promise<void> {
    if (!isJsonObject(responses)) {
      throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object');
    }
    const live = this.live.get(id);
    if (live === undefined) {
      await this.answerElsewhere(id, responses);
      return;
    }
    const accepted = checkedAnswers(responses, (key) => live.pending.get(key)?.request.method);
    const keys = Object.keys(accepted);
    if (keys.length === 0) {
      return;
    }
    const inputs = keys.map((key) => live.pending.get(key)!);
    keys.forEach((key) => live.pending.delete(key));
    const clientWaits = live.waitingOnClient > 0;
    await this.transition(id, (record) => {
      const remaining: JSONObject = { ...record.inputRequests };
      keys.forEach((key) => delete remaining[key]);
      const waiting = Object.keys(remaining).length > 0 || clientWaits;
      return {
        ...record,
        status: waiting ? 'input_required' : 'working',
        statusMessage: waiting ? record.statusMessage : undefined,
        inputRequests: Object.keys(remaining).length > 0 ? remaining : undefined,
      };
    });
    inputs.forEach((input, index) => input.resolve(accepted[keys[index]] as JSONObject));
  }

  /**
   * Legacy era: the task waits for (`waiting`) or got (`!waiting`) the client's answer to a
   * request sent on the session; it is `input_required` while any is unanswered.
   */
  async waitingOnClient(id: string, waiting: boolean): Promise<void> {
    const live = this.live.get(id);
    if (live === undefined) {
      return;
    }
    live.waitingOnClient += waiting ? 1 : -1;
    const status: McpTaskStatus = live.waitingOnClient > 0 || live.pending.size > 0 ? 'input_required' : 'working';
    await this.transition(id, (record) =>
      record.status === status
        ? undefined
        : {
            ...record,
            status,
            statusMessage: status === 'input_required' ? 'Waiting for input from the client' : undefined,
          },
    );
  }

  /**
   * Answers to a task whose work runs on another instance (or nowhere any more): checked here
   * against the questions the task stored, then sent to the instance that runs it.
   */
  private async answerElsewhere(id: string, responses: JSONObject): Promise<void> {
    const record = await this.store.get(id);
    const asked = record?.inputRequests;
    if (record === undefined || isTerminal(record.status) || asked === undefined) {
      return;
    }
    const accepted = checkedAnswers(responses, (key) => {
      const question = asked[key];
      return isJsonObject(question) && typeof question.method === 'string'
        ? (question.method as ClientMethod)
        : undefined;
    });
    if (Object.keys(accepted).length > 0) {
      await this.link.broadcast({ type: 'task_input', taskId: id, responses: accepted });
    }
  }
}
