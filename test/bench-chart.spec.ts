/**
 * The bench's chart (bench/chart.ts): well-formed XML whatever the labels, one bar per measured
 * series, the geometry (bars, whiskers, dots and target lines on one scale from 0), the verdict
 * of each bar, and the bars it takes from the target summaries. Jest's roots are lib/ and test/,
 * so the spec of a bench module lives here.
 */
import { chartBarsFromSummaries, chartPathFor, renderRatioChart, type ChartBar } from '../bench/chart';
import type { TargetSummary } from '../bench/targets';

const TAG = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[A-Za-z][\w:.-]*="[^"<]*")*)\s*(\/?)>/y;
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;

/** What makes `xml` not well-formed (tags, quoted attributes, entities, one root), or undefined. */
function wellFormednessProblem(xml: string): string | undefined {
  const open: string[] = [];
  let roots = 0;
  let i = 0;
  while (i < xml.length) {
    const c = xml[i];
    if (c === '<') {
      TAG.lastIndex = i;
      const tag = TAG.exec(xml);
      if (tag === null) {
        return `malformed tag at ${i}: ${xml.slice(i, i + 40)}`;
      }
      const [whole, closing, name, attributes, selfClosing] = tag;
      const problem = entitiesProblem(attributes, i);
      if (problem !== undefined) {
        return problem;
      }
      if (closing === '/') {
        if (open.pop() !== name) {
          return `</${name}> at ${i} closes nothing open`;
        }
      } else {
        if (open.length === 0 && ++roots > 1) {
          return `a second root element at ${i}`;
        }
        if (selfClosing !== '/') {
          open.push(name);
        }
      }
      i += whole.length;
    } else {
      const next = xml.indexOf('<', i);
      const text = xml.slice(i, next === -1 ? xml.length : next);
      if (open.length === 0 && text.trim() !== '') {
        return `text outside the root at ${i}`;
      }
      const problem = entitiesProblem(text, i);
      if (problem !== undefined) {
        return problem;
      }
      i += text.length;
    }
  }
  if (open.length > 0) {
    return `unclosed <${open.join('>, <')}>`;
  }
  return roots === 1 ? undefined : 'no root element';
}

function entitiesProblem(text: string, at: number): string | undefined {
  for (let j = text.indexOf('&'); j !== -1; j = text.indexOf('&', j + 1)) {
    ENTITY.lastIndex = j;
    if (!ENTITY.test(text)) {
      return `a bare & at ${at + j}: ${text.slice(j, j + 12)}`;
    }
  }
  return undefined;
}

/** The attributes of every element of a class, as numbers where they are numbers. */
function elements(svg: string, className: string): Record<string, string>[] {
  const found: Record<string, string>[] = [];
  for (const match of svg.matchAll(/<(\w+) class="([^"]*)"([^>]*)>/g)) {
    if (match[2] === className) {
      found.push(Object.fromEntries([...match[3].matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])));
    }
  }
  return found;
}

const num = (attributes: Record<string, string>, name: string) => Number(attributes[name]);

/** The y of the axis' 0 (the x axis). */
function baseOf(svg: string): number {
  return num(elements(svg, 'x-axis')[0], 'y1');
}

const OPTIONS = { title: 'ratios' };

describe('renderRatioChart', () => {
  const bars: ChartBar[] = [
    { scenario: 'tools/call modern c=16', series: 'express', values: [0.95, 0.9, 1], target: 0.85 },
    { scenario: 'tools/call modern c=16', series: 'fastify', values: [0.7, 0.8, 0.75], target: 0.85 },
    { scenario: 'p99 c=128', series: 'express', values: [1.1, 1.3, 1.0], target: 1.2, comparison: 'at-most' },
    { scenario: 'p99 c=128', series: 'fastify', values: [2, 1.8, 2.2], target: 1.2, comparison: 'at-most' },
  ];

  it('is one well-formed SVG document', () => {
    const svg = renderRatioChart(bars, { title: 'Bench', subtitle: 'three runs', yLabel: 'server ÷ floor' });
    expect(wellFormednessProblem(svg)).toBeUndefined();
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    // Self-contained: nothing to fetch, nothing to run.
    expect(svg).not.toMatch(/<script|<style|href=|url\(|@import/);
  });

  it('refuses a bare tag or entity itself (the check checks)', () => {
    expect(wellFormednessProblem('<svg><text>a<b</text></svg>')).toBeDefined();
    expect(wellFormednessProblem('<svg><text>a & b</text></svg>')).toBeDefined();
    expect(wellFormednessProblem('<svg><g></svg>')).toBeDefined();
    expect(wellFormednessProblem('<svg x="1"><text>a &amp; b</text><g/></svg>')).toBeUndefined();
  });

  it('escapes the labels, the series, the title and the subtitle', () => {
    const svg = renderRatioChart([{ scenario: 'a<b&"c"', series: "x'y<z>", values: [1, 1.1], target: 1 }], {
      title: 'T <&> "q"',
      subtitle: "it's <now>",
    });
    expect(wellFormednessProblem(svg)).toBeUndefined();
    expect(svg).toContain('a&lt;b&amp;&quot;c&quot;');
    expect(svg).toContain('x&apos;y&lt;z&gt;');
    expect(svg).toContain('T &lt;&amp;&gt; &quot;q&quot;');
  });

  it('stays well-formed with long labels that rotate, and with many scenarios', () => {
    const many = Array.from({ length: 14 }, (_, i) => ({
      scenario: `scenario-${i}-with_a_rather_long_name & <more>`,
      series: i % 2 === 0 ? 'express' : 'fastify',
      values: [0.5 + i / 20],
      target: 0.85,
    }));
    const svg = renderRatioChart(many, OPTIONS);
    expect(wellFormednessProblem(svg)).toBeUndefined();
    expect(svg).toMatch(/transform="rotate\(-\d+ /);
    expect(elements(svg, 'bar')).toHaveLength(14);
  });

  it('draws one bar per series and scenario, in one colour per series', () => {
    const svg = renderRatioChart(bars, OPTIONS);
    const rects = elements(svg, 'bar');
    expect(rects).toHaveLength(4);
    expect(rects[0].fill).toBe(rects[2].fill);
    expect(rects[1].fill).toBe(rects[3].fill);
    expect(rects[0].fill).not.toBe(rects[1].fill);
    // The scenarios' captions and the series' legend.
    expect(elements(svg, 'scenario')).toHaveLength(2);
    expect(svg).toContain('>express</text>');
    expect(svg).toContain('>fastify</text>');
  });

  it('makes a bar as high as the median of its runs, on a scale from 0', () => {
    const svg = renderRatioChart(bars, OPTIONS);
    const base = baseOf(svg);
    const rects = elements(svg, 'bar');
    rects.forEach((rect) => expect(num(rect, 'y') + num(rect, 'height')).toBeCloseTo(base, 0));
    const scale = num(rects[0], 'height') / 0.95;
    expect(num(rects[1], 'height')).toBeCloseTo(0.75 * scale, 0);
    expect(num(rects[3], 'height')).toBeCloseTo(2 * scale, 0);
    expect(svg).toContain('>0.0</text>');
  });

  it('draws the whisker from the lowest to the highest run, and a dot per run', () => {
    const svg = renderRatioChart(bars, OPTIONS);
    const base = baseOf(svg);
    const scale = num(elements(svg, 'bar')[0], 'height') / 0.95;
    const whiskers = elements(svg, 'whisker');
    expect(whiskers).toHaveLength(4);
    expect(base - num(whiskers[1], 'y1')).toBeCloseTo(0.8 * scale, 0);
    expect(base - num(whiskers[1], 'y2')).toBeCloseTo(0.7 * scale, 0);
    expect(base - num(whiskers[3], 'y1')).toBeCloseTo(2.2 * scale, 0);
    expect(base - num(whiskers[3], 'y2')).toBeCloseTo(1.8 * scale, 0);
    const dots = elements(svg, 'run');
    expect(dots).toHaveLength(12);
    // In run order.
    [0.7, 0.8, 0.75].forEach((value, i) => expect((base - num(dots[3 + i], 'cy')) / scale).toBeCloseTo(value, 2));
  });

  it('draws each target as a dashed line at its height, labelled with its side', () => {
    const svg = renderRatioChart(
      [
        { scenario: 'half', series: 'all', values: [0.5], target: 0.5 },
        { scenario: 'one', series: 'all', values: [0.2], target: 1, comparison: 'at-most' },
      ],
      OPTIONS,
    );
    const base = baseOf(svg);
    const lines = elements(svg, 'target');
    expect(lines).toHaveLength(2);
    expect(lines[0]['stroke-dasharray']).toBeDefined();
    expect(num(lines[0], 'y1')).toBe(num(lines[0], 'y2'));
    expect((base - num(lines[1], 'y1')) / (base - num(lines[0], 'y1'))).toBeCloseTo(2, 2);
    // A bar whose median is the target reaches the line.
    expect(num(elements(svg, 'bar')[0], 'y')).toBeCloseTo(num(lines[0], 'y1'), 1);
    expect(svg).toContain('≥ 0.5</text>');
    expect(svg).toContain('≤ 1</text>');
  });

  it('draws one line across the bars of a group that share a target', () => {
    const svg = renderRatioChart(bars, OPTIONS);
    const lines = elements(svg, 'target');
    expect(lines).toHaveLength(2);
    const rects = elements(svg, 'bar');
    expect(num(lines[0], 'x1')).toBeLessThan(num(rects[0], 'x'));
    expect(num(lines[0], 'x2')).toBeGreaterThan(num(rects[1], 'x') + num(rects[1], 'width'));
  });

  it('outlines in red the bars whose median misses the target, on either side', () => {
    const svg = renderRatioChart(bars, OPTIONS);
    const missed = elements(svg, 'bar').map((rect) => rect.stroke === '#C62828');
    expect(missed).toEqual([false, true, false, true]);
    // The value labels say it too.
    const values = elements(svg, 'value');
    expect(values.map((value) => value.fill)).toEqual(['#222222', '#C62828', '#222222', '#C62828']);
  });

  it('draws no bar, dot or whisker for what a run did not measure', () => {
    const svg = renderRatioChart(
      [
        { scenario: 's', series: 'express', values: [0.8, NaN, 0.9], target: 0.85 },
        { scenario: 's', series: 'fastify', values: [NaN, NaN, NaN], target: 0.85 },
      ],
      OPTIONS,
    );
    expect(svg).not.toContain('NaN');
    expect(elements(svg, 'bar')).toHaveLength(1);
    expect(elements(svg, 'run')).toHaveLength(2);
    expect(elements(svg, 'whisker')).toHaveLength(1);
    expect(elements(svg, 'not-measured')).toHaveLength(1);
    const base = baseOf(svg);
    const rect = elements(svg, 'bar')[0];
    const scale = num(rect, 'height') / 0.85;
    const whisker = elements(svg, 'whisker')[0];
    expect(base - num(whisker, 'y1')).toBeCloseTo(0.9 * scale, 0);
    expect(base - num(whisker, 'y2')).toBeCloseTo(0.8 * scale, 0);
  });

  it('gives the same bytes for the same bars, and no date of its own', () => {
    expect(renderRatioChart(bars, OPTIONS)).toBe(renderRatioChart(bars, OPTIONS));
    expect(renderRatioChart(bars, OPTIONS)).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it('still draws an empty chart when there is nothing to draw', () => {
    const svg = renderRatioChart([], OPTIONS);
    expect(wellFormednessProblem(svg)).toBeUndefined();
    expect(elements(svg, 'bar')).toHaveLength(0);
  });
});

describe('chartBarsFromSummaries', () => {
  const summary = (id: string, label: string, unit: string, values: number[], limit = 0.85): TargetSummary => ({
    id,
    label,
    comparison: unit === '×' ? 'at-most' : 'at-least',
    limit,
    unit,
    values,
    median: NaN,
    met: false,
    runsMet: 0,
  });

  it('takes the ratio targets, a series per platform and a group per scenario and figure', () => {
    const bars = chartBarsFromSummaries([
      summary('express/call-modern-16:ratio', 'Express tools/call modern c=16', 'ratio', [0.9, 0.95, 1]),
      summary('express/call-modern-16:cpu', 'Express tools/call modern c=16 CPU/request', '×', [1.1, 1, 1.05], 1.2),
      summary('cold-start:module-ms', 'cold start: the module adds', 'ms', [120, 130, 110], 150),
      summary('fastify/call-modern-16:ratio', 'Fastify tools/call modern c=16', 'ratio', [0.7, 0.72, 0.8]),
      summary('fastify/call-modern-16:cpu', 'Fastify tools/call modern c=16 CPU/request', '×', [1.3, 1.2, 1.4], 1.2),
      summary('cold-start:list-1000', 'tools/list of 1,000 tools', 'ratio', [0.9, 0.85, 0.88], 0.8),
    ]);
    expect(bars.map((bar) => [bar.scenario, bar.series])).toEqual([
      ['tools/call modern c=16', 'express'],
      ['tools/call modern c=16', 'fastify'],
      ['tools/call modern c=16 CPU/request', 'express'],
      ['tools/call modern c=16 CPU/request', 'fastify'],
      ['tools/list of 1,000 tools', 'all'],
    ]);
    expect(bars[2]).toMatchObject({ target: 1.2, comparison: 'at-most', values: [1.1, 1, 1.05] });
    expect(bars[4]).toMatchObject({ target: 0.8, comparison: 'at-least' });
  });

  it("captions a group with the id's scenario when the label is only the platform", () => {
    const bars = chartBarsFromSummaries([summary('fastify/list-modern-16:ratio', 'fastify', 'ratio', [0.8])]);
    expect(bars[0].scenario).toBe('list-modern-16');
  });

  it('reads a run that did not measure (null in the JSON results) as NaN', () => {
    const fromJson = JSON.parse(
      JSON.stringify([summary('express/call-legacy-16:ratio', 'express call legacy', 'ratio', [0.9, NaN, 1])]),
    ) as TargetSummary[];
    expect(chartBarsFromSummaries(fromJson)[0].values).toEqual([0.9, NaN, 1]);
  });
});

describe('chartPathFor', () => {
  it('puts the chart beside the results', () => {
    expect(chartPathFor('bench/results/latest.json')).toBe('bench/results/latest.svg');
    expect(chartPathFor('out')).toBe('out.svg');
  });
});
