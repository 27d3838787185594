/**
 * `requestState` of multi round-trip requests (2026-07-28): everything a retry needs travels
 * through the client, so any instance can serve it. The client is not trusted with it: the state
 * is signed (HMAC-SHA256), bound to the principal, the method and a digest of the request's
 * params, and expires. It is signed, not encrypted: the client can read it, so handlers keep
 * secrets out of `ctx.state`.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isJsonObject, type JSONObject } from './json-rpc';

/** What a sealed state carries between rounds. */
export interface RoundState {
  /** The answers the handler used in earlier rounds, by key. */
  readonly answers: JSONObject;
  /** What the handler kept in `ctx.state`. */
  readonly state: JSONObject;
  /**
   * The observer's context of the round that sealed the state (a W3C `traceparent`), opaque
   * here, so that the next round continues its trace; see `sealedTrace`. Absent from states
   * sealed without an observer, or before it existed (they open all the same).
   */
  readonly trace?: string;
}

/** The request a state is bound to. */
export interface StateBinding {
  readonly principalId: string;
  readonly method: string;
  readonly params: JSONObject;
}

const VERSION = 'v1';
/** States above this size are refused before their signature is even checked. */
const MAX_STATE_LENGTH = 64 * 1024;
/** The longest trace a state carries: a W3C `traceparent` is 55 characters; longer ones are not sealed. */
const MAX_TRACE_LENGTH = 80;
/**
 * The base64url characters `sealedTrace` decodes: the payload's JSON opens with the trace, and
 * `{"t":"` + the longest trace + `"` fit in them (a multiple of 4, so that they decode whole).
 */
const TRACE_WINDOW = 4 * Math.ceil((6 + MAX_TRACE_LENGTH + 1) / 3);
const TRACE_FIELD = /^\{"t":"([^"\\]+)"/;
/** Params that change between rounds and so are not part of the request's identity. */
const ROUND_PARAMS = new Set(['_meta', 'inputResponses', 'requestState']);

/** JSON with object keys sorted, so that equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  }
  if (isJsonObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** The identity of a request across its rounds: its params without the per-round ones. */
function requestDigest(method: string, params: JSONObject): string {
  const stable: JSONObject = {};
  for (const [key, value] of Object.entries(params)) {
    if (!ROUND_PARAMS.has(key)) {
      stable[key] = value;
    }
  }
  return digest(`${method}\n${canonicalJson(stable)}`);
}

export class RequestStateSealer {
  private readonly key: Buffer;

  constructor(
    secret: string | Buffer | undefined,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.key = secret === undefined ? randomBytes(32) : Buffer.from(secret);
  }

  seal(binding: StateBinding, round: RoundState): string {
    const { trace } = round;
    const payload = Buffer.from(
      JSON.stringify({
        // First, so that `sealedTrace` finds it in the payload's first characters.
        t: trace !== undefined && trace.length <= MAX_TRACE_LENGTH ? trace : undefined,
        e: this.now() + this.ttlMs,
        p: digest(binding.principalId),
        r: requestDigest(binding.method, binding.params),
        a: round.answers,
        s: round.state,
      }),
    ).toString('base64url');
    const sealed = `${VERSION}.${payload}.${this.sign(payload)}`;
    if (sealed.length > MAX_STATE_LENGTH) {
      throw new RangeError(
        `requestState of ${sealed.length} characters exceeds ${MAX_STATE_LENGTH}: keep ctx.state and the answers small`,
      );
    }
    return sealed;
  }

  /**
   * Opens a state sent back by a client. Returns `undefined` for anything that was not sealed
   * here for this principal and this request, or that expired: the caller refuses it without
   * telling which check failed.
   */
  open(sealed: string, binding: StateBinding): RoundState | undefined {
    if (sealed.length > MAX_STATE_LENGTH) {
      return undefined;
    }
    const [version, payload, signature, extra] = sealed.split('.');
    if (version !== VERSION || payload === undefined || signature === undefined || extra !== undefined) {
      return undefined;
    }
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    // The signature is checked before the payload is parsed, in constant time.
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      return undefined;
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (
      !isJsonObject(body) ||
      typeof body.e !== 'number' ||
      body.e < this.now() ||
      body.p !== digest(binding.principalId) ||
      body.r !== requestDigest(binding.method, binding.params) ||
      !isJsonObject(body.a) ||
      !isJsonObject(body.s)
    ) {
      return undefined;
    }
    return typeof body.t === 'string'
      ? { answers: body.a, state: body.s, trace: body.t }
      : { answers: body.a, state: body.s };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(`${VERSION}.${payload}`).digest('base64url');
  }
}

/**
 * The trace a sealed state carries (`RoundState.trace`), read WITHOUT checking the state: the
 * observer needs it before the request runs, to start the request's span within it, and the
 * state is opened (or refused) later. So it is no more trusted than a `traceparent` the client
 * sends in `_meta`: a client may forge it, and it only ever chooses a span's parent. Cheap
 * whatever the state's size: it decodes the payload's first characters only, where `seal` puts
 * the trace. `undefined` for anything else (no trace, not a state, a state too long to open).
 */
export function sealedTrace(sealed: unknown): string | undefined {
  if (typeof sealed !== 'string' || sealed.length > MAX_STATE_LENGTH || !sealed.startsWith(`${VERSION}.`)) {
    return undefined;
  }
  const start = VERSION.length + 1;
  const end = sealed.indexOf('.', start);
  const head = sealed.slice(start, Math.min(end === -1 ? sealed.length : end, start + TRACE_WINDOW));
  return TRACE_FIELD.exec(Buffer.from(head, 'base64url').toString('latin1'))?.[1];
}
