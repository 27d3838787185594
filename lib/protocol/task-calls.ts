/**
 * Tool calls that run as tasks: the legacy `task` mode (the task first, then the work) and the
 * modern `escalate` mode (the work in place for the inline window, then handed to a task), and
 * the task side of a call once it left its request: where its messages go, how it asks the
 * client, how its outcome is stored.
 */
import { ErrorCode, isJsonObject, type JsonObject, type JsonRpcNotification, type JsonRpcRequest } from './json-rpc';
import { McpError } from './mcp-error';
import type { AskOptions, InputRequest } from './client-requests';
import type { McpEngine, RequestChannel, ResolvedRequest } from './engine';
import { reportOutcome, TaskRelay, type WorkOutcome } from '../tasks/task-relay';
import { relatedTaskMeta, renderCreateTaskResult } from '../tasks/task-render';
import type { McpTaskService, TaskOutcome } from '../tasks/mcp-task.service';
import type { McpTaskRecord } from '../tasks/task-store.interface';

/** Who owns the tasks of a request: its legacy session, else its principal. */
export function taskOwner(request: ResolvedRequest): string {
  const session = request.facts.session;
  return request.era === 'legacy' && session !== undefined
    ? `session:${session.id}`
    : `principal:${request.principal.id}`;
}

/** What a task stores of its work's end: the result, or the JSON-RPC error the call would have answered. */
function outcomeOf(outcome: WorkOutcome<JsonObject>): TaskOutcome {
  if (outcome.ok) {
    return { type: 'result', result: outcome.value };
  }
  const { error } = outcome;
  return error instanceof McpError
    ? { type: 'error', error: { code: error.code, message: error.message, data: error.data } }
    : { type: 'error', error: { code: ErrorCode.InternalError, message: 'Internal error' } };
}

/**
 * The legacy messages of one task: the questions and notifications of its work, tagged with the
 * task. They go to a `tasks/result` request waiting for the task (the client reads its stream
 * for them), else to the session's stream; questions that find neither wait for the next
 * `tasks/result`.
 */
class TaskChannel implements RequestChannel {
  private readonly streams = new Set<RequestChannel>();
  private readonly outbox: JsonRpcRequest[] = [];

  constructor(
    private readonly engine: McpEngine,
    private readonly taskId: string,
    private readonly sessionId: string | undefined,
  ) {}

  /** A `tasks/result` request of the task opens its stream to the task's messages; returns how to close it. */
  attach(stream: RequestChannel): () => void {
    this.streams.add(stream);
    for (const message of this.outbox.splice(0)) {
      // A question whose wait ended (timed out, the task was cancelled) is no longer asked.
      const waited = this.sessionId !== undefined && this.engine.clientRequests.isWaiting(this.sessionId, message.id);
      if (waited && !this.deliverHere(message)) {
        this.outbox.push(message);
      }
    }
    return () => this.streams.delete(stream);
  }

  notify(message: JsonRpcNotification): void {
    void this.deliver(this.tag(message));
  }

  request(message: JsonRpcRequest): boolean {
    const tagged = this.tag(message);
    void this.deliver(tagged).then((sent) => {
      if (!sent) {
        this.outbox.push(tagged);
      }
    });
    // Taken: it is on its way, or waits for the next `tasks/result`.
    return true;
  }

  /** On a waiting `tasks/result` stream, else on the session's stream wherever it is held. */
  private async deliver(message: JsonRpcRequest | JsonRpcNotification): Promise<boolean> {
    if (this.deliverHere(message)) {
      return true;
    }
    try {
      return this.sessionId !== undefined && (await this.engine.sendToSession(this.sessionId, message));
    } catch (error) {
      this.engine.options.logger.warn(`Could not send a message of task ${this.taskId}: ${String(error)}`);
      return false;
    }
  }

  /** On a `tasks/result` stream of this instance. */
  private deliverHere(message: JsonRpcRequest | JsonRpcNotification): boolean {
    for (const stream of this.streams) {
      const sent = 'id' in message ? stream.request?.(message) === true : (stream.notify(message), true);
      if (sent) {
        return true;
      }
    }
    return false;
  }

  private tag<T extends JsonRpcRequest | JsonRpcNotification>(message: T): T {
    const params = message.params ?? {};
    const meta = isJsonObject(params._meta) ? params._meta : {};
    return { ...message, params: { ...params, _meta: { ...meta, ...relatedTaskMeta(this.taskId) } } };
  }
}

/**
 * A call that runs as a task: what its context (`ctx`) does once the call left its request.
 */
export class TaskCall {
  private readonly channel: TaskChannel | undefined;
  private lastStatus: string | undefined;

  constructor(
    private readonly engine: McpEngine,
    private readonly tasks: McpTaskService,
    private readonly request: ResolvedRequest,
    readonly record: McpTaskRecord,
  ) {
    this.channel = request.era === 'legacy' ? new TaskChannel(engine, record.id, record.sessionId) : undefined;
  }

  get id(): string {
    return this.record.id;
  }

  /** Whether the task ended (settled, cancelled, expired): its work may send nothing more. */
  get closed(): boolean {
    return !this.tasks.isLive(this.record.id);
  }

  /** Opens a `tasks/result` request's stream to the task's messages (legacy); returns how to close it. */
  attach(stream: RequestChannel): () => void {
    return this.channel?.attach(stream) ?? (() => undefined);
  }

  /**
   * Progress and logs of the work, legacy era: on the task's channel. A modern task has no
   * stream: its logs are dropped (see `describe` for its progress).
   */
  notify(message: JsonRpcNotification): void {
    this.channel?.notify(message);
  }

  /** Modern era: progress becomes the task's status message (`text`, else `progress/total`). */
  describe(progress: number, total: number | undefined, text: string | undefined): void {
    const message = text ?? (total === undefined ? `${progress}` : `${progress}/${total}`);
    if (message !== this.lastStatus) {
      this.lastStatus = message;
      this.tasks.describe(this.record.id, message).catch((error: unknown) => {
        this.engine.options.logger.warn(`Could not describe task ${this.record.id}: ${String(error)}`);
      });
    }
  }

  /**
   * A question to the client. Legacy: a request on the task's channel, tagged with the task,
   * while the task is `input_required`. Modern: the task's `inputRequests`, answered by
   * `tasks/update`.
   */
  async ask<T>(question: InputRequest, options: AskOptions | undefined): Promise<T> {
    if (this.channel === undefined) {
      return (await this.tasks.ask(this.record.id, options?.key, question)) as T;
    }
    await this.tasks.waitingOnClient(this.record.id, true);
    try {
      return await this.engine.askClient<T>(this.request, question, options?.timeoutMs, this.channel);
    } finally {
      await this.tasks.waitingOnClient(this.record.id, false);
    }
  }

  /**
   * Stores how the work ended. An error that is not a protocol error is logged, as the engine
   * logs one of a call answered in place; the task keeps only "Internal error". Once the task
   * ended (cancelled, expired), the work's abort is no failure.
   */
  settle(outcome: WorkOutcome<JsonObject>): void {
    if (!outcome.ok && !(outcome.error instanceof McpError) && !this.closed) {
      this.engine.logFailure(this.request, outcome.error);
    }
    this.engine.forgetTaskCall(this);
    this.tasks.settle(this.record.id, outcomeOf(outcome)).catch((error: unknown) => {
      this.engine.options.logger.error(
        `Could not store the outcome of task ${this.record.id}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
}

/** Makes the task of a request; its work is aborted when the task is cancelled or expires. */
async function createTask(engine: McpEngine, tasks: McpTaskService, request: ResolvedRequest): Promise<TaskCall> {
  const task = isJsonObject(request.params.task) ? request.params.task : {};
  const record = await tasks.create(
    {
      owner: taskOwner(request),
      era: request.era,
      revision: request.revision,
      sessionId: request.era === 'legacy' ? request.facts.session?.id : undefined,
      method: request.method,
      name: typeof request.params.name === 'string' ? request.params.name : '',
      requestedTtlMs: typeof task.ttl === 'number' ? task.ttl : undefined,
    },
    (reason) => {
      request.scope.abandon(reason);
      // The task ended (cancelled, expired): nothing reaches it through this process any more,
      // even if its work never stops.
      if (request.task !== undefined) {
        engine.forgetTaskCall(request.task);
      }
    },
  );
  const call = new TaskCall(engine, tasks, request, record);
  request.task = call;
  engine.rememberTaskCall(call);
  return call;
}

/**
 * Legacy `task` mode: the task is made (and stored) first, then the work starts in it, and the
 * call is answered with the task's handle at once.
 */
export async function runAsTask(
  engine: McpEngine,
  tasks: McpTaskService,
  request: ResolvedRequest,
  work: () => Promise<JsonObject>,
): Promise<JsonObject> {
  const call = await createTask(engine, tasks, request);
  reportOutcome(work(), (outcome) => call.settle(outcome));
  return renderCreateTaskResult(call.record);
}

/**
 * Modern `escalate` mode: the work runs in place for the inline window. Its outcome within the
 * window is the answer; past it, the task is made (before the answer, so that `tasks/get`
 * finds it at once), the outcome goes to the task, and the call is answered with its handle.
 */
export async function runEscalating(
  engine: McpEngine,
  tasks: McpTaskService,
  request: ResolvedRequest,
  work: () => Promise<JsonObject>,
): Promise<JsonObject> {
  const relay = new TaskRelay<JsonObject, TaskCall>();
  request.relay = relay;
  relay.follow(work());
  const inline = await relay.window(tasks.options.inlineMs);
  if (inline !== undefined) {
    if (inline.ok) {
      return inline.value;
    }
    throw inline.error;
  }
  if (request.scope.aborted || request.scope.finished) {
    // The client went away during the window, or the request was answered another way: nothing
    // is left to hand to anyone.
    const over = new McpError(ErrorCode.InternalError, 'The request is over');
    relay.drop(over);
    // The engine answers nothing more for it: the error only ends this handler.
    throw over;
  }
  let call: TaskCall;
  try {
    call = await createTask(engine, tasks, request);
  } catch (error) {
    relay.drop(error);
    request.scope.abandon(error);
    throw error;
  }
  relay.handOff(call, (outcome) => call.settle(outcome));
  if (request.scope.aborted) {
    // The client went away while the task was made: no one will ever learn its id.
    await tasks.cancel(call.id, 'The client went away before the task was announced');
    throw request.scope.reason;
  }
  return renderCreateTaskResult(call.record);
}
