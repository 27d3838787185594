/**
 * THE method table: per method, its handler, the eras that serve it and how the engine treats
 * it. Every question about one method (is it served here? may it stream, outlive the call
 * deadline, be cached, ask for input? which param does `Mcp-Name` mirror?) is answered from the
 * engine's one `MethodTable`: the built-in methods of this file, and those the server's
 * extensions add (`extension-methods.ts`), joined once at construction.
 */
import { hasFeature, type McpEra, type RevisionFeature } from './messages/revisions';
import type { JSONObject } from './messages/json-rpc';
import type { McpTransportKind } from './calls/transport-contract';
import type { ResolvedRequest } from './calls/resolved-request';
import type { Awaitable } from './messages/thenables';
import type { HandlerContext } from './handlers/handler-context';
import { handleDiscover, handleInitialize, handlePing, handleSetLevel } from './handlers/lifecycle.handler';
import { handleToolsCall, handleToolsList } from './handlers/tools.handler';
import {
  handleResourcesList,
  handleResourcesRead,
  handleSubscribe,
  handleTemplatesList,
  handleUnsubscribe,
} from './handlers/resources.handler';
import { handlePromptsGet, handlePromptsList } from './handlers/prompts.handler';
import { handleComplete } from './handlers/completion.handler';
import { handleListen } from './handlers/subscriptions.handler';
import {
  handleTasksCancel,
  handleTasksGet,
  handleTasksList,
  handleTasksResult,
  handleTasksUpdate,
} from './handlers/tasks.handler';
import { handleDirectoryRead, handleSkillsGet, handleSkillsList } from './handlers/skills.handler';

/** Serves one method. */
export type MethodHandler = (context: HandlerContext, request: ResolvedRequest) => Awaitable<JSONObject>;

/** What a method needs the server to have: skills (the Skills extension), or skills and their directory reads. */
export type MethodGate = 'skills' | 'directoryRead';

/** What the engine knows of one method. Flags are absent when false. */
export interface MethodEntry {
  readonly handler: MethodHandler;
  /** The eras that serve it. */
  readonly era: McpEra | 'both';
  /** Legacy: the feature a session's revision must have (methods only some revisions define). */
  readonly legacyFeature?: RevisionFeature;
  /** Served only by a server that has it (see `MethodGate`); to others it is an unknown method. */
  readonly gate?: MethodGate;
  /** Transports that never serve it. */
  readonly notOn?: readonly McpTransportKind[];
  /** Served only on transports that hold a stream for the request (Streamable HTTP, stdio). */
  readonly streaming?: true;
  /** Held open until the client cancels or the server ends it: no call deadline, drained apart. */
  readonly longLived?: true;
  /** Waits by a limit of its own (`tasks.resultTimeoutMs`): only the transport's deadline binds it. */
  readonly selfTimed?: true;
  /**
   * Modern era: a complete result carries `ttlMs` and `cacheScope`, from the catalog's cache hints
   * (`cacheHints`) or discovery's own (`discoverCacheHints`).
   */
  readonly cacheable?: 'catalog' | 'discover';
  /** Modern era: may answer `input_required` and be retried with `inputResponses`/`requestState`. */
  readonly multiRound?: true;
  /** Modern era: the param the `Mcp-Name` header mirrors; the header must then agree with it. */
  readonly nameParam?: string;
}

const TABLE: Readonly<Record<string, MethodEntry>> = {
  initialize: { handler: handleInitialize, era: 'legacy' },
  ping: { handler: handlePing, era: 'legacy' },
  'logging/setLevel': { handler: handleSetLevel, era: 'legacy' },
  'resources/subscribe': { handler: handleSubscribe, era: 'legacy' },
  'resources/unsubscribe': { handler: handleUnsubscribe, era: 'legacy' },
  // The 2024-11-05 SSE pair predates discovery: refusing it makes clients fall back to the handshake.
  'server/discover': { handler: handleDiscover, era: 'both', notOn: ['sse'], cacheable: 'discover' },
  'tools/list': { handler: handleToolsList, era: 'both', cacheable: 'catalog' },
  'tools/call': { handler: handleToolsCall, era: 'both', multiRound: true, nameParam: 'name' },
  'resources/list': { handler: handleResourcesList, era: 'both', cacheable: 'catalog' },
  'resources/read': {
    handler: handleResourcesRead,
    era: 'both',
    cacheable: 'catalog',
    multiRound: true,
    nameParam: 'uri',
  },
  'resources/templates/list': { handler: handleTemplatesList, era: 'both', cacheable: 'catalog' },
  'prompts/list': { handler: handlePromptsList, era: 'both', cacheable: 'catalog' },
  'prompts/get': { handler: handlePromptsGet, era: 'both', multiRound: true, nameParam: 'name' },
  'completion/complete': { handler: handleComplete, era: 'both' },
  'subscriptions/listen': { handler: handleListen, era: 'modern', streaming: true, longLived: true },
  'tasks/get': { handler: handleTasksGet, era: 'both', legacyFeature: 'coreTasks', nameParam: 'taskId' },
  'tasks/cancel': { handler: handleTasksCancel, era: 'both', legacyFeature: 'coreTasks', nameParam: 'taskId' },
  'tasks/result': { handler: handleTasksResult, era: 'legacy', legacyFeature: 'coreTasks', selfTimed: true },
  'tasks/list': { handler: handleTasksList, era: 'legacy', legacyFeature: 'coreTasks' },
  'tasks/update': { handler: handleTasksUpdate, era: 'modern', nameParam: 'taskId' },
  'skills/list': { handler: handleSkillsList, era: 'both', gate: 'skills', cacheable: 'catalog' },
  'skills/get': { handler: handleSkillsGet, era: 'both', gate: 'skills', cacheable: 'catalog' },
  'resources/directory/read': {
    handler: handleDirectoryRead,
    era: 'both',
    gate: 'directoryRead',
    cacheable: 'catalog',
  },
};

/** The built-in methods, by name. A map: names such as `toString` or `__proto__` find nothing. */
export const BUILT_IN_METHODS: ReadonlyMap<string, MethodEntry> = new Map(Object.entries(TABLE));

/** The transports that hold a stream for one request. */
const STREAMING_TRANSPORTS: ReadonlySet<McpTransportKind> = new Set(['streamable-http', 'stdio']);

/** The notifications of the specification (every era's), sent by clients and by servers. */
export const SPEC_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'notifications/roots/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/elicitation/complete',
  'notifications/tasks/status',
  'notifications/tasks',
  'notifications/subscriptions/acknowledged',
  // This server's own: a resumed stream whose replay no longer holds what the client missed.
  'notifications/replay_truncated',
]);

/**
 * One engine's methods: the built-in ones and those its extensions add, joined once at
 * construction. Every question is a map lookup, as cheap as the static table it replaces.
 */
export class MethodTable {
  private readonly entries: ReadonlyMap<string, MethodEntry>;

  /**
   * @param added the extensions' methods (`extensionMethodEntries`), already checked: one that
   *   names a built-in method is a programming error.
   * @param gates what the server has of the gated built-in methods (see `MethodGate`): one whose
   *   gate is closed is left out, so it is an unknown method to every request.
   */
  constructor(added: ReadonlyMap<string, MethodEntry> = new Map(), gates: ReadonlySet<MethodGate> = new Set()) {
    for (const method of added.keys()) {
      if (BUILT_IN_METHODS.has(method) || SPEC_NOTIFICATIONS.has(method)) {
        throw new Error(`An extension method cannot replace the built-in ${method}`);
      }
    }
    const builtIn = [...BUILT_IN_METHODS].filter(([, entry]) => entry.gate === undefined || gates.has(entry.gate));
    this.entries = new Map([...builtIn, ...added]);
  }

  /** The entry of `method`, if the server knows it at all (whatever the era or the transport). */
  entry(method: string): MethodEntry | undefined {
    return this.entries.get(method);
  }

  /**
   * Whether `method` is one the server knows: a request of the table (whatever the era or the
   * transport) or a notification of the specification. Anything else came from a client alone.
   */
  isKnown(method: string): boolean {
    return this.entries.has(method) || SPEC_NOTIFICATIONS.has(method);
  }

  /**
   * Whether `method` is served to a request of `era` arriving on `transport`; for a legacy
   * request, `revision` is the session's (methods some revisions lack are refused without it).
   * Anything this refuses is answered -32601 (HTTP 404 in the modern era).
   */
  serves(era: McpEra, method: string, transport: McpTransportKind, revision?: string): boolean {
    return this.served(era, method, transport, revision) !== undefined;
  }

  /** The entry of `method` when it is served to `era` on `transport`, else `undefined`. */
  served(era: McpEra, method: string, transport: McpTransportKind, revision?: string): MethodEntry | undefined {
    const entry = this.entries.get(method);
    if (entry === undefined || (entry.era !== 'both' && entry.era !== era)) {
      return undefined;
    }
    if (
      entry.notOn?.includes(transport) === true ||
      (entry.streaming === true && !STREAMING_TRANSPORTS.has(transport))
    ) {
      return undefined;
    }
    const feature = era === 'legacy' ? entry.legacyFeature : undefined;
    return feature === undefined || hasFeature(revision, feature) ? entry : undefined;
  }
}
