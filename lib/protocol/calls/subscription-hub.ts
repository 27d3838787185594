/**
 * The modern era's `subscriptions/listen` streams open on this instance: what each listener
 * asked to hear, and the fan-out of server events to them. Transport-agnostic: a subscription
 * writes to the channel of its listen request (an SSE response, stdio...), and every message it
 * writes carries the listen request's id under `io.modelcontextprotocol/subscriptionId`.
 */
import {
  isJsonObject,
  notification,
  type JSONObject,
  type RequestId,
  type JSONRPCNotification,
} from '../messages/json-rpc';
import { META_KEYS } from '../messages/request-meta';

/** A list whose changes listeners can hear about. */
export type ListKind = 'tools' | 'resources' | 'prompts';

/** A change the server announces; `McpEvent` of the notification bus has this shape. */
export type SubscriptionEvent =
  | { readonly type: 'list_changed'; readonly list: ListKind }
  | { readonly type: 'resource_updated'; readonly uri: string }
  /** A task changed: `params` is its `notifications/tasks` rendering. */
  | { readonly type: 'task_status'; readonly taskId: string; readonly params: JSONObject };

/**
 * The `notifications` param of `subscriptions/listen`: what a listener asks for and, once read,
 * what the server honours.
 */
export interface SubscriptionFilter {
  readonly toolsListChanged?: boolean;
  readonly promptsListChanged?: boolean;
  readonly resourcesListChanged?: boolean;
  readonly resourceSubscriptions?: readonly string[];
  /** Tasks extension: the tasks whose `notifications/tasks` the listener hears. */
  readonly taskIds?: readonly string[];
}

/** Where a subscription writes: the listen request's channel. */
export interface SubscriptionSink {
  notify(message: JSONRPCNotification): void;
}

/** How a subscription ended: the client went away, or the server closed it. */
export type SubscriptionEnd = 'cancelled' | 'closed';

const LIST_FLAGS: ReadonlyArray<
  readonly [ListKind, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged']
> = [
  ['tools', 'toolsListChanged'],
  ['prompts', 'promptsListChanged'],
  ['resources', 'resourcesListChanged'],
];

/**
 * Reads the `notifications` param of a listen request into what the server honours: the list
 * flags set to `true`, and the resource URIs (strings only, each once). Unknown keys, other
 * values and entries that are not strings are ignored rather than refused, so that a client
 * speaking a later revision still gets what this server offers.
 */
export function readSubscriptionFilter(raw: unknown): SubscriptionFilter {
  if (!isJsonObject(raw)) {
    return {};
  }
  const honoured: {
    toolsListChanged?: boolean;
    promptsListChanged?: boolean;
    resourcesListChanged?: boolean;
    resourceSubscriptions?: string[];
    taskIds?: string[];
  } = {};
  for (const [, flag] of LIST_FLAGS) {
    if (raw[flag] === true) {
      honoured[flag] = true;
    }
  }
  const uris = raw.resourceSubscriptions;
  if (Array.isArray(uris)) {
    honoured.resourceSubscriptions = [...new Set(uris.filter((uri): uri is string => typeof uri === 'string'))];
  }
  const taskIds = raw.taskIds;
  if (Array.isArray(taskIds)) {
    honoured.taskIds = [...new Set(taskIds.filter((id): id is string => typeof id === 'string'))];
  }
  return honoured;
}

/**
 * One open `subscriptions/listen` stream. Made by `SubscriptionHub.open`; ended by the client
 * (`cancel`, nothing more is written) or by the server (`close`).
 */
export class Subscription {
  /** The `_meta` of every message of the subscription; shared, as it is only ever serialized. */
  readonly meta: JSONObject;
  /** Resolves once the subscription ended, with how. */
  readonly ended: Promise<SubscriptionEnd>;
  private endWith!: (end: SubscriptionEnd) => void;
  private open = true;

  constructor(
    private readonly hub: SubscriptionHub,
    /** The JSON-RPC id of the listen request: the subscription id. */
    readonly id: RequestId,
    /** What the server honours for this listener. */
    readonly filter: SubscriptionFilter,
    private readonly sink: SubscriptionSink,
  ) {
    this.meta = { [META_KEYS.subscriptionId]: id };
    this.ended = new Promise((resolve) => (this.endWith = resolve));
  }

  /** Whether the subscription still delivers. */
  get active(): boolean {
    return this.open;
  }

  /** The result that answers the listen request when the server ends the subscription. */
  finalResult(): JSONObject {
    return { resultType: 'complete', _meta: { [META_KEYS.subscriptionId]: this.id } };
  }

  /**
   * Writes one notification of the subscription, tagged with its id.
   * @param meta more `_meta` entries (a watcher's context), under the subscription's own
   */
  send(method: string, params: JSONObject = {}, meta?: JSONObject): void {
    if (!this.open) {
      return;
    }
    try {
      this.sink.notify(
        notification(method, { _meta: meta === undefined ? this.meta : { ...meta, ...this.meta }, ...params }),
      );
    } catch {
      // A channel that cannot be written any more is a listener that went away: its
      // subscription must not stay registered, nor stop the fan-out to the others.
      this.cancel();
    }
  }

  /** Whether the subscription writes to `sink`. */
  writesTo(sink: SubscriptionSink): boolean {
    return this.sink === sink;
  }

  /** The client went away (closed its stream, cancelled the request): drops it, writes nothing. */
  cancel(): void {
    this.end('cancelled');
  }

  /**
   * The server ends the subscription gracefully: the listen request is answered with
   * `finalResult()`, and nothing comes before it. A `notifications/cancelled` naming the listen
   * request would read as an abrupt end: the official v2 client settles on it as a remote close
   * (a dropped subscription) and never sees the answer that says the end was graceful.
   */
  close(): void {
    this.end('closed');
  }

  private end(how: SubscriptionEnd): void {
    if (!this.open) {
      return;
    }
    this.open = false;
    this.hub.forget(this);
    this.endWith(how);
  }
}

/**
 * Every open subscription of this instance, indexed by what it listens to, so that an event
 * reaches only the listeners that asked for it.
 */
export class SubscriptionHub {
  private readonly subscriptions = new Set<Subscription>();
  private readonly byList: Readonly<Record<ListKind, Set<Subscription>>> = {
    tools: new Set(),
    resources: new Set(),
    prompts: new Set(),
  };
  private readonly byUri = new Map<string, Set<Subscription>>();
  private readonly byTask = new Map<string, Set<Subscription>>();
  /** Set by `closeAll` (shutdown): a subscription opened afterwards ends at once. */
  private closing = false;

  /** How many subscriptions are open. */
  get size(): number {
    return this.subscriptions.size;
  }

  /**
   * Registers a subscription, then acknowledges it on its channel: the acknowledgement is the
   * first message of the stream, and no event published after it can be missed.
   */
  open(id: RequestId, filter: SubscriptionFilter, sink: SubscriptionSink): Subscription {
    const subscription = new Subscription(this, id, filter, sink);
    this.subscriptions.add(subscription);
    for (const [list, flag] of LIST_FLAGS) {
      if (filter[flag] === true) {
        this.byList[list].add(subscription);
      }
    }
    for (const uri of filter.resourceSubscriptions ?? []) {
      addTo(this.byUri, uri, subscription);
    }
    for (const taskId of filter.taskIds ?? []) {
      addTo(this.byTask, taskId, subscription);
    }
    subscription.send('notifications/subscriptions/acknowledged', { notifications: { ...filter } });
    if (this.closing) {
      // A listen that was on its way when the server began to shut down: it would hold its
      // stream past the shutdown, so it ends as those open then did.
      subscription.close();
    }
    return subscription;
  }

  /**
   * Delivers an event to the subscriptions that asked for it.
   * @param meta `_meta` entries every message of the event carries (a watcher's context)
   */
  publish(event: SubscriptionEvent, meta?: JSONObject): void {
    if (event.type === 'list_changed') {
      const method = `notifications/${event.list}/list_changed`;
      // A copy: a listener whose channel fails is removed from the set while it is walked.
      for (const subscription of [...this.byList[event.list]]) {
        subscription.send(method, undefined, meta);
      }
      return;
    }
    if (event.type === 'task_status') {
      for (const subscription of [...(this.byTask.get(event.taskId) ?? [])]) {
        subscription.send('notifications/tasks', event.params, meta);
      }
      return;
    }
    const listeners = this.byUri.get(event.uri);
    if (listeners !== undefined) {
      for (const subscription of [...listeners]) {
        subscription.send('notifications/resources/updated', { uri: event.uri }, meta);
      }
    }
  }

  /**
   * Ends every subscription from the server side (shutdown): each listen request is answered
   * (see `Subscription.close`); one opened later ends the same way at once. Resolves once the transports had the chance to write those answers.
   */
  async closeAll(): Promise<void> {
    this.closing = true;
    const closing = [...this.subscriptions];
    if (closing.length === 0) {
      return;
    }
    closing.forEach((subscription) => subscription.close());
    // Each listen request is answered in the microtasks that follow its subscription's end
    // (handler → engine → transport write); one turn of the event loop lets all of them run
    // before the caller goes on, e.g. to close the connections at shutdown.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /**
   * Ends, from the server side, the subscriptions that write to `sink` (a connection that is
   * closing while its client may still read): each listen request is answered.
   */
  closeFor(sink: SubscriptionSink): void {
    for (const subscription of [...this.subscriptions]) {
      if (subscription.writesTo(sink)) {
        subscription.close();
      }
    }
  }

  /** Called by a subscription that ended. @internal */
  forget(subscription: Subscription): void {
    this.subscriptions.delete(subscription);
    for (const [list, flag] of LIST_FLAGS) {
      if (subscription.filter[flag] === true) {
        this.byList[list].delete(subscription);
      }
    }
    for (const uri of subscription.filter.resourceSubscriptions ?? []) {
      removeFrom(this.byUri, uri, subscription);
    }
    for (const taskId of subscription.filter.taskIds ?? []) {
      removeFrom(this.byTask, taskId, subscription);
    }
  }
}

function addTo(index: Map<string, Set<Subscription>>, key: string, subscription: Subscription): void {
  let listeners = index.get(key);
  if (listeners === undefined) {
    listeners = new Set();
    index.set(key, listeners);
  }
  listeners.add(subscription);
}

function removeFrom(index: Map<string, Set<Subscription>>, key: string, subscription: Subscription): void {
  const listeners = index.get(key);
  listeners?.delete(subscription);
  if (listeners?.size === 0) {
    index.delete(key);
  }
}
