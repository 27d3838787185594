/**
 * Memory a test can compare: what is still held after full collections, not the garbage a run
 * left for the collector to find later.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// `gc` is not exposed to Jest's workers: turn it on for this process and take it from a fresh context.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap and array buffers in use after full collections (several: finalizers and weak maps settle over rounds). */
export async function settledMemory(): Promise<{ heapUsed: number; arrayBuffers: number }> {
  for (let round = 0; round < 4; round += 1) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heapUsed, arrayBuffers };
}

/** The heap in use after full collections. */
export async function settledHeap(): Promise<number> {
  return (await settledMemory()).heapUsed;
}
