/**
 * Tasks in the legacy era (2025-11-25 core methods) through the official v1 client
 * (`@modelcontextprotocol/sdk`) and its experimental task API: the capability and the tools'
 * `execution.taskSupport`, the mode table's legacy column, `callToolStream`, tasks/get, result,
 * list (paginated, per session) and cancel, failures of both kinds, `notifications/tasks/status`,
 * questions and progress of a running task (tagged with the task), the end of a session and the
 * per-owner cap on live tasks.
 */
import { Injectable, Module } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ResponseMessage } from '@modelcontextprotocol/sdk/shared/responseMessage.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  type ClientCapabilities,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  type ElicitResult,
  type JSONRPCMessage,
  McpError,
  type Progress,
  type Task,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpCtx, type McpCallContext, McpTaskService, McpTool, McpArgs } from 'nest-mcp';
import { startHttpApp } from './fixtures/http-app';
import {
  JOB_ERROR_CODE,
  PRINCIPAL_HEADER,
  startTasksApp,
  TaskProbe,
  type TasksApp,
  TasksFixtureModule,
} from './fixtures/tasks-fixture';
import {
  Collector,
  legacyRequest,
  parseSse,
  post,
  type RecordedExchange,
  recordedResponse,
  recordingFetch,
  type RpcMessage,
  waitUntil,
} from './fixtures/raw-rpc';

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const POLL_INTERVAL_MS = 100;
const TASK_TTL_MS = 60_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface ConnectOptions {
  capabilities?: ClientCapabilities;
  /** Answers `elicitation/create` (declares the capability when given). */
  elicit?: (params: Record<string, any>) => ElicitResult | Promise<ElicitResult>;
  /** Answers `sampling/createMessage` (declares the capability when given). */
  sample?: (params: Record<string, any>) => CreateMessageResult | Promise<CreateMessageResult>;
  /** Pretend the server has no GET stream: the client's GET is answered 405 without reaching it. */
  noGetStream?: boolean;
  /** Connect as this test principal (anonymous otherwise). */
  principal?: string;
}

/** A connected v1 client, with what it received: every raw message, the task status notifications. */
interface Connected {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly exchanges: Collector<RecordedExchange>;
  /** Every JSON-RPC message the transport read (POST answers and the GET stream). */
  readonly received: Collector<JSONRPCMessage>;
  /** The params of every `notifications/tasks/status`. */
  readonly statuses: Collector<Task>;
  /** Ends the session (DELETE, which cancels its live tasks), then closes the client. */
  close(): Promise<void>;
}

async function connect(url: URL, options: ConnectOptions = {}): Promise<Connected> {
  const capabilities: ClientCapabilities = { ...options.capabilities };
  if (options.elicit !== undefined) {
    capabilities.elicitation = {};
  }
  if (options.sample !== undefined) {
    capabilities.sampling = {};
  }
  const recording = recordingFetch();
  const fetchFn: typeof fetch =
    options.noGetStream === true
      ? (input, init) =>
          (init?.method ?? 'GET').toUpperCase() === 'GET'
            ? Promise.resolve(new Response(null, { status: 405 }))
            : recording.fetch(input, init)
      : recording.fetch;
  const client = new Client({ name: 'v1-tasks-e2e', version: '1.0.0' }, { capabilities });
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: fetchFn,
    requestInit: options.principal === undefined ? undefined : { headers: { [PRINCIPAL_HEADER]: options.principal } },
  });
  const statuses = new Collector<Task>();
  const received = new Collector<JSONRPCMessage>();
  client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
    statuses.push(notification.params);
  });
  if (options.elicit !== undefined) {
    const elicit = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params as Record<string, any>));
  }
  if (options.sample !== undefined) {
    const sample = options.sample;
    client.setRequestHandler(CreateMessageRequestSchema, (request) => sample(request.params as Record<string, any>));
  }
  await client.connect(transport);
  // Look at what the transport reads before the client does.
  const deliver = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    received.push(message);
    deliver(message);
  };
  if (options.noGetStream !== true) {
    // The client opens its GET stream after the handshake; wait for it, so that the session's
    // messages have somewhere to go.
    await recording.exchanges.waitFor(1, (item) => item.method === 'GET' && item.status === 200);
  }
  return {
    client,
    transport,
    exchanges: recording.exchanges,
    received,
    statuses,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** Calls a tool with the `task` param and returns the created task. */
async function startTask(client: Client, name: string, args: Record<string, unknown>): Promise<Task> {
  const created = await client.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl: TASK_TTL_MS } } },
    CreateTaskResultSchema,
  );
  return created.task;
}

/** Polls tasks/get until the task's status is one of `statuses`. */
async function waitForStatus(client: Client, taskId: string, ...statuses: Task['status'][]): Promise<Task> {
  let last: Task | undefined;
  await waitUntil(
    async () => {
      last = await client.experimental.tasks.getTask(taskId);
      return statuses.includes(last.status);
    },
    `task ${taskId} to be ${statuses.join(' or ')} (last seen: ${last?.status})`,
    10_000,
  );
  return last!;
}

/** The JSON-RPC error a promise rejects with. */
async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof McpError)) {
    throw new Error(`Expected a JSON-RPC error, got ${error === undefined ? 'a result' : JSON.stringify(error)}`);
  }
  return error;
}

/** The text of a tool result's first content block. */
function textOf(result: CallToolResult | Record<string, unknown>): string {
  const content = (result as CallToolResult).content;
  const first = content?.[0];
  return first?.type === 'text' ? first.text : `<no text: ${JSON.stringify(result)}>`;
}

/** Runs a `callToolStream` to its end, collecting its messages. */
async function drain(
  stream: AsyncGenerator<ResponseMessage<CallToolResult>, void, void>,
): Promise<Array<ResponseMessage<CallToolResult>>> {
  const messages: Array<ResponseMessage<CallToolResult>> = [];
  for await (const message of stream) {
    messages.push(message);
  }
  return messages;
}

/** The messages of every recorded POST exchange whose request had this JSON-RPC method. */
async function messagesOnPosts(exchanges: Collector<RecordedExchange>, rpcMethod: string): Promise<RpcMessage[]> {
  const found = exchanges.items.filter((item) => item.request?.method === rpcMethod);
  const texts = await Promise.all(found.map((item) => item.responseText));
  return texts.flatMap((text) => parseSse(text));
}

describe('2025-11-25 tasks through the v1 SDK client', () => {
  let server: TasksApp;
  const open: Connected[] = [];

  const connected = async (options: ConnectOptions = {}): Promise<Connected> => {
    const session = await connect(server.url, options);
    open.push(session);
    return session;
  };

  beforeAll(async () => {
    server = await startTasksApp({ pageSize: 2, tasks: { pollIntervalMs: POLL_INTERVAL_MS } });
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((session) => session.close()));
  });

  afterAll(async () => {
    await server?.close();
  });

  describe('capability and tool listing', () => {
    it('advertises the tasks capability at 2025-11-25', async () => {
      const { client, transport } = await connected();
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect(client.getServerCapabilities()?.tasks).toEqual({
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
    });

    it('lists execution.taskSupport for optional and required tools, none for forbidden ones', async () => {
      const { client } = await connected();
      const tools: Array<{ name: string; execution?: unknown }> = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get('sleepy')?.execution).toEqual({ taskSupport: 'optional' });
      expect(byName.get('only_task')?.execution).toEqual({ taskSupport: 'required' });
      expect(byName.has('plain')).toBe(true);
      expect(byName.get('plain')).not.toHaveProperty('execution');
    });

    it('at 2025-06-18: no tasks capability, no execution, tasks/* are unknown methods, the task param is ignored', async () => {
      const init = await post(
        server.url,
        legacyRequest('initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw-e2e', version: '0.0.1' },
        }),
      );
      expect(init.json.result.protocolVersion).toBe('2025-06-18');
      expect(init.json.result.capabilities).toEqual(expect.objectContaining({ tools: expect.any(Object) }));
      expect(init.json.result.capabilities).not.toHaveProperty('tasks');
      const headers = {
        'mcp-session-id': init.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-06-18',
      };
      expect((await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(
        202,
      );
      try {
        const list = await post(server.url, legacyRequest('tools/list', {}, 2), headers);
        const tools = list.json.result.tools as Array<Record<string, unknown>>;
        expect(tools.length).toBeGreaterThan(0);
        tools.forEach((tool) => expect(tool).not.toHaveProperty('execution'));

        for (const [id, method, params] of [
          [3, 'tasks/get', { taskId: 'task_0' }],
          [4, 'tasks/list', {}],
          [5, 'tasks/result', { taskId: 'task_0' }],
          [6, 'tasks/cancel', { taskId: 'task_0' }],
        ] as const) {
          const answer = await post(server.url, legacyRequest(method, params, id), headers);
          expect(answer.json).toEqual({ jsonrpc: '2.0', id, error: expect.objectContaining({ code: -32601 }) });
        }

        // 2025-06-18 has no task param: the call runs in place.
        const call = await post(
          server.url,
          legacyRequest('tools/call', { name: 'sleepy', arguments: { ms: 0, label: 'old' }, task: { ttl: 1000 } }, 7),
          headers,
        );
        const message = call.json ?? call.events.find((event) => event.id === 7);
        expect(message.result).toEqual(expect.objectContaining({ content: [{ type: 'text', text: 'slept old' }] }));
        expect(message.result).not.toHaveProperty('task');
      } finally {
        await fetch(server.url, { method: 'DELETE', headers });
      }
    });
  });

  describe('the mode table, legacy column', () => {
    it('optional tool without the task param: runs in place', async () => {
      const { client } = await connected();
      const result = await client.callTool({ name: 'sleepy', arguments: { ms: 0, label: 'inline' } });
      expect(result).not.toHaveProperty('task');
      expect(textOf(result)).toBe('slept inline');
    });

    it('optional tool with the task param: the task at once, even for a call that takes no time', async () => {
      const { client } = await connected();
      const created = await client.request(
        {
          method: 'tools/call',
          params: { name: 'sleepy', arguments: { ms: 0, label: 'instant' }, task: { ttl: 60000 } },
        },
        CreateTaskResultSchema,
      );
      expect(created.task).toEqual({
        taskId: expect.any(String),
        status: 'working',
        ttl: 60000,
        pollInterval: POLL_INTERVAL_MS,
        createdAt: expect.stringMatching(ISO_DATE),
        lastUpdatedAt: expect.stringMatching(ISO_DATE),
      });
      expect(created).not.toHaveProperty('content');
      const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
      expect(textOf(result)).toBe('slept instant');
    });

    it('a task param without ttl gets the default ttl (1 h)', async () => {
      const { client } = await connected();
      const created = await client.request(
        { method: 'tools/call', params: { name: 'sleepy', arguments: { ms: 0, label: 'default-ttl' }, task: {} } },
        CreateTaskResultSchema,
      );
      expect(created.task).toEqual(expect.objectContaining({ status: 'working', ttl: 3_600_000 }));
      expect(await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema)).toEqual(
        expect.objectContaining({ content: [{ type: 'text', text: 'slept default-ttl' }] }),
      );
    });

    it('a slow task is answered while its work still runs', async () => {
      const { client } = await connected();
      const task = await startTask(client, 'sleepy', { ms: 30_000, label: 'slow-start' });
      expect(task.status).toBe('working');
      await waitUntil(() => server.probe.runs('slow-start') === 1, 'the work to start');
      expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({
        taskId: task.taskId,
        status: 'working',
      });
      await client.experimental.tasks.cancelTask(task.taskId);
    });

    it('required tool without the task param: -32601 saying it must be called as a task; with it, a task', async () => {
      const { client } = await connected();
      const error = await rpcError(
        client.request(
          { method: 'tools/call', params: { name: 'only_task', arguments: { ms: 0, label: 'refused' } } },
          CallToolResultSchema,
        ),
      );
      expect(error.code).toBe(-32601);
      expect(error.message).toContain('only_task must be called as a task');
      expect(server.probe.runs('refused')).toBe(0);

      const task = await startTask(client, 'only_task', { ms: 0, label: 'accepted' });
      const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(textOf(result)).toBe('done accepted');
    });

    it('forbidden tool with the task param: runs in place (documented choice), no task is made', async () => {
      const { client } = await connected();
      const result = await client.request(
        { method: 'tools/call', params: { name: 'plain', arguments: {}, task: { ttl: 1000 } } },
        CallToolResultSchema,
      );
      expect(result).not.toHaveProperty('task');
      expect(textOf(result)).toBe('plain');
      expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
    });
  });

  describe('callToolStream and the task methods', () => {
    it('yields taskCreated, taskStatus until completed, then the result', async () => {
      const { client } = await connected();
      const messages = await drain(
        client.experimental.tasks.callToolStream(
          { name: 'sleepy', arguments: { ms: 300, label: 'streamed' } },
          CallToolResultSchema,
          { task: { ttl: TASK_TTL_MS } },
        ),
      );
      const types = messages.map((message) => message.type);
      expect(types[0]).toBe('taskCreated');
      expect(types.at(-1)).toBe('result');
      expect(types.slice(1, -1).every((type) => type === 'taskStatus')).toBe(true);
      const statuses = messages.flatMap((message) => (message.type === 'taskStatus' ? [message.task.status] : []));
      expect(statuses.at(-1)).toBe('completed');
      expect(statuses.slice(0, -1).every((status) => status === 'working')).toBe(true);
      const created = messages[0] as Extract<ResponseMessage<CallToolResult>, { type: 'taskCreated' }>;
      const last = messages.at(-1) as Extract<ResponseMessage<CallToolResult>, { type: 'result' }>;
      expect(textOf(last.result)).toBe('slept streamed');
      expect(last.result._meta?.[RELATED_TASK]).toEqual({ taskId: created.task.taskId });
    });

    it('tasks/result answers the CallToolResult tagged with the task; tasks/get shows it completed', async () => {
      const { client } = await connected();
      const task = await startTask(client, 'sleepy', { ms: 100, label: 'tagged' });
      const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(result).toEqual({
        content: [{ type: 'text', text: 'slept tagged' }],
        _meta: { [RELATED_TASK]: { taskId: task.taskId } },
      });
      const after = await client.experimental.tasks.getTask(task.taskId);
      expect(after).toEqual({
        taskId: task.taskId,
        status: 'completed',
        ttl: TASK_TTL_MS,
        pollInterval: POLL_INTERVAL_MS,
        createdAt: task.createdAt,
        lastUpdatedAt: expect.stringMatching(ISO_DATE),
      });
      expect(Date.parse(after.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(task.createdAt));
      // The result stays available: a second tasks/result answers the same.
      expect(await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).toEqual(result);
    });

    it("tasks/list pages through the session's tasks, each once; another session sees none of them", async () => {
      const { client } = await connected();
      const created: string[] = [];
      for (let index = 0; index < 5; index += 1) {
        created.push((await startTask(client, 'sleepy', { ms: 0, label: `listed-${index}` })).taskId);
      }
      const listed: Task[] = [];
      const pages: number[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.experimental.tasks.listTasks(cursor);
        pages.push(page.tasks.length);
        listed.push(...page.tasks);
        cursor = page.nextCursor;
      } while (cursor !== undefined && pages.length < 10);
      expect(pages).toEqual([2, 2, 1]);
      expect(listed.map((task) => task.taskId).sort()).toEqual([...created].sort());
      listed.forEach((task) =>
        expect(task).toEqual(
          expect.objectContaining({ status: expect.any(String), ttl: TASK_TTL_MS, pollInterval: POLL_INTERVAL_MS }),
        ),
      );

      const other = await connected();
      expect((await other.client.experimental.tasks.listTasks()).tasks).toEqual([]);
      for (const taskId of created.slice(0, 2)) {
        expect((await rpcError(other.client.experimental.tasks.getTask(taskId))).code).toBe(-32602);
        expect((await rpcError(other.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema))).code).toBe(
          -32602,
        );
        expect((await rpcError(other.client.experimental.tasks.cancelTask(taskId))).code).toBe(-32602);
      }
      // Answered as an unknown id is.
      const unknown = await rpcError(other.client.experimental.tasks.getTask('task_unknown'));
      const foreign = await rpcError(other.client.experimental.tasks.getTask(created[0]));
      expect(foreign.message.replace(created[0], 'ID')).toBe(unknown.message.replace('task_unknown', 'ID'));
      // The owner still sees them.
      expect((await client.experimental.tasks.getTask(created[0])).taskId).toBe(created[0]);
    });
  });

  describe('failures', () => {
    it('a tool error fails the task (2025-11-25 rule); tasks/result still answers the CallToolResult', async () => {
      const { client } = await connected();
      const task = await startTask(client, 'tool_error', { ms: 50 });
      const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(result).toEqual({
        isError: true,
        content: [{ type: 'text', text: 'The job failed' }],
        _meta: { [RELATED_TASK]: { taskId: task.taskId } },
      });
      expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'failed' });
    });

    it('a protocol error fails the task; tasks/result answers that JSON-RPC error', async () => {
      const { client } = await connected();
      const task = await startTask(client, 'protocol_error', { ms: 50 });
      const error = await rpcError(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema));
      expect(error.code).toBe(JOB_ERROR_CODE);
      expect(error.message).toContain('Quota exceeded');
      expect(error.data).toEqual({ retryAfterMs: 1000 });
      expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({
        status: 'failed',
        statusMessage: 'Quota exceeded',
      });
    });

    it('callToolStream ends a failed task with an error', async () => {
      const { client } = await connected();
      const messages = await drain(
        client.experimental.tasks.callToolStream(
          { name: 'protocol_error', arguments: { ms: 50 } },
          CallToolResultSchema,
          {
            task: { ttl: TASK_TTL_MS },
          },
        ),
      );
      expect(messages[0].type).toBe('taskCreated');
      const last = messages.at(-1)!;
      expect(last.type).toBe('error');
      expect(messages.some((message) => message.type === 'taskStatus' && message.task.status === 'failed')).toBe(true);
    });
  });

  describe('cancellation', () => {
    it('tasks/cancel cancels a working task and aborts its work; a second cancel and tasks/result are -32602', async () => {
      const { client } = await connected();
      const task = await startTask(client, 'sleepy', { ms: 30_000, label: 'cancel-me' });
      const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
      expect(cancelled).toEqual(
        expect.objectContaining({
          taskId: task.taskId,
          status: 'cancelled',
          ttl: TASK_TTL_MS,
          createdAt: task.createdAt,
          lastUpdatedAt: expect.stringMatching(ISO_DATE),
        }),
      );
      await server.probe.whenAborted('cancel-me');
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
      expect((await rpcError(client.experimental.tasks.cancelTask(task.taskId))).code).toBe(-32602);
      expect((await rpcError(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))).code).toBe(
        -32602,
      );
    });

    it('a tasks/result waiting on a task is answered -32602 when the task is cancelled', async () => {
      const { client } = await connected();
      const task = await startTask(client, 'sleepy', { ms: 30_000, label: 'cancel-waited' });
      const waiting = rpcError(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await client.experimental.tasks.cancelTask(task.taskId);
      expect((await waiting).code).toBe(-32602);
      await server.probe.whenAborted('cancel-waited');
    });

    it("ending the session (DELETE) cancels its running tasks: the work's signal aborts", async () => {
      const session = await connect(server.url);
      const task = await startTask(session.client, 'sleepy', { ms: 30_000, label: 'session-end' });
      expect(task.status).toBe('working');
      await session.transport.terminateSession();
      await server.probe.whenAborted('session-end');
      await session.client.close();
    });
  });

  describe('notifications/tasks/status', () => {
    it('arrive on the session stream on every change, with the Task as params', async () => {
      const { client, statuses, received } = await connected();
      const task = await startTask(client, 'sleepy', { ms: 200, label: 'notified' });
      const [completed] = await statuses.waitFor(
        1,
        (item) => item.taskId === task.taskId && item.status === 'completed',
      );
      expect(completed).toEqual({
        taskId: task.taskId,
        status: 'completed',
        ttl: TASK_TTL_MS,
        pollInterval: POLL_INTERVAL_MS,
        createdAt: task.createdAt,
        lastUpdatedAt: expect.stringMatching(ISO_DATE),
      });
      const mine = statuses.items.filter((item) => item.taskId === task.taskId).map((item) => item.status);
      expect(mine.at(-1)).toBe('completed');
      expect(mine.every((status) => status === 'working' || status === 'completed')).toBe(true);
      // They come on the session's GET stream (the call's POST was answered with the task).
      const raw = received.items.find(
        (message) =>
          'method' in message &&
          message.method === 'notifications/tasks/status' &&
          (message.params as Record<string, unknown>).status === 'completed',
      );
      expect(raw).toBeDefined();
    });

    it('report a cancellation', async () => {
      const { client, statuses } = await connected();
      const task = await startTask(client, 'sleepy', { ms: 30_000, label: 'notified-cancel' });
      await client.experimental.tasks.cancelTask(task.taskId);
      const [cancelled] = await statuses.waitFor(
        1,
        (item) => item.taskId === task.taskId && item.status === 'cancelled',
      );
      expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    });
  });

  describe('questions to the client inside a task', () => {
    it('elicits on the session stream, tagged with the task; the task is input_required until answered', async () => {
      const questions = new Collector<Record<string, any>>();
      let answer: ((result: ElicitResult) => void) | undefined;
      const { client, statuses, received, exchanges } = await connected({
        elicit: (params) => {
          questions.push(params);
          return new Promise<ElicitResult>((resolve) => (answer = resolve));
        },
      });
      const task = await startTask(client, 'ask_name', { ms: 300, label: 'asked' });
      const [question] = await questions.waitFor(1, () => true, 10_000);
      expect(question).toMatchObject({
        message: 'What is your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        _meta: { [RELATED_TASK]: { taskId: task.taskId } },
      });
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('input_required');
      // The question came on the GET stream: no POST answer carried it.
      expect(received.items).toContainEqual(expect.objectContaining({ method: 'elicitation/create' }));
      const onPosts = (await Promise.all(exchanges.items.map((item) => item.responseText))).flatMap((text) =>
        parseSse(text),
      );
      expect(onPosts).not.toContainEqual(expect.objectContaining({ method: 'elicitation/create' }));
      answer!({ action: 'accept', content: { name: 'Ada' } });
      const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(textOf(result)).toBe(`Hello, Ada! (task ${task.taskId})`);
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
      await statuses.waitFor(1, (item) => item.taskId === task.taskId && item.status === 'completed');
      const seen = statuses.items.filter((item) => item.taskId === task.taskId).map((item) => item.status);
      expect(seen).toContain('input_required');
      expect(seen.indexOf('input_required')).toBeLessThan(seen.lastIndexOf('completed'));
    });

    it('callToolStream: with no GET stream, the question waits for tasks/result and travels on its stream', async () => {
      const questions = new Collector<Record<string, any>>();
      const { client, exchanges } = await connected({
        noGetStream: true,
        elicit: (params) => {
          questions.push(params);
          return { action: 'accept', content: { name: 'Ada' } };
        },
      });
      const messages = await drain(
        client.experimental.tasks.callToolStream(
          { name: 'ask_name', arguments: { ms: 300, label: 'streamed-ask' } },
          CallToolResultSchema,
          { task: { ttl: TASK_TTL_MS } },
        ),
      );
      const created = messages[0] as Extract<ResponseMessage<CallToolResult>, { type: 'taskCreated' }>;
      expect(created.type).toBe('taskCreated');
      const taskId = created.task.taskId;
      const last = messages.at(-1)!;
      expect(last.type).toBe('result');
      expect(textOf((last as Extract<typeof last, { type: 'result' }>).result)).toBe(`Hello, Ada! (task ${taskId})`);
      expect(
        messages.some((message) => message.type === 'taskStatus' && message.task.status === 'input_required'),
      ).toBe(true);
      expect(questions.items).toHaveLength(1);
      expect(questions.items[0]._meta).toEqual({ [RELATED_TASK]: { taskId } });
      const onResultStream = await messagesOnPosts(exchanges, 'tasks/result');
      expect(onResultStream).toContainEqual(
        expect.objectContaining({
          method: 'elicitation/create',
          id: expect.anything(),
          params: expect.objectContaining({ _meta: { [RELATED_TASK]: { taskId } } }),
        }),
      );
      expect(server.probe.runs('streamed-ask')).toBe(1);
    });

    it('callToolStream with the GET stream open: the question comes on it and the task completes', async () => {
      const questions = new Collector<Record<string, any>>();
      const { client } = await connected({
        elicit: (params) => {
          questions.push(params);
          return { action: 'accept', content: { name: 'Grace' } };
        },
      });
      const messages = await drain(
        client.experimental.tasks.callToolStream(
          { name: 'ask_name', arguments: { ms: 100, label: 'streamed-ask-get' } },
          CallToolResultSchema,
          { task: { ttl: TASK_TTL_MS } },
        ),
      );
      const created = messages[0] as Extract<ResponseMessage<CallToolResult>, { type: 'taskCreated' }>;
      const last = messages.at(-1) as Extract<ResponseMessage<CallToolResult>, { type: 'result' }>;
      expect(last.type).toBe('result');
      expect(textOf(last.result)).toBe(`Hello, Grace! (task ${created.task.taskId})`);
      expect(questions.items).toHaveLength(1);
      expect(questions.items[0]._meta).toEqual({ [RELATED_TASK]: { taskId: created.task.taskId } });
    });

    it('samples through the client model, tagged with the task', async () => {
      const questions = new Collector<Record<string, any>>();
      const { client } = await connected({
        sample: (params) => {
          questions.push(params);
          return { role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'test-model' };
        },
      });
      const messages = await drain(
        client.experimental.tasks.callToolStream(
          { name: 'sample_in_task', arguments: { ms: 100 } },
          CallToolResultSchema,
          { task: { ttl: TASK_TTL_MS } },
        ),
      );
      const created = messages[0] as Extract<ResponseMessage<CallToolResult>, { type: 'taskCreated' }>;
      const last = messages.at(-1) as Extract<ResponseMessage<CallToolResult>, { type: 'result' }>;
      expect(last.type).toBe('result');
      expect(textOf(last.result)).toBe('model said: hi there');
      expect(questions.items).toHaveLength(1);
      expect(questions.items[0]).toMatchObject({
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
        maxTokens: 10,
        _meta: { [RELATED_TASK]: { taskId: created.task.taskId } },
      });
    });
  });

  describe('progress of a task', () => {
    it('reaches the client after the CreateTaskResult, tagged with the task', async () => {
      const { client, received, exchanges } = await connected();
      const progress = new Collector<{ update: Progress; afterCreate: boolean }>();
      let created = false;
      const creating = client
        .request(
          {
            method: 'tools/call',
            params: { name: 'progress_task', arguments: { steps: 3, ms: 200 }, task: { ttl: TASK_TTL_MS } },
          },
          CreateTaskResultSchema,
          { onprogress: (update) => progress.push({ update, afterCreate: created }) },
        )
        .then((result) => {
          created = true;
          return result;
        });
      const { task } = await creating;
      await progress.waitFor(3, () => true, 10_000);
      const related = { [RELATED_TASK]: { taskId: task.taskId } };
      expect(progress.items.map((item) => item.update)).toEqual([
        { progress: 1, total: 3, message: 'step 1 of 3', _meta: related },
        { progress: 2, total: 3, message: 'step 2 of 3', _meta: related },
        { progress: 3, total: 3, message: 'step 3 of 3', _meta: related },
      ]);
      expect(progress.items.every((item) => item.afterCreate)).toBe(true);
      const raw = received.items.filter(
        (message): message is Extract<JSONRPCMessage, { method: string }> =>
          'method' in message && message.method === 'notifications/progress',
      );
      expect(raw).toHaveLength(3);
      raw.forEach((message) => expect(message.params?._meta).toEqual(related));
      // They came on the session's GET stream: the call's POST was answered with the task alone.
      expect(await messagesOnPosts(exchanges, 'tools/call')).not.toContainEqual(
        expect.objectContaining({ method: 'notifications/progress' }),
      );
      const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(textOf(result)).toBe('3 steps done');
    });
  });
});

describe('2025-11-25 tasks: the cap on live tasks per owner', () => {
  let server: TasksApp;
  const open: Connected[] = [];

  beforeAll(async () => {
    server = await startTasksApp({ tasks: { maxLivePerOwner: 2, pollIntervalMs: POLL_INTERVAL_MS } });
  });

  afterAll(async () => {
    await Promise.all(open.splice(0).map((session) => session.close()));
    await server?.close();
  });

  it('refuses a third live task with -32603 naming the limit; accepts a new one once one ended', async () => {
    const session = await connect(server.url);
    open.push(session);
    const { client } = session;
    const long = await startTask(client, 'sleepy', { ms: 30_000, label: 'cap-long' });
    const short = await startTask(client, 'sleepy', { ms: 2000, label: 'cap-short' });
    const refused = await rpcError(startTask(client, 'sleepy', { ms: 0, label: 'cap-refused' }));
    expect(refused.code).toBe(-32603);
    expect(refused.message).toContain(
      'Too many tasks in progress for this caller: at most 2 (McpModule option tasks.maxLivePerOwner)',
    );
    expect(server.probe.runs('cap-refused')).toBe(0);
    expect((await client.experimental.tasks.listTasks()).tasks.map((task) => task.taskId).sort()).toEqual(
      [long.taskId, short.taskId].sort(),
    );

    // The cap is the caller's: another session of it brings no quota of its own...
    const again = await connect(server.url);
    open.push(again);
    expect((await rpcError(startTask(again.client, 'sleepy', { ms: 0, label: 'cap-again' }))).code).toBe(-32603);
    // ...while another caller has its own.
    const other = await connect(server.url, { principal: 'bob' });
    open.push(other);
    const elsewhere = await startTask(other.client, 'sleepy', { ms: 0, label: 'cap-elsewhere' });
    expect(elsewhere.status).toBe('working');

    await waitForStatus(client, short.taskId, 'completed');
    const accepted = await startTask(client, 'sleepy', { ms: 0, label: 'cap-accepted' });
    expect(accepted.status).toBe('working');
    expect(textOf(await client.experimental.tasks.getTaskResult(accepted.taskId, CallToolResultSchema))).toBe(
      'slept cap-accepted',
    );

    // A cancelled task is no longer live either.
    const third = await startTask(client, 'sleepy', { ms: 30_000, label: 'cap-third' });
    expect((await rpcError(startTask(client, 'sleepy', { ms: 0 }))).code).toBe(-32603);
    await client.experimental.tasks.cancelTask(long.taskId);
    const afterCancel = await startTask(client, 'sleepy', { ms: 0, label: 'cap-after-cancel' });
    expect(afterCancel.status).toBe('working');
    await client.experimental.tasks.cancelTask(third.taskId);
  });
});

/** How long the server of the next suite waits for a client's answer (`clientRequestTimeoutMs`). */
const ASK_TIMEOUT_MS = 300;

/** Lets the tests release the `ask_or_go_on` runs that wait for them, by label. */
const goOnGates = new Map<string, () => void>();

/**
 * A tool that survives an unanswered question: it asks for a name, and when the wait ends
 * without an answer it goes on working (reporting progress) until the test releases it, so that
 * its task is still live when a `tasks/result` comes after the wait ended.
 */
@Injectable()
class GoOnTools {
  constructor(private readonly probe: TaskProbe) {}

  @McpTool({
    description: 'Asks for a name; without an answer, reports progress until released, then answers anyway',
    input: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
    taskSupport: 'optional',
  })
  async ask_or_go_on(@McpArgs() args: { label: string }, @McpCtx() ctx: McpCallContext) {
    try {
      const answer = await ctx.elicit(
        {
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
        { key: 'name' },
      );
      return `Hello, ${String(answer.content?.name)}!`;
    } catch (error) {
      let released = false;
      goOnGates.set(args.label, () => (released = true));
      this.probe.ran(`${args.label}:unanswered`);
      const deadline = Date.now() + 10_000;
      for (let step = 1; !released && Date.now() < deadline; step += 1) {
        ctx.progress(step, undefined, 'going on without an answer');
        await delay(50, undefined, { signal: ctx.signal });
      }
      const reason = error instanceof Error ? error.message : String(error);
      return released ? `Went on without a name (${reason})` : 'Never released';
    }
  }
}

@Module({
  imports: [
    TasksFixtureModule.forRoot({
      clientRequestTimeoutMs: ASK_TIMEOUT_MS,
      tasks: { pollIntervalMs: POLL_INTERVAL_MS },
    }),
  ],
  providers: [GoOnTools],
})
class LateQuestionsModule {}

describe('2025-11-25 tasks: a queued question whose wait ended is not sent to a later tasks/result', () => {
  let server: TasksApp;
  const open: Connected[] = [];

  /** A session with no GET stream (its questions wait for tasks/result), recording every question. */
  const connectAsked = async (): Promise<Connected & { questions: Collector<Record<string, any>> }> => {
    const questions = new Collector<Record<string, any>>();
    const session = await connect(server.url, {
      noGetStream: true,
      elicit: (params) => {
        questions.push(params);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    open.push(session);
    return { ...session, questions };
  };

  const isQuestion = (message: JSONRPCMessage | RpcMessage): boolean =>
    'method' in message && message.method === 'elicitation/create';

  beforeAll(async () => {
    const started = await startHttpApp(LateQuestionsModule);
    server = { ...started, probe: started.app.get(TaskProbe) };
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((session) => session.close()));
  });

  afterAll(async () => {
    await server?.close();
  });

  it('the wait times out, the task fails: tasks/result answers its error and asks nothing', async () => {
    const { client, questions, received, exchanges } = await connectAsked();
    const task = await startTask(client, 'ask_name', { ms: 0, label: 'late-timeout' });
    const ended = await waitForStatus(client, task.taskId, 'completed', 'failed', 'cancelled');
    expect(ended.status).toBe('failed');
    const record = await server.app.get(McpTaskService).get(task.taskId);
    expect(record?.error).toEqual({
      code: -32603,
      message: `The client did not answer elicitation/create within ${ASK_TIMEOUT_MS} ms`,
    });
    expect(ended.statusMessage).toBe(record!.error!.message);

    const error = await rpcError(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema));
    expect(error.code).toBe(record!.error!.code);
    expect(error.message).toContain(record!.error!.message);
    // The question never reached the client: not before, not on the tasks/result stream.
    expect(questions.items).toEqual([]);
    expect(received.items.filter(isQuestion)).toEqual([]);
    expect(await messagesOnPosts(exchanges, 'tasks/result')).not.toContainEqual(
      expect.objectContaining({ method: 'elicitation/create' }),
    );
    expect((await recordedResponse(exchanges, 'tasks/result')).error).toEqual(
      expect.objectContaining({ code: record!.error!.code }),
    );
    expect(server.probe.runs('late-timeout')).toBe(1);
  });

  it('the wait timed out but the task lives on: a later tasks/result does not get the stale question', async () => {
    const label = 'late-live';
    const { client, questions, received, exchanges } = await connectAsked();
    // A progress token, so that the work's progress shows which stream the task's messages take.
    const { task } = await client.request(
      { method: 'tools/call', params: { name: 'ask_or_go_on', arguments: { label }, task: { ttl: TASK_TTL_MS } } },
      CreateTaskResultSchema,
      { onprogress: () => undefined },
    );
    // The question waited in the task's outbox (no GET stream, no tasks/result) until its wait ended.
    await waitUntil(() => server.probe.runs(`${label}:unanswered`) === 1, 'the question to time out', 10_000);
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');

    const result = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    // The task's progress comes on the tasks/result stream: it is attached while the task is live.
    await waitUntil(
      () => received.items.some((message) => 'method' in message && message.method === 'notifications/progress'),
      'progress on the tasks/result stream',
      10_000,
    );
    goOnGates.get(label)!();
    expect(textOf(await result)).toBe(
      `Went on without a name (The client did not answer elicitation/create within ${ASK_TIMEOUT_MS} ms)`,
    );

    expect(questions.items).toEqual([]);
    expect(received.items.filter(isQuestion)).toEqual([]);
    const onResultStream = await messagesOnPosts(exchanges, 'tasks/result');
    expect(onResultStream).toContainEqual(
      expect.objectContaining({
        method: 'notifications/progress',
        params: expect.objectContaining({ _meta: { [RELATED_TASK]: { taskId: task.taskId } } }),
      }),
    );
    expect(onResultStream).not.toContainEqual(expect.objectContaining({ method: 'elicitation/create' }));
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
  });

  it('control: a tasks/result within the wait gets the question on its stream, and the task completes', async () => {
    const { client, questions, exchanges } = await connectAsked();
    const task = await startTask(client, 'ask_name', { ms: 0, label: 'late-control' });
    // At once, well within the wait.
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(textOf(result)).toBe(`Hello, Ada! (task ${task.taskId})`);
    expect(questions.items).toHaveLength(1);
    expect(questions.items[0]).toMatchObject({
      message: 'What is your name?',
      _meta: { [RELATED_TASK]: { taskId: task.taskId } },
    });
    expect(await messagesOnPosts(exchanges, 'tasks/result')).toContainEqual(
      expect.objectContaining({
        method: 'elicitation/create',
        id: expect.anything(),
        params: expect.objectContaining({ _meta: { [RELATED_TASK]: { taskId: task.taskId } } }),
      }),
    );
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
  });
});
