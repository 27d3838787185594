/**
 * Reading a POST body: the platform's parsed body when its body parser ran, the raw stream
 * otherwise. Size and nesting depth are capped either way.
 */
import type { IncomingMessage } from 'node:http';
import { ErrorCode, failure, type JsonRpcFailure } from '../../protocol/json-rpc';

export type BodyOutcome = { ok: true; value: unknown } | { ok: false; status: number; error: JsonRpcFailure };

const tooLarge = (limit: number): BodyOutcome => ({
  ok: false,
  status: 413,
  error: failure(null, ErrorCode.InvalidRequest, `Request body exceeds ${limit} bytes`),
});

const parseError = (): BodyOutcome => ({
  ok: false,
  status: 400,
  error: failure(null, ErrorCode.ParseError, 'Parse error'),
});

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

function readStream(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      if (settled) {
        return;
      }
      size += chunk.length;
      if (size > limit) {
        settled = true;
        // Stop reading; the answer (413) goes out and the connection is closed after it.
        req.pause();
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!settled) {
        settled = true;
        resolve(Buffer.concat(chunks));
      }
    });
    req.on('error', (error) => {
      if (!settled) {
        settled = true;
        reject(error);
      }
    });
  });
}

/**
 * Reads and decodes the JSON body of a POST. Answers synchronously when the platform parsed the
 * body already (the usual case), with a promise only when the stream must be read.
 */
export function readJsonBody(
  platformRequest: unknown,
  req: IncomingMessage,
  maxBytes: number,
  maxDepth: number,
): BodyOutcome | Promise<BodyOutcome> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return tooLarge(maxBytes);
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
    return decode(typeof parsed === 'string' ? parsed : parsed.toString('utf8'), maxBytes, maxDepth);
  }
  if (req.readableEnded) {
    return parseError();
  }
  return readStream(req, maxBytes).then((raw) =>
    raw === 'too-large' ? tooLarge(maxBytes) : decode(raw.toString('utf8'), maxBytes, maxDepth),
  );
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

function decode(text: string, maxBytes: number, maxDepth: number): BodyOutcome {
  if (Buffer.byteLength(text) > maxBytes) {
    return tooLarge(maxBytes);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseError();
  }
  return checked(value, maxDepth);
}

function checked(value: unknown, maxDepth: number): BodyOutcome {
  if (exceedsDepth(value, maxDepth)) {
    return { ok: false, status: 400, error: failure(null, ErrorCode.InvalidRequest, 'Request nesting is too deep') };
  }
  return { ok: true, value };
}
