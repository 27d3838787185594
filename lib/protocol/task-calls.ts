/**
 * Tool calls that run as tasks: the legacy `task` mode (the task first, then the work) and the
 * modern `escalate` mode (the work in place for the inline window, then handed to a task), and
 * the task side of a call once it left its request: where its messages go, how it asks the
 * client, how its outcome is stored.
 */
import { McpErrorCode, isJsonObject, type JSONObject, type JSONRPCNotification } from './messages/json-rpc';
import { McpError, messageOf } from './messages/mcp-error';
import type { McpAskOptions, InputRequest } from './messages/client-requests';
import { TaskChannel, type TaskChannelHost } from './task-channel';
import type { RequestChannel } from './calls/transport-contract';
import type { ResolvedRequest, RunningTask } from './calls/resolved-request';
import type { TaskCallRunner } from './handlers/handler-context';
import { reportOutcome, TaskRelay, type WorkOutcome } from './tasks/task-relay';
import { renderCreateTaskResult } from './tasks/task-render';
import { taskOwner, taskQuotaKeyOf } from './calls/task-owner';
import type { TaskOutcome, TaskPort } from './tasks/task-port';
import type { McpTaskRecord } from './tasks/task-record';
import type { EngineObserver, ObservedTask } from './calls/engine-observer';
import type { QuestionLimit } from './bounds/question-limit';

/** What the task calls need of the engine: its logger, the way to the client, the failure log. */
export interface TaskCallHost extends TaskChannelHost {
  readonly observer?: EngineObserver;
  /** How many questions may wait in one task (`maxPendingQuestions`). */
  readonly questions: QuestionLimit;
  /** Legacy era: sends a request to the client on `channel` and waits for its answer. */
  askClient<T>(
    request: ResolvedRequest,
    question: InputRequest,
    timeoutMs: number | undefined,
    channel: RequestChannel,
  ): Promise<T>;
  logFailure(request: ResolvedRequest, error: unknown): void;
}

/** What a task stores of its work's end: the result, or the JSON-RPC error the call would have answered. */
function outcomeOf(outcome: WorkOutcome<JSONObject>): TaskOutcome {
  if (outcome.ok) {
    return { type: 'result', result: outcome.value };
  }
  const { error } = outcome;
  return error instanceof McpError
    ? { type: 'error', error: { code: error.code, message: error.message, data: error.data } }
    : { type: 'error', error: { code: McpErrorCode.InternalError, message: 'Internal error' } };
}

/**
 * A call that runs as a task: what its context (`ctx`) does once the call left its request.
 */
export class TaskCall implements RunningTask {
  private readonly channel: TaskChannel | undefined;
  private lastStatus: string | undefined;
  /** Questions of the work waiting for their answers. */
  private asking = 0;

  constructor(
    private readonly host: TaskCallHost,
    private readonly tasks: TaskPort,
    private readonly request: ResolvedRequest,
    readonly record: McpTaskRecord,
    private readonly forget: (call: TaskCall) => void,
    private readonly observed: ObservedTask | undefined,
  ) {
    this.channel = request.era === 'legacy' ? new TaskChannel(host, record.id, record.sessionId) : undefined;
  }

  /** Starts the task's work (legacy `task` mode: the work starts once the task exists). */
  run<T>(work: () => T): T {
    return this.observed === undefined ? work() : this.observed.run(work);
  }

  /** The task ended without its work's outcome (cancelled, expired). */
  ended(reason: unknown): void {
    this.observed?.status('cancelled', messageOf(reason));
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
  notify(message: JSONRPCNotification): void {
    this.channel?.notify(message);
  }

  /** Modern era: progress becomes the task's status message (`text`, else `progress/total`). */
  describe(progress: number, total: number | undefined, text: string | undefined): void {
    const message = text ?? (total === undefined ? `${progress}` : `${progress}/${total}`);
    if (message !== this.lastStatus) {
      this.lastStatus = message;
      this.tasks.describe(this.record.id, message).catch((error: unknown) => {
        this.host.logger.warn(`Could not describe task ${this.record.id}: ${String(error)}`);
      });
    }
  }

  /**
   * A question to the client. Legacy: a request on the task's channel, tagged with the task,
   * while the task is `input_required`. Modern: the task's `inputRequests`, answered by
   * `tasks/update`.
   */
  async ask<T>(question: InputRequest, options: McpAskOptions | undefined): Promise<T> {
    const { questions } = this.host;
    if (!questions.admits(this.asking)) {
      // Refused before the task is touched: its status and its stored questions stay as they are.
      throw questions.refusal('task', this.record.id, question.method);
    }
    this.asking += 1;
    const observed = this.host.observer?.question(this.request, question);
    const sent = observed?.question ?? question;
    this.observed?.status('input_required');
    try {
      let answer: T;
      if (this.channel === undefined) {
        answer = (await this.tasks.ask(this.record.id, options?.key, sent)) as T;
      } else {
        await this.tasks.waitingOnClient(this.record.id, true);
        try {
          answer = await this.host.askClient<T>(this.request, sent, options?.timeoutMs, this.channel);
        } finally {
          await this.tasks.waitingOnClient(this.record.id, false);
        }
      }
      observed?.end();
      return answer;
    } catch (error) {
      observed?.end(error);
      throw error;
    } finally {
      this.asking -= 1;
      if (!this.closed) {
        this.observed?.status('working');
      }
    }
  }

  /**
   * Stores how the work ended. An error that is not a protocol error is logged, as the engine
   * logs one of a call answered in place; the task keeps only "Internal error". Once the task
   * ended (cancelled, expired), the work's abort is no failure.
   */
  settle(outcome: WorkOutcome<JSONObject>): void {
    if (!outcome.ok && !(outcome.error instanceof McpError) && !this.closed) {
      this.host.logFailure(this.request, outcome.error);
    }
    this.forget(this);
    // The watcher hears the status the task was stored in (how an isError result ends a task
    // is the task manager's rule, per revision), not one guessed here.
    const observed = this.closed ? undefined : this.observed;
    this.tasks.settle(this.record.id, outcomeOf(outcome)).then(
      (stored) => {
        if (stored !== undefined) {
          observed?.settled(stored);
        }
      },
      (error: unknown) => {
        observed?.status('failed', 'The outcome of the task could not be stored');
        this.host.logger.error(`Could not store the outcome of task ${this.record.id}: ${messageOf(error)}`);
      },
    );
  }
}

/**
 * The calls running as tasks in this process, by task id, and the two ways a tool call becomes
 * one.
 */
export class TaskCalls implements TaskCallRunner {
  private readonly calls = new Map<string, TaskCall>();

  constructor(private readonly host: TaskCallHost) {}

  /** The call running as task `taskId` in this process, if any. */
  get(taskId: string): TaskCall | undefined {
    return this.calls.get(taskId);
  }

  /**
   * Legacy `task` mode: the task is made (and stored) first, then the work starts in it, and the
   * call is answered with the task's handle at once.
   */
  async runAsTask(tasks: TaskPort, request: ResolvedRequest, work: () => Promise<JSONObject>): Promise<JSONObject> {
    const call = await this.createTask(tasks, request);
    reportOutcome(call.run(work), (outcome) => call.settle(outcome));
    return renderCreateTaskResult(call.record);
  }

  /**
   * Modern `escalate` mode: the work runs in place for the inline window. Its outcome within the
   * window is the answer; past it, the task is made (before the answer, so that `tasks/get`
   * finds it at once), the outcome goes to the task, and the call is answered with its handle.
   */
  async runEscalating(tasks: TaskPort, request: ResolvedRequest, work: () => Promise<JSONObject>): Promise<JSONObject> {
    const relay = new TaskRelay<JSONObject, RunningTask>();
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
      const over = new McpError(McpErrorCode.InternalError, 'The request is over');
      relay.drop(over);
      // The engine answers nothing more for it: the error only ends this handler.
      throw over;
    }
    let call: TaskCall;
    try {
      call = await this.createTask(tasks, request);
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

  /** Makes the task of a request; its work is aborted when the task is cancelled or expires. */
  private async createTask(tasks: TaskPort, request: ResolvedRequest): Promise<TaskCall> {
    const task = isJsonObject(request.params.task) ? request.params.task : {};
    const record = await tasks.create(
      {
        owner: taskOwner(request),
        quotaKey: taskQuotaKeyOf(request),
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
        const { task: running } = request;
        if (running instanceof TaskCall) {
          this.forget(running);
          running.ended(reason);
        }
      },
    );
    const call = new TaskCall(
      this.host,
      tasks,
      request,
      record,
      (ended) => this.forget(ended),
      this.host.observer?.task(request, record),
    );
    request.task = call;
    this.calls.set(call.id, call);
    return call;
  }

  private forget(call: RunningTask): void {
    if (this.calls.get(call.id) === call) {
      this.calls.delete(call.id);
    }
  }
}
