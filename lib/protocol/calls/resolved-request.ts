/**
 * A request once its era and envelope are settled: what handlers, the call context and the
 * task calls see of it.
 */
import type { McpEra, McpRevision } from '../messages/revisions';
import type { JSONObject, RequestId, JSONRPCNotification } from '../messages/json-rpc';
import type { McpPrincipal } from '../bounds/principal';
import type { ClientCapabilities, Implementation } from '../messages/mcp-types';
import type { LoggingLevel } from '../messages/log-levels';
import type { CallScope } from './call-scope';
import type { InputRound, RoundInputs } from './input-round';
import type { McpAskOptions, InputRequest } from '../messages/client-requests';
import type { RequestFacts } from './transport-contract';
import type { TaskRelay } from '../tasks/task-relay';

/** A call that left its request for a task: what its context (`ctx`) goes through from then on. */
export interface RunningTask {
  readonly id: string;
  /** Whether the task ended (settled, cancelled, expired): its work may send nothing more. */
  readonly closed: boolean;
  /** A question to the client, through the task. */
  ask<T>(question: InputRequest, options: McpAskOptions | undefined): Promise<T>;
  /** Progress and logs of the work, legacy era. */
  notify(message: JSONRPCNotification): void;
  /** Modern era: progress becomes the task's status message. */
  describe(progress: number, total: number | undefined, text: string | undefined): void;
  /** Runs `work` within the task's observation (see `ObservedTask.run`). */
  run<T>(work: () => T): T;
}

/** A request once its era and envelope are settled, as handlers see it. */
export interface ResolvedRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params: JSONObject;
  readonly facts: RequestFacts;
  readonly era: McpEra;
  readonly revision: McpRevision | undefined;
  readonly principal: McpPrincipal;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** The log threshold of this request; `undefined` means send no logs. */
  readonly logLevel: LoggingLevel | undefined;
  /** Cancellation, disconnect, session end and deadline of the request. */
  readonly scope: CallScope;
  /** A modern retry (`tools/call`, `prompts/get`, `resources/read`): its answers and state. */
  readonly inputs?: RoundInputs;
  /** The request's multi round-trip round, made by the engine when the handler first needs it. */
  round?: InputRound;
  /** A modern call that may leave its request for a task: the hand-off of its outcome. */
  relay?: TaskRelay<JSONObject, RunningTask>;
  /** The task the call runs as, once it left its request. */
  task?: RunningTask;
}
