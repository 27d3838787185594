import type { CancellationSource } from './call-scope';
import type { Catalog } from './catalog';
import { McpEngine, type EngineOptions, type EngineOutcome, type RequestChannel, type RequestFacts } from '../engine';
import type { RequestId, JSONRPCNotification, JSONRPCRequest } from '../messages/json-rpc';
import type { McpTransportKind } from './call-context';
import { readSubscriptionFilter, SubscriptionHub, type SubscriptionFilter } from './subscription-hub';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
const MODERN = '2026-07-28';

/** A channel that records what it was sent. */
class RecordingSink {
  readonly messages: JSONRPCNotification[] = [];
  readonly notify = (message: JSONRPCNotification): void => {
    this.messages.push(message);
  };

  get methods(): string[] {
    return this.messages.map((message) => message.method);
  }
}

describe('readSubscriptionFilter', () => {
  it('keeps the list flags set to true and the resource URIs', () => {
    expect(
      readSubscriptionFilter({
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ['file:///a', 'file:///b'],
      }),
    ).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['file:///a', 'file:///b'],
    });
  });

  it('ignores unknown keys, flags that are not true, URIs and task ids that are not strings, and repeats', () => {
    expect(
      readSubscriptionFilter({
        toolsListChanged: false,
        promptsListChanged: 'yes',
        resourcesListChanged: 1,
        taskIds: ['task-1', 3, 'task-1', 'task-2'],
        somethingNew: true,
        resourceSubscriptions: ['file:///a', 7, null, { uri: 'x' }, 'file:///a', 'file:///c'],
      }),
    ).toEqual({ resourceSubscriptions: ['file:///a', 'file:///c'], taskIds: ['task-1', 'task-2'] });
  });

  it.each([undefined, null, 'tools', ['toolsListChanged'], 42])('reads %p as an empty filter', (raw) => {
    expect(readSubscriptionFilter(raw)).toEqual({});
  });

  it('ignores resourceSubscriptions that is not an array', () => {
    expect(readSubscriptionFilter({ toolsListChanged: true, resourceSubscriptions: 'file:///a' })).toEqual({
      toolsListChanged: true,
    });
  });
});

describe('SubscriptionHub', () => {
  it('acknowledges first, with the subscription id and the honoured filter', () => {
    const hub = new SubscriptionHub();
    const sink = new RecordingSink();
    const filter: SubscriptionFilter = { toolsListChanged: true, resourceSubscriptions: ['file:///a'] };
    hub.open(7, filter, sink);
    expect(sink.messages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { [SUBSCRIPTION_ID]: 7 }, notifications: filter },
      },
    ]);
    expect(hub.size).toBe(1);
  });

  it('registers before acknowledging: an event published while the ack is written is delivered after it', () => {
    const hub = new SubscriptionHub();
    const sink = new RecordingSink();
    let published = false;
    hub.open(
      1,
      { toolsListChanged: true },
      {
        notify: (message) => {
          sink.notify(message);
          if (!published) {
            published = true;
            hub.publish({ type: 'list_changed', list: 'tools' });
          }
        },
      },
    );
    expect(sink.methods).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
  });

  it('sends only the list changes a subscription asked for, each tagged with its id', () => {
    const hub = new SubscriptionHub();
    const tools = new RecordingSink();
    const prompts = new RecordingSink();
    const everything = new RecordingSink();
    hub.open('tools', { toolsListChanged: true }, tools);
    hub.open('prompts', { promptsListChanged: true }, prompts);
    hub.open('all', { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true }, everything);

    for (const list of ['tools', 'prompts', 'resources'] as const) {
      hub.publish({ type: 'list_changed', list });
    }

    expect(tools.methods).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
    expect(prompts.methods).toEqual(['notifications/subscriptions/acknowledged', 'notifications/prompts/list_changed']);
    expect(everything.methods).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ]);
    expect(tools.messages[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID]: 'tools' } },
    });
    for (const [sink, id] of [
      [tools, 'tools'],
      [prompts, 'prompts'],
      [everything, 'all'],
    ] as const) {
      expect(sink.messages.every((message) => message.params?._meta?.[SUBSCRIPTION_ID as never] === id)).toBe(true);
    }
  });

  it('sends resource updates only for the URIs a subscription listed', () => {
    const hub = new SubscriptionHub();
    const a = new RecordingSink();
    const ab = new RecordingSink();
    const lists = new RecordingSink();
    hub.open(1, { resourceSubscriptions: ['file:///a'] }, a);
    hub.open(2, { resourceSubscriptions: ['file:///a', 'file:///b'] }, ab);
    hub.open(3, { toolsListChanged: true, resourcesListChanged: true }, lists);

    hub.publish({ type: 'resource_updated', uri: 'file:///b' });
    hub.publish({ type: 'resource_updated', uri: 'file:///a' });
    hub.publish({ type: 'resource_updated', uri: 'file:///other' });

    expect(a.messages.slice(1)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { _meta: { [SUBSCRIPTION_ID]: 1 }, uri: 'file:///a' },
      },
    ]);
    expect(ab.messages.slice(1).map((message) => message.params?.uri)).toEqual(['file:///b', 'file:///a']);
    expect(lists.messages.slice(1)).toEqual([]);
  });

  it('sends notifications/tasks only to the subscriptions that named the task, until they end', () => {
    const hub = new SubscriptionHub();
    const one = new RecordingSink();
    const both = new RecordingSink();
    const lists = new RecordingSink();
    const first = hub.open(1, { taskIds: ['task-1'] }, one);
    hub.open(2, { taskIds: ['task-1', 'task-2'] }, both);
    hub.open(3, { toolsListChanged: true }, lists);

    const params = { taskId: 'task-2', status: 'completed' };
    hub.publish({ type: 'task_status', taskId: 'task-2', params });
    hub.publish({ type: 'task_status', taskId: 'task-1', params: { taskId: 'task-1', status: 'working' } });
    hub.publish({ type: 'task_status', taskId: 'task-3', params: { taskId: 'task-3', status: 'working' } });

    expect(one.messages.slice(1)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { _meta: { [SUBSCRIPTION_ID]: 1 }, taskId: 'task-1', status: 'working' },
      },
    ]);
    expect(both.messages.slice(1).map((message) => message.params?.taskId)).toEqual(['task-2', 'task-1']);
    expect(lists.messages.slice(1)).toEqual([]);

    first.cancel();
    hub.publish({ type: 'task_status', taskId: 'task-1', params: { taskId: 'task-1', status: 'completed' } });
    expect(one.messages).toHaveLength(2);
    expect(both.messages.slice(3).map((message) => message.params?.status)).toEqual(['completed']);
  });

  it("publishes an event's extra _meta (a watcher's context) beside each subscription's own id, which it cannot replace", () => {
    const hub = new SubscriptionHub();
    const sink = new RecordingSink();
    hub.open(1, { toolsListChanged: true, resourceSubscriptions: ['file:///a'], taskIds: ['task-1'] }, sink);
    const meta = {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      [SUBSCRIPTION_ID]: 'forged',
    };

    hub.publish({ type: 'list_changed', list: 'tools' }, meta);
    hub.publish({ type: 'resource_updated', uri: 'file:///a' }, meta);
    hub.publish({ type: 'task_status', taskId: 'task-1', params: { taskId: 'task-1', status: 'working' } }, meta);

    const expected = { traceparent: meta.traceparent, [SUBSCRIPTION_ID]: 1 };
    expect(sink.messages.slice(1).map((message) => message.params?._meta)).toEqual([expected, expected, expected]);
    expect(sink.messages[3].params).toMatchObject({ taskId: 'task-1', status: 'working' });
  });

  it('keeps subscriptions with the same id apart (two HTTP clients may both use id 1)', () => {
    const hub = new SubscriptionHub();
    const first = new RecordingSink();
    const second = new RecordingSink();
    const one = hub.open(1, { toolsListChanged: true }, first);
    hub.open(1, { toolsListChanged: true }, second);
    one.cancel();
    hub.publish({ type: 'list_changed', list: 'tools' });
    expect(first.methods).toEqual(['notifications/subscriptions/acknowledged']);
    expect(second.methods).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
  });

  it('a cancelled subscription is removed at once and is sent nothing more', async () => {
    const hub = new SubscriptionHub();
    const sink = new RecordingSink();
    const subscription = hub.open(4, { toolsListChanged: true, resourceSubscriptions: ['file:///a'] }, sink);
    subscription.cancel();
    expect(hub.size).toBe(0);
    expect(subscription.active).toBe(false);
    await expect(subscription.ended).resolves.toBe('cancelled');

    hub.publish({ type: 'list_changed', list: 'tools' });
    hub.publish({ type: 'resource_updated', uri: 'file:///a' });
    subscription.close();
    expect(sink.methods).toEqual(['notifications/subscriptions/acknowledged']);
  });

  it('a server-side close ends it with nothing sent before the final result (no notifications/cancelled)', async () => {
    const hub = new SubscriptionHub();
    const sink = new RecordingSink();
    const subscription = hub.open('listen:1', { promptsListChanged: true }, sink);
    subscription.close();
    expect(sink.methods).toEqual(['notifications/subscriptions/acknowledged']);
    await expect(subscription.ended).resolves.toBe('closed');
    expect(hub.size).toBe(0);
    expect(subscription.finalResult()).toEqual({ resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'listen:1' } });
  });

  it('closeAll ends every subscription gracefully', async () => {
    const hub = new SubscriptionHub();
    const sinks = [new RecordingSink(), new RecordingSink()];
    const subscriptions = sinks.map((sink, index) => hub.open(index, { toolsListChanged: true }, sink));
    await hub.closeAll();
    expect(hub.size).toBe(0);
    await expect(Promise.all(subscriptions.map((subscription) => subscription.ended))).resolves.toEqual([
      'closed',
      'closed',
    ]);
    expect(sinks.map((sink) => sink.methods)).toEqual([
      ['notifications/subscriptions/acknowledged'],
      ['notifications/subscriptions/acknowledged'],
    ]);
    await expect(hub.closeAll()).resolves.toBeUndefined();
  });

  it('after closeAll, a subscription that opens (a listen on its way at shutdown) is acknowledged, then ends at once', async () => {
    const hub = new SubscriptionHub();
    await hub.closeAll();
    const sink = new RecordingSink();
    const late = hub.open('late', { toolsListChanged: true }, sink);
    await expect(late.ended).resolves.toBe('closed');
    expect(hub.size).toBe(0);
    expect(sink.methods).toEqual(['notifications/subscriptions/acknowledged']);
  });

  it('closeFor ends only the subscriptions of one channel, even when another channel reuses their ids', async () => {
    const hub = new SubscriptionHub();
    const closing = new RecordingSink();
    const staying = new RecordingSink();
    const mine = [hub.open(1, { toolsListChanged: true }, closing), hub.open(2, { promptsListChanged: true }, closing)];
    const theirs = hub.open(1, { toolsListChanged: true }, staying);
    hub.closeFor(closing);
    await expect(Promise.all(mine.map((subscription) => subscription.ended))).resolves.toEqual(['closed', 'closed']);

    expect(theirs.active).toBe(true);
    expect(hub.size).toBe(1);
    hub.publish({ type: 'list_changed', list: 'tools' });
    expect(staying.methods.at(-1)).toBe('notifications/tools/list_changed');
    expect(closing.methods).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/subscriptions/acknowledged',
    ]);
  });

  it('drops a subscription whose channel throws, and still delivers to the others', () => {
    const hub = new SubscriptionHub();
    let broken = false;
    hub.open(
      1,
      { toolsListChanged: true },
      {
        notify: () => {
          if (broken) {
            throw new Error('write after end');
          }
        },
      },
    );
    const healthy = new RecordingSink();
    hub.open(2, { toolsListChanged: true }, healthy);
    broken = true;
    hub.publish({ type: 'list_changed', list: 'tools' });
    expect(hub.size).toBe(1);
    expect(healthy.methods).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
  });
});

// ---------------------------------------------------------------------------------------------
// subscriptions/listen through the engine.
// ---------------------------------------------------------------------------------------------

const EMPTY_CATALOG: Catalog = {
  version: 1,
  listTools: () => [],
  getTool: () => undefined,
  listResources: () => [],
  getResource: () => undefined,
  listTemplates: () => [],
  getTemplate: () => undefined,
  listPrompts: () => [],
  getPrompt: () => undefined,
  hasCompletions: () => false,
};

function makeEngine(options: Partial<EngineOptions> = {}): McpEngine {
  return new McpEngine(
    {
      serverInfo: { name: 'hub-spec', version: '1.0.0' },
      revisions: [MODERN, '2025-11-25'],
      pageSize: 0,
      maxUriLength: 8192,
      cacheHints: { ttlMs: 1_000, scope: 'private' },
      discoverCacheHints: { ttlMs: 1_000, scope: 'public' },
      callTimeoutMs: 0,
      defaultLogLevel: 'info',
      clientRequestTimeoutMs: 0,
      maxPendingQuestions: 32,
      requestState: { ttlMs: 60_000 },
      logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
      ...options,
    },
    EMPTY_CATALOG,
  );
}

/** The facts of a modern request, with a recording channel and a cancellation the test drives. */
function listenFacts(transport: McpTransportKind = 'streamable-http') {
  const sink = new RecordingSink();
  const abort = new AbortController();
  const held: string[] = [];
  const channel: RequestChannel = {
    notify: (message) => {
      held.push(`notify:${message.method}`);
      sink.notify(message);
    },
    hold: () => held.push('hold'),
  };
  const cancellation: CancellationSource = {
    isCancelled: () => abort.signal.aborted,
    onCancel(listener) {
      const onAbort = (): void => listener(abort.signal.reason);
      if (abort.signal.aborted) {
        onAbort();
        return () => undefined;
      }
      abort.signal.addEventListener('abort', onAbort, { once: true });
      return () => abort.signal.removeEventListener('abort', onAbort);
    },
  };
  const facts: RequestFacts = { era: 'modern', transport, cancellation, channel };
  return { facts, sink, abort, held };
}

function listenRequest(notifications: unknown, id: RequestId = 'sub-1'): JSONRPCRequest {
  return {
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: {
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
      notifications,
    },
  };
}

/** Lets the engine's promise chain run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('subscriptions/listen in the engine', () => {
  it('holds the stream, registers, then acknowledges; events flow until the client cancels', async () => {
    const engine = makeEngine();
    const { facts, sink, abort, held } = listenFacts();
    const outcome = engine.handle(facts, listenRequest({ toolsListChanged: true, taskIds: ['t'] }));
    await settle();
    expect(held).toEqual(['hold', 'notify:notifications/subscriptions/acknowledged']);
    expect(sink.messages[0].params).toEqual({
      _meta: { [SUBSCRIPTION_ID]: 'sub-1' },
      notifications: { toolsListChanged: true },
    });
    expect(engine.subscriptions.size).toBe(1);

    engine.subscriptions.publish({ type: 'list_changed', list: 'tools' });
    engine.subscriptions.publish({ type: 'list_changed', list: 'prompts' });
    expect(sink.methods.slice(1)).toEqual(['notifications/tools/list_changed']);

    abort.abort(new Error('Client disconnected'));
    expect(engine.subscriptions.size).toBe(0);
    await expect(outcome).resolves.toEqual<EngineOutcome>({ type: 'none' });
  });

  it('never registers a listener whose stream is already gone', async () => {
    const engine = makeEngine();
    const { facts, sink, abort } = listenFacts();
    abort.abort(new Error('gone'));
    expect(await engine.handle(facts, listenRequest({ toolsListChanged: true }))).toEqual({ type: 'none' });
    expect(engine.subscriptions.size).toBe(0);
    expect(sink.messages).toEqual([]);
  });

  it('is exempt from the call deadline, and a graceful close answers the listen request', async () => {
    const engine = makeEngine({ callTimeoutMs: 20 });
    const { facts, sink } = listenFacts();
    let answered = false;
    const outcome = Promise.resolve(engine.handle(facts, listenRequest({ promptsListChanged: true }, 9))).finally(
      () => {
        answered = true;
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(answered).toBe(false);
    expect(engine.subscriptions.size).toBe(1);
    // A running request, and a long-lived one: a shutdown counts it apart from the calls.
    expect(engine.running.size).toBe(1);
    expect(engine.running.longLived).toBe(1);

    await engine.subscriptions.closeAll();
    expect(answered).toBe(true);
    expect(sink.messages.at(-1)?.method).toBe('notifications/subscriptions/acknowledged');
    const answer = await outcome;
    expect(answer).toEqual({
      type: 'response',
      response: {
        jsonrpc: '2.0',
        id: 9,
        result: {
          resultType: 'complete',
          _meta: { [SUBSCRIPTION_ID]: 9, [SERVER_INFO_KEY]: { name: 'hub-spec', version: '1.0.0' } },
        },
      },
    });
  });

  it.each<McpTransportKind>(['simple-http', 'sse'])('is not served on %s (-32601)', async (transport) => {
    const engine = makeEngine();
    const outcome = await engine.handle(listenFacts(transport).facts, listenRequest({ toolsListChanged: true }));
    expect(outcome).toMatchObject({ type: 'response', response: { error: { code: -32601 } } });
    expect(engine.subscriptions.size).toBe(0);
  });

  it('is not served to legacy requests (-32601)', async () => {
    const engine = makeEngine();
    const { facts } = listenFacts();
    const outcome = await engine.handle({ ...facts, era: 'legacy' }, listenRequest({ toolsListChanged: true }));
    expect(outcome).toMatchObject({ type: 'response', response: { error: { code: -32601 } } });
  });

  it('server/discover advertises change notifications only where listen is served', async () => {
    const engine = makeEngine();
    const discover = (transport: McpTransportKind) =>
      engine.handle(listenFacts(transport).facts, {
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: listenRequest({}).params,
      });
    await expect(discover('streamable-http')).resolves.toMatchObject({
      response: {
        result: {
          capabilities: {
            tools: { listChanged: true },
            resources: { subscribe: true, listChanged: true },
            prompts: { listChanged: true },
            logging: {},
          },
        },
      },
    });
    const plain = await discover('simple-http');
    expect(plain.type === 'response' && 'result' in plain.response && plain.response.result.capabilities).toEqual({
      tools: {},
      resources: {},
      prompts: {},
      logging: {},
    });
  });
});
