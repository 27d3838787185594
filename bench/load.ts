/**
 * One HTTP request shape, probed once and then driven with autocannon.
 */
import autocannon from 'autocannon';

export interface RequestSpec {
  headers: Record<string, string>;
  body: string;
}

export interface Probe {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What one autocannon run saw. */
export interface Slice {
  requests: number;
  durationS: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  /** Latency of every response, in ms (autocannon's own histogram only has whole ms). */
  latencies: Float64Array;
  /** CPU time the server process spent during the slice, in µs. */
  serverCpuUs?: number;
  /** CPU time the bench (autocannon) spent during the slice, in µs. */
  clientCpuUs: number;
}

export interface Measurement {
  /** Completed requests per second over the measured windows. */
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  requests: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  durationS: number;
  /** Server CPU time (user + system) per request, in µs: robust to other load on the machine. */
  cpuUsPerRequest: number;
  /** Share of one core the server used while measured (1 = saturated). */
  cpuShare: number;
  /** Share of one core the load generator used (near 1: the client, not the server, is the limit). */
  clientCpuShare: number;
  /** req/s of each measured slice, to judge the noise. */
  sliceRps: number[];
  /** Server CPU µs per request of each measured slice. */
  sliceCpuUs: number[];
  /** p99 latency of each measured slice, in ms. */
  sliceP99: number[];
}

/** Seconds before a request under load counts as timed out (autocannon's and held-load.ts's). */
export const REQUEST_TIMEOUT_S = 10;

/** The latency of every answer of a slice, in ms, in a buffer that grows as it fills. */
export class LatencyLog {
  private values = new Float64Array(1 << 15);
  private count = 0;

  get length(): number {
    return this.count;
  }

  add(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = ms;
  }

  /** The latencies recorded, as a copy of their own. */
  toArray(): Float64Array {
    return this.values.slice(0, this.count);
  }
}

/** A probe that gets no answer in this long fails, rather than holding the bench up. */
export const PROBE_TIMEOUT_MS = 30_000;

/** Sends the request once with fetch; the body is returned as text. */
export async function probe(url: string, spec: RequestSpec): Promise<Probe> {
  const response = await fetch(url, {
    method: 'POST',
    headers: spec.headers,
    body: spec.body,
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}

/**
 * Drives `url` with `connections` keep-alive connections (no pipelining) for about `durationS`
 * seconds. With `expectBody`, any response body that differs counts as a mismatch.
 */
export function load(
  url: string,
  spec: RequestSpec,
  connections: number,
  durationS: number,
  expectBody?: string,
): Promise<Slice> {
  return new Promise((done, fail) => {
    const latencies = new LatencyLog();
    const clientStart = process.cpuUsage();
    const instance = autocannon(
      {
        url,
        method: 'POST',
        headers: spec.headers,
        body: spec.body,
        connections,
        pipelining: 1,
        duration: durationS,
        // autocannon only stops on a sample tick: a short interval keeps the windows exact.
        sampleInt: 100,
        timeout: REQUEST_TIMEOUT_S,
        expectBody,
      },
      (error, result) => {
        if (error) {
          fail(error);
          return;
        }
        const client = process.cpuUsage(clientStart);
        done({
          clientCpuUs: client.user + client.system,
          requests: result.requests.total,
          durationS: result.duration,
          ok2xx: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          mismatches: result.mismatches,
          latencies: latencies.toArray(),
        });
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => {
      latencies.add(responseTimeMs);
    });
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) {
    return NaN;
  }
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Adds up the slices of one target. */
export function summarize(slices: Slice[]): Measurement {
  const total = slices.reduce((sum, slice) => sum + slice.latencies.length, 0);
  const all = new Float64Array(total);
  let offset = 0;
  let latencySum = 0;
  for (const slice of slices) {
    all.set(slice.latencies, offset);
    offset += slice.latencies.length;
    for (const value of slice.latencies) {
      latencySum += value;
    }
  }
  all.sort();
  const sum = (pick: (slice: Slice) => number): number => slices.reduce((acc, slice) => acc + pick(slice), 0);
  const requests = sum((s) => s.requests);
  const durationS = sum((s) => s.durationS);
  return {
    rps: durationS > 0 ? requests / durationS : 0,
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    mean: total === 0 ? NaN : latencySum / total,
    requests,
    ok2xx: sum((s) => s.ok2xx),
    non2xx: sum((s) => s.non2xx),
    errors: sum((s) => s.errors),
    timeouts: sum((s) => s.timeouts),
    mismatches: sum((s) => s.mismatches),
    durationS,
    cpuUsPerRequest: requests > 0 ? sum((s) => s.serverCpuUs ?? NaN) / requests : NaN,
    cpuShare: durationS > 0 ? sum((s) => s.serverCpuUs ?? NaN) / 1e6 / durationS : NaN,
    clientCpuShare: durationS > 0 ? sum((s) => s.clientCpuUs) / 1e6 / durationS : NaN,
    sliceRps: slices.map((s) => s.requests / s.durationS),
    sliceCpuUs: slices.map((s) => (s.serverCpuUs ?? NaN) / s.requests),
    sliceP99: slices.map((s) => percentile(Float64Array.from(s.latencies).sort(), 99)),
  };
}

/** The median of some numbers. */
export function median(values: number[]): number {
  if (values.length === 0) {
    return NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
