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
    const payload = Buffer.from(
      JSON.stringify({
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
    return { answers: body.a, state: body.s };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(`${VERSION}.${payload}`).digest('base64url');
  }
}
