/**
 * Child process: the round-robin proxy (test/support/round-robin-proxy.ts) in front of the MCP
 * server instances of the scale-out scenarios, BENCH_PROXY_TARGETS (comma-separated base URLs).
 *
 * It runs in a process of its own rather than in the bench's: there it would share one event
 * loop with autocannon, and a proxy does about twice the HTTP work of the load generator per
 * request (a server side and a client side), so each would throttle the other.
 */
import { startRoundRobinProxy } from '../test/support/round-robin-proxy';
import { attach, send } from './child-runtime';

async function main(): Promise<void> {
  const targets = (process.env.BENCH_PROXY_TARGETS ?? '').split(',').filter((target) => target.length > 0);
  const proxy = await startRoundRobinProxy(targets);
  attach(
    () => proxy.close(),
    (message) => {
      if (message.type === 'hits') {
        send({ type: 'hits', hits: [...proxy.hits] });
      }
    },
  );
  send({ type: 'ready', port: proxy.port, path: process.env.BENCH_PROXY_PATH ?? 'mcp' });
}

main().catch((error: unknown) => {
  send({ type: 'server-error', message: `startup failed: ${error instanceof Error ? error.stack : String(error)}` });
  process.exit(1);
});
