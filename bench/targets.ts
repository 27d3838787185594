/**
 * The bench's targets: each section (server/floor scenarios, overload, cold start, memory, Redis)
 * turns what it measured into `TargetResult`s, one per target and run; `summarizeTargets` folds
 * the runs of each target together, and `printTargets` prints the verdicts. A target is met when
 * the median of its runs is on the right side of its limit.
 */
import { median } from './load';
import { renderTable } from './requests';

/** Which side of the limit meets the target. */
export type Comparison = 'at-least' | 'at-most';

/** One target as measured in one run. */
export interface TargetResult {
  /** Stable id, the same in every run: `<platform>/<scenario>:<figure>` or `<section>:<figure>`. */
  id: string;
  /** What is measured, as the table prints it. */
  label: string;
  value: number;
  comparison: Comparison;
  limit: number;
  /** 'ratio', '×', 'ms', 'KiB', 'MiB', 'commands/request'... */
  unit: string;
  met: boolean;
}

/** One target over every run. */
export interface TargetSummary {
  id: string;
  label: string;
  comparison: Comparison;
  limit: number;
  unit: string;
  /** The value of each run, in run order (NaN where a run did not measure it). */
  values: number[];
  median: number;
  /** Whether the median is on the right side of the limit. */
  met: boolean;
  /** How many runs met it on their own. */
  runsMet: number;
}

/** Whether `value` meets a limit. NaN (not measured) never does. */
export function meets(value: number, comparison: Comparison, limit: number): boolean {
  if (Number.isNaN(value)) {
    return false;
  }
  return comparison === 'at-least' ? value >= limit : value <= limit;
}

/** A target's result in one run. */
export function target(
  id: string,
  label: string,
  value: number,
  comparison: Comparison,
  limit: number,
  unit: string,
): TargetResult {
  return { id, label, value, comparison, limit, unit, met: meets(value, comparison, limit) };
}

/** Folds the runs together, keeping the order in which targets first appeared. */
export function summarizeTargets(runs: TargetResult[][]): TargetSummary[] {
  const byId = new Map<string, TargetSummary>();
  runs.forEach((results, run) => {
    for (const result of results) {
      let summary = byId.get(result.id);
      if (summary === undefined) {
        summary = {
          id: result.id,
          label: result.label,
          comparison: result.comparison,
          limit: result.limit,
          unit: result.unit,
          values: new Array<number>(runs.length).fill(NaN),
          median: NaN,
          met: false,
          runsMet: 0,
        };
        byId.set(result.id, summary);
      }
      summary.values[run] = result.value;
    }
  });
  for (const summary of byId.values()) {
    const measured = summary.values.filter((value) => !Number.isNaN(value));
    summary.median = median(measured);
    summary.met = meets(summary.median, summary.comparison, summary.limit);
    summary.runsMet = measured.filter((value) => meets(value, summary.comparison, summary.limit)).length;
  }
  return [...byId.values()];
}

function figure(value: number, unit: string): string {
  if (Number.isNaN(value)) {
    return '-';
  }
  if (unit === 'requests') {
    return value.toFixed(0);
  }
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : unit === 'commands/request' ? 2 : 3;
  return value.toFixed(digits);
}

/** The verdict table: every target, its limit, each run's figure, the median and MET / MISSED. */
export function printTargets(summaries: TargetSummary[], runs: number): void {
  const header = [
    'target',
    'limit',
    ...Array.from({ length: runs }, (_, i) => `run ${i + 1}`),
    'median',
    'runs met',
    'verdict',
  ];
  const lines = summaries.map((summary) => [
    summary.label,
    `${summary.comparison === 'at-least' ? '≥' : '≤'} ${summary.limit} ${summary.unit}`,
    ...summary.values.map((value) => figure(value, summary.unit)),
    figure(summary.median, summary.unit),
    `${summary.runsMet}/${summary.values.filter((value) => !Number.isNaN(value)).length}`,
    summary.met ? 'MET' : 'MISSED',
  ]);
  for (const line of renderTable(header, lines)) {
    console.log(line);
  }
  const missed = summaries.filter((summary) => !summary.met).length;
  console.log(
    `${summaries.length - missed} of ${summaries.length} targets met (the median of ${runs} run${runs === 1 ? '' : 's'} against the limit)`,
  );
}
