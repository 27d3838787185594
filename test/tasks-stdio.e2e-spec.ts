/**
 * Tasks over stdio, end to end: the tasks fixture spawned as a real MCP client spawns a server
 * (`test/fixtures/tasks-stdio-main.ts` under ts-node), one process per era.
 *
 * - 2025-11-25: the SDK v1 client over its `StdioClientTransport`, with its experimental task
 *   API (`callToolStream`, `getTask`, `getTaskResult`, `listTasks`, `cancelTask`), an
 *   elicitation handler, and a handler for `notifications/tasks/status`.
 * - 2026-07-28: the v2 client's `StdioClientTransport` carrying raw JSON-RPC lines (the v2
 *   client has no API for the tasks extension): the extension declared per request in
 *   `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`, `tasks/get` polling,
 *   `tasks/update`, `tasks/cancel`, and `subscriptions/listen` with `notifications.taskIds`.
 *
 * The server runs in another process, so its probe cannot be read: what happened to the work is
 * read from the task's status and what the client received. Each spawn compiles the fixture with
 * ts-node (SWC, `tsEntry`) and takes a few seconds, hence one process per era and generous timeouts.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type ElicitRequest,
  McpError as V1McpError,
  RELATED_TASK_META_KEY,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport as V2StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { MCP_TASKS_EXTENSION } from 'nest-mcp';
import { Collector, META, modernRequest, type RpcMessage } from './fixtures/raw-rpc';
import { tsEntry } from './support/server-process';

const SPAWN_TIMEOUT_MS = 90_000;
const TEST_TIMEOUT_MS = 30_000;
/** The fixture's poll interval: short, so that polling clients do not wait a second between polls. */
const POLL_INTERVAL_MS = 100;
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** How both clients spawn the fixture (their `StdioClientTransport` parameters). */
function fixtureServer() {
  const env = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  return {
    ...tsEntry('test/fixtures/tasks-stdio-main.ts'),
    env: { ...env, MCP_TASKS_OPTIONS: JSON.stringify({ pollIntervalMs: POLL_INTERVAL_MS }) },
    stderr: 'pipe' as const,
  };
}

/** Collects a child's stderr, to show it when a test fails. */
function collectStderr(stream: unknown): () => string {
  let text = '';
  const readable = stream as NodeJS.ReadableStream | null;
  readable?.setEncoding?.('utf8');
  readable?.on('data', (chunk: string) => (text += chunk));
  return () => text;
}

/** Runs `body`; a failure carries the server's stderr. */
function withServerLog(stderr: () => string, body: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await body();
    } catch (error) {
      throw new Error(`${String(error)}\n--- server stderr ---\n${stderr()}`, { cause: error });
    }
  };
}

/** The text of the first content block of a tool result. */
function firstText(result: unknown): string {
  const content = (result as { content?: Array<{ text?: unknown }> } | undefined)?.content;
  return String(content?.[0]?.text);
}

describe('tasks over stdio', () => {
  describe('2025-11-25: the SDK v1 client and its experimental task API', () => {
    let transport: V1StdioClientTransport;
    let client: V1Client;
    let stderr: () => string = () => '';
    /** Every `notifications/tasks/status` received (params = Task). */
    const statuses = new Collector<{ taskId: string; status: string; [key: string]: unknown }>();
    /** Every `elicitation/create` received. */
    const elicitations = new Collector<ElicitRequest['params']>();

    beforeAll(async () => {
      transport = new V1StdioClientTransport(fixtureServer());
      stderr = collectStderr(transport.stderr);
      client = new V1Client({ name: 'v1-tasks-stdio-e2e', version: '1.0.0' }, { capabilities: { elicitation: {} } });
      client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
        statuses.push(notification.params);
      });
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        elicitations.push(request.params);
        return { action: 'accept', content: { name: 'Ada' } };
      });
      try {
        await client.connect(transport);
      } catch (error) {
        throw new Error(`${String(error)}\n--- server stderr ---\n${stderr()}`, { cause: error });
      }
    }, SPAWN_TIMEOUT_MS);

    afterAll(async () => {
      await client?.close();
    });

    const legacyIt = (name: string, body: () => Promise<void>): void =>
      it(
        name,
        withServerLog(() => stderr(), body),
        TEST_TIMEOUT_MS,
      );

    legacyIt('negotiates 2025-11-25 with the tasks capability; tools/list tells each tool’s taskSupport', async () => {
      expect(client.getServerCapabilities()?.tasks).toEqual({
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get('sleepy')?.execution).toEqual({ taskSupport: 'optional' });
      expect(byName.get('only_task')?.execution).toEqual({ taskSupport: 'required' });
      expect(byName.get('plain')?.execution).toBeUndefined();

      // A required-task tool called without the task param (bypassing the client's own guard).
      await expect(
        client.request(
          { method: 'tools/call', params: { name: 'only_task', arguments: { ms: 0 } } },
          CallToolResultSchema,
        ),
      ).rejects.toMatchObject({ code: -32601 });
    });

    legacyIt(
      'callToolStream: taskCreated, then the result; tasks/get, tasks/list and tasks/status notifications know the task',
      async () => {
        const messages = [];
        for await (const message of client.experimental.tasks.callToolStream(
          { name: 'sleepy', arguments: { ms: 300, label: 'legacy-stream' } },
          CallToolResultSchema,
          { task: { ttl: 60_000 } },
        )) {
          messages.push(message);
        }
        const [created] = messages;
        expect(created.type).toBe('taskCreated');
        if (created.type !== 'taskCreated') {
          return;
        }
        const { task } = created;
        expect(task).toEqual({
          taskId: expect.any(String),
          status: 'working',
          createdAt: expect.stringMatching(ISO_DATE),
          lastUpdatedAt: expect.stringMatching(ISO_DATE),
          ttl: 60_000,
          pollInterval: POLL_INTERVAL_MS,
        });
        const last = messages[messages.length - 1];
        expect(last.type).toBe('result');
        if (last.type !== 'result') {
          return;
        }
        expect(last.result.content).toEqual([{ type: 'text', text: 'slept legacy-stream' }]);
        expect(last.result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: task.taskId });
        // The stream polled tasks/get until the task completed.
        const polled = messages.filter((message) => message.type === 'taskStatus');
        expect(polled.length).toBeGreaterThan(0);
        expect(polled[polled.length - 1]).toMatchObject({ task: { taskId: task.taskId, status: 'completed' } });

        const fetched = await client.experimental.tasks.getTask(task.taskId);
        expect(fetched).toMatchObject({
          taskId: task.taskId,
          status: 'completed',
          ttl: 60_000,
          createdAt: task.createdAt,
        });
        // tasks/result keeps answering the result of a completed task.
        const again = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        expect(firstText(again)).toBe('slept legacy-stream');

        const listed = await client.experimental.tasks.listTasks();
        expect(listed.tasks).toEqual(
          expect.arrayContaining([expect.objectContaining({ taskId: task.taskId, status: 'completed' })]),
        );

        // The session's stream (stdout) carried the task's status changes.
        const [completed] = await statuses.waitFor(
          1,
          (params) => params.taskId === task.taskId && params.status === 'completed',
        );
        expect(completed).toMatchObject({ ttl: 60_000, pollInterval: POLL_INTERVAL_MS, createdAt: task.createdAt });
      },
    );

    legacyIt(
      'tasks/cancel: the task ends cancelled, the stream ends with an error, tasks/result answers -32602',
      async () => {
        const stream = client.experimental.tasks.callToolStream(
          { name: 'sleepy', arguments: { ms: 30_000, label: 'legacy-cancel' } },
          CallToolResultSchema,
          { task: { ttl: 60_000 } },
        );
        const first = await stream.next();
        expect(first.value).toMatchObject({ type: 'taskCreated', task: { status: 'working' } });
        const taskId = (first.value as { task: { taskId: string } }).task.taskId;

        const cancelled = await client.experimental.tasks.cancelTask(taskId);
        expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });

        // The client's poll sees the cancellation and ends the stream with an error.
        const rest = [];
        for await (const message of stream) {
          rest.push(message);
        }
        expect(rest[rest.length - 1]).toMatchObject({ type: 'error' });
        expect(rest).toContainEqual(
          expect.objectContaining({
            type: 'taskStatus',
            task: expect.objectContaining({ taskId, status: 'cancelled' }),
          }),
        );

        expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'cancelled' });
        const result = client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
        await expect(result).rejects.toBeInstanceOf(V1McpError);
        await expect(result).rejects.toMatchObject({ code: -32602 });
        // Terminal is final: a second cancel is refused.
        await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({ code: -32602 });
        await statuses.waitFor(1, (params) => params.taskId === taskId && params.status === 'cancelled');
      },
    );

    legacyIt(
      'input inside a task: elicitation/create carries the related task, the task is input_required, then completes with the answer',
      async () => {
        const messages = [];
        for await (const message of client.experimental.tasks.callToolStream(
          { name: 'ask_name', arguments: { ms: 200, label: 'legacy-ask' } },
          CallToolResultSchema,
          { task: { ttl: 60_000 } },
        )) {
          messages.push(message);
        }
        const created = messages[0];
        expect(created).toMatchObject({ type: 'taskCreated' });
        const taskId = (created as { task: { taskId: string } }).task.taskId;

        const [question] = await elicitations.waitFor(
          1,
          (params) => (params._meta?.[RELATED_TASK_META_KEY] as { taskId?: string } | undefined)?.taskId === taskId,
        );
        expect(question).toMatchObject({
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          _meta: { [RELATED_TASK_META_KEY]: { taskId } },
        });

        const last = messages[messages.length - 1];
        expect(last).toMatchObject({ type: 'result' });
        expect(firstText((last as { result: unknown }).result)).toBe(`Hello, Ada! (task ${taskId})`);
        expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'completed' });

        // The status notifications told the client that the task waited for it, then completed.
        const seen = await statuses.waitFor(
          2,
          (params) => params.taskId === taskId && ['input_required', 'completed'].includes(params.status),
        );
        expect(seen.map((params) => params.status)).toEqual(expect.arrayContaining(['input_required', 'completed']));
      },
    );
  });

  describe('2026-07-28: raw JSON lines over the v2 client’s StdioClientTransport', () => {
    let transport: V2StdioClientTransport;
    let stderr: () => string = () => '';
    /** Every message the server wrote. */
    const received = new Collector<RpcMessage>();
    let nextId = 0;
    /** The answer to the `server/discover` sent first, once the fixture booted. */
    let discovered: RpcMessage;

    const WITH_TASKS = { extensions: { [MCP_TASKS_EXTENSION]: {} }, elicitation: {} };

    /** Sends a modern request (declaring `capabilities`) and resolves with its answer. */
    async function call(
      method: string,
      params: Record<string, unknown> = {},
      capabilities: Record<string, unknown> = WITH_TASKS,
    ): Promise<RpcMessage> {
      nextId += 1;
      const id = `r${nextId}`;
      await send(modernRequest(method, params, id, { [META.clientCapabilities]: capabilities }));
      const [answer] = await received.waitFor(
        1,
        (message) => message.id === id && message.method === undefined,
        10_000,
      );
      return answer;
    }

    function send(message: RpcMessage): Promise<void> {
      return transport.send(message as Parameters<V2StdioClientTransport['send']>[0]);
    }

    /** Polls tasks/get until the task's status is no longer `from`. */
    async function pollWhile(taskId: string, from: string): Promise<RpcMessage> {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const answer = await call('tasks/get', { taskId });
        if (answer.result?.status !== from || Date.now() > deadline) {
          return answer;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
      }
    }

    beforeAll(async () => {
      transport = new V2StdioClientTransport(fixtureServer());
      stderr = collectStderr(transport.stderr);
      transport.onmessage = (message) => received.push(message);
      transport.onerror = (error) =>
        received.push({ jsonrpc: '2.0', method: 'transport/error', params: { error: String(error) } });
      await transport.start();
      // The first answer comes once the fixture is compiled and booted.
      try {
        await send(modernRequest('server/discover', {}, 'discover'));
        [discovered] = await received.waitFor(1, (message) => message.id === 'discover', SPAWN_TIMEOUT_MS);
      } catch (error) {
        throw new Error(`${String(error)}\n--- server stderr ---\n${stderr()}`, { cause: error });
      }
    }, SPAWN_TIMEOUT_MS);

    afterAll(async () => {
      await transport?.close();
    });

    const modernIt = (name: string, body: () => Promise<void>): void =>
      it(
        name,
        withServerLog(() => stderr(), body),
        TEST_TIMEOUT_MS,
      );

    modernIt('server/discover announces the tasks extension', async () => {
      expect(discovered.error).toBeUndefined();
      expect(discovered.result?.capabilities?.extensions).toEqual({ [MCP_TASKS_EXTENSION]: {} });
    });

    modernIt(
      'sleepy {ms: 1000} with the extension: a flat CreateTaskResult, then tasks/get polls to completed with the result inline',
      async () => {
        const answer = await call('tools/call', { name: 'sleepy', arguments: { ms: 1000, label: 'modern-sleepy' } });
        expect(answer.error).toBeUndefined();
        expect(answer.result).toEqual({
          resultType: 'task',
          taskId: expect.any(String),
          status: 'working',
          createdAt: expect.stringMatching(ISO_DATE),
          lastUpdatedAt: expect.stringMatching(ISO_DATE),
          ttlMs: expect.any(Number),
          pollIntervalMs: POLL_INTERVAL_MS,
          _meta: { [META.serverInfo]: { name: 'tasks-fixture', version: '0.0.1' } },
        });
        const taskId = String(answer.result?.taskId);

        const done = await pollWhile(taskId, 'working');
        expect(done.result).toMatchObject({
          resultType: 'complete',
          taskId,
          status: 'completed',
          result: { content: [{ type: 'text', text: 'slept modern-sleepy' }] },
        });
        expect(done.result).not.toHaveProperty('inputRequests');
      },
    );

    modernIt('tasks/cancel acknowledges; the task ends cancelled; cancelling again is acknowledged too', async () => {
      const answer = await call('tools/call', { name: 'sleepy', arguments: { ms: 30_000, label: 'modern-cancel' } });
      expect(answer.result).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = String(answer.result?.taskId);

      const ack = await call('tasks/cancel', { taskId });
      expect(ack.error).toBeUndefined();
      expect(ack.result).toMatchObject({ resultType: 'complete' });
      expect((await call('tasks/get', { taskId })).result).toMatchObject({ taskId, status: 'cancelled' });
      // Idempotent on a terminal task.
      expect((await call('tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
      expect((await call('tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
      // An unknown task is refused.
      expect((await call('tasks/cancel', { taskId: 'no-such-task' })).error).toMatchObject({ code: -32602 });
    });

    modernIt(
      'ask_name {ms: 300}: input_required with inputRequests; a listen on its id hears notifications/tasks; tasks/update completes it',
      async () => {
        const answer = await call('tools/call', { name: 'ask_name', arguments: { ms: 300, label: 'modern-ask' } });
        expect(answer.result).toMatchObject({ resultType: 'task', status: 'working' });
        const taskId = String(answer.result?.taskId);

        const waiting = await pollWhile(taskId, 'working');
        expect(waiting.result).toMatchObject({
          status: 'input_required',
          inputRequests: {
            name: {
              method: 'elicitation/create',
              params: { message: 'What is your name?', requestedSchema: { properties: { name: { type: 'string' } } } },
            },
          },
        });

        // A listen on the task (and on an id it does not own, left out of the acknowledgement).
        const listenId = 'listen-tasks';
        await send(
          modernRequest('subscriptions/listen', { notifications: { taskIds: [taskId, 'not-mine'] } }, listenId, {
            [META.clientCapabilities]: WITH_TASKS,
          }),
        );
        const [ack] = await received.waitFor(
          1,
          (message) =>
            message.method === 'notifications/subscriptions/acknowledged' &&
            message.params?._meta?.[SUBSCRIPTION_ID] === listenId,
        );
        expect(ack.params?.notifications).toEqual({ taskIds: [taskId] });

        // Unknown keys are ignored; the answered one resumes the work.
        const updated = await call('tasks/update', {
          taskId,
          inputResponses: { name: { action: 'accept', content: { name: 'Ada' } }, unknown: { action: 'decline' } },
        });
        expect(updated.error).toBeUndefined();
        expect(updated.result).toMatchObject({ resultType: 'complete' });

        const isTaskNote = (message: RpcMessage): boolean =>
          message.method === 'notifications/tasks' && message.params?.taskId === taskId;
        const [completed] = await received.waitFor(
          1,
          (message) => isTaskNote(message) && message.params?.status === 'completed',
          10_000,
        );
        expect(completed.params).toMatchObject({
          _meta: { [SUBSCRIPTION_ID]: listenId },
          taskId,
          status: 'completed',
          result: { content: [{ type: 'text', text: `Hello, Ada! (task ${taskId})` }] },
        });
        // Every notification of the task went to this listen, and none named the task it does not own.
        const notes = received.items.filter(isTaskNote);
        expect(notes.every((message) => message.params?._meta?.[SUBSCRIPTION_ID] === listenId)).toBe(true);
        expect(received.items.some((message) => message.params?.taskId === 'not-mine')).toBe(false);

        expect((await call('tasks/get', { taskId })).result).toMatchObject({
          status: 'completed',
          result: { content: [{ type: 'text', text: `Hello, Ada! (task ${taskId})` }] },
        });
        await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: listenId } });
      },
    );

    modernIt(
      'without the extension: only_task is refused -32021, sleepy runs inline, tasks/get and a taskIds listen are refused',
      async () => {
        const refused = await call('tools/call', { name: 'only_task', arguments: { ms: 0 } }, {});
        expect(refused.error).toMatchObject({ code: -32021 });
        expect(refused.error?.data?.requiredCapabilities?.extensions).toHaveProperty([MCP_TASKS_EXTENSION]);

        const inline = await call('tools/call', { name: 'sleepy', arguments: { ms: 300, label: 'modern-inline' } }, {});
        expect(inline.result).toMatchObject({
          resultType: 'complete',
          content: [{ type: 'text', text: 'slept modern-inline' }],
        });
        expect(inline.result).not.toHaveProperty('taskId');

        expect((await call('tasks/get', { taskId: 'any' }, {})).error).toMatchObject({ code: -32021 });
        const listen = await call('subscriptions/listen', { notifications: { taskIds: ['any'] } }, {});
        expect(listen.error).toMatchObject({ code: -32021 });
      },
    );

    it('wrote nothing but JSON-RPC 2.0 lines on stdout all along', () => {
      // A line the transport could not parse would have been reported as a transport error.
      expect(received.items.length).toBeGreaterThan(0);
      expect(received.items.filter((message) => message.method === 'transport/error')).toEqual([]);
      expect(received.items.every((message) => message.jsonrpc === '2.0')).toBe(true);
    });
  });
});
