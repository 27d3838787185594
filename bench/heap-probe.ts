/**
 * Preload for the memory section (bench/memory.ts): answers `{ type: 'heap' }` from the bench with
 * the child's memory after full garbage collections, so that what is read is what is still
 * reachable, not garbage waiting for the next collection.
 *
 * It is loaded by ts-node (the `require` of bench/heap-probe.tsconfig.json, which the memory
 * section passes as TS_NODE_PROJECT), before the server's own code, and needs `--expose-gc`
 * (NODE_OPTIONS). It only adds a listener: bench/child-runtime.ts's `attach` passes messages it
 * does not know on to the server, which ignores them, and every 'message' listener sees them.
 */
import { getHeapSpaceStatistics } from 'node:v8';

/** What the bench sends. */
export interface HeapRequest {
  type: 'heap';
}

/** What the child answers: `process.memoryUsage()` after the collections, in bytes. */
export interface HeapReply {
  type: 'heap';
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  rss: number;
  /** How long the collections took, in ms (the server answers nothing meanwhile). */
  gcMs: number;
  /**
   * Bytes used in each V8 heap space (`v8.getHeapSpaceStatistics()`): growth in `code_space` is
   * compiled code (V8 warming up, bounded), in `old_space` objects the program keeps.
   */
  spaces: Record<string, number>;
}

/** An error the probe reports instead of a reading (no `--expose-gc`). */
export interface HeapError {
  type: 'server-error';
  message: string;
}

async function collect(): Promise<HeapReply | HeapError> {
  const gc = globalThis.gc;
  if (gc === undefined) {
    return { type: 'server-error', message: 'heap probe: gc() is not exposed (NODE_OPTIONS=--expose-gc)' };
  }
  const start = performance.now();
  // Twice, with a turn of the event loop between: objects kept alive only by finalizers or weak
  // callbacks of the first collection are freed by the second.
  gc();
  await new Promise((done) => setImmediate(done));
  gc();
  const gcMs = performance.now() - start;
  const usage = process.memoryUsage();
  const spaces: Record<string, number> = {};
  for (const space of getHeapSpaceStatistics()) {
    spaces[space.space_name] = space.space_used_size;
  }
  return {
    type: 'heap',
    heapUsed: usage.heapUsed,
    heapTotal: usage.heapTotal,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    rss: usage.rss,
    gcMs,
    spaces,
  };
}

process.on('message', (message: { type?: unknown } | null) => {
  if (message?.type === 'heap') {
    void collect().then((reply) => process.send?.(reply));
  }
});
