import type { CanActivate, Type } from '@nestjs/common';
import type { KeyObject } from 'node:crypto';

/**
 * Who a credential stands for, as configured: the principal's id, its scopes and any claims.
 *
 * @publicApi
 */
export interface McpPrincipalInit {
  /** A stable identifier of the caller; it owns the caller's sessions and request state. */
  id: string;
  /** The scopes granted to the caller (see `@McpScopes`). @default [] */
  scopes?: string[];
  /** Anything else handlers may want to know about the caller. */
  claims?: Record<string, unknown>;
}

/**
 * Decides who a request comes from: an injectable class given as `auth.custom`, or registered
 * by the application and named there.
 *
 * @example
 * ```ts
 * @Injectable()
 * export class SessionCookieAuth implements McpAuthProvider {
 *   constructor(private readonly users: UsersService) {}
 *   async authenticate(request: McpAuthRequest) {
 *     const user = await this.users.fromCookie(request.headers.cookie);
 *     return user ? { id: user.id, scopes: user.scopes } : null;
 *   }
 * }
 * ```
 * @publicApi
 */
export interface McpAuthProvider {
  /**
   * The caller of `request`, or `null` to refuse it (HTTP 401). A thrown error is logged and
   * refused the same way: its message never reaches the client.
   */
  authenticate(request: McpAuthRequest): McpPrincipalInit | null | Promise<McpPrincipalInit | null>;
  /**
   * The `WWW-Authenticate` value of the 401 answer.
   * @default 'Bearer realm="mcp"'
   */
  readonly challenge?: string;
}

/**
 * What an `McpAuthProvider` sees of a request.
 *
 * @publicApi
 */
export interface McpAuthRequest {
  /** The request headers, with lower-cased names. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The HTTP method. */
  readonly method: string;
  /** The request path and query. */
  readonly url: string;
  /** The platform's request object (Express or Fastify). */
  readonly raw: unknown;
}

/**
 * Checks a bearer token some other way (opaque tokens, token introspection...): an injectable
 * class, or an object or function of your own.
 *
 * @publicApi
 */
export interface McpTokenVerifier {
  /** The caller the token stands for, or `null` when it is not valid (HTTP 401 `invalid_token`). */
  verify(token: string): McpPrincipalInit | null | Promise<McpPrincipalInit | null>;
}

/**
 * A JSON Web Key (RFC 7517), such as `keyObject.export({ format: 'jwk' })` or jose's `exportJWK`
 * gives. Typed here rather than as `node:crypto`'s `JsonWebKey`, which newer `@types/node` no
 * longer exports, so that the declarations compile with every `@types/node` the module supports.
 *
 * @publicApi
 */
export interface McpJsonWebKey {
  /** The key type: `RSA`, `EC`, `OKP`, or `oct` for a shared secret. */
  kty?: string;
  /** The curve of an `EC` or `OKP` key. */
  crv?: string;
  /** The x coordinate (`EC`, `OKP`). */
  x?: string;
  /** The y coordinate (`EC`). */
  y?: string;
  /** The modulus (`RSA`). */
  n?: string;
  /** The exponent (`RSA`). */
  e?: string;
  /** The secret, base64url (`oct`). */
  k?: string;
  /** Other members of the JWK, passed through as they came. */
  [member: string]: unknown;
}

/**
 * Bearer tokens verified as JWTs (RFC 9068 access tokens, OpenID Connect...) with jose.
 *
 * @publicApi
 */
export interface McpJwtOptions {
  /** The URL of the authorization server's JWKS; keys are fetched on demand and cached. */
  jwksUrl?: string;
  /**
   * A verification key instead of a JWKS: a PEM public key, a public JWK, a `KeyObject`, or a
   * shared secret (at least 32 bytes) for HMAC algorithms.
   */
  key?: string | KeyObject | Uint8Array | McpJsonWebKey;
  /** The expected `iss`; tokens of any other issuer are refused. */
  issuer?: string | string[];
  /**
   * The expected `aud`: this server's resource indicator (RFC 8707), so that tokens minted for
   * another resource are refused.
   * @default `auth.protectedResource.resource`
   */
  audience?: string | string[];
  /** The algorithms accepted. @default every algorithm that fits the key */
  algorithms?: string[];
  /** The clock skew allowed on `exp` and `nbf`, in seconds. @default 60 */
  clockToleranceSec?: number;
  /** The claim that holds the principal's id. @default 'sub' */
  principalClaim?: string;
}

/**
 * `Authorization: Bearer <token>`: exactly one of `tokens`, `verifier` or `jwt`.
 *
 * @publicApi
 */
export interface McpBearerOptions {
  /** A fixed table of tokens and the callers they stand for. */
  tokens?: Record<string, McpPrincipalInit>;
  /** Checks each token: an injectable class (resolved from the application), an object or a function. */
  verifier?: Type<McpTokenVerifier> | McpTokenVerifier | McpTokenVerifier['verify'];
  /** Verifies tokens as JWTs. */
  jwt?: McpJwtOptions;
  /** The realm of the challenge. @default 'mcp' */
  realm?: string;
}

/**
 * API keys in a header.
 *
 * @publicApi
 */
export interface McpApiKeyOptions {
  /**
   * The keys and who each stands for. A key is given as is, or as the hex SHA-256 digest of the
   * key, prefixed with `sha256:`, so that the configuration holds no usable secret.
   * @example { 'sha256:9f86d0...': { id: 'ci', scopes: ['notes:read'] } }
   */
  keys: Record<string, McpPrincipalInit>;
  /** The header that carries the key. @default 'x-api-key' */
  header?: string;
}

/**
 * One user of basic authentication.
 *
 * @publicApi
 */
export interface McpBasicUser extends Omit<McpPrincipalInit, 'id'> {
  /** The password hash, as made by `hashMcpPassword()` (or as your `verify` function reads it). */
  passwordHash: string;
  /** The principal's id. @default the user name */
  id?: string;
}

/**
 * `Authorization: Basic`, with hashed passwords.
 *
 * @publicApi
 */
export interface McpBasicOptions {
  /** The users, by user name. */
  users: Record<string, McpBasicUser>;
  /** The realm of the challenge. @default 'mcp' */
  realm?: string;
  /**
   * Checks a password against a stored hash, for hashes of your own (bcrypt, argon2...).
   * @default scrypt hashes made by `hashMcpPassword()`
   */
  verify?: (password: string, passwordHash: string) => boolean | Promise<boolean>;
  /**
   * A hash `verify` accepts, checked for unknown users so that the time of an answer does not
   * tell which users exist. Required with `verify`.
   */
  dummyHash?: string;
  /**
   * Failed sign-ins a client address may make per minute (as many at once, then one every
   * 60 / n seconds), so that a flood of guesses cannot keep the password hash busy: past it the
   * address gets 429 with `Retry-After` and a JSON-RPC error naming this option, and no hash runs.
   * The address is the platform's (`req.ip`, after the application's trust-proxy setting).
   * Credentials verified in the last 5 minutes are remembered (by a keyed digest, in memory)
   * and admitted without a hash, so that a caller already signed in is served whatever its
   * address does.
   * @default 10
   */
  maxFailuresPerMinute?: number;
  /**
   * Password checks (`verify`, scrypt by default) running at once, for the whole server: more
   * wait, so that a flood cannot take every thread of the pool the hash runs on.
   * @default 2
   */
  maxConcurrentHashes?: number;
  /**
   * Password checks waiting for one of `maxConcurrentHashes`: past it a request gets 503 with
   * `Retry-After` and a JSON-RPC error naming this option, without a hash.
   * @default 256
   */
  maxQueuedHashes?: number;
}

/**
 * The OAuth 2.0 Protected Resource Metadata (RFC 9728) this server publishes.
 *
 * @publicApi
 */
export interface McpProtectedResourceOptions {
  /** This server's resource identifier, the URL clients use: `https://api.example.com/mcp`. */
  resource: string;
  /** The authorization servers that issue tokens for it. */
  authorizationServers: string[];
  /** The scopes clients may ask for. */
  scopesSupported?: string[];
  /** A name for people. */
  resourceName?: string;
  /** A page documenting the server. */
  resourceDocumentation?: string;
  /**
   * Where the metadata is published (and named in `resource_metadata` of every challenge).
   * @default the well-known URL of `resource`: `https://api.example.com/.well-known/oauth-protected-resource/mcp`
   */
  metadataUrl?: string;
}

/**
 * The application's own Nest guard as the authenticator of the MCP endpoints (`auth.guard`), with
 * how its user becomes the caller's principal.
 *
 * @example
 * ```ts
 * auth: {
 *   guard: {
 *     use: AuthGuard('jwt'),
 *     principal: (user: JwtUser) => ({ id: user.userId, scopes: user.roles }),
 *   },
 * }
 * ```
 * @publicApi
 */
export interface McpGuardAuthOptions {
  /**
   * The guard: a class (taken from the application when it provides it, else created with the
   * module's injector, once at startup) or an instance. It runs once per HTTP request to an MCP
   * endpoint (never for a CORS preflight), with an `ExecutionContext` of type `'http'` whose
   * request and response are the platform's and whose class and handler are the endpoint's.
   */
  use: Type<CanActivate> | CanActivate;
  /**
   * The principal of the user the guard left on the request (`request.user`), or `null` to
   * refuse it (401). Not called when the guard passes without a user: the caller is then
   * anonymous.
   * @default `id` from `sub`, `id`, `userId` or `username`; `scopes` from `scopes` (a list) or
   * `scope` (space-separated); `claims` the user object
   */
  principal?: (user: unknown, request: unknown) => McpPrincipalInit | null;
  /** The realm of the 401 challenge (`WWW-Authenticate: Bearer realm="..."`). @default 'mcp' */
  realm?: string;
}

/**
 * How MCP requests are authenticated: at most one of `bearer`, `apiKey`, `basic`, `custom` and
 * `guard`; none of them serves every caller as the anonymous principal.
 *
 * @publicApi
 */
export interface McpAuthOptions {
  /** Bearer tokens (`Authorization: Bearer`): static tokens, a verifier, or JWTs. */
  bearer?: McpBearerOptions;
  /** API keys in a header. */
  apiKey?: McpApiKeyOptions;
  /** `Authorization: Basic` user names and hashed passwords. */
  basic?: McpBasicOptions;
  /** An injectable class (resolved from the application), or an instance. */
  custom?: Type<McpAuthProvider> | McpAuthProvider;
  /**
   * The application's own guard (a Passport `AuthGuard('jwt')`, say), run once per HTTP request
   * to an MCP endpoint: a class, an instance, or {@link McpGuardAuthOptions}. `true` admits the
   * request as the principal of `request.user` (anonymous without one); `false` or a 401
   * `HttpException` answers 401 with a JSON-RPC error (-32004) and
   * `WWW-Authenticate: Bearer realm="mcp"` (with `resource_metadata` when `protectedResource`
   * is set); another `HttpException` answers its status with a JSON-RPC error; any other error
   * is logged and answers 500.
   * @example auth: { guard: AuthGuard('jwt') }
   */
  guard?: Type<CanActivate> | CanActivate | McpGuardAuthOptions;
  /** Publishes `/.well-known/oauth-protected-resource` (and its path-suffixed form). */
  protectedResource?: McpProtectedResourceOptions;
}
