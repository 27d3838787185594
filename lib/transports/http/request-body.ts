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
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) {
      continue;
    }
    if (depth > limit) {
      return true;
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) {
        stack.push([child, depth + 1]);
      }
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

/** Reads and decodes the JSON body of a POST. */
export async function readJsonBody(
  platformRequest: unknown,
  req: IncomingMessage,
  maxBytes: number,
  maxDepth: number,
): Promise<BodyOutcome> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return tooLarge(maxBytes);
  }
  const parsed = (platformRequest as { body?: unknown }).body;
  let value: unknown;
  if (parsed !== undefined && typeof parsed !== 'string' && !Buffer.isBuffer(parsed)) {
    value = parsed;
  } else {
    let text: string;
    if (typeof parsed === 'string') {
      text = parsed;
    } else if (Buffer.isBuffer(parsed)) {
      text = parsed.toString('utf8');
    } else if (req.readableEnded) {
      return parseError();
    } else {
      const raw = await readStream(req, maxBytes);
      if (raw === 'too-large') {
        return tooLarge(maxBytes);
      }
      text = raw.toString('utf8');
    }
    if (Buffer.byteLength(text) > maxBytes) {
      return tooLarge(maxBytes);
    }
    try {
      value = JSON.parse(text);
    } catch {
      return parseError();
    }
  }
  if (exceedsDepth(value, maxDepth)) {
    return { ok: false, status: 400, error: failure(null, ErrorCode.InvalidRequest, 'Request nesting is too deep') };
  }
  return { ok: true, value };
}
