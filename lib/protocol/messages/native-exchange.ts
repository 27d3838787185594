/**
 * The transport's own objects for one request (the platform's HTTP request and response), handed
 * through the engine to the handlers that run in a framework pipeline. The engine never looks
 * inside: it only passes them along, as an explicit argument of every catalog handler.
 */
export interface McpNativeExchange {
  /** The transport's request object (Express or Fastify), over HTTP. */
  readonly request?: unknown;
  /** The transport's response object (Express or Fastify), over HTTP. */
  readonly response?: unknown;
}
