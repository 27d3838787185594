import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import { registerOtelGlobals, resetOtelGlobals, TestTelemetry } from '../../test/fixtures/telemetry-sdk';
import type { EngineOutcome, RequestFacts, ResolvedRequest } from '../protocol/engine';
import type { McpTaskRecord } from '../protocol/tasks/task-record';
import { ENDED_TASK_LINKS, type McpTelemetry } from './mcp-telemetry';
import { createMcpTelemetry } from './telemetry.factory';
import { resolveTelemetrySettings } from './telemetry-settings';

const FACTS = { era: 'modern', transport: 'stdio', channel: { notify: () => undefined } } as RequestFacts;
const NONE: EngineOutcome = { type: 'none' };
/** Only what `task()` reads of the request that made the task. */
const REQUEST = { method: 'tools/call', facts: FACTS } as unknown as ResolvedRequest;

const record = (id: string, status: McpTaskRecord['status'] = 'working', more: Partial<McpTaskRecord> = {}) =>
  ({ id, name: 'slow', status, ...more }) as McpTaskRecord;

describe('McpTelemetry, tasks', () => {
  let sdk: TestTelemetry;
  let telemetry: McpTelemetry;
  let nextId = 0;

  /** Has the telemetry watch one request, running `during` inside it. */
  async function watch(method: string, params: Record<string, unknown>, during?: () => void): Promise<ReadableSpan> {
    nextId += 1;
    const id = `r-${nextId}`;
    await telemetry.message(FACTS, { jsonrpc: '2.0', id, method, params }, () => {
      during?.();
      return Promise.resolve(NONE);
    });
    return sdk.finished().find((span) => span.attributes['jsonrpc.request.id'] === id)!;
  }

  beforeEach(() => {
    registerOtelGlobals();
    sdk = new TestTelemetry();
    telemetry = createMcpTelemetry(resolveTelemetrySettings(sdk.options))!;
  });

  afterEach(async () => {
    await sdk.shutdown();
    resetOtelGlobals();
  });

  it('the creating call gets the task id; requests about the task link to its span, during and after', async () => {
    let observed: ReturnType<McpTelemetry['task']> | undefined;
    const creator = await watch('tools/call', { name: 'slow' }, () => {
      observed = telemetry.task(REQUEST, record('task_1'));
    });
    expect(creator.attributes['mcp.task.id']).toBe('task_1');

    const live = await watch('tasks/get', { taskId: 'task_1' });
    observed!.settled(record('task_1', 'completed'));
    const [task] = sdk.named('execute_tool slow');
    expect(live.attributes['mcp.task.id']).toBe('task_1');
    expect(live.links.map((link) => link.context)).toEqual([task.spanContext()]);

    // Ended: `tasks/result` and `tasks/get` mostly come now, and still link to it.
    const after = await watch('tasks/result', { taskId: 'task_1' });
    expect(after.attributes['mcp.task.id']).toBe('task_1');
    expect(after.links.map((link) => link.context)).toEqual([task.spanContext()]);
  });

  it(`the spans of the last ${ENDED_TASK_LINKS} ended tasks are kept, the oldest forgotten first`, async () => {
    for (let index = 0; index <= ENDED_TASK_LINKS; index++) {
      telemetry.task(REQUEST, record(`t${index}`)).settled(record(`t${index}`, 'completed'));
    }
    const tasks = new Map(sdk.named('execute_tool slow').map((span) => [span.attributes['mcp.task.id'], span]));
    expect((await watch('tasks/get', { taskId: 't0' })).links).toEqual([]);
    expect((await watch('tasks/get', { taskId: 't1' })).links.map((link) => link.context)).toEqual([
      tasks.get('t1')!.spanContext(),
    ]);
    expect((await watch('tasks/get', { taskId: `t${ENDED_TASK_LINKS}` })).links.map((link) => link.context)).toEqual([
      tasks.get(`t${ENDED_TASK_LINKS}`)!.spanContext(),
    ]);
  });

  it('a task of another instance (no span here): the id alone, no link', async () => {
    const span = await watch('tasks/cancel', { taskId: 'task_elsewhere' });
    expect(span.attributes['mcp.task.id']).toBe('task_elsewhere');
    expect(span.links).toEqual([]);
  });

  it('the task duration, by terminal status and tool; error.type only when failed', async () => {
    const completed = telemetry.task(REQUEST, record('task_ok'));
    const failed = telemetry.task(REQUEST, record('task_bad'));
    const cancelled = telemetry.task(REQUEST, record('task_gone'));
    completed.status('input_required');
    completed.settled(record('task_ok', 'completed'));
    failed.settled(record('task_bad', 'failed', { error: { code: -32050, message: 'Quota exceeded' } }));
    cancelled.status('cancelled', 'The client cancelled it');
    // A status after the end changes nothing.
    cancelled.status('failed');

    const points = (await sdk.points('nest_mcp.server.task.duration')) as Array<DataPoint<Histogram>>;
    expect(points.map((point) => [point.attributes, point.value.count])).toEqual(
      expect.arrayContaining([
        [{ 'nest_mcp.task.status': 'completed', 'gen_ai.tool.name': 'slow' }, 1],
        [{ 'nest_mcp.task.status': 'failed', 'gen_ai.tool.name': 'slow', 'error.type': '-32050' }, 1],
        [{ 'nest_mcp.task.status': 'cancelled', 'gen_ai.tool.name': 'slow' }, 1],
      ]),
    );
    expect(points).toHaveLength(3);
    // None is live any more.
    const active = await sdk.points('nest_mcp.server.tasks.active');
    expect(active.map((point) => point.value)).toEqual([0, 0]);
  });
});
