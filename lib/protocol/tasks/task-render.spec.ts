import type { McpTaskRecord, McpTaskStatus } from './task-record';
import {
  relatedTaskMeta,
  renderCreateTaskResult,
  renderLegacyTask,
  renderModernTask,
  taskNotificationOf,
} from './task-render';

const CREATED = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
const UPDATED = CREATED + 1_500;
const RESULT = { content: [{ type: 'text', text: 'slept 1' }] };
const TOOL_ERROR = { content: [{ type: 'text', text: 'bad input' }], isError: true };
const ERROR = { code: -32050, message: 'Quota exceeded', data: { retryAfterMs: 1000 } };
const QUESTIONS = { name: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: {} } } };

function record(era: 'legacy' | 'modern', overrides: Partial<McpTaskRecord> = {}): McpTaskRecord {
  return {
    id: 'task_0123456789abcdef0123456789abcdef',
    owner: era === 'legacy' ? 'session:s1' : 'principal:alice',
    era,
    revision: era === 'legacy' ? '2025-11-25' : '2026-07-28',
    sessionId: era === 'legacy' ? 's1' : undefined,
    method: 'tools/call',
    name: 'sleepy',
    status: 'working',
    createdAt: CREATED,
    updatedAt: UPDATED,
    ttlMs: 60_000,
    expiresAt: CREATED + 60_000,
    pollIntervalMs: 500,
    ...overrides,
  };
}

const LEGACY_BASE = {
  taskId: 'task_0123456789abcdef0123456789abcdef',
  createdAt: '2026-01-02T03:04:05.678Z',
  lastUpdatedAt: '2026-01-02T03:04:07.178Z',
  ttl: 60_000,
  pollInterval: 500,
};
const MODERN_BASE = {
  taskId: 'task_0123456789abcdef0123456789abcdef',
  createdAt: '2026-01-02T03:04:05.678Z',
  lastUpdatedAt: '2026-01-02T03:04:07.178Z',
  ttlMs: 60_000,
  pollIntervalMs: 500,
};

/** A task in each status, with what a task in that status carries. */
const STATES: Array<[McpTaskStatus, Partial<McpTaskRecord>]> = [
  ['working', {}],
  ['input_required', { statusMessage: 'Waiting for input from the client', inputRequests: QUESTIONS }],
  ['completed', { result: RESULT }],
  ['failed', { error: ERROR, statusMessage: 'Quota exceeded' }],
  ['cancelled', { statusMessage: 'Cancelled by the client' }],
];

describe('task rendering', () => {
  describe('renderLegacyTask (2025-11-25 Task)', () => {
    it.each(STATES)('renders a %s task with the Task fields only', (status, extra) => {
      const rendered = renderLegacyTask(record('legacy', { status, ...extra }));
      const expected: Record<string, unknown> = { ...LEGACY_BASE, status };
      if (extra.statusMessage !== undefined) {
        expected.statusMessage = extra.statusMessage;
      }
      expect(rendered).toEqual(expected);
      // Details come with tasks/result, never in the Task.
      for (const field of ['result', 'error', 'inputRequests', 'ttlMs', 'pollIntervalMs', 'resultType', 'owner']) {
        expect(rendered).not.toHaveProperty(field);
      }
    });

    it('renders a legacy task that failed with a tool error result without the result', () => {
      const rendered = renderLegacyTask(
        record('legacy', { status: 'failed', result: TOOL_ERROR, statusMessage: 'The tool reported an error' }),
      );
      expect(rendered).toEqual({ ...LEGACY_BASE, status: 'failed', statusMessage: 'The tool reported an error' });
    });

    it('writes the timestamps as ISO 8601 in UTC with milliseconds', () => {
      const rendered = renderLegacyTask(record('legacy'));
      expect(rendered.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(rendered.createdAt as string)).toBe(CREATED);
      expect(Date.parse(rendered.lastUpdatedAt as string)).toBe(UPDATED);
    });

    it('leaves out statusMessage when there is none, without an undefined key', () => {
      expect(Object.keys(renderLegacyTask(record('legacy')))).not.toContain('statusMessage');
    });
  });

  describe('renderModernTask (2026-07-28 DetailedTask)', () => {
    it('renders a working task with the base fields only', () => {
      const rendered = renderModernTask(record('modern'));
      expect(rendered).toEqual({ ...MODERN_BASE, status: 'working' });
      expect(Object.keys(rendered)).not.toContain('statusMessage');
    });

    it('carries the questions of an input_required task', () => {
      expect(
        renderModernTask(
          record('modern', {
            status: 'input_required',
            statusMessage: 'Waiting for input from the client',
            inputRequests: QUESTIONS,
          }),
        ),
      ).toEqual({
        ...MODERN_BASE,
        status: 'input_required',
        statusMessage: 'Waiting for input from the client',
        inputRequests: QUESTIONS,
      });
    });

    it('carries empty inputRequests for an input_required task without stored questions', () => {
      expect(renderModernTask(record('modern', { status: 'input_required' }))).toEqual({
        ...MODERN_BASE,
        status: 'input_required',
        inputRequests: {},
      });
    });

    it('carries the result of a completed task, a tool error result included', () => {
      expect(renderModernTask(record('modern', { status: 'completed', result: RESULT }))).toEqual({
        ...MODERN_BASE,
        status: 'completed',
        result: RESULT,
      });
      expect(
        renderModernTask(
          record('modern', { status: 'completed', result: TOOL_ERROR, statusMessage: 'The tool reported an error' }),
        ),
      ).toEqual({
        ...MODERN_BASE,
        status: 'completed',
        statusMessage: 'The tool reported an error',
        result: TOOL_ERROR,
      });
    });

    it('carries the error of a failed task', () => {
      expect(
        renderModernTask(record('modern', { status: 'failed', error: ERROR, statusMessage: 'Quota exceeded' })),
      ).toEqual({ ...MODERN_BASE, status: 'failed', statusMessage: 'Quota exceeded', error: ERROR });
    });

    it('renders a cancelled task with its message and no details', () => {
      expect(
        renderModernTask(record('modern', { status: 'cancelled', statusMessage: 'Cancelled by the client' })),
      ).toEqual({ ...MODERN_BASE, status: 'cancelled', statusMessage: 'Cancelled by the client' });
    });

    it.each(STATES)('never carries the details of another status (%s)', (status) => {
      // A record that carries every detail: only the one its status calls for is rendered.
      const rendered = renderModernTask(
        record('modern', { status, result: RESULT, error: ERROR, inputRequests: QUESTIONS }),
      );
      const details = ['inputRequests', 'result', 'error'].filter((field) => field in rendered);
      const expected: Record<McpTaskStatus, string[]> = {
        working: [],
        input_required: ['inputRequests'],
        completed: ['result'],
        failed: ['error'],
        cancelled: [],
      };
      expect(details).toEqual(expected[status]);
      for (const field of ['ttl', 'pollInterval', 'resultType', 'owner', 'expiresAt']) {
        expect(rendered).not.toHaveProperty(field);
      }
    });
  });

  describe('renderCreateTaskResult', () => {
    it('wraps the Task in `task` in the legacy era', () => {
      expect(renderCreateTaskResult(record('legacy'))).toEqual({ task: { ...LEGACY_BASE, status: 'working' } });
    });

    it('is flat with resultType "task" in the modern era', () => {
      expect(renderCreateTaskResult(record('modern'))).toEqual({
        ...MODERN_BASE,
        status: 'working',
        resultType: 'task',
      });
    });

    it.each(STATES)('carries no result, error or questions in the modern era, even for a %s task', (status, extra) => {
      const rendered = renderCreateTaskResult(
        record('modern', { status, result: RESULT, error: ERROR, inputRequests: QUESTIONS, ...extra }),
      );
      expect(rendered).toMatchObject({ resultType: 'task', status, taskId: MODERN_BASE.taskId });
      for (const field of ['result', 'error', 'inputRequests', 'task', 'ttl', 'pollInterval']) {
        expect(rendered).not.toHaveProperty(field);
      }
      if (extra.statusMessage !== undefined) {
        expect(rendered.statusMessage).toBe(extra.statusMessage);
      }
    });

    it('carries the Task fields only in the legacy era, whatever the record holds', () => {
      const rendered = renderCreateTaskResult(
        record('legacy', { status: 'completed', result: RESULT, statusMessage: 'done' }),
      );
      expect(rendered).toEqual({ task: { ...LEGACY_BASE, status: 'completed', statusMessage: 'done' } });
    });
  });

  describe('taskNotificationOf', () => {
    it('is notifications/tasks/status with the Task in the legacy era', () => {
      const task = record('legacy', { status: 'input_required', statusMessage: 'Waiting for input from the client' });
      expect(taskNotificationOf(task)).toEqual({
        method: 'notifications/tasks/status',
        params: { ...LEGACY_BASE, status: 'input_required', statusMessage: 'Waiting for input from the client' },
      });
    });

    it('is notifications/tasks with the DetailedTask in the modern era', () => {
      const task = record('modern', { status: 'completed', result: RESULT });
      expect(taskNotificationOf(task)).toEqual({
        method: 'notifications/tasks',
        params: { ...MODERN_BASE, status: 'completed', result: RESULT },
      });
    });
  });

  describe('relatedTaskMeta', () => {
    it('ties a message to its task under io.modelcontextprotocol/related-task', () => {
      expect(relatedTaskMeta('task_abc')).toEqual({ 'io.modelcontextprotocol/related-task': { taskId: 'task_abc' } });
    });

    it('makes a fresh object each time', () => {
      const first = relatedTaskMeta('task_abc');
      const second = relatedTaskMeta('task_abc');
      expect(first).not.toBe(second);
      expect(first['io.modelcontextprotocol/related-task']).not.toBe(second['io.modelcontextprotocol/related-task']);
    });
  });
});
