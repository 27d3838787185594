/**
 * The round-robin proxy (round-robin-proxy.ts) as a process of its own, for scripts (`.ci/run`
 * puts it in front of two instances of the conformance fixture):
 *
 *   PORT=8080 npx ts-node --transpile-only test/support/round-robin-proxy-main.ts \
 *     http://127.0.0.1:3101 http://127.0.0.1:3102
 *
 * Each argument is a target base URL. PORT (default 0: a free one) is the loopback port to listen
 * on; once it listens, the proxy prints one line, `round-robin proxy listening on
 * http://127.0.0.1:<port> -> <targets>`, so that a caller that let the kernel choose can read it.
 * SIGTERM or SIGINT closes it (open streams included) and ends the process; how many requests
 * went to each target is printed then.
 */
import { startRoundRobinProxy } from './round-robin-proxy';

function fail(message: string): never {
  process.stderr.write(`round-robin proxy: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const targets = process.argv.slice(2);
  if (targets.length === 0) {
    fail('usage: round-robin-proxy-main.ts <target base URL>... (PORT=<port> to choose the port)');
  }
  const port = Number(process.env.PORT ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    fail(`PORT must be a port number, got ${process.env.PORT}`);
  }
  const proxy = await startRoundRobinProxy(targets, { port });
  let closing = false;
  const stop = (): void => {
    if (closing) {
      return;
    }
    closing = true;
    process.stdout.write(`round-robin proxy: requests per target ${JSON.stringify(proxy.hits)}\n`);
    void proxy.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`round-robin proxy listening on ${proxy.url} -> ${targets.join(', ')}\n`);
}

main().catch((error: unknown) => fail(error instanceof Error ? (error.stack ?? error.message) : String(error)));
