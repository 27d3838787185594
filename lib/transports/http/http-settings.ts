/** The `http` section of the module options, resolved (`MCP_HTTP_SETTINGS`). */
import type { McpHttpOptions } from '../../interfaces/mcp-http-options.interface';
import { fail, integer, section, stringList } from '../../shared/option-checks';

const MIB = 1024 * 1024;

/** The HTTP transports' limits and checks, with every default applied. */
export interface HttpSettings {
  maxBodyBytes: number;
  maxJsonDepth: number;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  keepAliveMs: number;
  replayBufferSize: number;
  replayBufferBytes: number;
  replayTotalBytes: number;
  retryMs: number;
  simpleCallTimeoutMs: number;
  cors: boolean;
  /** Held streams (listen, legacy GET, SSE pairs) one caller may have open on this instance. */
  maxStreamsPerPrincipal: number;
  /** Held streams this instance keeps open, all callers together. */
  maxStreams: number;
  /** Bytes an SSE stream may leave unread by its client before it is let go. */
  maxUnreadBytes: number;
}

/**
 * Validates `http` and applies its defaults.
 * @param callTimeoutMs the server's call deadline, the default of `simpleCallTimeoutMs`.
 */
export function resolveHttpSettings(options: McpHttpOptions | undefined, callTimeoutMs: number): HttpSettings {
  const http = section(options, 'http');
  if (http.cors !== undefined && typeof http.cors !== 'boolean') {
    fail('http.cors', 'must be a boolean');
  }
  const replayBufferBytes = integer(http.replayBufferBytes, 'http.replayBufferBytes', 4 * MIB, 1);
  // Every session's buffer must fit in the total: it is at least one buffer.
  const replayTotalBytes = integer(
    http.replayTotalBytes,
    'http.replayTotalBytes',
    Math.max(64 * MIB, replayBufferBytes),
    replayBufferBytes,
  );
  const maxBodyBytes = integer(http.maxBodyBytes, 'http.maxBodyBytes', 4 * MIB, 1024);
  // A stream must carry a message as large as a request (a tool echoing it) to a client that reads.
  const maxUnreadBytes = integer(http.maxUnreadBytes, 'http.maxUnreadBytes', Math.max(8 * MIB, 2 * maxBodyBytes), 1);
  if (maxUnreadBytes < maxBodyBytes) {
    fail('http.maxUnreadBytes', `must be at least http.maxBodyBytes (${maxBodyBytes}), got ${maxUnreadBytes}`);
  }
  return {
    maxBodyBytes,
    // The depth check recurses once per level: a bound keeps it far from the stack's limit.
    maxJsonDepth: integer(http.maxJsonDepth, 'http.maxJsonDepth', 64, 2, 1_000),
    allowedHosts: stringList(http.allowedHosts, 'http.allowedHosts'),
    allowedOrigins: stringList(http.allowedOrigins, 'http.allowedOrigins'),
    keepAliveMs: integer(http.keepAliveMs, 'http.keepAliveMs', 15_000, 1_000),
    replayBufferSize: integer(http.replayBufferSize, 'http.replayBufferSize', 256, 1, 100_000),
    replayBufferBytes,
    replayTotalBytes,
    retryMs: integer(http.retryMs, 'http.retryMs', 1_000, 0, 3_600_000),
    simpleCallTimeoutMs: integer(http.simpleCallTimeoutMs, 'http.simpleCallTimeoutMs', callTimeoutMs, 0),
    cors: http.cors ?? true,
    maxStreamsPerPrincipal: integer(http.maxStreamsPerPrincipal, 'http.maxStreamsPerPrincipal', 32, 1),
    maxStreams: integer(http.maxStreams, 'http.maxStreams', 10_000, 1),
    maxUnreadBytes,
  };
}
