/**
 * The sample's long-running tool, `build_report` (`taskSupport: 'optional'`), as clients of each
 * era see it: a modern client that declares the tasks extension gets a task it polls, watches
 * (progress as `statusMessage`) and cancels; a 2025-11-25 client (the official v1 SDK) gets a task
 * whose progress arrives as notifications; clients that take no task get the report in place.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_TASKS_EXTENSION, type McpCallContext } from 'nest-mcp';
import { AppModule } from '../sample/app.module';
import { ReportTools, SECTION_MS } from '../sample/jobs/report.tools';
import { startHttpApp, type HttpApp } from './fixtures/http-app';
import {
  Collector,
  META,
  modernHeaders,
  modernRequest,
  post,
  type RawResponse,
  type RpcMessage,
} from './fixtures/raw-rpc';

const TAKES_TASKS = { extensions: { [MCP_TASKS_EXTENSION]: {} } };
const TASK_ID = /^task_[0-9a-f]{32}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The JSON-RPC response to request `id`, whether it came as JSON or at the end of an SSE stream. */
function answerOf(response: RawResponse, id: number): RpcMessage {
  const message =
    response.json !== undefined ? (response.json as RpcMessage) : response.events.find((event) => event.id === id);
  if (message === undefined) {
    throw new Error(`No answer to request ${id}: ${response.status} ${response.text}`);
  }
  return message;
}

/** The report `build_report` answers for `sections`. */
function report(sections: number, taskId: string | null) {
  return {
    content: [{ type: 'text', text: `Report ready: ${sections} section${sections === 1 ? '' : 's'}` }],
    structuredContent: {
      sections,
      titles: Array.from({ length: sections }, (_, index) => `Section ${index + 1}`),
      taskId,
    },
  };
}

describe('sample: build_report, a tool that may run as a task', () => {
  const savedAuth = process.env.MCP_AUTH;
  let http: HttpApp;
  let nextId = 1;

  beforeAll(async () => {
    delete process.env.MCP_AUTH;
    http = await startHttpApp(AppModule);
  });
  afterAll(async () => {
    await http.close();
    if (savedAuth !== undefined) process.env.MCP_AUTH = savedAuth;
  });

  /** A modern request; `tasks` declares the tasks extension, `progressToken` asks for progress. */
  async function modern(
    method: string,
    params: Record<string, unknown>,
    options: { tasks: boolean; progressToken?: string },
  ): Promise<{ response: RawResponse; answer: RpcMessage }> {
    const id = nextId++;
    const meta = options.progressToken === undefined ? {} : { progressToken: options.progressToken };
    const name = method === 'tools/call' ? String(params.name) : String(params.taskId);
    const response = await post(
      http.url,
      modernRequest(method, { ...params, _meta: meta }, id, {
        [META.clientCapabilities]: options.tasks ? TAKES_TASKS : {},
      }),
      modernHeaders(method, name),
    );
    return { response, answer: answerOf(response, id) };
  }

  function callReport(sections: number, options: { tasks: boolean; progressToken?: string }) {
    return modern('tools/call', { name: 'build_report', arguments: { sections } }, options);
  }

  async function getTask(taskId: string): Promise<Record<string, any>> {
    const { answer } = await modern('tasks/get', { taskId }, { tasks: true });
    expect(answer.error).toBeUndefined();
    return answer.result!;
  }

  /** Polls `tasks/get` until `done` holds; every state seen is passed to `seen`. */
  async function pollTask(
    taskId: string,
    done: (task: Record<string, any>) => boolean,
    seen: (task: Record<string, any>) => void = () => undefined,
    timeoutMs = 15_000,
  ): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const task = await getTask(taskId);
      seen(task);
      if (done(task)) {
        return task;
      }
      if (Date.now() > deadline) {
        throw new Error(`Task ${taskId} still ${JSON.stringify(task)} after ${timeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  describe('2026-07-28 with the tasks extension', () => {
    it('answers with a task whose status message follows the sections, and that cancels', async () => {
      const { response, answer } = await callReport(20, { tasks: true, progressToken: 'report-20' });
      expect(response.status).toBe(200);
      const created = answer.result!;
      expect(created).toMatchObject({
        resultType: 'task',
        status: 'working',
        ttlMs: 3_600_000,
        pollIntervalMs: 1000,
      });
      expect(created.taskId).toMatch(TASK_ID);
      expect(created.createdAt).toMatch(ISO_DATE);
      expect(created).not.toHaveProperty('task');
      const taskId = created.taskId as string;

      const messages: string[] = [];
      const working = await pollTask(
        taskId,
        () => messages.length >= 2,
        (task) => {
          if (typeof task.statusMessage === 'string' && messages.at(-1) !== task.statusMessage) {
            messages.push(task.statusMessage);
          }
        },
      );
      expect(working).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
      const sections = messages.map((message) => Number(/^Section (\d+) of 20$/.exec(message)?.[1]));
      expect(sections.every((section) => section >= 1)).toBe(true);
      expect(sections).toEqual([...sections].sort((a, b) => a - b));
      expect(sections.at(-1)).toBeLessThan(20);

      const { answer: cancelled } = await modern('tasks/cancel', { taskId }, { tasks: true });
      const { _meta: _serverInfo, ...acknowledged } = cancelled.result!;
      expect(acknowledged).toEqual({ resultType: 'complete' });
      const after = await getTask(taskId);
      expect(after).toMatchObject({ taskId, status: 'cancelled', statusMessage: 'Cancelled by the client' });
      expect(after).not.toHaveProperty('result');

      // The aborted work writes nothing more: a cancelled task stays as it is.
      await new Promise((resolve) => setTimeout(resolve, 3 * SECTION_MS));
      expect(await getTask(taskId)).toEqual(after);
    });

    it('polls a shorter report to completed, the report inside the task', async () => {
      const { answer } = await callReport(3, { tasks: true, progressToken: 'report-3' });
      expect(answer.result).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = answer.result!.taskId as string;

      const done = await pollTask(taskId, (task) => task.status !== 'working');
      expect(done).toMatchObject({ resultType: 'complete', taskId, status: 'completed' });
      expect(done.result).toMatchObject(report(3, taskId));
      expect(done.result.isError).toBeUndefined();
    });
  });

  describe('2026-07-28 without the tasks extension', () => {
    it('runs the call in place and streams its progress before the report', async () => {
      const { response, answer } = await callReport(2, { tasks: false, progressToken: 'inline-2' });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const progress = response.events.filter((event) => event.method === 'notifications/progress');
      expect(progress.map((event) => event.params)).toEqual([
        { progressToken: 'inline-2', progress: 1, total: 2, message: 'Section 1 of 2' },
        { progressToken: 'inline-2', progress: 2, total: 2, message: 'Section 2 of 2' },
      ]);
      expect(answer.result).toMatchObject({ resultType: 'complete', ...report(2, null) });
    });
  });

  describe('2025-11-25 with the official v1 client', () => {
    let client: Client;
    const logs = new Collector<LoggingMessageNotification['params']>();

    beforeAll(async () => {
      client = new Client({ name: 'sample-tasks-e2e', version: '1.0.0' });
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => logs.push(notification.params));
      await client.connect(new StreamableHTTPClientTransport(http.url));
    });
    afterAll(() => client.close());

    it('negotiates tasks and lists the tool as task-capable', async () => {
      expect(client.getServerCapabilities()?.tasks).toEqual({
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === 'build_report')?.execution).toEqual({ taskSupport: 'optional' });
      expect(tools.find((tool) => tool.name === 'echo')).not.toHaveProperty('execution');
    });

    it('runs a task: progress and logs arrive as notifications, then the report', async () => {
      const progress = new Collector<Progress>();
      const stream = client.experimental.tasks.callToolStream(
        { name: 'build_report', arguments: { sections: 4 } },
        CallToolResultSchema,
        { onprogress: progress.push, task: { ttl: 60_000 } },
      );
      const messages: Array<{ type: string; [key: string]: any }> = [];
      for await (const message of stream) {
        messages.push(message);
      }

      const created = messages.find((message) => message.type === 'taskCreated');
      expect(created?.task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 1000 });
      const taskId = created!.task.taskId as string;
      expect(taskId).toMatch(TASK_ID);
      const last = messages.at(-1)!;
      expect(last.type).toBe('result');
      expect(last.result).toMatchObject(report(4, taskId));
      expect(last.result._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });

      // They travel on the session's stream, apart from the answers: wait for the last one.
      await progress.waitFor(1, (item) => item.progress === 4);
      expect(progress.items.map((item) => item.message)).toEqual(
        progress.items.map((item) => `Section ${item.progress} of 4`),
      );
      expect(progress.items.every((item) => item.total === 4)).toBe(true);
      const values = progress.items.map((item) => item.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      const reportLogs = await logs.waitFor(4, (item) => item.logger === 'reports');
      expect(reportLogs.map((item) => item.data)).toEqual([1, 2, 3, 4].map((section) => ({ section, of: 4 })));
      expect(reportLogs[0]._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });

      const { tasks } = await client.experimental.tasks.listTasks();
      expect(tasks.find((task) => task.taskId === taskId)?.status).toBe('completed');
    });

    it('runs the call in place when the client asks for no task', async () => {
      const progress = new Collector<Progress>();
      const result = await client.callTool({ name: 'build_report', arguments: { sections: 1 } }, undefined, {
        onprogress: progress.push,
      });
      expect(result).toMatchObject(report(1, null));
      expect(progress.items).toEqual([{ progress: 1, total: 1, message: 'Section 1 of 1' }]);
    });
  });

  describe('the handler on its own', () => {
    it('stops at the next section once its signal aborts', async () => {
      const controller = new AbortController();
      const progress = jest.fn(() => controller.abort(new Error('Cancelled by the client')));
      const ctx = {
        signal: controller.signal,
        progress,
        log: jest.fn(),
        taskId: undefined,
      } as unknown as McpCallContext;
      await expect(new ReportTools().build_report({ sections: 20 }, ctx)).rejects.toMatchObject({
        name: 'AbortError',
        cause: expect.objectContaining({ message: 'Cancelled by the client' }),
      });
      expect(progress).toHaveBeenCalledTimes(1);
    });
  });
});
