import type { McpTaskSupport } from '../calls/catalog';
import type { ClientCapabilities } from '../messages/mcp-types';
import type { McpEra, McpRevision } from '../messages/revisions';
import { clientTakesTasks, declaresTasksExtension, taskMode, MCP_TASKS_EXTENSION, type TaskMode } from './task-mode';

const WITH_EXTENSION = { extensions: { [MCP_TASKS_EXTENSION]: {} } } as ClientCapabilities;

describe('taskMode', () => {
  const table: Array<[McpTaskSupport, boolean, McpEra, TaskMode]> = [
    ['forbidden', false, 'legacy', 'inline'],
    ['forbidden', false, 'modern', 'inline'],
    ['forbidden', true, 'legacy', 'inline'],
    ['forbidden', true, 'modern', 'inline'],
    ['optional', false, 'legacy', 'inline'],
    ['optional', false, 'modern', 'inline'],
    ['optional', true, 'legacy', 'task'],
    ['optional', true, 'modern', 'escalate'],
    ['required', false, 'legacy', 'refuse'],
    ['required', false, 'modern', 'refuse'],
    ['required', true, 'legacy', 'task'],
    ['required', true, 'modern', 'escalate'],
  ];

  it('covers every combination of support, client and era', () => {
    const combinations = new Set(table.map(([support, takes, era]) => `${support}/${takes}/${era}`));
    expect(combinations.size).toBe(3 * 2 * 2);
  });

  it.each(table)('taskSupport %s, client takes tasks: %s, %s era → %s', (support, takes, era, mode) => {
    expect(taskMode(support, takes, era)).toBe(mode);
  });
});

describe('declaresTasksExtension', () => {
  it.each([
    ['the extension as an object', WITH_EXTENSION, true],
    ['the extension with settings', { extensions: { [MCP_TASKS_EXTENSION]: { anything: 1 } } }, true],
    ['no capabilities', {}, false],
    ['other extensions only', { extensions: { 'io.example/other': {} } }, false],
    ['the extension as true', { extensions: { [MCP_TASKS_EXTENSION]: true } }, false],
    ['the extension as null', { extensions: { [MCP_TASKS_EXTENSION]: null } }, false],
    ['the extension as an array', { extensions: { [MCP_TASKS_EXTENSION]: [] } }, false],
    ['extensions as a string', { extensions: MCP_TASKS_EXTENSION }, false],
    ['extensions as an array', { extensions: [MCP_TASKS_EXTENSION] }, false],
    ['the legacy tasks capability', { tasks: { requests: { tools: { call: {} } } } }, false],
  ])('%s → %s', (_label, capabilities, expected) => {
    expect(declaresTasksExtension(capabilities as ClientCapabilities)).toBe(expected);
  });
});

describe('clientTakesTasks', () => {
  describe('modern era: the request declares the extension', () => {
    it('takes tasks when the extension is an object, whatever the params', () => {
      expect(clientTakesTasks('modern', '2026-07-28', { name: 'x' }, WITH_EXTENSION)).toBe(true);
      expect(clientTakesTasks('modern', undefined, {}, WITH_EXTENSION)).toBe(true);
    });

    it('takes none without the extension, even with a legacy `task` param', () => {
      expect(clientTakesTasks('modern', '2026-07-28', { task: { ttl: 1000 } }, {})).toBe(false);
    });

    it.each([
      ['true', true],
      ['a string', 'yes'],
      ['null', null],
      ['an array', []],
    ])('takes none when the extension is %s', (_label, value) => {
      const capabilities = { extensions: { [MCP_TASKS_EXTENSION]: value } } as unknown as ClientCapabilities;
      expect(clientTakesTasks('modern', '2026-07-28', {}, capabilities)).toBe(false);
    });
  });

  describe('legacy era: 2025-11-25 and a `task` param', () => {
    it('takes tasks at 2025-11-25 with a task object', () => {
      expect(clientTakesTasks('legacy', '2025-11-25', { name: 'x', task: {} }, {})).toBe(true);
      expect(clientTakesTasks('legacy', '2025-11-25', { name: 'x', task: { ttl: 5000 } }, {})).toBe(true);
    });

    it('takes none at 2025-11-25 without a task param', () => {
      expect(clientTakesTasks('legacy', '2025-11-25', { name: 'x' }, {})).toBe(false);
    });

    it.each([
      ['true', true],
      ['a number', 60_000],
      ['null', null],
      ['an array', []],
    ])('takes none at 2025-11-25 when task is %s', (_label, task) => {
      expect(clientTakesTasks('legacy', '2025-11-25', { name: 'x', task }, {})).toBe(false);
    });

    it.each<McpRevision>(['2024-11-05', '2025-03-26', '2025-06-18'])(
      'takes none at %s even with a task param',
      (revision) => {
        expect(clientTakesTasks('legacy', revision, { name: 'x', task: { ttl: 1000 } }, {})).toBe(false);
      },
    );

    it('takes none without a negotiated revision', () => {
      expect(clientTakesTasks('legacy', undefined, { name: 'x', task: {} }, {})).toBe(false);
    });

    it('ignores the modern extension in the legacy era', () => {
      expect(clientTakesTasks('legacy', '2025-11-25', { name: 'x' }, WITH_EXTENSION)).toBe(false);
      expect(clientTakesTasks('legacy', '2025-06-18', { name: 'x' }, WITH_EXTENSION)).toBe(false);
    });
  });
});
