import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpModuleOptions, McpTaskOptions } from '../interfaces/mcp-module-options.interface';
import { resolveMcpOptions } from '../mcp-options.factory';

function resolveTasks(tasks: unknown) {
  return resolveMcpOptions({ name: 'tasks-spec', version: '1.0.0', tasks } as McpModuleOptions).tasks;
}

/** The error resolving `tasks` throws, or undefined. */
function errorOf(tasks: unknown): unknown {
  try {
    resolveTasks(tasks);
  } catch (error) {
    return error;
  }
  return undefined;
}

const DEFAULTS = {
  inlineMs: 100,
  defaultTtlMs: 3_600_000,
  maxTtlMs: 86_400_000,
  pollIntervalMs: 1_000,
  maxLivePerOwner: 100,
  maxKeptPerOwner: 1_000,
  resultTimeoutMs: 300_000,
  sweepIntervalMs: 60_000,
  expiredGraceMs: 60_000,
};

describe('resolveMcpOptions: tasks', () => {
  it('applies the defaults without a tasks section', () => {
    expect(resolveMcpOptions({ name: 'tasks-spec', version: '1.0.0' }).tasks).toEqual(DEFAULTS);
  });

  it('applies the defaults to an empty tasks section', () => {
    expect(resolveTasks({})).toEqual(DEFAULTS);
  });

  it('keeps valid values', () => {
    const tasks: McpTaskOptions = {
      inlineMs: 250,
      defaultTtlMs: 30_000,
      maxTtlMs: 600_000,
      pollIntervalMs: 2_000,
      maxLivePerOwner: 7,
      maxKeptPerOwner: 9,
      resultTimeoutMs: 45_000,
      sweepIntervalMs: 5_000,
    };
    expect(resolveTasks(tasks)).toEqual({ ...tasks, expiredGraceMs: 60_000 });
  });

  it('fills in the options left out next to the ones given', () => {
    expect(resolveTasks({ inlineMs: 0, maxLivePerOwner: 3 })).toEqual({ ...DEFAULTS, inlineMs: 0, maxLivePerOwner: 3 });
  });

  it('lowers the default retention to a maxTtlMs below it', () => {
    expect(resolveTasks({ maxTtlMs: 5_000 })).toMatchObject({ maxTtlMs: 5_000, defaultTtlMs: 5_000 });
  });

  it.each([
    ['the shortest inline window (none)', { inlineMs: 0 }],
    ['the longest inline window', { inlineMs: 3_600_000 }],
    ['the shortest retention', { maxTtlMs: 1_000, defaultTtlMs: 1_000 }],
    ['a default retention equal to the maximum', { maxTtlMs: 50_000, defaultTtlMs: 50_000 }],
    ['the fastest polling', { pollIntervalMs: 1 }],
    ['the slowest polling', { pollIntervalMs: 3_600_000 }],
    ['one task per owner', { maxLivePerOwner: 1 }],
    ['the shortest result wait', { resultTimeoutMs: 1 }],
    ['the most frequent sweep', { sweepIntervalMs: 10 }],
  ])('accepts %s', (_label, tasks) => {
    expect(resolveTasks(tasks)).toMatchObject(tasks);
  });

  it.each([
    ['inlineMs', { inlineMs: -1 }],
    ['inlineMs', { inlineMs: 1.5 }],
    ['inlineMs', { inlineMs: '100' }],
    ['inlineMs', { inlineMs: Number.NaN }],
    ['inlineMs', { inlineMs: 3_600_001 }],
    ['defaultTtlMs', { defaultTtlMs: 999 }],
    ['defaultTtlMs', { defaultTtlMs: -1 }],
    ['defaultTtlMs', { defaultTtlMs: 1_500.5 }],
    ['defaultTtlMs', { defaultTtlMs: 10_000, maxTtlMs: 5_000 }],
    ['defaultTtlMs', { defaultTtlMs: 86_400_001 }],
    ['maxTtlMs', { maxTtlMs: 999 }],
    ['maxTtlMs', { maxTtlMs: -1 }],
    ['maxTtlMs', { maxTtlMs: Number.POSITIVE_INFINITY }],
    ['maxTtlMs', { maxTtlMs: '1d' }],
    ['pollIntervalMs', { pollIntervalMs: 0 }],
    ['pollIntervalMs', { pollIntervalMs: -1 }],
    ['pollIntervalMs', { pollIntervalMs: 2.5 }],
    ['pollIntervalMs', { pollIntervalMs: 3_600_001 }],
    ['maxLivePerOwner', { maxLivePerOwner: 0 }],
    ['maxLivePerOwner', { maxLivePerOwner: -3 }],
    ['maxLivePerOwner', { maxLivePerOwner: 2.5 }],
    ['maxLivePerOwner', { maxLivePerOwner: null }],
    ['maxKeptPerOwner', { maxKeptPerOwner: 0 }],
    ['maxKeptPerOwner', { maxKeptPerOwner: 1.5 }],
    ['resultTimeoutMs', { resultTimeoutMs: 0 }],
    ['resultTimeoutMs', { resultTimeoutMs: -1 }],
    ['resultTimeoutMs', { resultTimeoutMs: 0.5 }],
    ['sweepIntervalMs', { sweepIntervalMs: 9 }],
    ['sweepIntervalMs', { sweepIntervalMs: -60_000 }],
    ['sweepIntervalMs', { sweepIntervalMs: 100.5 }],
  ])('refuses a bad tasks.%s (%p), naming the option', (option, tasks) => {
    const error = errorOf(tasks);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain(`"tasks.${option}"`);
    expect((error as Error).message).toMatch(/must be an integer/);
  });

  it('names maxTtlMs, not defaultTtlMs, when the maximum itself is bad', () => {
    const error = errorOf({ maxTtlMs: 10, defaultTtlMs: 5 });
    expect((error as Error).message).toContain('"tasks.maxTtlMs"');
  });

  it('states the allowed range of a bounded option', () => {
    expect((errorOf({ defaultTtlMs: 10_000, maxTtlMs: 5_000 }) as Error).message).toContain('from 1000 to 5000');
    expect((errorOf({ inlineMs: 3_600_001 }) as Error).message).toContain('from 0 to 3600000');
  });

  it.each([
    ['a string', 'fast'],
    ['a number', 5],
    ['an array', []],
    ['true', true],
  ])('refuses a tasks section that is %s, naming it', (_label, tasks) => {
    const error = errorOf(tasks);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain('"tasks"');
  });
});
