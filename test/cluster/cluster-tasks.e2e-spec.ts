/**
 * Tasks, listen streams and multi round-trip requests across two instances sharing one Redis:
 * a task started on one instance is read, answered and cancelled on the other (both eras), a
 * change made on one instance reaches a listen stream held by the other, a `requestState` sealed
 * by one instance is accepted by the other, and the official v2 client works through a
 * round-robin proxy. Requests are aimed at `apps[0]` (A) or `apps[1]` (B) directly wherever the
 * test is about which instance does what.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ClusterLink } from '../../lib/cluster/cluster-link.interface';
import { MCP_CLUSTER_LINK } from '../../lib/shared/mcp.constants';
import { startCluster, NOTE_URI, type Cluster } from '../fixtures/cluster-fixture';
import { legacyRequest, META, openLegacySession, post, send, SseReader, type RpcMessage } from '../fixtures/raw-rpc';
import type { TasksApp } from '../fixtures/tasks-fixture';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import {
  legacyPost,
  modernPost,
  type ModernOptions,
  openLegacyStream,
  openModernListen,
  pollFor,
  RELATED_TASK,
  rpcErrorOf,
  rpcResultOf,
  SUBSCRIPTION_ID,
  timed,
  uniqueKeyPrefix,
} from './cluster-helpers';

const TASK_ID = /^task_[0-9a-f]{32}$/;
const TERMINAL = ['completed', 'failed', 'cancelled'];
const SERVER_META = { [META.serverInfo]: { name: 'tasks-fixture', version: '0.0.1' } };
const NAME_QUESTION = {
  method: 'elicitation/create',
  params: {
    message: 'What is your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
};
const ADA = { action: 'accept', content: { name: 'Ada' } };
/** Well past the inline window (100 ms): the call is a task by then, even on a loaded machine. */
const PAST_WINDOW_MS = 600;
/** Longer than any test: work that only ends when it is cancelled. */
const FOREVER_MS = 30_000;
/** How soon a cancellation stored on one instance must abort the work on the other. */
const ABORT_WITHIN_MS = 2_000;
const LEGACY_TTL_MS = 60_000;
/** A retention short enough to pass within a test. */
const SHORT_TTL_MS = 1_000;
const ALICE: ModernOptions = { principal: 'alice' };

const textResult = (text: string) => ({ content: [{ type: 'text', text }] });

/** A label no other test uses (the probes count runs by label). */
let labels = 0;
const label = (name: string): string => `${name}-${(labels += 1)}`;

describe('cluster: tasks, listen streams and requestState across instances', () => {
  let redis: RedisServerHandle;
  let cluster: Cluster;
  let a: TasksApp;
  let b: TasksApp;
  /** Aborted after each test: ends whatever stream a test left open. */
  let cleanup: AbortController;

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  beforeEach(async () => {
    cleanup = new AbortController();
    cluster = await startCluster({ redisUrl: redis.url, keyPrefix: uniqueKeyPrefix('tasks') });
    [a, b] = cluster.apps;
  });

  afterEach(async () => {
    cleanup.abort();
    await cluster?.close();
  });

  /** A modern call that must become a task: its CreateTaskResult. */
  async function startModernTask(
    app: TasksApp,
    name: string,
    args: Record<string, unknown>,
    options: ModernOptions = ALICE,
  ): Promise<Record<string, any>> {
    const created = rpcResultOf(await modernPost(app.url, 'tools/call', { name, arguments: args }, options));
    expect(created).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.stringMatching(TASK_ID) });
    return created;
  }

  async function getModernTask(app: TasksApp, taskId: string, options: ModernOptions = ALICE) {
    return rpcResultOf(await modernPost(app.url, 'tasks/get', { taskId }, options));
  }

  function pollModernTask(
    app: TasksApp,
    taskId: string,
    done: (task: Record<string, any>) => boolean,
    what: string,
  ): Promise<Record<string, any>> {
    return pollFor(() => getModernTask(app, taskId), done, `task ${taskId} ${what}`);
  }

  describe('modern era (2026-07-28)', () => {
    it('a task running on A is seen working on B, cancelled on B, and its work on A aborts', async () => {
      const work = label('cancel-across');
      const created = await startModernTask(a, 'sleepy', { ms: FOREVER_MS, label: work });
      const { taskId } = created;

      const onB = await getModernTask(b, taskId);
      expect(onB).toMatchObject({ resultType: 'complete', taskId, status: 'working', createdAt: created.createdAt });
      expect(onB).not.toHaveProperty('result');
      // Another principal cannot see it from B either.
      expect(rpcErrorOf(await modernPost(b.url, 'tasks/get', { taskId }, { principal: 'mallory' })).code).toBe(-32602);

      const ack = rpcResultOf(await modernPost(b.url, 'tasks/cancel', { taskId }, ALICE));
      expect(ack).toEqual({ resultType: 'complete', _meta: SERVER_META });
      const { ms } = await timed(() => a.probe.whenAborted(work, ABORT_WITHIN_MS));
      expect(ms).toBeLessThan(ABORT_WITHIN_MS);

      for (const app of [a, b]) {
        const task = await getModernTask(app, taskId);
        expect(task).toMatchObject({ taskId, status: 'cancelled' });
        expect(task).not.toHaveProperty('result');
      }
      expect(a.probe.runs(work)).toBe(1);
      expect(b.probe.runs(work)).toBe(0);
      expect(b.probe.aborted).not.toContain(work);
    });

    it('a question of a task on A is answered on B: the work on A resumes and completes, read on B', async () => {
      const work = label('ask-across');
      const { taskId } = await startModernTask(a, 'ask_name', { ms: PAST_WINDOW_MS, label: work });

      const waiting = await pollModernTask(b, taskId, (task) => task.status !== 'working', 'to ask on B');
      expect(waiting).toMatchObject({ status: 'input_required', inputRequests: { name: NAME_QUESTION } });

      // A malformed answer is refused on B, and changes nothing.
      const refused = await modernPost(
        b.url,
        'tasks/update',
        { taskId, inputResponses: { name: { action: 'maybe' } } },
        ALICE,
      );
      expect(refused.status).toBe(400);
      expect(rpcErrorOf(refused).code).toBe(-32602);
      expect(await getModernTask(a, taskId)).toMatchObject({
        status: 'input_required',
        inputRequests: { name: NAME_QUESTION },
      });

      expect(
        rpcResultOf(await modernPost(b.url, 'tasks/update', { taskId, inputResponses: { name: ADA } }, ALICE)),
      ).toEqual({ resultType: 'complete', _meta: SERVER_META });
      const done = await pollModernTask(b, taskId, (task) => TERMINAL.includes(task.status), 'to end, read on B');
      expect(done).toMatchObject({ status: 'completed', result: textResult(`Hello, Ada! (task ${taskId})`) });
      expect(done).not.toHaveProperty('inputRequests');
      // The work ran once, on A, and was never aborted.
      expect(a.probe.runs(work)).toBe(1);
      expect(b.probe.runs(work)).toBe(0);
      expect(a.probe.aborted).not.toContain(work);
    });

    it('a task that finished on A is read with its result on B', async () => {
      const work = label('finished-on-a');
      const { taskId } = await startModernTask(a, 'sleepy', { ms: PAST_WINDOW_MS, label: work });
      const done = await pollModernTask(b, taskId, (task) => TERMINAL.includes(task.status), 'to end, read on B');
      expect(done).toMatchObject({ resultType: 'complete', taskId, status: 'completed' });
      expect(done.result).toEqual(textResult(`slept ${work}`));
      expect(await getModernTask(a, taskId)).toEqual(done);
      expect(a.probe.runs(work)).toBe(1);
      expect(b.probe.runs(work)).toBe(0);
    });
  });

  describe('legacy era (2025-11-25)', () => {
    /** Opens a session on A; every instance serves it (the session lives in Redis). */
    async function legacySession(): Promise<Record<string, string>> {
      const { headers, protocolVersion } = await openLegacySession(a.url, '2025-11-25');
      expect(protocolVersion).toBe('2025-11-25');
      return headers;
    }

    async function startLegacyTask(
      app: TasksApp,
      headers: Record<string, string>,
      name: string,
      args: Record<string, unknown>,
      ttl = LEGACY_TTL_MS,
    ): Promise<Record<string, any>> {
      const created = rpcResultOf(
        await legacyPost(app.url, headers, 'tools/call', { name, arguments: args, task: { ttl } }, 'call'),
      );
      expect(created.task).toMatchObject({ status: 'working', ttl });
      return created.task;
    }

    const EXPIRED = { status: 'failed', statusMessage: 'Task expired' };

    it('a task polled on B past its TTL reads failed "Task expired" at once, its work on A stops, and tasks/result agrees', async () => {
      const headers = await legacySession();
      const work = label('legacy-ttl-poll');
      const { taskId } = await startLegacyTask(a, headers, 'sleepy', { ms: FOREVER_MS, label: work }, SHORT_TTL_MS);
      expect(rpcResultOf(await legacyPost(b.url, headers, 'tasks/get', { taskId }, 'get'))).toMatchObject({
        status: 'working',
      });
      await new Promise((resolve) => setTimeout(resolve, SHORT_TTL_MS + 100));

      // Read on B after the TTL, long before any sweep (every 60 s): failed, not working.
      expect(rpcResultOf(await legacyPost(b.url, headers, 'tasks/get', { taskId }, 'get'))).toMatchObject({
        taskId,
        ...EXPIRED,
      });
      await a.probe.whenAborted(work, ABORT_WITHIN_MS);
      expect(rpcResultOf(await legacyPost(a.url, headers, 'tasks/get', { taskId }, 'get'))).toMatchObject(EXPIRED);
      expect(rpcErrorOf(await legacyPost(a.url, headers, 'tasks/result', { taskId }, 'result'))).toEqual({
        code: -32603,
        message: 'Task expired',
      });
      const listed = rpcResultOf(await legacyPost(b.url, headers, 'tasks/list', {}, 'list'));
      expect(listed.tasks).toEqual([expect.objectContaining({ taskId, ...EXPIRED })]);
    });

    it('a work that ends past its TTL does not complete the task: no completion is announced, and it reads expired', async () => {
      const headers = await legacySession();
      const stream = await openLegacyStream(b.url, headers, cleanup.signal);
      const work = label('legacy-ttl-late');
      const { taskId } = await startLegacyTask(
        a,
        headers,
        'sleepy',
        { ms: SHORT_TTL_MS + 300, label: work },
        SHORT_TTL_MS,
      );

      // Nobody reads the task until its work ended on A, after its TTL.
      const statuses = await readUntil(
        stream,
        (message) =>
          message.method === 'notifications/tasks/status' &&
          message.params?.taskId === taskId &&
          TERMINAL.includes(String(message.params?.status)),
      );
      expect(statuses.at(-1)?.params).toMatchObject({ taskId, ...EXPIRED });
      expect(statuses.map((message) => message.params?.status)).not.toContain('completed');
      for (const app of [a, b]) {
        expect(rpcResultOf(await legacyPost(app.url, headers, 'tasks/get', { taskId }, 'get'))).toMatchObject(EXPIRED);
        expect(rpcErrorOf(await legacyPost(app.url, headers, 'tasks/result', { taskId }, 'result'))).toEqual({
          code: -32603,
          message: 'Task expired',
        });
      }
      expect(a.probe.runs(work)).toBe(1);
    });

    it('tasks/result on B waits for the work on A and answers its CallToolResult; tasks/list on B lists it', async () => {
      const headers = await legacySession();
      const work = label('legacy-result');
      const { taskId } = await startLegacyTask(a, headers, 'sleepy', { ms: 1_000, label: work });

      const before = rpcResultOf(await legacyPost(b.url, headers, 'tasks/get', { taskId }, 'get'));
      expect(before).toMatchObject({ taskId, status: 'working' });
      const result = rpcResultOf(await legacyPost(b.url, headers, 'tasks/result', { taskId }, 'result'));
      expect(result).toEqual({ ...textResult(`slept ${work}`), _meta: { [RELATED_TASK]: { taskId } } });
      // The waiter on B was answered because the work on A ended, not by a run of its own.
      expect(a.probe.runs(work)).toBe(1);
      expect(b.probe.runs(work)).toBe(0);

      const listed = rpcResultOf(await legacyPost(b.url, headers, 'tasks/list', {}, 'list'));
      expect(listed.tasks).toEqual([expect.objectContaining({ taskId, status: 'completed', ttl: LEGACY_TTL_MS })]);
    });

    it('tasks/cancel on B cancels the task and aborts its work on A', async () => {
      const headers = await legacySession();
      const work = label('legacy-cancel');
      const { taskId } = await startLegacyTask(a, headers, 'sleepy', { ms: FOREVER_MS, label: work });

      const cancelled = rpcResultOf(await legacyPost(b.url, headers, 'tasks/cancel', { taskId }, 'cancel'));
      expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
      const { ms } = await timed(() => a.probe.whenAborted(work, ABORT_WITHIN_MS));
      expect(ms).toBeLessThan(ABORT_WITHIN_MS);
      expect(rpcResultOf(await legacyPost(a.url, headers, 'tasks/get', { taskId }, 'get'))).toMatchObject({
        status: 'cancelled',
      });
    });

    it("the task's status notifications reach the session's GET stream held on B while the work runs on A", async () => {
      const headers = await legacySession();
      const stream = await openLegacyStream(b.url, headers, cleanup.signal);
      const work = label('legacy-status');
      const { taskId } = await startLegacyTask(a, headers, 'sleepy', { ms: 300, label: work });

      const statuses = await readUntil(
        stream,
        (message) => message.method === 'notifications/tasks/status' && message.params?.status === 'completed',
      );
      const mine = statuses.filter(
        (message) => message.method === 'notifications/tasks/status' && message.params?.taskId === taskId,
      );
      expect(mine.at(-1)?.params).toMatchObject({ taskId, status: 'completed', ttl: LEGACY_TTL_MS });
      expect(mine.every((message) => ['working', 'completed'].includes(message.params?.status))).toBe(true);
      expect(a.probe.runs(work)).toBe(1);
    });

    it("a question of a task running on A comes on B's GET stream; the answer POSTed to B reaches A", async () => {
      const { headers } = await openLegacySession(a.url, '2025-11-25', { capabilities: { elicitation: {} } });
      const stream = await openLegacyStream(b.url, headers, cleanup.signal);
      const work = label('legacy-ask');
      const { taskId } = await startLegacyTask(a, headers, 'ask_name', { ms: 200, label: work });

      const [question] = (await readUntil(stream, (message) => message.method === 'elicitation/create')).slice(-1);
      expect(question).toMatchObject({
        id: expect.any(String),
        params: { ...NAME_QUESTION.params, _meta: { [RELATED_TASK]: { taskId } } },
      });
      // The id names the instance that asked: A.
      const asker = a.app.get<ClusterLink>(MCP_CLUSTER_LINK).instanceId;
      expect(String(question.id)).toMatch(new RegExp(`^${asker}\\.\\d+$`));
      const answered = await post(b.url, { jsonrpc: '2.0', id: question.id, result: ADA }, headers);
      expect(answered.status).toBe(202);

      const result = rpcResultOf(await legacyPost(b.url, headers, 'tasks/result', { taskId }, 'result'));
      expect(result).toEqual({ ...textResult(`Hello, Ada! (task ${taskId})`), _meta: { [RELATED_TASK]: { taskId } } });
      expect(a.probe.runs(work)).toBe(1);
      expect(b.probe.runs(work)).toBe(0);
    });
    it('without a GET stream, a question of a task running on A comes on a tasks/result waiting on B', async () => {
      const { headers } = await openLegacySession(a.url, '2025-11-25', { capabilities: { elicitation: {} } });
      const work = label('legacy-ask-result');
      const { taskId } = await startLegacyTask(a, headers, 'ask_name', { ms: 200, label: work });

      // tasks/result on B: the stream of its answer carries the question A's work asks meanwhile.
      const response = await send(b.url, {
        body: legacyRequest('tasks/result', { taskId }, 'result-b'),
        headers,
        signal: cleanup.signal,
      });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const reader = new SseReader(response);
      const question = await reader.next();
      expect(question).toMatchObject({
        method: 'elicitation/create',
        params: { ...NAME_QUESTION.params, _meta: { [RELATED_TASK]: { taskId } } },
      });
      const asker = a.app.get<ClusterLink>(MCP_CLUSTER_LINK).instanceId;
      expect(String(question.id)).toMatch(new RegExp(`^${asker}\\.\\d+$`));
      // The answer goes to B too; it is forwarded to the call waiting on A.
      expect((await post(b.url, { jsonrpc: '2.0', id: question.id, result: ADA }, headers)).status).toBe(202);

      const answer = await reader.next();
      expect(answer).toEqual({
        jsonrpc: '2.0',
        id: 'result-b',
        result: { ...textResult(`Hello, Ada! (task ${taskId})`), _meta: { [RELATED_TASK]: { taskId } } },
      });
      expect(a.probe.runs(work)).toBe(1);
      expect(b.probe.runs(work)).toBe(0);
    });
  });

  describe('listen streams', () => {
    it("a change made on B reaches A's listen stream: resource updated and tools list changed", async () => {
      const { reader, ack } = await openModernListen(
        a.url,
        { toolsListChanged: true, resourceSubscriptions: [NOTE_URI] },
        { id: 'listen-a', signal: cleanup.signal },
      );
      expect(ack.params?.notifications).toEqual({ toolsListChanged: true, resourceSubscriptions: [NOTE_URI] });

      const touched = rpcResultOf(
        await modernPost(b.url, 'tools/call', { name: 'touch_note', arguments: { lists: true } }),
      );
      expect(touched.content).toEqual([{ type: 'text', text: 'touched 1' }]);

      const received = [await reader.next(), await reader.next()];
      expect(received).toEqual(
        expect.arrayContaining([
          {
            jsonrpc: '2.0',
            method: 'notifications/resources/updated',
            params: { _meta: { [SUBSCRIPTION_ID]: 'listen-a' }, uri: NOTE_URI },
          },
          {
            jsonrpc: '2.0',
            method: 'notifications/tools/list_changed',
            params: { _meta: { [SUBSCRIPTION_ID]: 'listen-a' } },
          },
        ]),
      );
      // Each change once: nothing more comes.
      await expect(reader.next(300)).rejects.toThrow(/Timed out/);
    });

    it('taskIds on a listen stream at A follow a task running on B', async () => {
      const work = label('listened');
      const { taskId } = await startModernTask(b, 'ask_name', { ms: PAST_WINDOW_MS, label: work });
      const { reader, ack } = await openModernListen(
        a.url,
        { taskIds: [taskId] },
        { ...ALICE, id: 'tasks-a', signal: cleanup.signal },
      );
      expect(ack).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { [SUBSCRIPTION_ID]: 'tasks-a' }, notifications: { taskIds: [taskId] } },
      });

      const asking = await nextTaskStatus(reader, 'input_required');
      expect(asking.params).toMatchObject({
        _meta: { [SUBSCRIPTION_ID]: 'tasks-a' },
        taskId,
        inputRequests: { name: NAME_QUESTION },
      });
      // Answered on A: the answer goes to B, where the work runs.
      rpcResultOf(await modernPost(a.url, 'tasks/update', { taskId, inputResponses: { name: ADA } }, ALICE));
      const completed = await nextTaskStatus(reader, 'completed');
      expect(completed.params).toMatchObject({
        _meta: { [SUBSCRIPTION_ID]: 'tasks-a' },
        taskId,
        result: textResult(`Hello, Ada! (task ${taskId})`),
      });
      expect(b.probe.runs(work)).toBe(1);
      expect(a.probe.runs(work)).toBe(0);
    });
  });

  describe('requestState', () => {
    it('a multi round-trip call started on A is finished by its retry on B', async () => {
      const options: ModernOptions = { tasks: false, principal: 'rounds' };
      const first = rpcResultOf(await modernPost(a.url, 'tools/call', { name: 'ask_at_once', arguments: {} }, options));
      expect(first).toMatchObject({
        resultType: 'input_required',
        inputRequests: { name: NAME_QUESTION },
        requestState: expect.any(String),
      });
      expect(first).not.toHaveProperty('taskId');

      const retry = rpcResultOf(
        await modernPost(
          b.url,
          'tools/call',
          { name: 'ask_at_once', arguments: {}, requestState: first.requestState, inputResponses: { name: ADA } },
          { ...options, id: 2 },
        ),
      );
      expect(retry).toEqual({ ...textResult('Hello, Ada!'), resultType: 'complete', _meta: SERVER_META });
      expect(a.probe.runs('ask_at_once')).toBe(1);
      expect(b.probe.runs('ask_at_once')).toBe(1);
    });
  });

  describe('requestState without a shared secret', () => {
    let unshared: Cluster;

    beforeEach(async () => {
      // Each instance then seals with a key of its own (and warns about it at startup).
      unshared = await startCluster({
        redisUrl: redis.url,
        keyPrefix: uniqueKeyPrefix('unshared'),
        overrides: { requestState: { secret: undefined } },
      });
    });

    afterEach(async () => {
      await unshared?.close();
    });

    it('a retry on B of a round sealed by A is refused (-32602), as the startup warning says', async () => {
      const [first, second] = unshared.apps;
      const options: ModernOptions = { tasks: false, principal: 'rounds' };
      const round = rpcResultOf(
        await modernPost(first.url, 'tools/call', { name: 'ask_at_once', arguments: {} }, options),
      );
      expect(round).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
      const params = {
        name: 'ask_at_once',
        arguments: {},
        requestState: round.requestState,
        inputResponses: { name: ADA },
      };
      const refused = await modernPost(second.url, 'tools/call', params, { ...options, id: 2 });
      expect(rpcErrorOf(refused)).toMatchObject({ code: -32602, message: 'Invalid requestState' });
      // The instance that sealed it still takes it.
      const retry = rpcResultOf(await modernPost(first.url, 'tools/call', params, { ...options, id: 3 }));
      expect(retry).toMatchObject(textResult('Hello, Ada!'));
    });
  });

  describe('the official v2 client through the proxy', () => {
    it('lists, calls and answers a multi round-trip call whose rounds land on different instances', async () => {
      const questions: Array<Record<string, unknown>> = [];
      const client = new Client(
        { name: 'v2-cluster-e2e', version: '2.0.0' },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      client.setRequestHandler('elicitation/create', (request) => {
        questions.push(request.params);
        return { action: 'accept', content: { name: 'Grace' } };
      });
      await client.connect(new StreamableHTTPClientTransport(cluster.url));
      try {
        expect(client.getProtocolEra()).toBe('modern');
        for (let round = 0; round < 3; round += 1) {
          const { tools } = await client.listTools();
          expect(tools.map((tool) => tool.name)).toEqual(
            expect.arrayContaining(['sleepy', 'ask_at_once', 'touch_note']),
          );
          const work = label('v2-call');
          const result = await client.callTool({ name: 'sleepy', arguments: { ms: 0, label: work } });
          expect(result.content).toEqual([{ type: 'text', text: `slept ${work}` }]);
        }

        const asked = await client.callTool({ name: 'ask_at_once', arguments: {} });
        expect(asked.content).toEqual([{ type: 'text', text: 'Hello, Grace!' }]);
        expect(questions).toEqual([expect.objectContaining({ message: 'What is your name?' })]);
        // The first round and its retry were two requests in a row: one on each instance.
        expect([a.probe.runs('ask_at_once'), b.probe.runs('ask_at_once')]).toEqual([1, 1]);
        expect(cluster.proxy.hits.every((hits) => hits > 2)).toBe(true);
      } finally {
        await client.close();
      }
    });
  });
});

/** Reads messages off a stream until one satisfies `last`; returns every message read, that one included. */
async function readUntil(reader: SseReader, last: (message: RpcMessage) => boolean): Promise<RpcMessage[]> {
  const read: RpcMessage[] = [];
  for (;;) {
    const message = await reader.next();
    read.push(message);
    if (last(message)) {
      return read;
    }
  }
}

/**
 * The next `notifications/tasks` with `status`; `working` notifications before it are passed
 * over (the task may report it was working before the listen stream opened), anything else fails.
 */
async function nextTaskStatus(reader: SseReader, status: string): Promise<RpcMessage> {
  for (;;) {
    const message = await reader.next();
    expect(message.method).toBe('notifications/tasks');
    if (message.params?.status === status) {
      return message;
    }
    expect(message.params?.status).toBe('working');
  }
}
