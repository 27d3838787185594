/**
 * What a method handler may ask of the engine, and nothing more: the catalog and its rendered
 * lists, the list settings, the subscriptions, the tasks, the call contexts and the failure log.
 * Handlers never see the engine itself, so the engine can change without touching them.
 */
import type { McpEra, McpRevision } from '../messages/revisions';
import type { JSONObject } from '../messages/json-rpc';
import type { Catalog } from '../calls/catalog';
import type { McpCallContext } from '../calls/call-context';
import type { EngineOptions } from '../calls/engine-options';
import type { ListCache } from '../calls/list-cache';
import type { ResolvedRequest } from '../calls/resolved-request';
import type { SubscriptionHub } from '../calls/subscription-hub';
import type { RequestChannel, McpTransportKind } from '../calls/transport-contract';
import type { TaskPort } from '../tasks/task-port';
import type { ExtensionTable } from '../extensions/extensions';
import type { SkillCatalog } from '../skills/skill-library';

/** The settings handlers read. */
export type HandlerOptions = Pick<
  EngineOptions,
  'serverInfo' | 'instructions' | 'revisions' | 'pageSize' | 'maxUriLength' | 'toolSearch' | 'logger'
>;

/** How a tool call runs as a task (`task-calls.ts`). */
export interface TaskCallRunner {
  /** Legacy `task` mode: the task first, then the work in it; answers the task's handle. */
  runAsTask(tasks: TaskPort, request: ResolvedRequest, work: () => Promise<JSONObject>): Promise<JSONObject>;
  /** Modern `escalate` mode: the work in place for the inline window, then handed to a task. */
  runEscalating(tasks: TaskPort, request: ResolvedRequest, work: () => Promise<JSONObject>): Promise<JSONObject>;
}

export interface HandlerContext {
  readonly catalog: Catalog;
  readonly options: HandlerOptions;
  /** Rendered lists, per catalog version and revision. */
  readonly lists: ListCache;
  /** The modern `subscriptions/listen` streams open on this instance. */
  readonly subscriptions: SubscriptionHub;
  /** The tasks; `undefined` when the server runs none. */
  readonly tasks: TaskPort | undefined;
  readonly taskCalls: TaskCallRunner;
  /** The extensions the server declares, the module's own among them (tasks, when it runs them). */
  readonly extensions: ExtensionTable;
  /** The skills (the Skills extension); `undefined` when the server serves none. */
  readonly skills: SkillCatalog | undefined;
  /** The advertised revisions of one era, newest first. */
  revisionsOf(era: McpEra): readonly McpRevision[];
  /** Whether `method` is served to a request of `era` on `transport` (the method table). */
  servesMethod(era: McpEra, method: string, transport: McpTransportKind): boolean;
  /** The context handed to a tool, resource, prompt or completion handler. */
  createCallContext(request: ResolvedRequest, name: string | undefined): McpCallContext;
  /** Logs a handler failure once, with what finds it; the client only sees a generic error. */
  logFailure(request: ResolvedRequest, error: unknown): void;
  /** Legacy: opens a `tasks/result` request's stream to the messages of a task; returns how to close it. */
  attachTaskStream(taskId: string, channel: RequestChannel): () => void;
}
