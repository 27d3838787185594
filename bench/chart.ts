/**
 * The bench's chart: the ratio targets per scenario as a self-contained SVG (no fonts, CSS or
 * scripts to fetch), written beside the JSON results (`latest.json` → `latest.svg`).
 *
 * One group of bars per scenario, one bar per series (platform): the bar is the median of the
 * runs, the whisker their range, a dot each run, the target a dashed line across the group.
 * A bar is solid when its median meets the target and pale with a red outline when it misses.
 *
 * Nothing here depends on the time or on randomness: the same input gives the same bytes, so two
 * charts can be compared with diff. Only types are imported, so the module loads nothing else.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { TargetSummary } from './targets';

/** One bar: a series (e.g. 'express', 'fastify') in a scenario group (e.g. 'tools/call modern c=16'). */
export interface ChartBar {
  scenario: string;
  series: string;
  /** One value per run; NaN where a run did not measure it (not drawn). */
  values: number[];
  /** The target ratio, when there is one. */
  target?: number;
  /** 'at-least': the ratio must reach the target; 'at-most': it must stay under it. Default 'at-least'. */
  comparison?: 'at-least' | 'at-most';
}

/** What the chart says around the bars. */
export interface ChartOptions {
  title: string;
  /** A second line under the title (where a date belongs, if any: the chart never adds one). */
  subtitle?: string;
  /** The y axis' caption (default 'ratio'). */
  yLabel?: string;
}

/** Okabe–Ito colours (distinguishable with the common colour-blindnesses), without their red: red means missed. */
const SERIES_COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#7F7F7F', '#B8A000'];
const MISSED = '#C62828';
const INK = '#222222';
const MUTED = '#666666';
const GRID = '#E4E4E4';
const FONT = 'font-family="Helvetica, Arial, sans-serif"';
/** Average advance of one character at 11 px in the usual sans-serif fonts, to size labels without measuring. */
const CHAR_WIDTH = 6.4;
/** The same at the target labels' 10 px. */
const TARGET_CHAR_WIDTH = 6;
const LABEL_FONT = 11;
const WIDTH = 900;
const PLOT_HEIGHT = 300;
const ROTATION = 35;
/** The narrowest room for one bar, its value label included. */
const MIN_SLOT = 34;
/** The line length of rotated scenario labels. */
const ROTATED_CHARS = 26;

/** Escapes text for XML content and attribute values. */
function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );
}

/** A coordinate with one decimal, without trailing zeros, so that the output is short and stable. */
function px(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/** A measured value as the labels show it. */
function figure(value: number): string {
  const abs = Math.abs(value);
  return value.toFixed(abs >= 100 ? 0 : abs >= 10 ? 1 : 2);
}

function finite(values: number[]): number[] {
  return values.filter((value) => typeof value === 'number' && Number.isFinite(value));
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** A tick step of 1, 2, 2.5 or 5 × 10^k giving about `count` ticks up to `max`. */
function niceStep(max: number, count: number): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10;
  return step * power;
}

function decimalsOf(step: number): number {
  for (let digits = 0; digits < 6; digits++) {
    if (Math.abs(Math.round(step * 10 ** digits) - step * 10 ** digits) < 1e-9) {
      return digits;
    }
  }
  return 6;
}

/** Splits a label into lines of at most `maxChars`, at spaces; undefined when a word alone is longer. */
function wrap(text: string, maxChars: number): string[] | undefined {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (word.length > maxChars) {
      return undefined;
    }
    if (line === '') {
      line = word;
    } else if (line.length + 1 + word.length <= maxChars) {
      line += ` ${word}`;
    } else {
      lines.push(line);
      line = word;
    }
  }
  lines.push(line);
  return lines;
}

/** Cuts the words longer than `maxChars` after a '-', '_', '/' or '.' when there is one, else anywhere. */
function breakWords(text: string, maxChars: number): string {
  return text
    .split(/\s+/)
    .map((word) => {
      const pieces: string[] = [];
      let rest = word;
      while (rest.length > maxChars) {
        const head = rest.slice(0, maxChars);
        const cut = Math.max(...['-', '_', '/', '.'].map((c) => head.lastIndexOf(c)));
        const at = cut > 0 ? cut + 1 : maxChars;
        pieces.push(rest.slice(0, at));
        rest = rest.slice(at);
      }
      pieces.push(rest);
      return pieces.join(' ');
    })
    .join(' ');
}

function targetText(comparison: 'at-least' | 'at-most', target: number): string {
  return `${comparison === 'at-most' ? '≤' : '≥'} ${target}`;
}

interface Group {
  scenario: string;
  bars: ChartBar[];
}

/**
 * Renders the bars as an SVG document: scenarios in the order they first appear, series in the
 * order they first appear (one colour each). The y axis starts at 0 and reaches past the highest
 * run and target. Bars whose runs measured nothing get a "not measured" mark instead of a bar.
 */
export function renderRatioChart(bars: ChartBar[], options: ChartOptions): string {
  const groups: Group[] = [];
  const series: string[] = [];
  for (const bar of bars) {
    let group = groups.find((g) => g.scenario === bar.scenario);
    if (group === undefined) {
      group = { scenario: bar.scenario, bars: [] };
      groups.push(group);
    }
    group.bars.push(bar);
    if (!series.includes(bar.series)) {
      series.push(bar.series);
    }
  }
  const colourOf = (name: string) => SERIES_COLOURS[series.indexOf(name) % SERIES_COLOURS.length];

  // The y scale: from 0 to a tick above every run and target.
  const highest = Math.max(
    0,
    ...bars.flatMap((bar) => finite(bar.values)),
    ...bars.map((bar) => bar.target).filter((t): t is number => t !== undefined && Number.isFinite(t)),
  );
  const step = niceStep(highest > 0 ? highest * 1.08 : 1, 5);
  const yMax = Math.max(step, Math.ceil((highest * 1.08) / step - 1e-9) * step);
  const tickDigits = decimalsOf(step);

  // The x layout: groups share the width; the chart widens when there are too many to read.
  // A target's label sits left of its line when every group has room for it, else in the caption.
  const barsInWidest = Math.max(1, ...groups.map((g) => g.bars.length));
  const targetLabelWidth = Math.max(
    0,
    ...bars
      .filter((bar) => bar.target !== undefined && Number.isFinite(bar.target))
      .map((bar) => targetText(bar.comparison ?? 'at-least', bar.target!).length * TARGET_CHAR_WIDTH + 8),
  );
  const right = 24;
  let left = 64;
  const widthFor = (leftMargin: number) =>
    Math.max(WIDTH, leftMargin + right + groups.length * (barsInWidest * MIN_SLOT + 16));
  let width = widthFor(left);
  let groupWidth = (width - left - right) / Math.max(1, groups.length);

  // Scenario labels: wrapped under their group when every word fits its width, else rotated
  // (wrapped too, in longer lines, so that they reach less far to the left and down).
  const maxChars = Math.max(4, Math.floor((groupWidth - 8) / CHAR_WIDTH));
  const wrapped = groups.map((g) => wrap(g.scenario, maxChars));
  const rotate = wrapped.some((lines) => lines === undefined || lines.length > 3);
  const captions = rotate
    ? groups.map((g) => wrap(breakWords(g.scenario, ROTATED_CHARS), ROTATED_CHARS)!)
    : wrapped.map((l) => l!);
  let labelHeight: number;
  if (rotate) {
    const lineWidth = (lines: string[]) => Math.max(...lines.map((line) => line.length)) * CHAR_WIDTH;
    const longest = Math.max(0, ...captions.map(lineWidth));
    const lines = Math.max(1, ...captions.map((c) => c.length));
    const angle = (ROTATION * Math.PI) / 180;
    labelHeight = Math.sin(angle) * longest + Math.cos(angle) * lines * 13 + 10;
    // A rotated label reaches left of its group: the first one must stay inside the picture.
    const firstReach = captions.length === 0 ? 0 : Math.cos(angle) * lineWidth(captions[0]);
    left = Math.max(left, Math.ceil(firstReach - groupWidth / 2 + 12));
    width = widthFor(left);
    groupWidth = (width - left - right) / Math.max(1, groups.length);
  } else {
    labelHeight = Math.max(1, ...captions.map((lines) => lines.length)) * 13 + 14;
  }
  const targetsOnLine = groupWidth >= barsInWidest * MIN_SLOT + 16 + targetLabelWidth;
  if (!targetsOnLine && targetLabelWidth > 0) {
    labelHeight += 13;
  }

  const top = options.subtitle === undefined ? 74 : 90;
  const base = top + PLOT_HEIGHT;
  const height = Math.ceil(base + labelHeight + 12);
  const y = (value: number) => base - (Math.max(0, value) / yMax) * PLOT_HEIGHT;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="${LABEL_FONT}" fill="${INK}">`,
  );
  out.push(`<title>${esc(options.title)}</title>`);
  out.push(`<rect class="background" x="0" y="0" width="${width}" height="${height}" fill="#FFFFFF"/>`);
  out.push(`<text x="${left}" y="26" font-size="16" font-weight="bold">${esc(options.title)}</text>`);
  if (options.subtitle !== undefined) {
    out.push(`<text x="${left}" y="44" font-size="12" fill="${MUTED}">${esc(options.subtitle)}</text>`);
  }

  // Legend: the series, then how to read a bar.
  const legendY = top - 22;
  let lx = left;
  for (const name of series) {
    out.push(
      `<rect class="legend" x="${px(lx)}" y="${px(legendY - 9)}" width="12" height="12" fill="${colourOf(name)}"/>`,
    );
    out.push(`<text x="${px(lx + 16)}" y="${px(legendY + 1)}">${esc(name)}</text>`);
    lx += 16 + name.length * CHAR_WIDTH + 18;
  }
  lx += 10;
  // Neutral grey: a series' colour here would read as one more series.
  const legendSwatch = '#9E9E9E';
  out.push(
    `<rect class="legend" x="${px(lx)}" y="${px(legendY - 9)}" width="12" height="12" fill="${legendSwatch}"/>`,
    `<text x="${px(lx + 16)}" y="${px(legendY + 1)}" fill="${MUTED}">met</text>`,
  );
  lx += 50;
  out.push(
    `<rect class="legend" x="${px(lx)}" y="${px(legendY - 9)}" width="12" height="12" fill="${legendSwatch}" fill-opacity="0.35" stroke="${MISSED}" stroke-width="2"/>`,
    `<text x="${px(lx + 16)}" y="${px(legendY + 1)}" fill="${MUTED}">missed</text>`,
  );
  lx += 64;
  out.push(
    `<line class="legend" x1="${px(lx)}" y1="${px(legendY - 3)}" x2="${px(lx + 22)}" y2="${px(legendY - 3)}" stroke="${INK}" stroke-width="1.5" stroke-dasharray="5 3"/>`,
    `<text x="${px(lx + 27)}" y="${px(legendY + 1)}" fill="${MUTED}">target</text>`,
  );
  lx += 78;
  out.push(
    `<line class="legend" x1="${px(lx + 6)}" y1="${px(legendY - 9)}" x2="${px(lx + 6)}" y2="${px(legendY + 3)}" stroke="${INK}"/>`,
    `<circle class="legend" cx="${px(lx + 6)}" cy="${px(legendY - 5)}" r="2.5" fill="#FFFFFF" stroke="${INK}"/>`,
    `<text x="${px(lx + 14)}" y="${px(legendY + 1)}" fill="${MUTED}">median, runs and their range</text>`,
  );

  // Grid and y axis.
  for (let i = 0; i * step <= yMax + 1e-9; i++) {
    const value = i * step;
    const ty = px(y(value));
    if (i > 0) {
      out.push(`<line class="grid" x1="${left}" y1="${ty}" x2="${px(width - right)}" y2="${ty}" stroke="${GRID}"/>`);
    }
    out.push(`<line x1="${left - 4}" y1="${ty}" x2="${left}" y2="${ty}" stroke="${INK}"/>`);
    out.push(
      `<text class="tick" x="${left - 7}" y="${px(y(value) + 4)}" text-anchor="end">${value.toFixed(tickDigits)}</text>`,
    );
  }
  out.push(`<line class="y-axis" x1="${left}" y1="${top}" x2="${left}" y2="${base}" stroke="${INK}"/>`);
  out.push(
    `<text x="16" y="${px(top + PLOT_HEIGHT / 2)}" transform="rotate(-90 16 ${px(top + PLOT_HEIGHT / 2)})" text-anchor="middle" fill="${MUTED}">${esc(options.yLabel ?? 'ratio')}</text>`,
  );

  // Each group's room: a margin each side (wider at the left for the target's label, which then
  // never covers a bar or a neighbour) and one slot per bar.
  const layouts = groups.map((group) => {
    const pad = Math.max(8, groupWidth * 0.1);
    const labels = group.bars
      .filter((bar) => bar.target !== undefined && Number.isFinite(bar.target))
      .map((bar) => targetText(bar.comparison ?? 'at-least', bar.target!).length * TARGET_CHAR_WIDTH);
    const padLeft = labels.length === 0 || !targetsOnLine ? pad : Math.max(pad, Math.max(...labels) + 8);
    return { padLeft, slot: (groupWidth - padLeft - pad) / group.bars.length };
  });
  // ✓ / ✗ after the values only when every bar has room for them (the outline says the same).
  const marks = layouts.every((layout) => layout.slot >= 38);

  groups.forEach((group, g) => {
    const x0 = left + g * groupWidth;
    const { padLeft, slot } = layouts[g];
    const barWidth = Math.min(64, slot * 0.78);
    const centres = group.bars.map((_, b) => x0 + padLeft + slot * (b + 0.5));
    // Value labels go on top of the target lines, drawn after them.
    const valueLabels: string[] = [];

    group.bars.forEach((bar, b) => {
      const cx = centres[b];
      const measured = finite(bar.values);
      const colour = colourOf(bar.series);
      const comparison = bar.comparison ?? 'at-least';
      const hasTarget = bar.target !== undefined && Number.isFinite(bar.target);
      if (measured.length === 0) {
        out.push(
          `<text class="not-measured" x="${px(cx)}" y="${px(base - 6)}" text-anchor="middle" font-size="10" fill="${MISSED}">n/m</text>`,
        );
        return;
      }
      const mid = medianOf(measured);
      const low = Math.min(...measured);
      const high = Math.max(...measured);
      const met = !hasTarget ? undefined : comparison === 'at-least' ? mid >= bar.target! : mid <= bar.target!;
      const runs = bar.values.map((v) => (finite([v]).length === 1 ? figure(v) : '-')).join(', ');
      const verdict =
        met === undefined ? '' : `, target ${targetText(comparison, bar.target!)}: ${met ? 'MET' : 'MISSED'}`;
      const tooltip = `${bar.series} · ${bar.scenario}: median ${figure(mid)} (runs ${runs})${verdict}`;
      const style =
        met === false
          ? `fill="${colour}" fill-opacity="0.35" stroke="${MISSED}" stroke-width="2"`
          : `fill="${colour}" fill-opacity="0.9"`;
      out.push(
        `<rect class="bar" x="${px(cx - barWidth / 2)}" y="${px(y(mid))}" width="${px(barWidth)}" height="${px(base - y(mid))}" ${style}><title>${esc(tooltip)}</title></rect>`,
      );
      // The range over runs, capped, then each run as a dot spread across the bar (in run order).
      const cap = Math.min(8, barWidth / 4);
      out.push(
        `<line class="whisker" x1="${px(cx)}" y1="${px(y(high))}" x2="${px(cx)}" y2="${px(y(low))}" stroke="${INK}"/>`,
        `<line x1="${px(cx - cap)}" y1="${px(y(high))}" x2="${px(cx + cap)}" y2="${px(y(high))}" stroke="${INK}"/>`,
        `<line x1="${px(cx - cap)}" y1="${px(y(low))}" x2="${px(cx + cap)}" y2="${px(y(low))}" stroke="${INK}"/>`,
      );
      const spread = Math.min(barWidth * 0.6, 6 * (measured.length - 1));
      measured.forEach((value, i) => {
        const dx = measured.length === 1 ? 0 : -spread / 2 + (spread * i) / (measured.length - 1);
        out.push(
          `<circle class="run" cx="${px(cx + dx)}" cy="${px(y(value))}" r="2.5" fill="#FFFFFF" stroke="${INK}"/>`,
        );
      });
      const mark = met === undefined || !marks ? '' : met ? ' ✓' : ' ✗';
      valueLabels.push(
        `<text class="value" x="${px(cx)}" y="${px(y(high) - 6)}" text-anchor="middle" font-weight="bold" fill="${met === false ? MISSED : INK}" stroke="#FFFFFF" stroke-width="3" paint-order="stroke">${figure(mid)}${mark}</text>`,
      );
    });

    // Target labels that did not fit beside their lines, for the caption.
    const captionTargets: string[] = [];
    // Targets: one dashed line across the neighbouring bars that share a target, labelled once.
    let start = 0;
    while (start < group.bars.length) {
      const first = group.bars[start];
      let end = start;
      while (
        end + 1 < group.bars.length &&
        group.bars[end + 1].target === first.target &&
        (group.bars[end + 1].comparison ?? 'at-least') === (first.comparison ?? 'at-least')
      ) {
        end++;
      }
      if (first.target !== undefined && Number.isFinite(first.target)) {
        const x1 = centres[start] - barWidth / 2 - 4;
        const x2 = centres[end] + barWidth / 2 + 4;
        const ty = y(first.target);
        const label = targetText(first.comparison ?? 'at-least', first.target);
        out.push(
          `<line class="target" x1="${px(x1)}" y1="${px(ty)}" x2="${px(x2)}" y2="${px(ty)}" stroke="${INK}" stroke-width="1.5" stroke-dasharray="5 3"/>`,
        );
        if (targetsOnLine) {
          out.push(
            `<text class="target-label" x="${px(x1 - 3)}" y="${px(ty + 3.5)}" font-size="10" text-anchor="end">${esc(label)}</text>`,
          );
        } else if (!captionTargets.includes(label)) {
          captionTargets.push(label);
        }
      }
      start = end + 1;
    }

    out.push(...valueLabels);

    // The scenario's label under its group, and the targets that had no room beside their lines.
    const lcx = x0 + groupWidth / 2;
    const ly = base + (rotate ? 14 : 16);
    const tspans = captions[g].map((line, i) => `<tspan x="${px(lcx)}" dy="${i === 0 ? 0 : 13}">${esc(line)}</tspan>`);
    if (captionTargets.length > 0) {
      tspans.push(
        `<tspan class="target-label" x="${px(lcx)}" dy="13" font-size="10" fill="${MUTED}">target ${esc(captionTargets.join(' / '))}</tspan>`,
      );
    }
    const placement = rotate
      ? `text-anchor="end" transform="rotate(-${ROTATION} ${px(lcx)} ${px(ly)})"`
      : 'text-anchor="middle"';
    out.push(`<text class="scenario" x="${px(lcx)}" y="${px(ly)}" ${placement}>${tspans.join('')}</text>`);
    if (g > 0) {
      out.push(
        `<line class="separator" x1="${px(x0)}" y1="${px(base)}" x2="${px(x0)}" y2="${px(base + 6)}" stroke="${INK}"/>`,
      );
    }
  });
  out.push(`<line class="x-axis" x1="${left}" y1="${base}" x2="${px(width - right)}" y2="${base}" stroke="${INK}"/>`);
  if (groups.length === 0) {
    out.push(
      `<text x="${px(left + (width - left - right) / 2)}" y="${px(top + PLOT_HEIGHT / 2)}" text-anchor="middle" fill="${MUTED}">no ratio target measured</text>`,
    );
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Units that are ratios (one figure divided by another), the only ones the chart draws on its common axis. */
const RATIO_UNITS = new Set(['ratio', '×', 'x']);

/** The label without the platform's name (e.g. 'Fastify tools/call modern c=16' → 'tools/call modern c=16'). */
function withoutPlatform(label: string, platform: string): string {
  const escaped = platform.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return label
    .replace(new RegExp(`(^|[\\s(\\[])${escaped}(?=$|[\\s:/,·)\\]-])`, 'i'), '$1')
    .replace(/^[\s:/,·-]+/, '')
    .replace(/\s{2,}/g, ' ')
    .replace(/\(\s*\)|\[\s*\]/g, '')
    .trim();
}

/**
 * The chart's bars from the target summaries: the targets whose unit is a ratio ('ratio' or '×'),
 * other units (ms, KiB, commands/request...) left out. An id `<platform>/<scenario>:<figure>`
 * gives the series `<platform>` and a group shared by every platform with the same
 * `<scenario>:<figure>`; `<section>:<figure>` (no platform) gives the series 'all'. A group is
 * captioned with its first summary's label without the platform, or the id's scenario part when
 * nothing is left of the label. Values from a JSON file (null for a run that did not measure)
 * become NaN.
 */
export function chartBarsFromSummaries(summaries: TargetSummary[]): ChartBar[] {
  const captions = new Map<string, string>();
  const bars: ChartBar[] = [];
  for (const summary of summaries) {
    if (!RATIO_UNITS.has(summary.unit)) {
      continue;
    }
    const slash = summary.id.indexOf('/');
    const platform = slash >= 0 ? summary.id.slice(0, slash) : undefined;
    const key = slash >= 0 ? summary.id.slice(slash + 1) : summary.id;
    let caption = captions.get(key);
    if (caption === undefined) {
      const stripped = platform === undefined ? summary.label.trim() : withoutPlatform(summary.label, platform);
      caption = stripped !== '' ? stripped : key.split(':')[0];
      captions.set(key, caption);
    }
    bars.push({
      scenario: caption,
      series: platform ?? 'all',
      values: (summary.values as unknown[]).map((value) => (typeof value === 'number' ? value : NaN)),
      target: summary.limit,
      comparison: summary.comparison,
    });
  }
  // Keep the groups together (the summaries may list one platform's targets before the other's).
  const order = [...new Set(bars.map((bar) => bar.scenario))];
  return order.flatMap((scenario) => bars.filter((bar) => bar.scenario === scenario));
}

/** The chart's path beside a results file: `latest.json` → `latest.svg`. */
export function chartPathFor(resultsPath: string): string {
  return resultsPath.endsWith('.json') ? `${resultsPath.slice(0, -'.json'.length)}.svg` : `${resultsPath}.svg`;
}

/**
 * Writes the chart of `summaries`' ratio targets beside the results file and returns its path,
 * or undefined (nothing written) when no target is a ratio.
 */
export function writeRatioChart(
  resultsPath: string,
  summaries: TargetSummary[],
  options: ChartOptions,
): string | undefined {
  const bars = chartBarsFromSummaries(summaries);
  if (bars.length === 0) {
    return undefined;
  }
  const path = chartPathFor(resultsPath);
  writeFileSync(path, renderRatioChart(bars, options));
  return path;
}

// `npx ts-node --transpile-only bench/chart.ts [bench/results/latest.json]`: redraws the chart of a
// results file from its `targets` (the TargetSummary list), e.g. after changing the chart.
if (require.main === module) {
  const resultsPath = process.argv[2] ?? `${__dirname}/results/latest.json`;
  const results = JSON.parse(readFileSync(resultsPath, 'utf8')) as {
    targets?: TargetSummary[];
    date?: string;
    runs?: number;
  };
  if (!Array.isArray(results.targets)) {
    console.error(`${resultsPath} has no "targets" (the summaries of the runs): nothing to draw`);
    process.exit(1);
  }
  const subtitle = [results.date, results.runs === undefined ? undefined : `${results.runs} runs`]
    .filter((part) => part !== undefined)
    .join(' · ');
  const written = writeRatioChart(resultsPath, results.targets, {
    title: 'nest-mcp bench: ratios against the floors, per scenario',
    subtitle: subtitle === '' ? undefined : subtitle,
  });
  console.log(written === undefined ? 'no ratio target in the results: no chart' : `Chart written to ${written}`);
}
