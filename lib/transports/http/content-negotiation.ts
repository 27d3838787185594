/**
 * The Accept, Content-Type and Content-Encoding checks of MCP POSTs: one ladder, used by the
 * endpoints before they read a body and by the platform hooks when the platform's own parser
 * refused the body first, so that both give the same answer.
 */
import { McpErrorCode, failure, type JSONRPCErrorResponse } from '../../protocol/messages/json-rpc';
import type { McpHeaderBag } from '../../protocol/messages/request-headers';
import { firstHeader, sendJson, type HttpExchange } from './http-exchange';

/** An HTTP refusal with its JSON-RPC body. */
export interface HttpRefusal {
  readonly status: number;
  readonly error: JSONRPCErrorResponse;
}

/**
 * Verdicts on header values seen before: clients send the same Accept and Content-Type on every
 * request, so each distinct value is parsed once. Bounded, as header values come from clients.
 */
class VerdictCache<T> {
  /** `null` stands for a verdict of `undefined` (a value admitted), so that one lookup tells. */
  private readonly verdicts = new Map<string, T | null>();

  constructor(private readonly decide: (value: string) => T) {}

  get(value: string): T {
    const known = this.verdicts.get(value);
    if (known !== undefined) {
      return (known === null ? undefined : known) as T;
    }
    const verdict = this.decide(value);
    if (this.verdicts.size >= 256) {
      this.verdicts.clear();
    }
    this.verdicts.set(value, verdict === undefined ? null : verdict);
    return verdict;
  }
}

/** Whether an Accept header admits a type (a missing header admits everything). */
export function accepts(accept: string | undefined, type: string): boolean {
  if (accept === undefined || accept.trim() === '') {
    return true;
  }
  const [major] = type.split('/');
  return accept
    .split(',')
    .map((part) => part.split(';')[0].trim().toLowerCase())
    .some((range) => range === type || range === '*/*' || range === `${major}/*`);
}

/**
 * What the answer to a POST may be: JSON or SSE (Streamable HTTP), JSON only (the simple
 * endpoint), or nothing but a status (the messages of the SSE pair, answered on the stream).
 */
export type PostAnswer = 'json-and-sse' | 'json' | 'status';

function refusal(status: number, message: string): HttpRefusal {
  return { status, error: failure(null, McpErrorCode.InvalidRequest, message) };
}

const ACCEPT: Readonly<Record<Exclude<PostAnswer, 'status'>, VerdictCache<HttpRefusal | undefined>>> = {
  'json-and-sse': new VerdictCache((accept) =>
    accepts(accept, 'application/json') && accepts(accept, 'text/event-stream')
      ? undefined
      : refusal(406, 'Not Acceptable: Accept must include application/json and text/event-stream'),
  ),
  json: new VerdictCache((accept) =>
    accepts(accept, 'application/json')
      ? undefined
      : refusal(406, 'Not Acceptable: Accept must include application/json'),
  ),
};

/** Client-sent text quoted in an answer: short, printable. */
function quoted(value: string): string {
  return JSON.stringify(value.replace(/[^\x20-\x7e]/g, '?').slice(0, 40));
}

/**
 * A JSON media type, in UTF-8: MCP messages are JSON, and JSON between systems is UTF-8
 * (RFC 8259), so a body declared in another charset is refused rather than misread.
 */
const CONTENT_TYPE = new VerdictCache<HttpRefusal | undefined>((contentType) => {
  const [mediaType, ...parameters] = contentType.split(';');
  if (!/^application\/(.+\+)?json$/i.test(mediaType.trim())) {
    return refusal(415, 'Unsupported Media Type: Content-Type must be application/json');
  }
  for (const parameter of parameters) {
    const [name, ...rest] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') {
      continue;
    }
    const charset = rest
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (!/^utf-?8$/i.test(charset)) {
      return refusal(415, `Unsupported Media Type: charset ${quoted(charset)} is not supported; send UTF-8`);
    }
  }
  return undefined;
});

/**
 * Request bodies are read as sent: MCP clients do not compress them, and inflating would need
 * limits of its own (a small body can inflate to gigabytes).
 */
const CONTENT_ENCODING = new VerdictCache<HttpRefusal | undefined>((encoding) =>
  encoding.trim() === '' || encoding.trim().toLowerCase() === 'identity'
    ? undefined
    : refusal(
        415,
        `Unsupported Media Type: Content-Encoding ${quoted(encoding)} is not supported; send the body uncompressed`,
      ),
);

/**
 * Why the headers of a POST refuse it (406 or 415), or `undefined` when they fit: Accept for
 * the answer the endpoint gives, then Content-Type (JSON, UTF-8), then Content-Encoding.
 */
export function postHeadersRefusal(headers: McpHeaderBag, answer: PostAnswer): HttpRefusal | undefined {
  const accept = firstHeader(headers, 'accept');
  if (answer !== 'status' && accept !== undefined) {
    const refused = ACCEPT[answer].get(accept);
    if (refused !== undefined) {
      return refused;
    }
  }
  const contentType = firstHeader(headers, 'content-type');
  if (contentType !== undefined) {
    const refused = CONTENT_TYPE.get(contentType);
    if (refused !== undefined) {
      return refused;
    }
  }
  const encoding = firstHeader(headers, 'content-encoding');
  return encoding === undefined ? undefined : CONTENT_ENCODING.get(encoding);
}

/** Checks the headers of a POST; answers 406 or 415 and returns false when they do not fit. */
export function acceptsPost(exchange: HttpExchange, answer: PostAnswer): boolean {
  const refused = postHeadersRefusal(exchange.headers, answer);
  if (refused === undefined) {
    return true;
  }
  sendJson(exchange.res, refused.status, refused.error);
  return false;
}
