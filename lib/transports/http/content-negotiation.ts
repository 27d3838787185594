/**
 * The Accept and Content-Type checks of MCP POSTs.
 */
import { ErrorCode, failure } from '../../protocol/json-rpc';
import { firstHeader, sendJson, type HttpExchange } from './http-exchange';

/**
 * Verdicts on header values seen before: clients send the same Accept and Content-Type on every
 * request, so each distinct value is parsed once. Bounded, as header values come from clients.
 */
class VerdictCache {
  private readonly verdicts = new Map<string, boolean>();

  constructor(private readonly decide: (value: string) => boolean) {}

  get(value: string): boolean {
    let verdict = this.verdicts.get(value);
    if (verdict === undefined) {
      verdict = this.decide(value);
      if (this.verdicts.size >= 256) {
        this.verdicts.clear();
      }
      this.verdicts.set(value, verdict);
    }
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

const ACCEPT: Readonly<Record<Exclude<PostAnswer, 'status'>, { verdicts: VerdictCache; message: string }>> = {
  'json-and-sse': {
    verdicts: new VerdictCache((accept) => accepts(accept, 'application/json') && accepts(accept, 'text/event-stream')),
    message: 'Not Acceptable: Accept must include application/json and text/event-stream',
  },
  json: {
    verdicts: new VerdictCache((accept) => accepts(accept, 'application/json')),
    message: 'Not Acceptable: Accept must include application/json',
  },
};

const JSON_CONTENT_TYPE = new VerdictCache((contentType) =>
  /^application\/(.+\+)?json\s*(;|$)/i.test(contentType.trim()),
);

/** Checks the Accept and Content-Type of a POST; answers 406 or 415 and returns false when they do not fit. */
export function acceptsPost(exchange: HttpExchange, answer: PostAnswer): boolean {
  const { headers, res } = exchange;
  const accept = firstHeader(headers, 'accept');
  const rule = answer === 'status' ? undefined : ACCEPT[answer];
  if (rule !== undefined && accept !== undefined && !rule.verdicts.get(accept)) {
    sendJson(res, 406, failure(null, ErrorCode.InvalidRequest, rule.message));
    return false;
  }
  const contentType = firstHeader(headers, 'content-type');
  if (contentType !== undefined && !JSON_CONTENT_TYPE.get(contentType)) {
    sendJson(
      res,
      415,
      failure(null, ErrorCode.InvalidRequest, 'Unsupported Media Type: Content-Type must be application/json'),
    );
    return false;
  }
  return true;
}
