/**
 * What may watch the engine's work from outside (the module's OpenTelemetry layer): each message
 * it handles, each question it sends a client, each call that becomes a task, each round of a
 * multi round-trip request and, when asked, each notification the server sends. The engine knows
 * nothing of what the watcher does with them; without one it does no extra work at all.
 */
import type { JSONRPCNotification, JSONRPCRequest } from '../messages/json-rpc';
import type { InputRequest } from '../messages/client-requests';
import type { ResolvedRequest } from './resolved-request';
import type { EngineOutcome, RequestFacts } from './transport-contract';
import type { Awaitable } from '../messages/thenables';
import type { McpTaskRecord, McpTaskStatus } from '../tasks/task-record';

/** A question to the client being watched. */
export interface ObservedQuestion {
  /** The question to send: the same, or a copy whose `params._meta` carries the watcher's context. */
  readonly question: InputRequest;
  /** The answer came (no `error`), or the question failed, timed out or was abandoned. */
  end(error?: unknown): void;
}

/** A call that runs as a task, watched from its creation to its end. */
export interface ObservedTask {
  /** Runs the task's work within the task's observation (what the work does is seen as the task's). */
  run<T>(work: () => T): T;
  /** The task changed status; a terminal status (cancelled, expired) ends the observation. */
  status(status: McpTaskStatus, message?: string): void;
  /** The task's work ended and the task was stored so: its final status, and its error if it failed. */
  settled(record: McpTaskRecord): void;
}

/** The watcher of one engine. */
export interface EngineObserver {
  /**
   * Handles one incoming request or notification within its observation: `handle` is called
   * once, and its outcome is returned as it is.
   */
  message(
    facts: RequestFacts,
    message: JSONRPCRequest | JSONRPCNotification,
    handle: () => Awaitable<EngineOutcome>,
  ): Awaitable<EngineOutcome>;
  /** A handler asks the client a question (elicitation, sampling, roots). */
  question(request: ResolvedRequest, question: InputRequest): ObservedQuestion;
  /** A call became task `record` (its status is `working`). */
  task(request: ResolvedRequest, record: McpTaskRecord): ObservedTask;
  /**
   * A handler failed unexpectedly (not a protocol error, not a tool error): what the engine logs
   * once and answers with a generic error. Called once per failure, within the observation the
   * handler ran in (its message's, or its task's once the call runs as a task), so that the
   * watcher may keep the error with it; nothing of it goes to the client.
   */
  exception?(error: unknown): void;
  /**
   * A round of a multi round-trip request ends (`input_required`): what to seal into its
   * `requestState` so that the retry's observation continues this one, opaque to the engine
   * (the telemetry's `traceparent`); read back with `sealedTrace`. Called within the request's
   * observation.
   */
  roundTrace?(): string | undefined;
  /**
   * The server sends a notification (progress, a log message, a list change, a resource update,
   * a task's status), within the context it is sent from: returns the notification to send, the
   * same or a copy whose `params._meta` carries the watcher's context. A watcher that does not
   * watch notifications leaves it out, and the engine then never calls it: whether it is there
   * is read once, when the engine is made.
   * @param sessionId the legacy session it goes to, when it goes to one
   */
  notification?(message: JSONRPCNotification, sessionId?: string): JSONRPCNotification;
}
