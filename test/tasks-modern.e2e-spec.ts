/**
 * The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`) end to end over real HTTP:
 * raw `fetch` with the modern `_meta` envelope and headers for the wire (discovery, the mode
 * table, the inline window, `tasks/get|update|cancel`, questions inside a task, task
 * notifications on `subscriptions/listen`, ownership, the `Mcp-Name` header, the inline → task
 * hand-off under a race), then the official v2 client (`@modelcontextprotocol/client`) sending
 * plain requests for the extension. Most of it runs on Express, a smoke on Fastify.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpTaskService } from 'nest-mcp';
import * as z from 'zod';
import type { HttpPlatform } from './fixtures/http-app';
import { JOB_ERROR_CODE, PRINCIPAL_HEADER, type TasksApp, startTasksApp } from './fixtures/tasks-fixture';
import {
  type Collector,
  META,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  post,
  type RawResponse,
  type RecordedExchange,
  recordedRequest,
  recordedResponse,
  recordingFetch,
  type RpcMessage,
  send,
  SseReader,
} from './fixtures/raw-rpc';

const TASKS = 'io.modelcontextprotocol/tasks';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
/** The client capabilities of a request that declares the tasks extension (and takes questions). */
const WITH_TASKS = { elicitation: {}, sampling: {}, extensions: { [TASKS]: {} } };
/** The client capabilities of a request without the extension. */
const WITHOUT_TASKS = { elicitation: {}, sampling: {} };
const SERVER_META = { [META.serverInfo]: { name: 'tasks-fixture', version: '0.0.1' } };
const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TASK_ID = /^task_[0-9a-f]{32}$/;
const TERMINAL = ['completed', 'failed', 'cancelled'];
const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const ADA = { action: 'accept', content: { name: 'Ada' } };
/** Well past the default inline window (100 ms): the call is a task by then, even on a loaded machine. */
const PAST_WINDOW_MS = 600;
const POLL_INTERVAL_MS = 250;
const DEFAULT_TTL_MS = 3_600_000;

/** The body field `Mcp-Name` mirrors, by method. */
const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

interface RpcOptions {
  /** Declare the tasks extension in the request's client capabilities. @default true */
  tasks?: boolean;
  /** The request's client capabilities, instead of those `tasks` chooses. */
  capabilities?: Record<string, unknown>;
  /** Served as this principal (the fixture's stand-in header); anonymous otherwise. */
  principal?: string;
  id?: number | string;
  /** The `Mcp-Name` header, when it should not mirror the body. */
  name?: string;
}

/** The headers of a modern POST of `method` (with `Mcp-Name` mirroring the body) and a principal. */
function headersFor(method: string, params: Record<string, unknown>, options: RpcOptions): Record<string, string> {
  const field = NAME_FIELD[method];
  const mirrored = field !== undefined && typeof params[field] === 'string' ? params[field] : undefined;
  const headers = modernHeaders(method, options.name ?? mirrored);
  if (options.principal !== undefined) {
    headers[PRINCIPAL_HEADER] = options.principal;
  }
  return headers;
}

function bodyFor(method: string, params: Record<string, unknown>, options: RpcOptions): RpcMessage {
  return modernRequest(method, params, options.id ?? 1, {
    [META.clientCapabilities]: options.capabilities ?? (options.tasks === false ? WITHOUT_TASKS : WITH_TASKS),
  });
}

/** One modern request with the envelope and the standard headers. */
function rpc(
  app: TasksApp,
  method: string,
  params: Record<string, unknown> = {},
  options: RpcOptions = {},
): Promise<RawResponse> {
  return post(app.url, bodyFor(method, params, options), headersFor(method, params, options));
}

/** The JSON-RPC response of an exchange, JSON or SSE. */
function messageOf(response: RawResponse): RpcMessage {
  if (response.json !== undefined) {
    return response.json as RpcMessage;
  }
  const answer = response.events.find((event) => event.id !== undefined && event.method === undefined);
  if (answer === undefined) {
    throw new Error(`No JSON-RPC response in ${response.status} ${response.text}`);
  }
  return answer;
}

/** The result of a successful exchange (failing the test on an error). */
function resultOf(response: RawResponse): Record<string, any> {
  const message = messageOf(response);
  if (message.result === undefined) {
    throw new Error(`Expected a result, got ${response.status} ${JSON.stringify(message)}`);
  }
  expect(response.status).toBe(200);
  return message.result;
}

/** Expects a JSON-RPC error with `code`, carried with `status`; returns it. */
function expectError(
  response: RawResponse,
  code: number,
  status: number,
): { code: number; message: string; data?: any } {
  const message = messageOf(response);
  expect(message.result).toBeUndefined();
  expect(message.error?.code).toBe(code);
  expect(response.status).toBe(status);
  return message.error!;
}

function callTool(app: TasksApp, name: string, args: Record<string, unknown>, options: RpcOptions = {}) {
  return rpc(app, 'tools/call', { name, arguments: args }, options);
}

/** A call that must become a task: its CreateTaskResult. */
async function startTask(
  app: TasksApp,
  name: string,
  args: Record<string, unknown>,
  options: RpcOptions = {},
): Promise<Record<string, any>> {
  const result = resultOf(await callTool(app, name, args, options));
  expect(result).toMatchObject({ resultType: 'task', taskId: expect.stringMatching(TASK_ID) });
  return result;
}

function getTask(app: TasksApp, taskId: string, options: RpcOptions = {}): Promise<Record<string, any>> {
  return rpc(app, 'tasks/get', { taskId }, options).then(resultOf);
}

/** Polls tasks/get until `done` holds for the task; fails after `timeoutMs`. */
async function pollTask(
  app: TasksApp,
  taskId: string,
  done: (task: Record<string, any>) => boolean,
  options: RpcOptions = {},
  timeoutMs = 5_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await getTask(app, taskId, options);
    if (done(task)) {
      return task;
    }
    if (Date.now() > deadline) {
      throw new Error(`Task ${taskId} is still ${JSON.stringify(task)} after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function untilTerminal(app: TasksApp, taskId: string, options: RpcOptions = {}, timeoutMs = 5_000) {
  return pollTask(app, taskId, (task) => TERMINAL.includes(task.status), options, timeoutMs);
}

function untilStatus(app: TasksApp, taskId: string, status: string, options: RpcOptions = {}) {
  return pollTask(app, taskId, (task) => task.status === status || TERMINAL.includes(task.status), options).then(
    (task) => {
      expect(task.status).toBe(status);
      return task;
    },
  );
}

const textResult = (text: string) => ({ content: [{ type: 'text', text }] });

/** Opens a `subscriptions/listen` stream; resolves with the reader and the acknowledgement. */
async function openListen(
  app: TasksApp,
  notifications: Record<string, unknown>,
  id: string,
  signal: AbortSignal,
  options: RpcOptions = {},
): Promise<{ reader: SseReader; ack: RpcMessage }> {
  const params = { notifications };
  const response = await send(app.url, {
    body: bodyFor('subscriptions/listen', params, { ...options, id }),
    headers: headersFor('subscriptions/listen', params, options),
    signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const reader = new SseReader(response);
  return { reader, ack: await reader.next() };
}

describe('tasks extension, 2026-07-28 (express)', () => {
  let app: TasksApp;
  /** Aborted after each test: ends whatever listen stream a test left open. */
  let cleanup: AbortController;

  beforeAll(async () => {
    app = await startTasksApp({ tasks: { pollIntervalMs: POLL_INTERVAL_MS } });
  });

  beforeEach(() => {
    cleanup = new AbortController();
  });

  afterEach(() => {
    cleanup.abort();
  });

  afterAll(async () => {
    await app?.close();
  });

  describe('discovery', () => {
    it('server/discover advertises the extension, and no core tasks capability', async () => {
      const result = resultOf(await rpc(app, 'server/discover'));
      expect(result.capabilities.extensions).toEqual({ [TASKS]: {} });
      expect(result.capabilities).not.toHaveProperty('tasks');
    });
  });

  describe('the mode table, modern column', () => {
    it('a forbidden tool answers in place, with or without the extension', async () => {
      for (const tasks of [true, false]) {
        expect(resultOf(await callTool(app, 'plain', {}, { tasks }))).toEqual({
          ...textResult('plain'),
          resultType: 'complete',
          _meta: SERVER_META,
        });
      }
    });

    it('a legacy `task` param on a modern request is ignored', async () => {
      const plain = resultOf(await rpc(app, 'tools/call', { name: 'plain', arguments: {}, task: { ttl: 60_000 } }));
      expect(plain).toEqual({ ...textResult('plain'), resultType: 'complete', _meta: SERVER_META });
      // Nor does it make a client without the extension take a task.
      const label = 'legacy-param';
      const sleepy = resultOf(
        await rpc(
          app,
          'tools/call',
          { name: 'sleepy', arguments: { ms: PAST_WINDOW_MS, label }, task: { ttl: 60_000 } },
          { tasks: false },
        ),
      );
      expect(sleepy).toEqual({ ...textResult(`slept ${label}`), resultType: 'complete', _meta: SERVER_META });
    });

    it('an optional tool that ends within the window answers in place, though the client takes tasks', async () => {
      const label = 'inline-0';
      const result = resultOf(await callTool(app, 'sleepy', { ms: 0, label }));
      expect(result).toEqual({ ...textResult(`slept ${label}`), resultType: 'complete', _meta: SERVER_META });
      expect(app.probe.runs(label)).toBe(1);
    });

    it('an optional tool still running past the window answers a flat CreateTaskResult', async () => {
      const label = 'create-1500';
      const response = await callTool(app, 'sleepy', { ms: 1_500, label });
      expect(response.status).toBe(200);
      const result = resultOf(response);
      expect(result).toEqual({
        resultType: 'task',
        taskId: expect.stringMatching(TASK_ID),
        status: 'working',
        createdAt: expect.stringMatching(ISO_DATE),
        lastUpdatedAt: expect.stringMatching(ISO_DATE),
        ttlMs: DEFAULT_TTL_MS,
        pollIntervalMs: POLL_INTERVAL_MS,
        _meta: SERVER_META,
      });
      expect(Number.isInteger(result.ttlMs)).toBe(true);
      expect(Number.isInteger(result.pollIntervalMs)).toBe(true);
      expect(Date.parse(result.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(result.createdAt));
      for (const absent of ['task', 'result', 'requestState', 'content', 'inputRequests']) {
        expect(result).not.toHaveProperty(absent);
      }
      expect(app.probe.runs(label)).toBe(1);
      resultOf(await rpc(app, 'tasks/cancel', { taskId: result.taskId }));
    });

    it('without the extension an optional tool runs in place however long it takes', async () => {
      const label = 'no-extension-1500';
      const result = resultOf(await callTool(app, 'sleepy', { ms: 1_500, label }, { tasks: false }));
      expect(result).toEqual({ ...textResult(`slept ${label}`), resultType: 'complete', _meta: SERVER_META });
      expect(app.probe.runs(label)).toBe(1);
    });

    it('a required tool is refused without the extension: -32021 naming it, HTTP 400, never run', async () => {
      const label = 'refused';
      const error = expectError(await callTool(app, 'only_task', { ms: 0, label }, { tasks: false }), -32021, 400);
      expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
      expect(app.probe.runs(label)).toBe(0);
    });

    it('a required tool becomes a task with the extension, and completes', async () => {
      const label = 'only-task';
      const created = await startTask(app, 'only_task', { ms: PAST_WINDOW_MS, label });
      const done = await untilTerminal(app, created.taskId);
      expect(done).toMatchObject({ status: 'completed', result: textResult(`done ${label}`) });
      expect(app.probe.runs(label)).toBe(1);
    });
  });

  describe('tasks/get', () => {
    it('finds a task at once, then polls it to completed with its result', async () => {
      const label = 'get-poll';
      const created = await startTask(app, 'sleepy', { ms: PAST_WINDOW_MS, label });
      const first = await getTask(app, created.taskId);
      expect(first).toEqual({
        resultType: 'complete',
        taskId: created.taskId,
        status: 'working',
        createdAt: created.createdAt,
        lastUpdatedAt: expect.stringMatching(ISO_DATE),
        ttlMs: DEFAULT_TTL_MS,
        pollIntervalMs: POLL_INTERVAL_MS,
        _meta: SERVER_META,
      });
      const done = await untilTerminal(app, created.taskId);
      expect(done).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'completed' });
      expect(done.result.content[0].text).toBe(`slept ${label}`);
      // The call's result as the tool made it: no resultType or envelope of its own.
      expect(done.result).toEqual(textResult(`slept ${label}`));
      expect(done).not.toHaveProperty('error');
      expect(done).not.toHaveProperty('inputRequests');
      expect(Date.parse(done.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(created.createdAt));
    });

    it('a tool error completes the task with result.isError', async () => {
      const created = await startTask(app, 'tool_error', { ms: PAST_WINDOW_MS });
      const done = await untilTerminal(app, created.taskId);
      expect(done.status).toBe('completed');
      expect(done.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'The job failed' }] });
      expect(done).not.toHaveProperty('error');
    });

    it('a protocol error fails the task with that error, and no result', async () => {
      const created = await startTask(app, 'protocol_error', { ms: PAST_WINDOW_MS });
      const done = await untilTerminal(app, created.taskId);
      expect(done.status).toBe('failed');
      expect(done.error).toEqual({ code: JOB_ERROR_CODE, message: 'Quota exceeded', data: { retryAfterMs: 1000 } });
      expect(done).not.toHaveProperty('result');
    });
    it("the work's progress becomes the task's statusMessage", async () => {
      const created = resultOf(
        await rpc(app, 'tools/call', {
          name: 'progress_task',
          arguments: { steps: 3, ms: 250 },
          _meta: { progressToken: 'progress-1' },
        }),
      );
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      const described = await pollTask(
        app,
        created.taskId,
        (task) => task.statusMessage !== undefined || TERMINAL.includes(task.status),
      );
      expect(described).toMatchObject({ status: 'working', statusMessage: expect.stringMatching(/^step [1-3] of 3$/) });
      expect(await untilTerminal(app, created.taskId)).toMatchObject({
        status: 'completed',
        result: textResult('3 steps done'),
      });
    });
  });

  describe('tasks/cancel', () => {
    it('acknowledges with an empty result; the task is cancelled and its work sees its signal abort', async () => {
      const label = 'cancel-me';
      const created = await startTask(app, 'sleepy', { ms: 3_000, label });
      const ack = resultOf(await rpc(app, 'tasks/cancel', { taskId: created.taskId }));
      expect(ack).toEqual({ resultType: 'complete', _meta: SERVER_META });
      await app.probe.whenAborted(label);
      const cancelled = await getTask(app, created.taskId);
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled).not.toHaveProperty('result');

      // Terminal: a second cancel gets the same acknowledgement, and the state stays.
      expect(resultOf(await rpc(app, 'tasks/cancel', { taskId: created.taskId }, { id: 2 }))).toEqual(ack);
      expect((await getTask(app, created.taskId)).status).toBe('cancelled');
    });

    it('a terminal state is final: cancelling a completed task leaves it completed', async () => {
      const label = 'completed-then-cancel';
      const created = await startTask(app, 'sleepy', { ms: PAST_WINDOW_MS, label });
      await untilTerminal(app, created.taskId);
      expect(resultOf(await rpc(app, 'tasks/cancel', { taskId: created.taskId }))).toEqual({
        resultType: 'complete',
        _meta: SERVER_META,
      });
      expect(await getTask(app, created.taskId)).toMatchObject({
        status: 'completed',
        result: textResult(`slept ${label}`),
      });
    });

    it('an unknown task id is -32602 on tasks/get, tasks/update and tasks/cancel', async () => {
      const taskId = 'task_00000000000000000000000000000000';
      expectError(await rpc(app, 'tasks/get', { taskId }), -32602, 400);
      expectError(await rpc(app, 'tasks/update', { taskId, inputResponses: {} }), -32602, 400);
      expectError(await rpc(app, 'tasks/cancel', { taskId }), -32602, 400);
    });

    it('tasks/get, tasks/update and tasks/cancel need the extension declared: -32021', async () => {
      const label = 'needs-extension';
      const created = await startTask(app, 'sleepy', { ms: 2_000, label });
      const { taskId } = created;
      for (const [method, params] of [
        ['tasks/get', { taskId }],
        ['tasks/update', { taskId, inputResponses: {} }],
        ['tasks/cancel', { taskId }],
      ] as const) {
        const error = expectError(await rpc(app, method, params, { tasks: false }), -32021, 400);
        expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
      }
      // The refused cancel did nothing.
      expect((await getTask(app, taskId)).status).toBe('working');
      resultOf(await rpc(app, 'tasks/cancel', { taskId }));
      await app.probe.whenAborted(label);
    });

    it('tasks/result and tasks/list do not exist in the modern era: -32601, HTTP 404', async () => {
      const created = await startTask(app, 'sleepy', { ms: PAST_WINDOW_MS });
      expectError(await rpc(app, 'tasks/result', { taskId: created.taskId }, { name: created.taskId }), -32601, 404);
      expectError(await rpc(app, 'tasks/list', {}), -32601, 404);
    });

    it('an Mcp-Name header that disagrees with params.taskId is -32020', async () => {
      const created = await startTask(app, 'sleepy', { ms: PAST_WINDOW_MS });
      expectError(await rpc(app, 'tasks/get', { taskId: created.taskId }, { name: 'task_other' }), -32020, 400);
      expectError(
        await rpc(app, 'tasks/cancel', { taskId: created.taskId }, { name: `${created.taskId}x` }),
        -32020,
        400,
      );
      // Refused before it ran: the task is still working.
      expect((await getTask(app, created.taskId)).status).toBe('working');
    });
  });

  describe('questions inside a task', () => {
    it('input_required with the question under its key; tasks/update answers it and the task completes', async () => {
      const label = 'ask-in-task';
      const created = await startTask(app, 'ask_name', { ms: 400, label });
      const { taskId } = created;
      const waiting = await untilStatus(app, taskId, 'input_required');
      const question = {
        method: 'elicitation/create',
        params: { message: 'What is your name?', requestedSchema: NAME_SCHEMA },
      };
      expect(waiting.inputRequests).toEqual({ name: question });
      expect(waiting).not.toHaveProperty('result');

      // An answer to a key the task does not wait for is acknowledged, and changes nothing.
      expect(resultOf(await rpc(app, 'tasks/update', { taskId, inputResponses: { other: ADA } }))).toEqual({
        resultType: 'complete',
        _meta: SERVER_META,
      });
      expect(await getTask(app, taskId)).toMatchObject({ status: 'input_required', inputRequests: { name: question } });

      // A malformed answer is refused, and changes nothing either.
      expectError(
        await rpc(app, 'tasks/update', { taskId, inputResponses: { name: { action: 'maybe' } } }),
        -32602,
        400,
      );
      expect(await getTask(app, taskId)).toMatchObject({ status: 'input_required', inputRequests: { name: question } });

      resultOf(await rpc(app, 'tasks/update', { taskId, inputResponses: { name: ADA } }));
      const after = await getTask(app, taskId);
      expect(['working', 'completed']).toContain(after.status);
      expect(after).not.toHaveProperty('inputRequests');
      const done = await untilTerminal(app, taskId);
      expect(done).toMatchObject({ status: 'completed', result: textResult(`Hello, Ada! (task ${taskId})`) });
      expect(app.probe.runs(label)).toBe(1);
    });

    it('answers two questions one at a time: partly answered stays input_required', async () => {
      const created = await startTask(app, 'two_questions', { ms: 400 });
      const { taskId } = created;
      const waiting = await pollTask(
        app,
        taskId,
        (task) => Object.keys(task.inputRequests ?? {}).length === 2 || TERMINAL.includes(task.status),
      );
      expect(waiting.status).toBe('input_required');
      expect(Object.keys(waiting.inputRequests).sort()).toEqual(['first', 'second']);
      expect(waiting.inputRequests.first).toEqual({
        method: 'elicitation/create',
        params: { message: 'First?', requestedSchema: NAME_SCHEMA },
      });

      resultOf(await rpc(app, 'tasks/update', { taskId, inputResponses: { first: ADA } }));
      const half = await getTask(app, taskId);
      expect(half.status).toBe('input_required');
      expect(Object.keys(half.inputRequests)).toEqual(['second']);

      resultOf(
        await rpc(app, 'tasks/update', {
          taskId,
          inputResponses: { second: { action: 'accept', content: { name: 'Grace' } } },
        }),
      );
      const done = await untilTerminal(app, taskId);
      expect(done).toMatchObject({ status: 'completed', result: textResult('Ada and Grace') });
    });

    it('a question past maxPendingQuestions in one task fails at once, naming the option, and is never stored', async () => {
      const bounded = await startTasksApp({ maxPendingQuestions: 1 });
      try {
        const { taskId } = await startTask(bounded, 'two_questions', { ms: PAST_WINDOW_MS });
        const failed = await untilTerminal(bounded, taskId);
        expect(failed).toMatchObject({
          status: 'failed',
          error: {
            code: -32603,
            message:
              'Too many questions waiting for the client in this task: at most 1 (McpModule option maxPendingQuestions)',
          },
        });
        expect(failed).not.toHaveProperty('inputRequests.second');
      } finally {
        await bounded.close();
      }
    });

    it('keys a question asked without one by method and rank; a sampling question too', async () => {
      const asked = await startTask(app, 'ask_name', { ms: 300, unkeyed: true });
      const waiting = await untilStatus(app, asked.taskId, 'input_required');
      expect(Object.keys(waiting.inputRequests)).toEqual(['elicitation-1']);
      resultOf(await rpc(app, 'tasks/update', { taskId: asked.taskId, inputResponses: { 'elicitation-1': ADA } }));
      expect(await untilTerminal(app, asked.taskId)).toMatchObject({
        status: 'completed',
        result: textResult(`Hello, Ada! (task ${asked.taskId})`),
      });

      const sampled = await startTask(app, 'sample_in_task', { ms: 300 });
      const question = await untilStatus(app, sampled.taskId, 'input_required');
      expect(question.inputRequests).toEqual({
        'sampling-1': {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 },
        },
      });
      const answer = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'test-model' };
      resultOf(await rpc(app, 'tasks/update', { taskId: sampled.taskId, inputResponses: { 'sampling-1': answer } }));
      expect(await untilTerminal(app, sampled.taskId)).toMatchObject({
        status: 'completed',
        result: textResult('model said: hi'),
      });
    });

    it('a question the client did not declare it takes fails the task with -32021', async () => {
      const created = await startTask(app, 'ask_name', { ms: 300 }, { capabilities: { extensions: { [TASKS]: {} } } });
      const failed = await untilTerminal(app, created.taskId);
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
      expect(failed).not.toHaveProperty('inputRequests');
    });

    it('a question asked before the first await ends the call in its request and leaves no task behind', async () => {
      const principal = 'asks-at-once';
      const first = resultOf(await callTool(app, 'ask_at_once', {}, { principal }));
      expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { name: expect.any(Object) } });
      // Past the inline window (100 ms), nothing was handed to a task.
      await new Promise((resolve) => setTimeout(resolve, 400));
      await expect(app.app.get(McpTaskService).list(`principal:${principal}`)).resolves.toEqual([]);
    });

    it('within the inline window a question is a multi round-trip input_required answer, not a task', async () => {
      const label = 'ask-inline';
      const first = resultOf(await callTool(app, 'ask_name', { ms: 0, label }));
      expect(first).toEqual({
        resultType: 'input_required',
        inputRequests: {
          name: {
            method: 'elicitation/create',
            params: { message: 'What is your name?', requestedSchema: NAME_SCHEMA },
          },
        },
        requestState: expect.any(String),
        _meta: SERVER_META,
      });
      expect(first).not.toHaveProperty('taskId');
      const retry = resultOf(
        await rpc(
          app,
          'tools/call',
          {
            name: 'ask_name',
            arguments: { ms: 0, label },
            requestState: first.requestState,
            inputResponses: { name: ADA },
          },
          { id: 2 },
        ),
      );
      expect(retry).toEqual({ ...textResult('Hello, Ada! (task none)'), resultType: 'complete', _meta: SERVER_META });
    });
  });

  describe('task notifications and owners', () => {
    it('subscriptions/listen with taskIds acks the owned ids and streams notifications/tasks', async () => {
      const alice = { principal: 'alice' };
      const created = await startTask(app, 'ask_name', { ms: PAST_WINDOW_MS, label: 'listened' }, alice);
      const { taskId } = created;
      const bobs = await startTask(app, 'sleepy', { ms: 2_000, label: 'bobs' }, { principal: 'bob' });
      const { reader, ack } = await openListen(
        app,
        { taskIds: [taskId, bobs.taskId, 'task_unknown'] },
        'listen-alice',
        cleanup.signal,
        alice,
      );
      expect(ack).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { [SUBSCRIPTION_ID]: 'listen-alice' }, notifications: { taskIds: [taskId] } },
      });

      const asking = await reader.next();
      expect(asking).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: expect.objectContaining({
          _meta: { [SUBSCRIPTION_ID]: 'listen-alice' },
          taskId,
          status: 'input_required',
          inputRequests: { name: expect.objectContaining({ method: 'elicitation/create' }) },
        }),
      });
      resultOf(await rpc(app, 'tasks/update', { taskId, inputResponses: { name: ADA } }, alice));
      const working = await reader.next();
      expect(working.params).toMatchObject({ taskId, status: 'working' });
      expect(working.params).not.toHaveProperty('inputRequests');
      const completed = await reader.next();
      expect(completed).toMatchObject({
        method: 'notifications/tasks',
        params: {
          _meta: { [SUBSCRIPTION_ID]: 'listen-alice' },
          taskId,
          status: 'completed',
          result: textResult(`Hello, Ada! (task ${taskId})`),
        },
      });
      // Bob's task was left out of the subscription: cancelling it sends alice nothing.
      resultOf(await rpc(app, 'tasks/cancel', { taskId: bobs.taskId }, { principal: 'bob' }));
      await expect(reader.next(300)).rejects.toThrow(/Timed out/);
    });

    it('a listen with taskIds but without the extension is -32021', async () => {
      const created = await startTask(app, 'sleepy', { ms: PAST_WINDOW_MS });
      const params = { notifications: { taskIds: [created.taskId] } };
      const response = await post(
        app.url,
        bodyFor('subscriptions/listen', params, { tasks: false }),
        headersFor('subscriptions/listen', params, {}),
      );
      const error = expectError(response, -32021, 400);
      expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    });

    it("another principal cannot get, update, cancel or listen to someone's task", async () => {
      const label = 'owned-by-carol';
      const carol = { principal: 'carol' };
      const dave = { principal: 'dave' };
      const created = await startTask(app, 'ask_name', { ms: 300, label }, carol);
      const { taskId } = created;
      await untilStatus(app, taskId, 'input_required', carol);

      expectError(await rpc(app, 'tasks/get', { taskId }, dave), -32602, 400);
      expectError(await rpc(app, 'tasks/update', { taskId, inputResponses: { name: ADA } }, dave), -32602, 400);
      expectError(await rpc(app, 'tasks/cancel', { taskId }, dave), -32602, 400);
      // Nor the anonymous caller.
      expectError(await rpc(app, 'tasks/get', { taskId }), -32602, 400);
      const { ack } = await openListen(app, { taskIds: [taskId] }, 'listen-dave', cleanup.signal, dave);
      expect(ack.params?.notifications).toEqual({ taskIds: [] });

      // None of it touched the task: still waiting for carol's answer, never aborted.
      expect(await getTask(app, taskId, carol)).toMatchObject({ status: 'input_required' });
      expect(app.probe.aborted).not.toContain(label);
      resultOf(await rpc(app, 'tasks/update', { taskId, inputResponses: { name: ADA } }, carol));
      expect(await untilTerminal(app, taskId, carol)).toMatchObject({
        status: 'completed',
        result: textResult(`Hello, Ada! (task ${taskId})`),
      });
    });
  });
});

describe('tasks.inlineMs is configurable (express)', () => {
  let wide: TasksApp;
  let none: TasksApp;

  beforeAll(async () => {
    [wide, none] = await Promise.all([
      startTasksApp({ tasks: { inlineMs: 2_000 } }),
      startTasksApp({ tasks: { inlineMs: 0 } }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([wide?.close(), none?.close()]);
  });

  it('a 2 s window answers a 500 ms call in place', async () => {
    const label = 'wide-500';
    const result = resultOf(await callTool(wide, 'sleepy', { ms: 500, label }));
    expect(result).toMatchObject({ ...textResult(`slept ${label}`), resultType: 'complete' });
    expect(result).not.toHaveProperty('taskId');
  });

  it('a 0 ms window makes a 300 ms call a task at once', async () => {
    const label = 'none-300';
    const created = await startTask(none, 'sleepy', { ms: 300, label });
    expect(created.status).toBe('working');
    expect(await untilTerminal(none, created.taskId)).toMatchObject({
      status: 'completed',
      result: textResult(`slept ${label}`),
    });
    expect(none.probe.runs(label)).toBe(1);
  });
});

describe('the inline → task hand-off has no race (express)', () => {
  const WINDOW_MS = 50;
  const CALLS = 200;
  const BATCH = 20;
  let app: TasksApp;

  beforeAll(async () => {
    app = await startTasksApp({ tasks: { inlineMs: WINDOW_MS, maxLivePerOwner: 1_000 } });
  });

  afterAll(async () => {
    await app?.close();
  });

  it(`${CALLS} calls ending around the window's edge each reach exactly one of the answer or the task`, async () => {
    const outcomes = { inline: 0, task: 0 };
    const racer = { principal: 'racer' };

    const one = async (index: number): Promise<void> => {
      // Mostly 40..60 ms, spread around the 50 ms edge; one in ten ends at once and one in ten
      // well past the window, so that both ways are taken whatever the machine's load.
      const ms = index % 10 === 0 ? 0 : index % 10 === 5 ? WINDOW_MS * 3 : WINDOW_MS - 10 + (index % 21);
      const label = `race-${index}`;
      const result = resultOf(await callTool(app, 'sleepy', { ms, label }, { ...racer, id: index }));
      if (result.resultType === 'complete') {
        expect(result.content).toEqual([{ type: 'text', text: `slept ${label}` }]);
        expect(result).not.toHaveProperty('taskId');
        outcomes.inline += 1;
        return;
      }
      expect(result).toMatchObject({ resultType: 'task', taskId: expect.stringMatching(TASK_ID) });
      expect(result).not.toHaveProperty('content');
      outcomes.task += 1;
      const done = await untilTerminal(app, result.taskId, racer, 10_000);
      expect(done).toMatchObject({ status: 'completed', result: textResult(`slept ${label}`) });
    };

    for (let start = 0; start < CALLS; start += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, CALLS - start) }, (_, offset) => one(start + offset));
      await Promise.all(batch);
    }

    for (let index = 0; index < CALLS; index += 1) {
      expect(app.probe.runs(`race-${index}`)).toBe(1);
    }
    expect(outcomes.inline + outcomes.task).toBe(CALLS);
    console.info(`hand-off race: ${outcomes.inline} answered in place, ${outcomes.task} as tasks`);
    expect(outcomes.inline).toBeGreaterThan(0);
    expect(outcomes.task).toBeGreaterThan(0);
  }, 30_000);
});

/** A result schema that takes any object: the v2 client's `request()` validates against it. */
const ANY_RESULT = z.looseObject({});

/** A v2 client pinned to 2026-07-28, declaring the tasks extension or not, with a recording fetch. */
async function connectV2(
  app: TasksApp,
  withTasks: boolean,
): Promise<{ client: Client; exchanges: Collector<RecordedExchange> }> {
  const recording = recordingFetch();
  const client = new Client(
    { name: 'v2-tasks-e2e', version: '2.0.0' },
    {
      capabilities: withTasks ? { elicitation: { form: {} }, extensions: { [TASKS]: {} } } : {},
      versionNegotiation: { mode: { pin: MODERN_REVISION } },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(app.url, { fetch: recording.fetch }));
  return { client, exchanges: recording.exchanges };
}

describe('the v2 client sends plain requests for the extension (express)', () => {
  let app: TasksApp;
  let client: Client;
  let exchanges: Collector<RecordedExchange>;
  let bare: Client;

  beforeAll(async () => {
    app = await startTasksApp();
    ({ client, exchanges } = await connectV2(app, true));
    ({ client: bare } = await connectV2(app, false));
  });

  afterAll(async () => {
    await client?.close();
    await bare?.close();
    await app?.close();
  });

  /** tasks/get through the v2 client. */
  const v2Get = (taskId: string) => client.request({ method: 'tasks/get', params: { taskId } }, ANY_RESULT);

  /** Calls a tool that becomes a task; the v2 client knows no `task` result, so the id is read off the wire. */
  async function v2StartTask(name: string, args: Record<string, unknown>): Promise<string> {
    await expect(client.callTool({ name, arguments: args })).rejects.toMatchObject({
      code: 'UNSUPPORTED_RESULT_TYPE',
      message: expect.stringContaining("'task'"),
    });
    const wire = await recordedResponse(exchanges, 'tools/call');
    expect(wire.result).toMatchObject({
      resultType: 'task',
      status: 'working',
      taskId: expect.stringMatching(TASK_ID),
    });
    return wire.result!.taskId as string;
  }

  async function v2Poll(taskId: string, done: (task: Record<string, any>) => boolean): Promise<Record<string, any>> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const task = await v2Get(taskId);
      if (done(task)) {
        return task;
      }
      if (Date.now() > deadline) {
        throw new Error(`Task ${taskId} is still ${JSON.stringify(task)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('sees the extension in the discovered capabilities and declares it in each request', async () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerCapabilities()?.extensions).toEqual({ [TASKS]: {} });
    const result = await client.callTool({ name: 'sleepy', arguments: { ms: 0, label: 'v2-inline' } });
    expect(result.content).toEqual([{ type: 'text', text: 'slept v2-inline' }]);
    const sent = recordedRequest(exchanges, 'tools/call');
    expect(sent.request.params._meta[META.clientCapabilities]).toMatchObject({ extensions: { [TASKS]: {} } });
  });

  it('polls a task with tasks/get to completed, with Mcp-Name mirroring the task id', async () => {
    const taskId = await v2StartTask('sleepy', { ms: PAST_WINDOW_MS, label: 'v2-poll' });
    const first = await v2Get(taskId);
    expect(first).toMatchObject({ taskId, status: 'working' });
    expect(recordedRequest(exchanges, 'tasks/get').requestHeaders.get('mcp-name')).toBe(taskId);
    const done = await v2Poll(taskId, (task) => TERMINAL.includes(task.status));
    expect(done).toMatchObject({ status: 'completed', result: textResult('slept v2-poll') });
  });

  it('answers a question of a task with tasks/update', async () => {
    const taskId = await v2StartTask('ask_name', { ms: 400, label: 'v2-ask' });
    const waiting = await v2Poll(taskId, (task) => task.status !== 'working');
    expect(waiting).toMatchObject({
      status: 'input_required',
      inputRequests: { name: { method: 'elicitation/create' } },
    });
    const ack = await client.request(
      { method: 'tasks/update', params: { taskId, inputResponses: { name: ADA } } },
      ANY_RESULT,
    );
    expect(ack).not.toHaveProperty('taskId');
    const done = await v2Poll(taskId, (task) => TERMINAL.includes(task.status));
    expect(done).toMatchObject({ status: 'completed', result: textResult(`Hello, Ada! (task ${taskId})`) });
  });

  it('cancels a task with tasks/cancel', async () => {
    const label = 'v2-cancel';
    const taskId = await v2StartTask('sleepy', { ms: 3_000, label });
    const ack = await client.request({ method: 'tasks/cancel', params: { taskId } }, ANY_RESULT);
    expect(ack).not.toHaveProperty('status');
    await app.probe.whenAborted(label);
    expect(await v2Get(taskId)).toMatchObject({ taskId, status: 'cancelled' });
  });

  it('a v2 client without the extension gets calls in place, and -32021 for what needs it', async () => {
    const result = await bare.callTool({ name: 'sleepy', arguments: { ms: PAST_WINDOW_MS, label: 'v2-bare' } });
    expect(result.content).toEqual([{ type: 'text', text: 'slept v2-bare' }]);
    await expect(bare.callTool({ name: 'only_task', arguments: { ms: 0 } })).rejects.toMatchObject({ code: -32021 });
    await expect(
      bare.request({ method: 'tasks/get', params: { taskId: 'task_00000000000000000000000000000000' } }, ANY_RESULT),
    ).rejects.toMatchObject({ code: -32021 });
  });
});

const FASTIFY: HttpPlatform = 'fastify';

describe('tasks extension smoke (fastify)', () => {
  let app: TasksApp;

  beforeAll(async () => {
    app = await startTasksApp({ tasks: { pollIntervalMs: POLL_INTERVAL_MS } }, FASTIFY);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('creates a task past the window and polls it to completed', async () => {
    const label = 'fastify-poll';
    const created = await startTask(app, 'sleepy', { ms: PAST_WINDOW_MS, label });
    expect(created).toMatchObject({ status: 'working', ttlMs: DEFAULT_TTL_MS, pollIntervalMs: POLL_INTERVAL_MS });
    expect((await getTask(app, created.taskId)).status).toBe('working');
    expect(await untilTerminal(app, created.taskId)).toMatchObject({
      status: 'completed',
      result: textResult(`slept ${label}`),
    });
  });

  it('cancels a task: acknowledged, cancelled, its signal aborted', async () => {
    const label = 'fastify-cancel';
    const created = await startTask(app, 'sleepy', { ms: 3_000, label });
    expect(resultOf(await rpc(app, 'tasks/cancel', { taskId: created.taskId }))).toEqual({
      resultType: 'complete',
      _meta: SERVER_META,
    });
    await app.probe.whenAborted(label);
    expect((await getTask(app, created.taskId)).status).toBe('cancelled');
  });

  it('refuses a required tool without the extension: -32021, HTTP 400', async () => {
    expectError(await callTool(app, 'only_task', { ms: 0 }, { tasks: false }), -32021, 400);
  });
});
