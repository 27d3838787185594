/**
 * What the cold-start app without McpModule answers to the bench's `initialize` (revision
 * 2025-11-25): the bytes McpModule sends for the same request and the same server info, built by
 * hand. The bench compares every answer of the app without the module to the module's answer, so
 * a change in the module's reply shows up as a failure here rather than as a skewed figure.
 */

/** The server both variants are (McpModule.forRoot options of the app with the module). */
export const SERVER_INFO = { name: 'cold-start', version: '1.0.0' };

/** The revision the bench's `initialize` asks for (as bench/requests.ts openSession). */
export const INITIALIZE_REVISION = '2025-11-25';

/** The capabilities McpModule declares for an app with tools and nothing else configured. */
const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

/** The JSON-RPC answer to `initialize` with request id `id`. */
export function initializeAnswer(id: string | number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: { protocolVersion: INITIALIZE_REVISION, capabilities: CAPABILITIES, serverInfo: SERVER_INFO },
  });
}
