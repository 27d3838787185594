/**
 * The part of autocannon's programmatic API the bench uses (the package ships no types).
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface AutocannonOptions {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Milliseconds between samples; the run only stops on a sample. */
    sampleInt?: number;
    /** Seconds before a request counts as timed out. */
    timeout?: number;
    /** A response whose body differs from this string counts as a mismatch. */
    expectBody?: string;
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  interface AutocannonResult {
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    /** Seconds. */
    duration: number;
  }

  interface AutocannonInstance extends EventEmitter {
    stop(): void;
  }

  function autocannon(
    options: AutocannonOptions,
    callback: (error: Error | null, result: AutocannonResult) => void,
  ): AutocannonInstance;

  export = autocannon;
}
