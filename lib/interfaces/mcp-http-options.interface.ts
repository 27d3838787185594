/**
 * HTTP transport limits and checks.
 *
 * @publicApi
 */
export interface McpHttpOptions {
  /**
   * The largest request body accepted, in bytes (HTTP 413 beyond). The MCP routes read their
   * own bodies, so the platform's parser limit does not apply to them; only a parser the
   * application runs first (a global middleware) adds its own limit (raise it with
   * `app.useBodyParser('json', { limit })`). The rest of a refused body is read and dropped, up
   * to twice this many bytes more, before the answer goes out, so that the client (or the proxy
   * in front) reads the answer instead of a reset; beyond that, or when the declared length is
   * beyond it, the answer goes out and the connection closes, still reading what the client
   * sends meanwhile for a moment (up to 16 MiB, 2 s).
   * @default 4194304 (4 MiB)
   */
  maxBodyBytes?: number;
  /**
   * The deepest JSON nesting accepted in a request body (at most 1000).
   * @default 64
   */
  maxJsonDepth?: number;
  /**
   * Host header values accepted (name, or name:port); `['*']` accepts any host. Unless this is
   * set, a Host a DNS answer could point anywhere is refused (DNS rebinding), whatever address
   * the request arrived on: requests on a loopback address accept loopback names only, requests
   * on any other (a container's published port, `HOST=0.0.0.0` reached on a LAN) loopback names
   * and IP literals (`10.0.0.5`, `[fd00::5]`, with or without a port). A server reached by name
   * lists it here (names under `.localhost` too). A refused request gets 403 naming this option.
   * @default loopback names (`localhost`, `127.0.0.1`, `[::1]`), and IP literals on non-loopback connections
   * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning
   */
  allowedHosts?: string[];
  /**
   * Origin header values accepted (`scheme://host[:port]`). A request without Origin is
   * accepted. `['*']` accepts any origin.
   * @default loopback origins on loopback connections, the request's own origin otherwise
   */
  allowedOrigins?: string[];
  /**
   * Interval of keep-alive comments on held SSE streams, in ms.
   * @default 15000
   */
  keepAliveMs?: number;
  /**
   * How many events of a legacy session's SSE streams (request answers and the GET stream) are
   * kept for clients that reconnect with `Last-Event-ID` (at most 100000). A client asking for
   * an event no longer kept first gets `notifications/replay_truncated`. The buffer ends with
   * its session.
   * @default 256
   * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
   */
  replayBufferSize?: number;
  /**
   * How many bytes of messages (their JSON, in UTF-8) one legacy session's replay buffer keeps,
   * beside `replayBufferSize`: the oldest events go first. An event larger than this is not kept,
   * and neither is what the session kept before it (a client resuming from before it gets
   * `notifications/replay_truncated`). The default keeps one event as large as the default
   * request body (`maxBodyBytes`), so that a large answer can still be resumed.
   * @default 4194304 (4 MiB)
   */
  replayBufferBytes?: number;
  /**
   * How many bytes the replay buffers of all legacy sessions of the server keep together (with
   * Redis, of all instances together): past it the oldest events of all sessions go first. At
   * least `replayBufferBytes`: a smaller value is refused at startup.
   * @default 67108864 (64 MiB), or replayBufferBytes when that is larger
   */
  replayTotalBytes?: number;
  /**
   * The reconnection delay, in ms, sent as the SSE `retry` field with the priming event of
   * legacy streams of revision 2025-11-25: how long a client waits before it polls a stream
   * whose connection the server closed (`ctx.closeStream()`). 0 sends no `retry` field.
   * @default 1000
   * @example { http: { retryMs: 5000 } } // long-running tools: poll every 5 s
   * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
   */
  retryMs?: number;
  /**
   * How many held streams one caller may have open at once on this instance, counted by
   * `McpPrincipal.quotaKey` (an anonymous caller by its address): modern `subscriptions/listen`
   * streams, legacy `GET` streams (with `Mcp-Session-Id`, resumptions included) and 2024-11-05
   * SSE pairs, in one count. A stream counts from its admission until its connection closes,
   * whoever ends it. Past it, the request is answered HTTP 429 with `Retry-After` and a JSON-RPC
   * error (-32603), before any stream or session is opened. Each instance counts its own: behind
   * a balancer a caller may hold this many on every instance.
   * @default 32
   */
  maxStreamsPerPrincipal?: number;
  /**
   * How many held streams (as for `maxStreamsPerPrincipal`) this instance keeps open at once, all
   * callers together. Past it: HTTP 503 with `Retry-After` and a JSON-RPC error (-32603). Each
   * stream holds a connection, that is a file descriptor: keep it below the process's limit
   * (`ulimit -n`), with room for the other connections.
   * @default 10000
   */
  maxStreams?: number;
  /**
   * How many bytes an SSE stream may leave unread by its client, per stream: what the server has
   * written to it and the connection has not yet taken (Node keeps it in memory once the
   * kernel's socket buffers are full). When the server has more to write to a stream that is
   * past it, the stream is let go instead, as when its client goes away: the connection is
   * closed (reset), with one warning a minute in the log. A legacy session's stream (its GET
   * stream, a request's answer) is disconnected and its events wait in the replay buffer for a
   * `Last-Event-ID` resume; a modern request is cancelled (its `ctx.signal` aborts); a
   * `subscriptions/listen` stream ends; a 2024-11-05 SSE pair ends with its session. The
   * server holds at most this, and the one message that crossed it, per stream. A client that
   * keeps up is never cut, whatever the size of a message; but what a tool sends at once (log
   * lines and progress in a loop that does not await) cannot be read as it comes: a burst larger
   * than this, beyond what the kernel takes, cuts even a reading client. At least `maxBodyBytes`;
   * the default takes two messages as large as a request body (a tool's echo of a request, then
   * its answer).
   * @default twice `maxBodyBytes`, at least 8388608 (8 MiB)
   */
  maxUnreadBytes?: number;
  /**
   * Deadline of a call on the simple POST-only endpoint (`simpleHttpPath`), in ms: its answer
   * is held in one HTTP response, so it gets a bound of its own; 0 disables it.
   * @default `callTimeoutMs`
   */
  simpleCallTimeoutMs?: number;
  /**
   * Answer CORS for the origins that pass the Origin check: preflight (`OPTIONS`) with the
   * methods and the `Mcp-*` request headers allowed, and `Access-Control-Allow-Origin` (the
   * request's origin, never `*`) with the `Mcp-Session-Id`, `MCP-Protocol-Version` and
   * `WWW-Authenticate` headers exposed on every answer. Headers already set by the application
   * (`app.enableCors()`) are left as they are.
   * @default true
   */
  cors?: boolean;
}
