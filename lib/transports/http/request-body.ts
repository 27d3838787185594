/**
 * Reading a POST body with the module's own limits. The MCP routes are exempt from the
 * platform's body parser (see platform-routes.ts), so the body is usually read from the stream
 * here; a body some other parser of the application decoded first is used as it is. Size and
 * nesting depth are capped either way.
 *
 * A body refused before its end is read on and dropped before the answer goes out, up to a
 * bound: a server that answers and closes while the client is still sending makes the kernel
 * reset the connection, and the client (or the proxy in front of the server) then loses the
 * answer to the reset. Past the bound, the answer goes out at once and the connection closes.
 */
import type { IncomingMessage } from 'node:http';
import { McpErrorCode, failure, type JSONRPCErrorResponse } from '../../protocol/messages/json-rpc';
import { BODY_TOO_DEEP, BODY_TOO_LARGE } from '../../shared/mcp.messages';

/** Why a body was refused. */
export type BodyRefusalReason = 'too-large' | 'parse' | 'too-deep' | 'media-type' | 'aborted';

export type BodyOutcome =
  | { ok: true; value: unknown }
  | {
      ok: false;
      status: number;
      error: JSONRPCErrorResponse;
      reason: BodyRefusalReason;
      /** Part of the body is still unread (past what is dropped): the answer closes the connection. */
      unread?: boolean;
    };

/**
 * How much of a refused body is read and dropped, at most, in multiples of `http.maxBodyBytes`:
 * enough for a client that sent somewhat too much to read its answer, not so much that a client
 * can keep the server reading for long.
 */
export const DISCARD_FACTOR = 2;

/**
 * Reads the rest of a refused body and drops it, up to `maxBytes` more: `true` once the body
 * ended within that (the connection is then in a clean state for the answer), `false` when more
 * is left, declared or seen, or the client went away (the answer then closes the connection).
 * Synchronous when nothing is read.
 */
export function dropBody(req: IncomingMessage, maxBytes: number): boolean | Promise<boolean> {
  if (req.readableEnded) {
    return true;
  }
  const declared = Number(req.headers['content-length']);
  if (req.destroyed || (Number.isFinite(declared) && declared > maxBytes)) {
    return false;
  }
  return new Promise((resolve) => {
    let dropped = 0;
    const settle = (ended: boolean): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      if (!ended) {
        req.pause();
      }
      resolve(ended);
    };
    const onData = (chunk: Buffer): void => {
      dropped += chunk.length;
      if (dropped > maxBytes) {
        settle(false);
      }
    };
    const onEnd = (): void => settle(true);
    const onClose = (): void => settle(false);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
    req.resume();
  });
}

/** A body over the limit (HTTP 413): the limit in force and the option that raises it. */
export function tooLarge(limit: number, unread = false): BodyOutcome & { ok: false } {
  return {
    ok: false,
    status: 413,
    error: failure(null, McpErrorCode.InvalidRequest, BODY_TOO_LARGE(limit)),
    reason: 'too-large',
    unread,
  };
}

/** A body that is not JSON (HTTP 400, -32700). */
export function parseError(): BodyOutcome & { ok: false } {
  return { ok: false, status: 400, error: failure(null, McpErrorCode.ParseError, 'Parse error'), reason: 'parse' };
}

/** Whether a decoded value nests deeper than `limit` arrays and objects. */
export function exceedsDepth(value: unknown, limit: number): boolean {
  return deeperThan(value, 1, limit);
}

/** Recursion stops one level past the limit, so the stack never grows beyond it. */
function deeperThan(node: unknown, depth: number, limit: number): boolean {
  if (typeof node !== 'object' || node === null) {
    return false;
  }
  if (depth > limit) {
    return true;
  }
  if (Array.isArray(node)) {
    for (const child of node) {
      if (deeperThan(child, depth + 1, limit)) {
        return true;
      }
    }
    return false;
  }
  for (const key in node) {
    if (deeperThan((node as Record<string, unknown>)[key], depth + 1, limit)) {
      return true;
    }
  }
  return false;
}

/**
 * Reads the stream up to `limit` bytes. Past it, the rest is never buffered: it is dropped up to
 * `DISCARD_FACTOR` × `limit` (see `dropBody`), beyond which the answer closes the connection. A
 * client that goes away mid-body ends the read quietly: there is nobody left to answer.
 */
function readStream(req: IncomingMessage, limit: number, maxDepth: number): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: BodyOutcome | Promise<BodyOutcome>): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      resolve(outcome);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        settle(tooLargeAfterDrop(req, limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      settle(decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size), maxDepth));
    };
    const onError = (): void => {
      settle({ ...parseError(), reason: 'aborted' });
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * Reads and decodes the JSON body of a POST (UTF-8: the Content-Type check refused any other
 * charset before). Answers synchronously when a parser of the application decoded the body
 * already, with a promise when the stream is read.
 */
export function readJsonBody(
  platformRequest: unknown,
  req: IncomingMessage,
  maxBytes: number,
  maxDepth: number,
): BodyOutcome | Promise<BodyOutcome> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    // Refused before a byte is read: the body is never buffered.
    return tooLargeAfterDrop(req, maxBytes);
  }
  const parsed = (platformRequest as { body?: unknown }).body;
  if (parsed !== undefined && typeof parsed !== 'string' && !Buffer.isBuffer(parsed)) {
    // Express's parser makes `{}` of a request without a body; an empty body is not JSON.
    const sentBody = declared > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!sentBody && isEmptyObject(parsed)) {
      return parseError();
    }
    return checked(parsed, maxDepth);
  }
  if (typeof parsed === 'string' || Buffer.isBuffer(parsed)) {
    const bytes = typeof parsed === 'string' ? Buffer.from(parsed) : parsed;
    return bytes.length > maxBytes ? tooLarge(maxBytes) : decode(bytes, maxDepth);
  }
  if (req.readableEnded) {
    return parseError();
  }
  return readStream(req, maxBytes, maxDepth);
}

/** A body over `limit`, answered once the rest is dropped (or at once, closing, when there is too much). */
function tooLargeAfterDrop(req: IncomingMessage, limit: number): BodyOutcome | Promise<BodyOutcome> {
  const ended = dropBody(req, DISCARD_FACTOR * limit);
  return typeof ended === 'boolean' ? tooLarge(limit, !ended) : ended.then((done) => tooLarge(limit, !done));
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

function decode(bytes: Buffer, maxDepth: number): BodyOutcome {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return parseError();
  }
  return checked(value, maxDepth);
}

function checked(value: unknown, maxDepth: number): BodyOutcome {
  if (exceedsDepth(value, maxDepth)) {
    return {
      ok: false,
      status: 400,
      error: failure(null, McpErrorCode.InvalidRequest, BODY_TOO_DEEP(maxDepth)),
      reason: 'too-deep',
    };
  }
  return { ok: true, value };
}
