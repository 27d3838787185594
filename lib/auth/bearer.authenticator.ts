/**
 * `Authorization: Bearer <token>` (RFC 6750), the token checked against a static table, by a
 * verifier, or as a JWT (jose). Refusals carry the challenge of RFC 6750 §3 with the
 * `resource_metadata` of RFC 9728, so that clients find the authorization server.
 */
import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { type Logger } from '@nestjs/common';
import type * as Jose from 'jose';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { McpPrincipal } from '../protocol/calls/call-context';
import type {
  McpAuthRequest,
  McpJsonWebKey,
  McpJwtOptions,
  McpTokenVerifier,
} from '../interfaces/mcp-auth-options.interface';
import {
  authorization,
  challenge,
  principalFrom,
  toPrincipal,
  type AuthOutcome,
  type Authenticator,
} from './authenticator';
import { CredentialTable } from './credential-table';
import { RefusalLog } from '../protocol/bounds/refusal-log';
import { logText } from '../protocol/bounds/log-text';
import { messageOf } from '../protocol/messages/mcp-error';

let jose: Promise<typeof Jose> | undefined;

/**
 * jose, loaded on the first JWT to verify: it is an ES module of some size (about 130 ms to load
 * here), and an application that verifies no JWT should not pay for it at startup.
 */
function loadJose(): Promise<typeof Jose> {
  return (jose ??= import('jose'));
}

/** What checking one token found. */
export type TokenCheck =
  { ok: true; principal: McpPrincipal } | { ok: false; reason: 'invalid' | 'expired' | 'unavailable' };

export type TokenChecker = (token: string) => Promise<TokenCheck>;

const INVALID: TokenCheck = { ok: false, reason: 'invalid' };

/** Characters of a token (RFC 6750 §2.1 b64token). */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

export class BearerAuthenticator implements Authenticator {
  readonly headers = ['authorization'] as const;
  /** The scopes clients may ask for, named in the 401 challenges (`scope`). */
  private readonly scopes: string | undefined;

  constructor(
    private readonly check: TokenChecker,
    private readonly realm: string,
    private readonly metadataUrl: string | undefined,
    scopesSupported: readonly string[] | undefined,
  ) {
    // A scope is one or more tokens (RFC 6749 §3.3): an empty list names none.
    this.scopes = scopesSupported === undefined || scopesSupported.length === 0 ? undefined : scopesSupported.join(' ');
  }

  async authenticate(request: McpAuthRequest): Promise<AuthOutcome> {
    const token = authorization(request, 'bearer');
    if (token === undefined) {
      // No credentials: the challenge names no error (RFC 6750 §3.1).
      return {
        ok: false,
        status: 401,
        challenge: this.challenge([['scope', this.scopes]]),
        error: 'invalid_request',
        description: 'Authentication required',
      };
    }
    const checked = TOKEN.test(token) ? await this.check(token) : INVALID;
    if (checked.ok) {
      return checked;
    }
    if (checked.reason === 'unavailable') {
      return {
        ok: false,
        status: 503,
        error: 'temporarily_unavailable',
        description: 'The token cannot be verified right now',
      };
    }
    const description = checked.reason === 'expired' ? 'The token has expired' : 'The token is not valid';
    return {
      ok: false,
      status: 401,
      challenge: this.challenge([
        ['error', 'invalid_token'],
        ['error_description', description],
        ['scope', this.scopes],
      ]),
      error: 'invalid_token',
      description,
    };
  }

  /** The step-up challenge of a call that lacks scopes (HTTP 403). */
  insufficientScope(scopes: readonly string[]): string {
    return this.challenge([
      ['error', 'insufficient_scope'],
      ['scope', scopes.join(' ')],
      ['error_description', 'The token lacks a scope this request needs'],
    ]);
  }

  private challenge(params: Array<[string, string | undefined]>): string {
    return challenge('Bearer', [['realm', this.realm], ...params, ['resource_metadata', this.metadataUrl]]);
  }
}

/** Tokens of a fixed table (`sha256:<hex>` entries are digests of the real tokens). */
export function staticTokens(
  tokens: Record<string, { id: string; scopes?: string[]; claims?: Record<string, unknown> }>,
): TokenChecker {
  const table = new CredentialTable();
  for (const [token, principal] of Object.entries(tokens)) {
    table.add(token, toPrincipal(principal));
  }
  return (token) => {
    const principal = table.find(token);
    return Promise.resolve(principal === undefined ? INVALID : { ok: true, principal });
  };
}

/** Tokens checked by a verifier; a verifier that throws refuses the token, and the error is logged. */
export function verifiedTokens(verifier: McpTokenVerifier, logger: Logger): TokenChecker {
  return async (token) => {
    const principal = await principalFrom(() => verifier.verify(token), logger, 'The bearer token verifier');
    return principal === undefined ? INVALID : { ok: true, principal };
  };
}

/** The scopes of a token: `scope` (space-separated, RFC 9068) or `scp` (a list or a string). */
export function scopesOf(payload: JWTPayload): string[] {
  const claim = payload.scope ?? payload.scp;
  const values = typeof claim === 'string' ? claim.split(' ') : Array.isArray(claim) ? claim : [];
  return values.filter((value): value is string => typeof value === 'string' && value.length > 0);
}

function keyOf(key: NonNullable<McpJwtOptions['key']>): KeyObject | Uint8Array {
  if (typeof key === 'string') {
    return key.includes('-----BEGIN') ? createPublicKey(key) : createSecretKey(Buffer.from(key, 'utf8'));
  }
  if (key instanceof Uint8Array) {
    return key;
  }
  if ('type' in key && typeof (key as KeyObject).export === 'function') {
    return key as KeyObject;
  }
  const jwk = key as McpJsonWebKey;
  return jwk.kty === 'oct' && typeof jwk.k === 'string'
    ? createSecretKey(Buffer.from(jwk.k, 'base64url'))
    : createPublicKey({ key: jwk, format: 'jwk' });
}

/**
 * A key set that could not be fetched (the network, a timeout, an HTTP error, a body that is not
 * a key set): not the caller's fault. Only the key getter throws it, so that every other error of
 * a verification is the token's.
 */
class KeySetUnavailable extends Error {}

/**
 * Whether an error of jose's remote key set is a failure to fetch the set, rather than a verdict
 * on the token (no key for its `kid` or `alg`, an algorithm a key set cannot serve...).
 */
function isFetchFailure(error: unknown, errors: typeof Jose.errors): boolean {
  return (
    // Anything but a verdict of jose's (a network error, from whatever realm).
    !(error instanceof errors.JOSEError) ||
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    // "Expected 200 OK from the JSON Web Key Set HTTP response", "Failed to parse the JSON Web Key
    // Set HTTP response as JSON": plain JOSEErrors.
    error.message.includes('JSON Web Key Set HTTP response')
  );
}

/**
 * The key getter of a remote key set (JWKS fetched on demand and cached by jose), whose fetch
 * failures are told apart from its verdicts on the token.
 */
function remoteKeys(jose: typeof Jose, url: URL): JWTVerifyGetKey {
  const remote = jose.createRemoteJWKSet(url);
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      throw isFetchFailure(error, jose.errors) ? new KeySetUnavailable(messageOf(error)) : error;
    }
  };
}

/**
 * Tokens verified as JWTs: signature (JWKS fetched on demand and cached by jose, or a key),
 * `exp`/`nbf` with the clock tolerance, issuer, audience and algorithms. A token refused for
 * anything of its own (its signature, its claims, an `alg` that does not fit the key) is
 * `invalid` (a debug line); only a key set that cannot be fetched is `unavailable` (a warning,
 * once a minute).
 */
export function jwtTokens(options: McpJwtOptions & { audience: string | string[] }, logger: Logger): TokenChecker {
  // Read now, so that a bad key or URL is a configuration error at startup.
  const jwksUrl = options.jwksUrl !== undefined ? new URL(options.jwksUrl) : undefined;
  const key = jwksUrl === undefined ? keyOf(options.key!) : undefined;
  const refusals = new RefusalLog(logger);
  let keys: JWTVerifyGetKey | KeyObject | Uint8Array | undefined;
  const verifyOptions = {
    issuer: options.issuer,
    audience: options.audience,
    algorithms: options.algorithms,
    clockTolerance: options.clockToleranceSec ?? 60,
  };
  const principalClaim = options.principalClaim ?? 'sub';
  return async (token) => {
    const jose = await loadJose();
    keys ??= jwksUrl !== undefined ? remoteKeys(jose, jwksUrl) : key!;
    let payload: JWTPayload;
    try {
      ({ payload } =
        typeof keys === 'function'
          ? await jose.jwtVerify(token, keys, verifyOptions)
          : await jose.jwtVerify(token, keys, verifyOptions));
    } catch (error) {
      if (error instanceof KeySetUnavailable) {
        refusals.warn('jwks-unavailable', `The JWT key set could not be fetched: ${logText(error.message)}`);
        return { ok: false, reason: 'unavailable' };
      }
      if (error instanceof jose.errors.JWTExpired) {
        return { ok: false, reason: 'expired' };
      }
      // Whatever else failed, the token did: a bad signature or claim, or an algorithm that does
      // not fit the key (jose's JOSEAlgNotAllowed, JWKSNoMatchingKey, JOSENotSupported, and the
      // TypeError of Node's crypto for an HMAC algorithm against a public key).
      refusals.debug(`Refused a JWT: ${logText(messageOf(error))}`);
      return INVALID;
    }
    const id = payload[principalClaim];
    if (typeof id !== 'string' || id.length === 0) {
      logger.debug(`Refused a JWT without a "${principalClaim}" claim`);
      return INVALID;
    }
    return { ok: true, principal: toPrincipal({ id, scopes: scopesOf(payload), claims: payload }) };
  };
}
