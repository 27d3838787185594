/**
 * Telemetry of tasks, both eras, over real HTTP: a call that becomes a task gets an INTERNAL
 * root span `execute_tool <tool>` linked to the creating `tools/call <tool>` SERVER span, with
 * the task id and a `nest_mcp.task.status` event per status change; cancelled and failed tasks
 * end their spans so; in the legacy `task` mode the work runs inside the task's span (its own
 * spans and the CLIENT span of a question it asks are children of it); the tasks counter counts
 * the working task while it runs and not after. The task can be followed: the creating call and
 * every `tasks/get|result|cancel|update` about it carry `mcp.task.id` and link to the task's
 * span; its run time is recorded by outcome in `nest_mcp.server.task.duration`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  type ElicitResult,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { DataPointType, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  startTelemetryTasksApp,
  TASK_THROWER,
  type TelemetryTasksApp,
  WORK_SPAN,
} from '../fixtures/telemetry-tasks-fixture';
import { META, modernHeaders, modernRequest, post, type RawResponse, waitUntil } from '../fixtures/raw-rpc';
import { registerOtelGlobals, resetOtelGlobals, TestTelemetry } from '../fixtures/telemetry-sdk';
import { JOB_ERROR_CODE } from '../fixtures/tasks-fixture';
import { connectStreamingClient } from '../fixtures/streaming-client';

const MCP_TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const TASK_TTL_MS = 60_000;
/** Well past the modern inline window (100 ms by default): the call is a task by then. */
const PAST_WINDOW_MS = 600;

/** The buckets of both duration histograms of the conventions, which the task duration shares. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The statuses of a task span's `nest_mcp.task.status` events, in order. */
function statusEvents(span: ReadableSpan): string[] {
  return span.events
    .filter((event) => event.name === 'nest_mcp.task.status')
    .map((event) => String(event.attributes?.['nest_mcp.task.status']));
}

/** The tasks counter's value for `status` now (0 when it reported nothing for it): a non-monotonic sum. */
async function activeTasks(telemetry: TestTelemetry, status: string): Promise<number> {
  const metric = (await telemetry.metrics()).get('nest_mcp.server.tasks.active');
  expect(metric).toMatchObject({ dataPointType: DataPointType.SUM, isMonotonic: false });
  const point = metric!.dataPoints.find((candidate) => candidate.attributes['nest_mcp.task.status'] === status);
  return (point?.value as number | undefined) ?? 0;
}

/**
 * The task duration point of `tool` ended `status`: exactly the status, the tool and the error
 * type (when given), in seconds, with the buckets of the operation duration.
 */
async function expectTaskDuration(
  telemetry: TestTelemetry,
  tool: string,
  status: string,
  errorType?: string,
): Promise<void> {
  const metric = (await telemetry.metrics()).get('nest_mcp.server.task.duration');
  expect(metric?.descriptor.unit).toBe('s');
  const points = (metric?.dataPoints ?? []) as Array<DataPoint<Histogram>>;
  const point = points.find(
    (candidate) =>
      candidate.attributes['gen_ai.tool.name'] === tool && candidate.attributes['nest_mcp.task.status'] === status,
  );
  expect(point?.attributes).toEqual({
    'nest_mcp.task.status': status,
    'gen_ai.tool.name': tool,
    ...(errorType === undefined ? {} : { 'error.type': errorType }),
  });
  expect(point!.value.count).toBeGreaterThanOrEqual(1);
  expect(point!.value.sum).toBeGreaterThan(0);
  expect(point!.value.buckets.boundaries).toEqual(DURATION_BUCKETS);
}

/** The finished span named `name` that carries `mcp.task.id` = `taskId` (the last one). */
async function spanAbout(telemetry: TestTelemetry, name: string, taskId: string): Promise<ReadableSpan> {
  await waitUntil(
    () => telemetry.named(name).some((span) => span.attributes['mcp.task.id'] === taskId),
    `a ${name} span about task ${taskId}`,
  );
  return telemetry
    .named(name)
    .filter((span) => span.attributes['mcp.task.id'] === taskId)
    .at(-1)!;
}

/** A span about a task: a SERVER span with its id, linked to the task's own span. */
function expectFollows(span: ReadableSpan, task: ReadableSpan, taskId: string): void {
  expect(span.kind).toBe(SpanKind.SERVER);
  expect(span.attributes['mcp.task.id']).toBe(taskId);
  const link = span.links.find((candidate) => candidate.context.spanId === task.spanContext().spanId);
  expect(link?.context.traceId).toBe(task.spanContext().traceId);
  expect(link?.context.spanId).toBe(task.spanContext().spanId);
}

/** The task span of task `taskId` once it ended, and the SERVER span of the call that created it. */
async function taskSpans(
  telemetry: TestTelemetry,
  tool: string,
  taskId: string,
): Promise<{ task: ReadableSpan; creator: ReadableSpan }> {
  await waitUntil(
    () => telemetry.named(`execute_tool ${tool}`).some((span) => span.attributes['mcp.task.id'] === taskId),
    `the span of task ${taskId} to end`,
  );
  const task = telemetry.named(`execute_tool ${tool}`).find((span) => span.attributes['mcp.task.id'] === taskId)!;
  const link = task.links[0];
  expect(link).toBeDefined();
  const creator = telemetry
    .named(`tools/call ${tool}`)
    .find((span) => span.spanContext().spanId === link.context.spanId);
  expect(creator).toBeDefined();
  return { task, creator: creator! };
}

/** The `exception` events of a span. */
function exceptions(span: ReadableSpan): ReadableSpan['events'] {
  return span.events.filter((event) => event.name === 'exception');
}

/** An unexpected error of the task's work: one exception event with its stack on the task span, none on the call's. */
function expectExceptionOnTask(task: ReadableSpan, creator: ReadableSpan): void {
  expect(exceptions(task)).toHaveLength(1);
  expect(exceptions(task)[0].attributes).toMatchObject({
    'exception.type': 'Error',
    'exception.message': 'the task crashed',
    'exception.stacktrace': expect.stringContaining(TASK_THROWER),
  });
  expect(exceptions(creator)).toEqual([]);
}

/** What every task span is: INTERNAL, a root of its own trace, linked to its creating SERVER span. */
function expectLinkedRoot(task: ReadableSpan, creator: ReadableSpan, tool: string, taskId: string): void {
  expect(task.kind).toBe(SpanKind.INTERNAL);
  expect(task.parentSpanContext).toBeUndefined();
  expect(task.spanContext().traceId).not.toBe(creator.spanContext().traceId);
  expect(task.links).toHaveLength(1);
  expect(task.links[0].context.traceId).toBe(creator.spanContext().traceId);
  expect(task.links[0].context.spanId).toBe(creator.spanContext().spanId);
  expect(creator.kind).toBe(SpanKind.SERVER);
  // The creating call names the task it made.
  expect(creator.attributes).toMatchObject({
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': tool,
    'mcp.task.id': taskId,
  });
  expect(task.attributes).toMatchObject({
    'mcp.task.id': taskId,
    'gen_ai.tool.name': tool,
    'gen_ai.operation.name': 'execute_tool',
    'mcp.method.name': 'tools/call',
  });
}

describe('task telemetry, 2025-11-25 (v1 client, the legacy `task` mode)', () => {
  const telemetry = new TestTelemetry();
  let server: TelemetryTasksApp;
  const open: Array<{ client: Client; transport: StreamableHTTPClientTransport }> = [];

  async function connect(
    elicit?: (params: Record<string, unknown>) => Promise<ElicitResult> | ElicitResult,
  ): Promise<Client> {
    const { client, transport } = await connectStreamingClient(server.url, 'telemetry-tasks', elicit);
    open.push({ client, transport });
    return client;
  }

  async function startTask(client: Client, name: string, args: Record<string, unknown>): Promise<Task> {
    const created = await client.request(
      { method: 'tools/call', params: { name, arguments: args, task: { ttl: TASK_TTL_MS } } },
      CreateTaskResultSchema,
    );
    return created.task;
  }

  beforeAll(async () => {
    registerOtelGlobals();
    server = await startTelemetryTasksApp(telemetry.tracerProvider, {
      telemetry: telemetry.options,
      tasks: { pollIntervalMs: 50 },
    });
  });

  beforeEach(() => telemetry.reset());

  afterEach(async () => {
    for (const { client, transport } of open.splice(0)) {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  afterAll(async () => {
    await server?.close();
    await telemetry.shutdown();
    resetOtelGlobals();
  });

  it("a task's span is a root linked to the creating call, with the task id; the work's spans are its children", async () => {
    const client = await connect();
    const created = await startTask(client, 'traced_work', { label: 'traced' });
    const result = await client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'worked traced' }]);

    const { task, creator } = await taskSpans(telemetry, 'traced_work', created.taskId);
    expectLinkedRoot(task, creator, 'traced_work', created.taskId);
    expect(task.attributes['mcp.session.id']).toBe(creator.attributes['mcp.session.id']);
    expect(task.attributes['nest_mcp.task.status']).toBe('completed');
    expect(statusEvents(task)).toEqual(['working', 'completed']);
    expect(task.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(task.attributes).not.toHaveProperty('error.type');

    const [work] = telemetry.named(WORK_SPAN);
    expect(work.spanContext().traceId).toBe(task.spanContext().traceId);
    expect(work.parentSpanContext?.spanId).toBe(task.spanContext().spanId);
    await expectTaskDuration(telemetry, 'traced_work', 'completed');
  });

  it('tasks/get and tasks/result about a task started here: its id, and a link to its span', async () => {
    const client = await connect();
    const created = await startTask(client, 'gated', { label: 'follow-legacy' });
    await server.gates.whenStarted('follow-legacy');
    expect((await client.experimental.tasks.getTask(created.taskId)).status).toBe('working');
    // tasks/result waits for the end: released once the server serves it, the task still working.
    const result = client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
    await telemetry.waitForStart('tasks/result');
    server.gates.release('follow-legacy');
    expect((await result).content).toEqual([{ type: 'text', text: 'released follow-legacy' }]);

    const { task, creator } = await taskSpans(telemetry, 'gated', created.taskId);
    expectLinkedRoot(task, creator, 'gated', created.taskId);
    expectFollows(await spanAbout(telemetry, 'tasks/get', created.taskId), task, created.taskId);
    expectFollows(await spanAbout(telemetry, 'tasks/result', created.taskId), task, created.taskId);
  });

  it("a question the task's work asks: a CLIENT span under the task span, and input_required between working", async () => {
    const client = await connect(() => ({ action: 'accept', content: { name: 'Ada' } }));
    const created = await startTask(client, 'ask_name', { ms: 0, label: 'asked' });
    const result = await client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: `Hello, Ada! (task ${created.taskId})` }]);

    const { task, creator } = await taskSpans(telemetry, 'ask_name', created.taskId);
    expectLinkedRoot(task, creator, 'ask_name', created.taskId);
    expect(statusEvents(task)).toEqual(['working', 'input_required', 'working', 'completed']);
    const [question] = await telemetry.waitFor('elicitation/create');
    expect(question.kind).toBe(SpanKind.CLIENT);
    expect(question.spanContext().traceId).toBe(task.spanContext().traceId);
    expect(question.parentSpanContext?.spanId).toBe(task.spanContext().spanId);
  });

  it('the tasks counter counts a working task while it runs, and not after it completed', async () => {
    const client = await connect();
    const created = await startTask(client, 'gated', { label: 'gauge-legacy' });
    await server.gates.whenStarted('gauge-legacy');
    expect(await activeTasks(telemetry, 'working')).toBe(1);
    server.gates.release('gauge-legacy');
    await client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
    const { task } = await taskSpans(telemetry, 'gated', created.taskId);
    expect(statusEvents(task)).toEqual(['working', 'completed']);
    expect(await activeTasks(telemetry, 'working')).toBe(0);
  });

  it('tasks/cancel ends the span with a cancelled event, the counter drops to 0, the cancel span follows', async () => {
    const client = await connect();
    const created = await startTask(client, 'sleepy', { ms: 30_000, label: 'cancelled-legacy' });
    expect(await activeTasks(telemetry, 'working')).toBe(1);
    await client.experimental.tasks.cancelTask(created.taskId);
    const { task, creator } = await taskSpans(telemetry, 'sleepy', created.taskId);
    expectLinkedRoot(task, creator, 'sleepy', created.taskId);
    expect(statusEvents(task)).toEqual(['working', 'cancelled']);
    expect(task.attributes['nest_mcp.task.status']).toBe('cancelled');
    expect(await activeTasks(telemetry, 'working')).toBe(0);
    expectFollows(await spanAbout(telemetry, 'tasks/cancel', created.taskId), task, created.taskId);
    await expectTaskDuration(telemetry, 'sleepy', 'cancelled');
  });

  it('a task whose work fails with a protocol error: a failed event, status ERROR with its message', async () => {
    const client = await connect();
    const created = await startTask(client, 'protocol_error', { ms: 0 });
    await waitUntil(
      async () => (await client.experimental.tasks.getTask(created.taskId)).status === 'failed',
      'the task to fail',
    );
    const { task, creator } = await taskSpans(telemetry, 'protocol_error', created.taskId);
    expectLinkedRoot(task, creator, 'protocol_error', created.taskId);
    expect(statusEvents(task)).toEqual(['working', 'failed']);
    expect(task.attributes['nest_mcp.task.status']).toBe('failed');
    expect(task.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Quota exceeded' });
    // The code the request would have answered, as on a request span.
    expect(task.attributes['error.type']).toBe(String(JOB_ERROR_CODE));
    await expectTaskDuration(telemetry, 'protocol_error', 'failed', String(JOB_ERROR_CODE));
  });
  it("an unexpected error of the task's work: an exception event on the task span", async () => {
    const client = await connect();
    const created = await startTask(client, 'crashing', { ms: 0 });
    await waitUntil(
      async () => (await client.experimental.tasks.getTask(created.taskId)).status === 'failed',
      'the task to fail',
    );
    const { task, creator } = await taskSpans(telemetry, 'crashing', created.taskId);
    expect(task.attributes['error.type']).toBe('tool_error');
    expectExceptionOnTask(task, creator);
  });

  it('a tool error fails the task at 2025-11-25: the span ends failed too', async () => {
    const client = await connect();
    const created = await startTask(client, 'tool_error', { ms: 0 });
    await waitUntil(
      async () => (await client.experimental.tasks.getTask(created.taskId)).status === 'failed',
      'the task to fail',
    );
    const { task } = await taskSpans(telemetry, 'tool_error', created.taskId);
    expect(statusEvents(task)).toEqual(['working', 'failed']);
    expect(task.attributes['nest_mcp.task.status']).toBe('failed');
    expect(task.status).toEqual({ code: SpanStatusCode.ERROR, message: 'The tool reported an error' });
    expect(task.attributes['error.type']).toBe('tool_error');
    await expectTaskDuration(telemetry, 'tool_error', 'failed', 'tool_error');
  });
});

describe('task telemetry, 2026-07-28 (raw HTTP, the tasks extension)', () => {
  const telemetry = new TestTelemetry();
  let server: TelemetryTasksApp;

  /** One modern request declaring the tasks extension (and elicitation), with the headers mirroring it. */
  function rpc(method: string, params: Record<string, unknown>, id: string): Promise<RawResponse> {
    const name = typeof params.name === 'string' ? params.name : (params.taskId as string | undefined);
    return post(
      server.url,
      modernRequest(method, params, id, {
        [META.clientCapabilities]: { elicitation: {}, extensions: { [MCP_TASKS_EXTENSION]: {} } },
      }),
      modernHeaders(method, name),
    );
  }

  function resultOf(response: RawResponse): Record<string, any> {
    const message = response.json ?? response.events.find((event) => event.id !== undefined);
    if (message?.result === undefined) {
      throw new Error(`Expected a result, got ${response.status} ${response.text}`);
    }
    return message.result as Record<string, any>;
  }

  /** Calls `tool` and expects it to become a task: its id. */
  async function startTask(tool: string, args: Record<string, unknown>, id: string): Promise<string> {
    const created = resultOf(await rpc('tools/call', { name: tool, arguments: args }, id));
    expect(created).toMatchObject({ resultType: 'task', taskId: expect.any(String) });
    return created.taskId as string;
  }

  async function untilStatus(taskId: string, ...statuses: string[]): Promise<Record<string, any>> {
    let last: Record<string, any> = {};
    let poll = 0;
    await waitUntil(
      async () => {
        poll += 1;
        last = resultOf(await rpc('tasks/get', { taskId }, `get-${poll}`));
        return statuses.includes(last.status as string);
      },
      `task ${taskId} to be ${statuses.join(' or ')}`,
    );
    return last;
  }

  beforeAll(async () => {
    registerOtelGlobals();
    server = await startTelemetryTasksApp(telemetry.tracerProvider, { telemetry: telemetry.options });
  });

  beforeEach(() => telemetry.reset());

  afterAll(async () => {
    await server?.close();
    await telemetry.shutdown();
    resetOtelGlobals();
  });

  it('a call past the inline window: a root task span linked to its tools/call span, working then completed', async () => {
    const taskId = await startTask('sleepy', { ms: PAST_WINDOW_MS, label: 'modern' }, 'call-1');
    const done = await untilStatus(taskId, 'completed', 'failed', 'cancelled');
    expect(done.status).toBe('completed');
    const { task, creator } = await taskSpans(telemetry, 'sleepy', taskId);
    expectLinkedRoot(task, creator, 'sleepy', taskId);
    expect(creator.attributes['mcp.protocol.version']).toBe('2026-07-28');
    expect(task.attributes).not.toHaveProperty(['mcp.session.id']);
    expect(statusEvents(task)).toEqual(['working', 'completed']);
    await expectTaskDuration(telemetry, 'sleepy', 'completed');
  });

  it('the tasks counter counts a working task while it runs, 0 after it completed; tasks/get follows it', async () => {
    const taskId = await startTask('gated', { label: 'gauge-modern' }, 'call-2');
    expect(await activeTasks(telemetry, 'working')).toBe(1);
    expect(resultOf(await rpc('tasks/get', { taskId }, 'get-working')).status).toBe('working');
    server.gates.release('gauge-modern');
    expect((await untilStatus(taskId, 'completed', 'failed', 'cancelled')).status).toBe('completed');
    const { task, creator } = await taskSpans(telemetry, 'gated', taskId);
    expectLinkedRoot(task, creator, 'gated', taskId);
    expect(await activeTasks(telemetry, 'working')).toBe(0);
    const [working] = telemetry
      .named('tasks/get')
      .filter((span) => span.attributes['jsonrpc.request.id'] === 'get-working');
    expectFollows(working, task, taskId);
  });

  it('tasks/update answers a task waiting for input: its span has the id and a link to the task', async () => {
    const taskId = await startTask('ask_name', { ms: PAST_WINDOW_MS, label: 'update-modern' }, 'call-6');
    await untilStatus(taskId, 'input_required');
    resultOf(
      await rpc(
        'tasks/update',
        { taskId, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } },
        'update-6',
      ),
    );
    expect((await untilStatus(taskId, 'completed', 'failed', 'cancelled')).status).toBe('completed');
    const { task, creator } = await taskSpans(telemetry, 'ask_name', taskId);
    expectLinkedRoot(task, creator, 'ask_name', taskId);
    expectFollows(await spanAbout(telemetry, 'tasks/update', taskId), task, taskId);
  });

  it('tasks/cancel: the span ends with a cancelled event; the cancel span follows the task', async () => {
    const taskId = await startTask('sleepy', { ms: 30_000, label: 'cancelled-modern' }, 'call-3');
    resultOf(await rpc('tasks/cancel', { taskId }, 'cancel-3'));
    const { task, creator } = await taskSpans(telemetry, 'sleepy', taskId);
    expectLinkedRoot(task, creator, 'sleepy', taskId);
    expect(statusEvents(task)).toEqual(['working', 'cancelled']);
    expect(await activeTasks(telemetry, 'working')).toBe(0);
    expectFollows(await spanAbout(telemetry, 'tasks/cancel', taskId), task, taskId);
    await expectTaskDuration(telemetry, 'sleepy', 'cancelled');
  });

  it('a protocol error fails the task: a failed event, status ERROR', async () => {
    const taskId = await startTask('protocol_error', { ms: PAST_WINDOW_MS }, 'call-4');
    expect((await untilStatus(taskId, 'completed', 'failed', 'cancelled')).status).toBe('failed');
    const { task, creator } = await taskSpans(telemetry, 'protocol_error', taskId);
    expectLinkedRoot(task, creator, 'protocol_error', taskId);
    expect(statusEvents(task)).toEqual(['working', 'failed']);
    expect(task.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Quota exceeded' });
    expect(task.attributes['error.type']).toBe(String(JOB_ERROR_CODE));
    await expectTaskDuration(telemetry, 'protocol_error', 'failed', String(JOB_ERROR_CODE));
  });

  it('an unexpected error of the work once the call became a task: an exception event on the task span', async () => {
    const taskId = await startTask('crashing', { ms: PAST_WINDOW_MS }, 'call-6');
    const done = await untilStatus(taskId, 'completed', 'failed', 'cancelled');
    expect(done).toMatchObject({ status: 'completed', result: { isError: true } });
    expect(JSON.stringify(done)).not.toContain(TASK_THROWER);
    const { task, creator } = await taskSpans(telemetry, 'crashing', taskId);
    expectExceptionOnTask(task, creator);
  });

  it('a tool error completes the task at 2026-07-28 (the result says isError): a completed event, no ERROR', async () => {
    const taskId = await startTask('tool_error', { ms: PAST_WINDOW_MS }, 'call-5');
    const done = await untilStatus(taskId, 'completed', 'failed', 'cancelled');
    expect(done).toMatchObject({ status: 'completed', result: { isError: true } });
    const { task } = await taskSpans(telemetry, 'tool_error', taskId);
    expect(statusEvents(task)).toEqual(['working', 'completed']);
    expect(task.status.code).not.toBe(SpanStatusCode.ERROR);
    // Completed, whatever its result says: no error.type on the duration either.
    await expectTaskDuration(telemetry, 'tool_error', 'completed');
  });
});
