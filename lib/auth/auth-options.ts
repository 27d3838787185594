/**
 * Validates `auth` at startup: a bad provider configuration stops the application with a message
 * that names the option, instead of refusing (or worse, admitting) callers later.
 */
import type { CanActivate, Type } from '@nestjs/common';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { INVALID_OPTION } from '../shared/mcp.messages';
import type {
  McpApiKeyOptions,
  McpAuthOptions,
  McpAuthProvider,
  McpBasicOptions,
  McpBearerOptions,
  McpGuardAuthOptions,
  McpJwtOptions,
  McpPrincipalInit,
  McpProtectedResourceOptions,
  McpTokenVerifier,
} from '../interfaces/mcp-auth-options.interface';
import { CredentialTable } from './credential-table';
import { parsePasswordHash } from './password-hash';
import { integer } from '../shared/option-checks';

/** The provider that guards the MCP endpoints. */
export type AuthKind = 'bearer' | 'apiKey' | 'basic' | 'custom' | 'guard' | 'none';

/** The published protected-resource metadata, ready to serve. */
export interface ResolvedProtectedResource {
  /** The RFC 9728 document. */
  readonly document: Readonly<Record<string, unknown>>;
  /** Its URL, named in `resource_metadata` of every bearer challenge. */
  readonly metadataUrl: string;
  /** The paths it is served at. */
  readonly paths: readonly string[];
}

/** `auth.basic` with its bounds decided. */
export type ResolvedBasicOptions = McpBasicOptions &
  Required<Pick<McpBasicOptions, 'maxFailuresPerMinute' | 'maxConcurrentHashes' | 'maxQueuedHashes'>>;

/** `auth.guard` in its one shape, with its realm decided. */
export type ResolvedGuardOptions = McpGuardAuthOptions & { realm: string };

export interface ResolvedAuthOptions {
  readonly kind: AuthKind;
  readonly bearer?: McpBearerOptions & { realm: string };
  /** `bearer.jwt` with its audience decided. */
  readonly jwt?: McpJwtOptions & { audience: string | string[] };
  readonly apiKey?: McpApiKeyOptions;
  readonly basic?: ResolvedBasicOptions;
  readonly custom?: Type<McpAuthProvider> | McpAuthProvider;
  readonly guard?: ResolvedGuardOptions;
  readonly protectedResource?: ResolvedProtectedResource;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function fail(option: string, reason: string): never {
  throw new McpConfigurationError(INVALID_OPTION(option, reason));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `isRecord` for typed options, which it must not narrow to a record. */
function isObject(value: unknown): boolean {
  return isRecord(value);
}

function absoluteUrl(value: unknown, option: string): URL {
  if (typeof value === 'string') {
    try {
      const url = new URL(value);
      if (url.protocol === 'https:' || url.protocol === 'http:') {
        return url;
      }
    } catch {
      // Reported below.
    }
  }
  fail(option, `must be an absolute http(s) URL (got ${JSON.stringify(value)})`);
}

function strings(value: unknown, option: string, allowEmpty = false): string[] {
  if (!Array.isArray(value) || (!allowEmpty && value.length === 0)) {
    fail(option, `must be a${allowEmpty ? 'n' : ' non-empty'} array of strings`);
  }
  if (value.some((item) => typeof item !== 'string' || item.length === 0)) {
    fail(option, 'must hold non-empty strings only');
  }
  return value as string[];
}

function checkPrincipal(value: unknown, option: string, needsId = true): void {
  if (!isRecord(value)) {
    fail(option, 'must be an object { id, scopes?, claims? }');
  }
  if (needsId && (typeof value.id !== 'string' || value.id.length === 0)) {
    fail(`${option}.id`, 'is required and must be a non-empty string');
  }
  if (value.scopes !== undefined) {
    strings(value.scopes, `${option}.scopes`, true);
  }
  if (value.claims !== undefined && !isRecord(value.claims)) {
    fail(`${option}.claims`, 'must be an object');
  }
}

function checkPrincipalTable(value: unknown, option: string, digests: boolean): Record<string, McpPrincipalInit> {
  if (!isRecord(value) || Object.keys(value).length === 0) {
    fail(option, 'must be an object with at least one entry');
  }
  for (const [secret, principal] of Object.entries(value)) {
    if (digests && CredentialTable.isDigest(secret) && !CredentialTable.isValidDigest(secret)) {
      fail(option, 'an entry written "sha256:..." must be followed by the 64 hex digits of a SHA-256 digest');
    }
    checkPrincipal(principal, `${option}[...]`);
  }
  return value as Record<string, McpPrincipalInit>;
}

function resolveProtectedResource(value: McpProtectedResourceOptions): ResolvedProtectedResource {
  const option = 'auth.protectedResource';
  if (!isObject(value)) {
    fail(option, 'must be an object');
  }
  const resource = absoluteUrl(value.resource, `${option}.resource`);
  if (resource.hash !== '') {
    fail(`${option}.resource`, 'must not have a fragment (RFC 8707)');
  }
  const servers = strings(value.authorizationServers, `${option}.authorizationServers`);
  servers.forEach((server, index) => absoluteUrl(server, `${option}.authorizationServers[${index}]`));
  const resourcePath = resource.pathname.replace(/\/+$/, '');
  const metadataUrl =
    value.metadataUrl === undefined
      ? `${resource.origin}${WELL_KNOWN}${resourcePath}${resource.search}`
      : absoluteUrl(value.metadataUrl, `${option}.metadataUrl`).href;
  const document: Record<string, unknown> = {
    resource: value.resource,
    authorization_servers: servers,
    bearer_methods_supported: ['header'],
  };
  if (value.scopesSupported !== undefined) {
    document.scopes_supported = strings(value.scopesSupported, `${option}.scopesSupported`, true);
  }
  if (value.resourceName !== undefined) {
    document.resource_name = value.resourceName;
  }
  if (value.resourceDocumentation !== undefined) {
    document.resource_documentation = absoluteUrl(value.resourceDocumentation, `${option}.resourceDocumentation`).href;
  }
  // The root form and the path-suffixed form of RFC 9728 §3.1, and wherever metadataUrl points.
  const paths = new Set([WELL_KNOWN, `${WELL_KNOWN}${resourcePath}`, new URL(metadataUrl).pathname]);
  return { document: Object.freeze(document), metadataUrl, paths: [...paths] };
}

function resolveJwt(jwt: McpJwtOptions, protectedResource: McpProtectedResourceOptions | undefined) {
  const option = 'auth.bearer.jwt';
  if (!isObject(jwt)) {
    fail(option, 'must be an object');
  }
  if ((jwt.jwksUrl === undefined) === (jwt.key === undefined)) {
    fail(option, 'needs exactly one of jwksUrl and key');
  }
  if (jwt.jwksUrl !== undefined) {
    absoluteUrl(jwt.jwksUrl, `${option}.jwksUrl`);
  }
  if (typeof jwt.key === 'string' && !jwt.key.includes('-----BEGIN') && Buffer.byteLength(jwt.key) < 32) {
    fail(`${option}.key`, 'a shared secret must be at least 32 bytes (or give a PEM public key, a JWK or a KeyObject)');
  }
  const audience = jwt.audience ?? protectedResource?.resource;
  if (audience === undefined || (Array.isArray(audience) && audience.length === 0) || audience === '') {
    fail(
      `${option}.audience`,
      'is required (or set auth.protectedResource.resource): a token must be checked to be meant for this server',
    );
  }
  if (jwt.issuer !== undefined && typeof jwt.issuer !== 'string') {
    strings(jwt.issuer, `${option}.issuer`);
  }
  if (jwt.algorithms !== undefined) {
    strings(jwt.algorithms, `${option}.algorithms`);
    if (jwt.algorithms.some((algorithm) => algorithm.toLowerCase() === 'none')) {
      fail(`${option}.algorithms`, 'must not allow "none"');
    }
  }
  if (
    jwt.clockToleranceSec !== undefined &&
    (typeof jwt.clockToleranceSec !== 'number' || !(jwt.clockToleranceSec >= 0) || jwt.clockToleranceSec > 3600)
  ) {
    fail(`${option}.clockToleranceSec`, 'must be a number of seconds from 0 to 3600');
  }
  return { ...jwt, audience };
}

/** A guard class, or an object with `canActivate`. */
function isGuard(value: unknown): value is Type<CanActivate> | CanActivate {
  return typeof value === 'function' || (isRecord(value) && typeof value.canActivate === 'function');
}

/** `auth.guard` as a class, an instance or `{ use, principal?, realm? }`, in the last shape. */
function resolveGuard(guard: McpAuthOptions['guard']): ResolvedGuardOptions {
  const option = 'auth.guard';
  if (isGuard(guard)) {
    return { use: guard, realm: 'mcp' };
  }
  if (!isRecord(guard) || guard.use === undefined) {
    fail(option, "must be a guard class (AuthGuard('jwt')), a guard instance, or { use, principal?, realm? }");
  }
  if (!isGuard(guard.use)) {
    fail(`${option}.use`, 'must be a guard class or an object with canActivate(context)');
  }
  if (guard.principal !== undefined && typeof guard.principal !== 'function') {
    fail(`${option}.principal`, 'must be a function (user, request) returning { id, scopes?, claims? } or null');
  }
  if (guard.realm !== undefined && (typeof guard.realm !== 'string' || guard.realm.length === 0)) {
    fail(`${option}.realm`, 'must be a non-empty string');
  }
  const options = guard as McpGuardAuthOptions;
  return { ...options, realm: options.realm ?? 'mcp' };
}

function isVerifier(value: unknown): value is McpTokenVerifier | Type<McpTokenVerifier> | McpTokenVerifier['verify'] {
  return typeof value === 'function' || (isRecord(value) && typeof value.verify === 'function');
}

/** Validates `auth` and decides which provider guards the endpoints. */
export function resolveAuthOptions(auth: McpAuthOptions | undefined): ResolvedAuthOptions {
  if (auth === undefined) {
    return { kind: 'none' };
  }
  if (!isObject(auth)) {
    fail('auth', 'must be an object');
  }
  const kinds = (['bearer', 'apiKey', 'basic', 'custom', 'guard'] as const).filter((kind) => auth[kind] !== undefined);
  if (kinds.length > 1) {
    fail('auth', `configures ${kinds.join(' and ')}: choose one provider for the MCP endpoints`);
  }
  const protectedResource =
    auth.protectedResource === undefined ? undefined : resolveProtectedResource(auth.protectedResource);
  const kind: AuthKind = kinds[0] ?? 'none';
  switch (kind) {
    case 'bearer': {
      const bearer = auth.bearer!;
      if (!isObject(bearer)) {
        fail('auth.bearer', 'must be an object');
      }
      const modes = (['tokens', 'verifier', 'jwt'] as const).filter((mode) => bearer[mode] !== undefined);
      if (modes.length !== 1) {
        fail('auth.bearer', 'needs exactly one of tokens, verifier and jwt');
      }
      if (bearer.tokens !== undefined) {
        checkPrincipalTable(bearer.tokens, 'auth.bearer.tokens', true);
      }
      if (bearer.verifier !== undefined && !isVerifier(bearer.verifier)) {
        fail('auth.bearer.verifier', 'must be a class, an object with verify(token), or a function');
      }
      const jwt = bearer.jwt === undefined ? undefined : resolveJwt(bearer.jwt, auth.protectedResource);
      return { kind, bearer: { ...bearer, realm: bearer.realm ?? 'mcp' }, jwt, protectedResource };
    }
    case 'apiKey': {
      const apiKey = auth.apiKey!;
      if (!isObject(apiKey)) {
        fail('auth.apiKey', 'must be an object');
      }
      checkPrincipalTable(apiKey.keys, 'auth.apiKey.keys', true);
      if (apiKey.header !== undefined && (typeof apiKey.header !== 'string' || !HEADER_NAME.test(apiKey.header))) {
        fail('auth.apiKey.header', 'must be a header name');
      }
      return { kind, apiKey, protectedResource };
    }
    case 'basic': {
      const basic = auth.basic!;
      if (!isObject(basic) || !isRecord(basic.users) || Object.keys(basic.users).length === 0) {
        fail('auth.basic.users', 'must be an object with at least one user');
      }
      if (basic.verify !== undefined && typeof basic.verify !== 'function') {
        fail('auth.basic.verify', 'must be a function (password, passwordHash)');
      }
      if (basic.verify !== undefined && typeof basic.dummyHash !== 'string') {
        fail('auth.basic.dummyHash', 'is required with verify: a hash it accepts, checked for unknown users');
      }
      for (const [name, user] of Object.entries(basic.users)) {
        const option = `auth.basic.users.${name}`;
        if (name.includes(':') || name.length === 0) {
          fail(option, 'a user name must be non-empty and must not contain ":"');
        }
        checkPrincipal(user, option, false);
        if (typeof user.passwordHash !== 'string') {
          fail(`${option}.passwordHash`, 'is required');
        }
        if (basic.verify === undefined && parsePasswordHash(user.passwordHash) === undefined) {
          fail(`${option}.passwordHash`, 'is not a hash made by hashMcpPassword() (or pass your own verify function)');
        }
      }
      const bounds = {
        maxFailuresPerMinute: integer(basic.maxFailuresPerMinute, 'auth.basic.maxFailuresPerMinute', 10, 1, 100_000),
        maxConcurrentHashes: integer(basic.maxConcurrentHashes, 'auth.basic.maxConcurrentHashes', 2, 1, 1024),
        maxQueuedHashes: integer(basic.maxQueuedHashes, 'auth.basic.maxQueuedHashes', 256, 0, 1_000_000),
      };
      return { kind, basic: { ...basic, ...bounds }, protectedResource };
    }
    case 'custom': {
      const custom = auth.custom!;
      if (typeof custom !== 'function' && !(isRecord(custom) && typeof custom.authenticate === 'function')) {
        fail('auth.custom', 'must be a class implementing McpAuthProvider, or an instance of one');
      }
      return { kind, custom, protectedResource };
    }
    case 'guard':
      return { kind, guard: resolveGuard(auth.guard), protectedResource };
    default:
      return { kind, protectedResource };
  }
}
