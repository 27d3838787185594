/**
 * Authentication per provider, over real sockets on Express and Fastify: bearer tokens (a static
 * table, a verifier, JWTs checked against a loopback JWKS server or a shared secret), API keys,
 * basic credentials, a custom provider, and none. Every refusal is checked to the byte (status,
 * `WWW-Authenticate`, JSON body); every admission by the principal the `whoami` tool saw. Then
 * every HTTP transport is shown to authenticate each request (not only the handshake), and the
 * official clients (SDK v1 Streamable HTTP and SSE, v2 Streamable HTTP) are shown to connect
 * with credentials and to fail without.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from './support/ports';
import { Injectable } from '@nestjs/common';
import {
  Client as ClientV2,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport as TransportV2,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exportJWK, exportSPKI, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import {
  hashMcpPassword,
  type McpAuthProvider,
  type McpAuthRequest,
  mcpSecretDigest,
  type McpPrincipalInit,
  type McpTokenVerifier,
  verifyMcpPassword,
} from 'nest-mcp';
import { callWhoami, legacyWhoami, startAuthApp, type Whoami, whoamiOf } from './fixtures/auth-fixture';
import type { HttpApp } from './fixtures/http-app';
import {
  exchange,
  legacyRequest,
  MODERN_REVISION,
  openLegacySession,
  post,
  type RawResponse,
  SseEventReader,
} from './fixtures/raw-rpc';

const PLATFORMS = ['express', 'fastify'] as const;

/** How the v2 client negotiates: both end in the modern era against this server. */
const V2_MODES: Array<[string, VersionNegotiationMode]> = [
  ["'auto' version negotiation", 'auto'],
  ['pinned to 2026-07-28', { pin: MODERN_REVISION }],
];

const RESOURCE = 'https://mcp.example.com/mcp';
const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const ISSUER = 'https://auth.example.com';
const PROTECTED_RESOURCE = { resource: RESOURCE, authorizationServers: [ISSUER] };
/** An origin the server admits by default (it listens on loopback). */
const ORIGIN = 'http://localhost:3000';

const NOT_VALID = { error: 'invalid_token', error_description: 'The token is not valid' };
const REQUIRED = { error: 'invalid_request', error_description: 'Authentication required' };
const BEARER_MISSING = 'Bearer realm="mcp"';
const BEARER_INVALID = 'Bearer realm="mcp", error="invalid_token", error_description="The token is not valid"';

/** Asserts a refusal to the byte: status, `WWW-Authenticate` (null: none), JSON content type and body. */
function expectRefusal(
  response: RawResponse,
  status: number,
  challenge: string | null,
  body: Record<string, string>,
): void {
  expect({
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    type: response.headers.get('content-type'),
    body: JSON.parse(response.text),
  }).toEqual({ status, challenge, type: expect.stringContaining('application/json'), body });
}

/** The `Authorization` header of bearer `token`. */
function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The `Authorization` header of basic credentials, UTF-8 encoded. */
function basic(user: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}` };
}

/** A CORS preflight for a POST with credentials. */
function preflight(url: URL | string, requestHeaders: string): Promise<RawResponse> {
  return exchange(url, {
    method: 'OPTIONS',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': requestHeaders,
    },
  });
}

function list(value: string | null): string[] {
  return (value ?? '').split(',').map((item) => item.trim().toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// The JWKS of a stand-in authorization server, shared by both platforms.

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

const KID = 'key-1';
const HS_SECRET = 'a-shared-secret-of-at-least-32-bytes!';
const HS_AUDIENCE = 'urn:mcp:hs-test';

let jwksServer: Server;
let jwksUrl: string;
let brokenJwksUrl: string;
let jwksFetches = 0;
let signingKey: SigningKey;
let strangerKey: SigningKey;
/** The PEM of the JWKS public key. */
let publicPem: string;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  signingKey = pair.privateKey;
  strangerKey = (await generateKeyPair('RS256')).privateKey;
  publicPem = await exportSPKI(pair.publicKey);
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const body = JSON.stringify({ keys: [publicJwk] });
  jwksServer = createServer((request, response) => {
    if (request.url === '/jwks.json') {
      jwksFetches += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } else {
      response.writeHead(500, { 'content-type': 'text/plain' }).end('down for maintenance');
    }
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const { port } = jwksServer.address() as AddressInfo;
  jwksUrl = `http://127.0.0.1:${port}/jwks.json`;
  brokenJwksUrl = `http://127.0.0.1:${port}/broken.json`;
});

afterAll(async () => {
  jwksServer?.closeAllConnections();
  await new Promise<void>((resolve) => (jwksServer ? jwksServer.close(() => resolve()) : resolve()));
});

interface TokenOptions {
  key?: SigningKey | Uint8Array;
  alg?: string;
  kid?: string | null;
  issuer?: string | null;
  audience?: string | null;
  subject?: string | null;
  /** Seconds since the epoch. @default five minutes from now */
  exp?: number;
}

/** Signs a JWT; each claim can be replaced or (null) left out. */
function signToken(claims: JWTPayload, options: TokenOptions = {}): Promise<string> {
  const header: { alg: string; kid?: string } = { alg: options.alg ?? 'RS256' };
  if (options.kid !== null) {
    header.kid = options.kid ?? KID;
  }
  let jwt = new SignJWT(claims).setProtectedHeader(header).setIssuedAt();
  const now = Math.floor(Date.now() / 1000);
  jwt = jwt.setExpirationTime(options.exp ?? now + 300);
  if (options.issuer !== null) jwt = jwt.setIssuer(options.issuer ?? ISSUER);
  if (options.audience !== null) jwt = jwt.setAudience(options.audience ?? RESOURCE);
  if (options.subject !== null) jwt = jwt.setSubject(options.subject ?? 'user-1');
  return jwt.sign(options.key ?? signingKey);
}

/** An unsigned token (`alg: none`), which no configuration may accept. */
function unsignedToken(payload: JWTPayload): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.`;
}

// ---------------------------------------------------------------------------------------------
// The application's own providers.

/** A service a verifier depends on (it counts lookups, so the test sees the app's instance was used). */
@Injectable()
class TokenDirectory {
  lookups = 0;
  private readonly entries = new Map<string, McpPrincipalInit>([
    ['directory-token', { id: 'carol', scopes: ['directory:read'] }],
  ]);

  async find(token: string): Promise<McpPrincipalInit | null> {
    this.lookups += 1;
    await Promise.resolve();
    return this.entries.get(token) ?? null;
  }
}

@Injectable()
class DirectoryVerifier implements McpTokenVerifier {
  constructor(private readonly directory: TokenDirectory) {}

  verify(token: string): Promise<McpPrincipalInit | null> {
    return this.directory.find(token);
  }
}

/** A secret that must never reach a client. */
const INTERNAL_SECRET = 'db-password-hunter2';

/** A plain function verifier: one good token, one that makes it throw, one that answers garbage. */
function functionVerifier(token: string): McpPrincipalInit | null {
  if (token === 'function-token') {
    return { id: 'dave', scopes: ['fn'] };
  }
  if (token === 'explode') {
    throw new Error(`cannot reach the token database with ${INTERNAL_SECRET}`);
  }
  if (token === 'garbage') {
    return { id: 42 } as unknown as McpPrincipalInit;
  }
  return null;
}

/** Where the custom provider finds logged-in users. */
@Injectable()
class CookieSessions {
  readonly users = new Map<string, McpPrincipalInit>([['s-123', { id: 'frank', scopes: ['cookie:user'] }]]);
}

/** A custom provider: a session cookie (`sid=`), a header that makes it throw, and what it saw. */
@Injectable()
class CookieAuth implements McpAuthProvider {
  readonly challenge = 'Session realm="notes"';
  readonly seen: Array<{ method: string; url: string }> = [];

  constructor(private readonly sessions: CookieSessions) {}

  authenticate(request: McpAuthRequest): McpPrincipalInit | null {
    this.seen.push({ method: request.method, url: request.url });
    if (request.headers['x-explode'] !== undefined) {
      throw new Error(`session store unreachable: ${INTERNAL_SECRET}`);
    }
    const cookie = request.headers.cookie;
    const sid = (Array.isArray(cookie) ? cookie.join('; ') : (cookie ?? ''))
      .split(';')
      .map((part) => part.trim())
      .find((part) => part.startsWith('sid='))
      ?.slice('sid='.length);
    return sid === undefined ? null : (this.sessions.users.get(sid) ?? null);
  }
}

describe.each(PLATFORMS)('authentication providers on %s', (platform) => {
  // -------------------------------------------------------------------------------------------
  describe('bearer: static tokens', () => {
    let plain: HttpApp;
    let published: HttpApp;
    const tokens = {
      'token-alice': { id: 'alice', scopes: ['notes:read', 'notes:write'] },
      [mcpSecretDigest('token-bob')]: { id: 'bob', scopes: ['notes:read'] },
    };

    beforeAll(async () => {
      plain = await startAuthApp(platform, { bearer: { tokens } });
      published = await startAuthApp(platform, {
        bearer: { tokens },
        protectedResource: { ...PROTECTED_RESOURCE, scopesSupported: ['notes:read', 'notes:write'] },
      });
    });

    afterAll(async () => {
      await plain?.close();
      await published?.close();
    });

    it('admits a configured token as its principal', async () => {
      expect(whoamiOf(await callWhoami(plain.url, bearer('token-alice')))).toEqual({
        id: 'alice',
        scopes: ['notes:read', 'notes:write'],
      });
    });

    it('reads the scheme case-insensitively', async () => {
      expect(whoamiOf(await callWhoami(plain.url, { authorization: 'bearer token-alice' })).id).toBe('alice');
    });

    it('admits a token configured as its sha256 digest, but not the digest itself', async () => {
      expect(whoamiOf(await callWhoami(plain.url, bearer('token-bob')))).toEqual({ id: 'bob', scopes: ['notes:read'] });
      expectRefusal(await callWhoami(plain.url, bearer(mcpSecretDigest('token-bob'))), 401, BEARER_INVALID, NOT_VALID);
    });

    it('refuses a wrong token: 401 invalid_token', async () => {
      expectRefusal(await callWhoami(plain.url, bearer('token-mallory')), 401, BEARER_INVALID, NOT_VALID);
    });

    it('refuses a request without Authorization: 401 with a challenge naming no error', async () => {
      expectRefusal(await callWhoami(plain.url), 401, BEARER_MISSING, REQUIRED);
    });

    it('treats another scheme (Basic) as no credentials', async () => {
      expectRefusal(await callWhoami(plain.url, basic('alice', 'token-alice')), 401, BEARER_MISSING, REQUIRED);
    });

    it('with protectedResource + scopesSupported, challenges carry scope and resource_metadata', async () => {
      expectRefusal(
        await callWhoami(published.url),
        401,
        `Bearer realm="mcp", scope="notes:read notes:write", resource_metadata="${METADATA_URL}"`,
        REQUIRED,
      );
      expectRefusal(
        await callWhoami(published.url, bearer('token-mallory')),
        401,
        'Bearer realm="mcp", error="invalid_token", error_description="The token is not valid", ' +
          `scope="notes:read notes:write", resource_metadata="${METADATA_URL}"`,
        NOT_VALID,
      );
      expect(whoamiOf(await callWhoami(published.url, bearer('token-alice'))).id).toBe('alice');
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('bearer: verifiers', () => {
    let injectable: HttpApp;
    let fn: HttpApp;

    beforeAll(async () => {
      injectable = await startAuthApp(platform, { bearer: { verifier: DirectoryVerifier } }, {}, [
        TokenDirectory,
        DirectoryVerifier,
      ]);
      fn = await startAuthApp(platform, { bearer: { verifier: functionVerifier } });
    });

    afterAll(async () => {
      await injectable?.close();
      await fn?.close();
    });

    it("uses the application's injectable verifier, with its own dependency", async () => {
      const directory = injectable.app.get(TokenDirectory);
      const before = directory.lookups;
      expect(whoamiOf(await callWhoami(injectable.url, bearer('directory-token')))).toEqual({
        id: 'carol',
        scopes: ['directory:read'],
      });
      expectRefusal(await callWhoami(injectable.url, bearer('unknown-token')), 401, BEARER_INVALID, NOT_VALID);
      expect(directory.lookups - before).toBe(2);
    });

    it('does not call the verifier without a token', async () => {
      const directory = injectable.app.get(TokenDirectory);
      const before = directory.lookups;
      expectRefusal(await callWhoami(injectable.url), 401, BEARER_MISSING, REQUIRED);
      expect(directory.lookups).toBe(before);
    });

    it('uses a plain function verifier', async () => {
      expect(whoamiOf(await callWhoami(fn.url, bearer('function-token')))).toEqual({ id: 'dave', scopes: ['fn'] });
      expectRefusal(await callWhoami(fn.url, bearer('other-token')), 401, BEARER_INVALID, NOT_VALID);
    });

    it('refuses the token of a verifier that throws, with nothing of the error in the answer', async () => {
      const response = await callWhoami(fn.url, bearer('explode'));
      expectRefusal(response, 401, BEARER_INVALID, NOT_VALID);
      expect(response.text).not.toContain(INTERNAL_SECRET);
      expect(response.text).not.toContain('database');
    });

    it('refuses the token when the verifier answers something that is not a principal', async () => {
      expectRefusal(await callWhoami(fn.url, bearer('garbage')), 401, BEARER_INVALID, NOT_VALID);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('bearer: JWT', () => {
    let jwt: HttpApp;
    let unreachable: HttpApp;
    let broken: HttpApp;
    let hs: HttpApp;
    let pem: HttpApp;
    const invalid = `${BEARER_INVALID}, resource_metadata="${METADATA_URL}"`;
    const unavailable = {
      error: 'temporarily_unavailable',
      error_description: 'The token cannot be verified right now',
    };

    beforeAll(async () => {
      jwt = await startAuthApp(platform, {
        bearer: { jwt: { jwksUrl, issuer: ISSUER } },
        protectedResource: PROTECTED_RESOURCE,
      });
      unreachable = await startAuthApp(platform, {
        bearer: { jwt: { jwksUrl: `http://127.0.0.1:${await freePort()}/jwks.json`, issuer: ISSUER } },
        protectedResource: PROTECTED_RESOURCE,
      });
      broken = await startAuthApp(platform, {
        bearer: { jwt: { jwksUrl: brokenJwksUrl, audience: RESOURCE } },
      });
      hs = await startAuthApp(platform, { bearer: { jwt: { key: HS_SECRET, audience: HS_AUDIENCE } } });
      pem = await startAuthApp(platform, {
        bearer: { jwt: { key: publicPem, issuer: ISSUER } },
        protectedResource: PROTECTED_RESOURCE,
      });
    });

    afterAll(async () => {
      await jwt?.close();
      await unreachable?.close();
      await broken?.close();
      await hs?.close();
      await pem?.close();
    });

    it('admits a token signed by a JWKS key: the principal is sub, the scopes from the scope string', async () => {
      const token = await signToken({ scope: 'notes:read notes:write' }, { subject: 'user-1' });
      expect(whoamiOf(await callWhoami(jwt.url, bearer(token)))).toEqual({
        id: 'user-1',
        scopes: ['notes:read', 'notes:write'],
      });
      expect(jwksFetches).toBeGreaterThan(0);
    });

    it('reads the scopes of an scp array', async () => {
      const token = await signToken({ scp: ['files:read', 'files:write'] }, { subject: 'user-2' });
      expect(whoamiOf(await callWhoami(jwt.url, bearer(token)))).toEqual({
        id: 'user-2',
        scopes: ['files:read', 'files:write'],
      });
    });

    it('refuses an expired token (exp five minutes ago): "The token has expired"', async () => {
      const token = await signToken({}, { exp: Math.floor(Date.now() / 1000) - 300 });
      expectRefusal(
        await callWhoami(jwt.url, bearer(token)),
        401,
        `Bearer realm="mcp", error="invalid_token", error_description="The token has expired", resource_metadata="${METADATA_URL}"`,
        { error: 'invalid_token', error_description: 'The token has expired' },
      );
    });

    it('refuses a token for another audience', async () => {
      const token = await signToken({}, { audience: 'https://other.example.com/mcp' });
      expectRefusal(await callWhoami(jwt.url, bearer(token)), 401, invalid, NOT_VALID);
    });

    it('refuses a token without an audience', async () => {
      const token = await signToken({}, { audience: null });
      expectRefusal(await callWhoami(jwt.url, bearer(token)), 401, invalid, NOT_VALID);
    });

    it('refuses a token of another issuer', async () => {
      const token = await signToken({}, { issuer: 'https://evil.example.com' });
      expectRefusal(await callWhoami(jwt.url, bearer(token)), 401, invalid, NOT_VALID);
    });

    it('refuses a token signed by another key (same kid, and an unknown kid)', async () => {
      const sameKid = await signToken({}, { key: strangerKey });
      expectRefusal(await callWhoami(jwt.url, bearer(sameKid)), 401, invalid, NOT_VALID);
      const otherKid = await signToken({}, { key: strangerKey, kid: 'key-2' });
      expectRefusal(await callWhoami(jwt.url, bearer(otherKid)), 401, invalid, NOT_VALID);
    });

    it('refuses unsigned (alg: none) tokens and garbage', async () => {
      const now = Math.floor(Date.now() / 1000);
      const none = unsignedToken({ sub: 'user-1', iss: ISSUER, aud: RESOURCE, exp: now + 300 });
      expectRefusal(await callWhoami(jwt.url, bearer(none)), 401, invalid, NOT_VALID);
      expectRefusal(await callWhoami(jwt.url, bearer('not.a.jwt')), 401, invalid, NOT_VALID);
      expectRefusal(await callWhoami(jwt.url, bearer('eyJhbGciOiJSUzI1NiJ9')), 401, invalid, NOT_VALID);
    });

    it('refuses an HS256 token made with the public key as the secret (algorithm confusion)', async () => {
      const secret = new TextEncoder().encode(publicPem);
      const token = await signToken({}, { key: secret, alg: 'HS256' });
      expectRefusal(await callWhoami(jwt.url, bearer(token)), 401, invalid, NOT_VALID);
    });

    // A token whose algorithm does not fit the RS256 key is the caller's fault, not a key-set outage.
    describe.each([
      ['HS256', () => Promise.resolve(new TextEncoder().encode('another-shared-secret-of-32-bytes-or-more'))],
      ['RS384', async () => (await generateKeyPair('RS384')).privateKey],
      ['ES256', async () => (await generateKeyPair('ES256')).privateKey],
    ] as Array<[string, () => Promise<SigningKey | Uint8Array>]>)('a %s token against the RS256 key', (alg, keyOf) => {
      it('is refused 401 invalid_token by the JWKS (kid of the RS256 key), not 503', async () => {
        const token = await signToken({}, { key: await keyOf(), alg });
        expectRefusal(await callWhoami(jwt.url, bearer(token)), 401, invalid, NOT_VALID);
      });

      it('is refused 401 invalid_token by the PEM key option, not 503', async () => {
        const token = await signToken({}, { key: await keyOf(), alg, kid: null });
        expectRefusal(await callWhoami(pem.url, bearer(token)), 401, invalid, NOT_VALID);
      });
    });

    it('admits an RS256 token through the PEM key option', async () => {
      const token = await signToken({ scope: 'notes:read' }, { kid: null, subject: 'user-pem' });
      expect(whoamiOf(await callWhoami(pem.url, bearer(token)))).toEqual({ id: 'user-pem', scopes: ['notes:read'] });
    });

    it('refuses an HS256 token made with the PEM itself as the secret (algorithm confusion) 401', async () => {
      const token = await signToken({}, { key: new TextEncoder().encode(publicPem), alg: 'HS256', kid: null });
      expectRefusal(await callWhoami(pem.url, bearer(token)), 401, invalid, NOT_VALID);
    });

    it('refuses a token without sub', async () => {
      const token = await signToken({ scope: 'notes:read' }, { subject: null });
      expectRefusal(await callWhoami(jwt.url, bearer(token)), 401, invalid, NOT_VALID);
    });

    it('answers 503 temporarily_unavailable (no challenge) when the JWKS server cannot be reached', async () => {
      const token = await signToken({}, {});
      expectRefusal(await callWhoami(unreachable.url, bearer(token)), 503, null, unavailable);
    });

    it('answers 503 when the JWKS server answers an error', async () => {
      const token = await signToken({}, {});
      expectRefusal(await callWhoami(broken.url, bearer(token)), 503, null, unavailable);
    });

    it('still answers 401 to a request without a token when the JWKS is unreachable', async () => {
      expectRefusal(
        await callWhoami(unreachable.url),
        401,
        `Bearer realm="mcp", resource_metadata="${METADATA_URL}"`,
        REQUIRED,
      );
    });

    it('admits an HS256 token made with the configured shared secret (key option)', async () => {
      const token = await new SignJWT({ scope: 'svc:all' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('service-7')
        .setAudience(HS_AUDIENCE)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(HS_SECRET));
      expect(whoamiOf(await callWhoami(hs.url, bearer(token)))).toEqual({ id: 'service-7', scopes: ['svc:all'] });
    });

    it('refuses an HS256 token made with another secret, or for another audience', async () => {
      const otherSecret = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('service-7')
        .setAudience(HS_AUDIENCE)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode('another-shared-secret-of-32-bytes-or-more'));
      expectRefusal(await callWhoami(hs.url, bearer(otherSecret)), 401, BEARER_INVALID, NOT_VALID);
      const otherAudience = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('service-7')
        .setAudience('urn:mcp:elsewhere')
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(HS_SECRET));
      expectRefusal(await callWhoami(hs.url, bearer(otherAudience)), 401, BEARER_INVALID, NOT_VALID);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('API keys', () => {
    let standard: HttpApp;
    let custom: HttpApp;
    const keys = {
      'key-ci-0123456789': { id: 'ci', scopes: ['deploy'] },
      [mcpSecretDigest('key-ops-abcdef')]: { id: 'ops' },
    };
    const challenge = 'ApiKey header="x-api-key"';
    const wrong = { error: 'invalid_token', error_description: 'The API key is not valid' };

    beforeAll(async () => {
      standard = await startAuthApp(platform, { apiKey: { keys } });
      custom = await startAuthApp(platform, { apiKey: { keys, header: 'x-my-key' } });
    });

    afterAll(async () => {
      await standard?.close();
      await custom?.close();
    });

    it('admits a key in x-api-key', async () => {
      expect(whoamiOf(await callWhoami(standard.url, { 'x-api-key': 'key-ci-0123456789' }))).toEqual({
        id: 'ci',
        scopes: ['deploy'],
      });
    });

    it('admits a key in Authorization: ApiKey', async () => {
      expect(whoamiOf(await callWhoami(standard.url, { authorization: 'ApiKey key-ci-0123456789' })).id).toBe('ci');
    });

    it('admits a key configured as its sha256 digest', async () => {
      expect(whoamiOf(await callWhoami(standard.url, { 'x-api-key': 'key-ops-abcdef' }))).toEqual({
        id: 'ops',
        scopes: [],
      });
    });

    it('refuses a wrong key: 401 invalid_token with the ApiKey challenge', async () => {
      expectRefusal(await callWhoami(standard.url, { 'x-api-key': 'key-ci-0123456780' }), 401, challenge, wrong);
      expectRefusal(await callWhoami(standard.url, { authorization: 'ApiKey nope' }), 401, challenge, wrong);
    });

    it('refuses a request without a key: 401 invalid_request', async () => {
      const missing = { error: 'invalid_request', error_description: 'The x-api-key header is required' };
      expectRefusal(await callWhoami(standard.url), 401, challenge, missing);
      // A key under another scheme is no key.
      expectRefusal(await callWhoami(standard.url, bearer('key-ci-0123456789')), 401, challenge, missing);
    });

    it('reads a custom header (and Authorization: ApiKey) and names it in the challenge', async () => {
      expect(whoamiOf(await callWhoami(custom.url, { 'x-my-key': 'key-ci-0123456789' })).id).toBe('ci');
      expect(whoamiOf(await callWhoami(custom.url, { authorization: 'ApiKey key-ops-abcdef' })).id).toBe('ops');
      expectRefusal(
        await callWhoami(custom.url, { 'x-api-key': 'key-ci-0123456789' }),
        401,
        'ApiKey header="x-my-key"',
        {
          error: 'invalid_request',
          error_description: 'The x-my-key header is required',
        },
      );
      expectRefusal(await callWhoami(custom.url, { 'x-my-key': 'wrong' }), 401, 'ApiKey header="x-my-key"', wrong);
    });

    it('allows the key header in CORS preflights, without credentials', async () => {
      const answer = await preflight(standard.url, 'x-api-key, content-type');
      expect(answer.status).toBe(204);
      expect(list(answer.headers.get('access-control-allow-headers'))).toEqual(
        expect.arrayContaining(['x-api-key', 'authorization', 'content-type']),
      );
      const customAnswer = await preflight(custom.url, 'x-my-key');
      expect(customAnswer.status).toBe(204);
      expect(list(customAnswer.headers.get('access-control-allow-headers'))).toContain('x-my-key');
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('basic', () => {
    let hashed: HttpApp;
    let own: HttpApp;
    const challenge = 'Basic realm="mcp", charset="UTF-8"';
    const bad = { error: 'invalid_token', error_description: 'The user name or password is not valid' };
    const malformed = { error: 'invalid_request', error_description: 'Malformed basic credentials' };
    /** The hashes the custom verify function was asked to check. */
    const verified: string[] = [];
    const DUMMY = 'plain:dummy-secret';

    beforeAll(async () => {
      const cost = { N: 1024 };
      hashed = await startAuthApp(platform, {
        basic: {
          users: {
            alice: { passwordHash: await hashMcpPassword('wonderland', cost), scopes: ['notes:read'] },
            bob: { passwordHash: await hashMcpPassword('pass:with:colons', cost), id: 'user-bob' },
            zoë: { passwordHash: await hashMcpPassword('pässwörd', cost) },
          },
        },
      });
      own = await startAuthApp(platform, {
        basic: {
          users: { erin: { passwordHash: 'plain:open-sesame', scopes: ['own'] } },
          verify: (password, hash) => {
            verified.push(hash);
            return hash === `plain:${password}`;
          },
          dummyHash: DUMMY,
        },
      });
    });

    afterAll(async () => {
      await hashed?.close();
      await own?.close();
    });

    beforeEach(() => {
      verified.length = 0;
    });

    it('admits a user with the right password', async () => {
      expect(whoamiOf(await callWhoami(hashed.url, basic('alice', 'wonderland')))).toEqual({
        id: 'alice',
        scopes: ['notes:read'],
      });
    });

    it("uses the user's configured id, and splits at the first colon only", async () => {
      expect(whoamiOf(await callWhoami(hashed.url, basic('bob', 'pass:with:colons')))).toEqual({
        id: 'user-bob',
        scopes: [],
      });
    });

    it('reads UTF-8 user names and passwords', async () => {
      expect(whoamiOf(await callWhoami(hashed.url, basic('zoë', 'pässwörd'))).id).toBe('zoë');
    });

    it('refuses a wrong password and an unknown user with the same answer', async () => {
      const wrongPassword = await callWhoami(hashed.url, basic('alice', 'looking-glass'));
      const unknownUser = await callWhoami(hashed.url, basic('mallory', 'wonderland'));
      expectRefusal(wrongPassword, 401, challenge, bad);
      expectRefusal(unknownUser, 401, challenge, bad);
      expect(unknownUser.text).toBe(wrongPassword.text);
    });

    it('refuses a request without credentials, or with another scheme', async () => {
      expectRefusal(await callWhoami(hashed.url), 401, challenge, REQUIRED);
      expectRefusal(await callWhoami(hashed.url, bearer('wonderland')), 401, challenge, REQUIRED);
      expectRefusal(await callWhoami(hashed.url, { authorization: 'Basic' }), 401, challenge, REQUIRED);
    });

    it('refuses malformed credentials: no colon, no user name, not base64', async () => {
      const noColon = { authorization: `Basic ${Buffer.from('alice-wonderland').toString('base64')}` };
      expectRefusal(await callWhoami(hashed.url, noColon), 401, challenge, malformed);
      expectRefusal(await callWhoami(hashed.url, basic('', 'wonderland')), 401, challenge, malformed);
      expectRefusal(await callWhoami(hashed.url, { authorization: 'Basic %%%' }), 401, challenge, malformed);
    });

    it('checks passwords with a custom verify function', async () => {
      expect(whoamiOf(await callWhoami(own.url, basic('erin', 'open-sesame')))).toEqual({
        id: 'erin',
        scopes: ['own'],
      });
      expect(verified).toEqual(['plain:open-sesame']);
      verified.length = 0;
      expectRefusal(await callWhoami(own.url, basic('erin', 'wrong')), 401, challenge, bad);
      expect(verified).toEqual(['plain:open-sesame']);
    });

    it('checks an unknown user against the dummy hash: one verify call, the same refusal', async () => {
      expectRefusal(await callWhoami(own.url, basic('mallory', 'open-sesame')), 401, challenge, bad);
      expect(verified).toEqual([DUMMY]);
    });

    it('refuses an unknown user even when the password matches the dummy hash', async () => {
      expectRefusal(await callWhoami(own.url, basic('mallory', 'dummy-secret')), 401, challenge, bad);
      expect(verified).toEqual([DUMMY]);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('basic under a flood of wrong passwords (scrypt at its default cost)', () => {
    let flooded: HttpApp;
    /** How many password hashes ran (the verify seam, around the module's own scrypt check). */
    let hashes = 0;

    beforeAll(async () => {
      flooded = await startAuthApp(platform, {
        basic: {
          users: { alice: { passwordHash: await hashMcpPassword('wonderland'), scopes: ['notes:read'] } },
          verify: (password, hash) => {
            hashes += 1;
            return verifyMcpPassword(password, hash);
          },
          dummyHash: await hashMcpPassword('a dummy password'),
        },
      });
    });

    afterAll(async () => {
      await flooded?.close();
    });

    it('serves a signed-in caller during the flood; past 10 failures the address gets 429 and no hash runs', async () => {
      expect(whoamiOf(await callWhoami(flooded.url, basic('alice', 'wonderland'))).id).toBe('alice');
      hashes = 0;
      const flood = Array.from({ length: 60 }, (_, n) => callWhoami(flooded.url, basic('alice', `guess-${n}`)));
      const during = await callWhoami(flooded.url, basic('alice', 'wonderland'));
      const answers = await Promise.all(flood);
      expect(whoamiOf(during)).toEqual({ id: 'alice', scopes: ['notes:read'] });
      expect(answers.filter((answer) => answer.status === 401)).toHaveLength(10);
      const limited = answers.filter((answer) => answer.status === 429);
      expect(limited).toHaveLength(50);
      for (const answer of limited) {
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(JSON.parse(answer.text)).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32603,
            message:
              'Too many failed sign-ins from this address: at most 10 a minute (McpModule option auth.basic.maxFailuresPerMinute)',
          },
        });
      }
      expect(hashes).toBe(10);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('custom provider', () => {
    let cookie: HttpApp;
    let instance: HttpApp;
    const failed = { error: 'invalid_token', error_description: 'Authentication failed' };

    beforeAll(async () => {
      cookie = await startAuthApp(platform, { custom: CookieAuth }, {}, [CookieSessions, CookieAuth]);
      const provider: McpAuthProvider = {
        authenticate: (request) => {
          const user = request.headers['x-user'];
          return typeof user === 'string' ? { id: user, scopes: ['header'] } : null;
        },
      };
      instance = await startAuthApp(platform, { custom: provider });
    });

    afterAll(async () => {
      await cookie?.close();
      await instance?.close();
    });

    it("admits the principal an injectable provider finds (the application's instance)", async () => {
      const auth = cookie.app.get(CookieAuth);
      auth.seen.length = 0;
      expect(whoamiOf(await callWhoami(cookie.url, { cookie: 'theme=dark; sid=s-123' }))).toEqual({
        id: 'frank',
        scopes: ['cookie:user'],
      });
      expect(auth.seen).toEqual([{ method: 'POST', url: '/mcp' }]);
    });

    it('refuses when the provider answers null: 401 with its challenge', async () => {
      expectRefusal(await callWhoami(cookie.url), 401, 'Session realm="notes"', failed);
      expectRefusal(await callWhoami(cookie.url, { cookie: 'sid=s-999' }), 401, 'Session realm="notes"', failed);
    });

    it('refuses when the provider throws, with nothing of the error in the answer', async () => {
      const response = await callWhoami(cookie.url, { cookie: 'sid=s-123', 'x-explode': '1' });
      expectRefusal(response, 401, 'Session realm="notes"', failed);
      expect(response.text).not.toContain(INTERNAL_SECRET);
    });

    it('takes a provider instance; without a challenge of its own it answers Bearer realm="mcp"', async () => {
      expect(whoamiOf(await callWhoami(instance.url, { 'x-user': 'grace' }))).toEqual({
        id: 'grace',
        scopes: ['header'],
      });
      expectRefusal(await callWhoami(instance.url), 401, BEARER_MISSING, failed);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('no authentication', () => {
    let open: HttpApp;

    beforeAll(async () => {
      open = await startAuthApp(platform, undefined);
    });

    afterAll(async () => {
      await open?.close();
    });

    it('serves every request as the anonymous principal, credentials or not', async () => {
      const anonymous: Whoami = { id: 'anonymous', scopes: [], anonymous: true };
      expect(whoamiOf(await callWhoami(open.url))).toEqual(anonymous);
      expect(whoamiOf(await callWhoami(open.url, bearer('token-alice')))).toEqual(anonymous);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('every HTTP transport authenticates every request (bearer)', () => {
    let server: HttpApp;
    let rpcUrl: string;
    let sseUrl: string;
    const alice = bearer('token-alice');
    const missing = `Bearer realm="mcp", resource_metadata="${METADATA_URL}"`;
    const readers: SseEventReader[] = [];

    beforeAll(async () => {
      server = await startAuthApp(
        platform,
        {
          bearer: {
            tokens: {
              'token-alice': { id: 'alice', scopes: ['notes:read'] },
              'token-bob': { id: 'bob', scopes: ['notes:read'] },
            },
          },
          protectedResource: PROTECTED_RESOURCE,
        },
        { simpleHttpPath: 'rpc', ssePath: 'sse', sseMessagesPath: 'messages' },
      );
      rpcUrl = `${server.baseUrl}/rpc`;
      sseUrl = `${server.baseUrl}/sse`;
    });

    afterEach(async () => {
      await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
    });

    afterAll(async () => {
      await server?.close();
    });

    it('Streamable HTTP: refuses POSTs of both eras without a token', async () => {
      const initialize = legacyRequest('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'auth-e2e', version: '0.0.1' },
      });
      expectRefusal(await post(server.url, initialize), 401, missing, REQUIRED);
      expectRefusal(await callWhoami(server.url), 401, missing, REQUIRED);
      expect(whoamiOf(await callWhoami(server.url, alice)).id).toBe('alice');
    });

    it('Streamable HTTP: a session opened with a token still needs it on every POST, GET and DELETE', async () => {
      const session = await openLegacySession(server.url, '2025-11-25', { headers: alice });
      const sessionHeaders = {
        'mcp-session-id': session.sessionId,
        'mcp-protocol-version': session.protocolVersion,
      };
      // Without the token, whatever the session id.
      expectRefusal(await post(server.url, legacyWhoami(2), sessionHeaders), 401, missing, REQUIRED);
      expectRefusal(
        await post(server.url, legacyWhoami(3), { ...sessionHeaders, ...bearer('token-mallory') }),
        401,
        `${BEARER_INVALID}, resource_metadata="${METADATA_URL}"`,
        NOT_VALID,
      );
      const get = await exchange(server.url, {
        method: 'GET',
        headers: { ...sessionHeaders, accept: 'text/event-stream' },
      });
      expectRefusal(get, 401, missing, REQUIRED);
      expectRefusal(await exchange(server.url, { method: 'DELETE', headers: sessionHeaders }), 401, missing, REQUIRED);
      // Another principal's token does not open the session either.
      expect((await post(server.url, legacyWhoami(4), { ...sessionHeaders, ...bearer('token-bob') })).status).toBe(404);
      // With the token, the session is intact: POST, GET, then DELETE work.
      expect(whoamiOf(await post(server.url, legacyWhoami(5), session.headers))).toEqual({
        id: 'alice',
        scopes: ['notes:read'],
      });
      const controller = new AbortController();
      const stream = await fetch(server.url, {
        headers: { ...session.headers, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      expect({ status: stream.status, type: stream.headers.get('content-type') }).toEqual({
        status: 200,
        type: expect.stringContaining('text/event-stream'),
      });
      controller.abort();
      await stream.body?.cancel().catch(() => undefined);
      const deleted = await exchange(server.url, { method: 'DELETE', headers: session.headers });
      expect(deleted.status).toBe(204);
    });

    it('the simple endpoint refuses without a token and serves with one', async () => {
      expectRefusal(await callWhoami(rpcUrl), 401, missing, REQUIRED);
      expectRefusal(
        await callWhoami(rpcUrl, bearer('token-mallory')),
        401,
        `${BEARER_INVALID}, resource_metadata="${METADATA_URL}"`,
        NOT_VALID,
      );
      expect(whoamiOf(await callWhoami(rpcUrl, alice))).toEqual({ id: 'alice', scopes: ['notes:read'] });
    });

    it('the SSE pair refuses GET and POST without a token and works with one', async () => {
      expectRefusal(
        await exchange(sseUrl, { method: 'GET', headers: { accept: 'text/event-stream' } }),
        401,
        missing,
        REQUIRED,
      );
      const response = await fetch(sseUrl, { headers: { accept: 'text/event-stream', ...alice } });
      expect(response.status).toBe(200);
      const reader = new SseEventReader(response);
      readers.push(reader);
      const endpoint = await reader.nextEvent();
      expect(endpoint.event).toBe('endpoint');
      const messages = new URL(String(endpoint.data), server.baseUrl);
      const initialize = legacyRequest(
        'initialize',
        { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'auth-e2e', version: '0.0.1' } },
        'init',
      );
      expectRefusal(await post(messages, initialize), 401, missing, REQUIRED);
      expect((await post(messages, initialize, alice)).status).toBe(202);
      expect((await reader.nextMessage()).id).toBe('init');
      expect((await post(messages, { jsonrpc: '2.0', method: 'notifications/initialized' }, alice)).status).toBe(202);
      expectRefusal(await post(messages, legacyWhoami('who')), 401, missing, REQUIRED);
      // Another principal's token names the pair in vain.
      expect((await post(messages, legacyWhoami('who'), bearer('token-bob'))).status).toBe(404);
      expect((await post(messages, legacyWhoami('who'), alice)).status).toBe(202);
      const answer = await reader.nextMessage();
      expect(answer.id).toBe('who');
      expect(JSON.parse(String(answer.result?.content?.[0]?.text))).toEqual({ id: 'alice', scopes: ['notes:read'] });
    });

    it.each(['mcp', 'rpc', 'sse', 'messages'])(
      'answers a CORS preflight on /%s without credentials, allowing Authorization',
      async (path) => {
        const answer = await preflight(`${server.baseUrl}/${path}`, 'authorization, content-type');
        expect({ status: answer.status, origin: answer.headers.get('access-control-allow-origin') }).toEqual({
          status: 204,
          origin: ORIGIN,
        });
        expect(list(answer.headers.get('access-control-allow-headers'))).toContain('authorization');
      },
    );
  });

  // -------------------------------------------------------------------------------------------
  describe('official clients', () => {
    let server: HttpApp;
    let keyed: HttpApp;
    const AUTHORIZATION = 'Bearer token-alice';
    const API_KEY = 'key-sse-0123456789';

    beforeAll(async () => {
      server = await startAuthApp(platform, {
        bearer: { tokens: { 'token-alice': { id: 'alice', scopes: ['notes:read'] } } },
      });
      keyed = await startAuthApp(
        platform,
        { apiKey: { keys: { [API_KEY]: { id: 'sse-client', scopes: ['sse'] } } } },
        { ssePath: 'sse', sseMessagesPath: 'messages' },
      );
    });

    afterAll(async () => {
      await server?.close();
      await keyed?.close();
    });

    /** The principal `whoami` names, through a connected client of either SDK. */
    async function whoamiThrough(client: {
      callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
    }): Promise<Whoami> {
      const result = (await client.callTool({ name: 'whoami', arguments: {} })) as {
        content: Array<{ type: string; text: string }>;
      };
      return JSON.parse(result.content[0].text) as Whoami;
    }

    it('v1 Streamable HTTP client with requestInit headers: connects, lists and calls whoami', async () => {
      const client = new Client({ name: 'v1-auth', version: '1.0.0' });
      try {
        await client.connect(
          new StreamableHTTPClientTransport(server.url, { requestInit: { headers: { authorization: AUTHORIZATION } } }),
        );
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(['whoami']);
        expect(await whoamiThrough(client)).toEqual({ id: 'alice', scopes: ['notes:read'] });
      } finally {
        await client.close();
      }
    });

    it('v1 Streamable HTTP client without credentials: connect rejects with HTTP 401', async () => {
      const client = new Client({ name: 'v1-auth', version: '1.0.0' });
      try {
        const error = await client.connect(new StreamableHTTPClientTransport(server.url)).then(
          () => undefined,
          (reason: unknown) => reason,
        );
        expect(error).toBeInstanceOf(StreamableHTTPError);
        expect((error as StreamableHTTPError).code).toBe(401);
      } finally {
        await client.close();
      }
    });

    it.each(V2_MODES)(
      'v2 client (%s) with a fetch that adds the token: connects and calls whoami',
      async (_label, mode) => {
        const withToken: typeof fetch = (input, init) => {
          const headers = new Headers(init?.headers);
          headers.set('authorization', AUTHORIZATION);
          return fetch(input, { ...init, headers });
        };
        const client = new ClientV2({ name: 'v2-auth', version: '2.0.0' }, { versionNegotiation: { mode } });
        try {
          await client.connect(new TransportV2(server.url, { fetch: withToken }));
          expect(client.getProtocolEra()).toBe('modern');
          const { tools } = await client.listTools();
          expect(tools.map((tool) => tool.name)).toEqual(['whoami']);
          expect(await whoamiThrough(client)).toEqual({ id: 'alice', scopes: ['notes:read'] });
        } finally {
          await client.close();
        }
      },
    );

    it.each(V2_MODES)(
      'v2 client (%s) without credentials: connect rejects with an HTTP 401 error',
      async (_label, mode) => {
        const client = new ClientV2({ name: 'v2-auth', version: '2.0.0' }, { versionNegotiation: { mode } });
        try {
          const error = await client.connect(new TransportV2(server.url)).then(
            () => undefined,
            (reason: unknown) => reason,
          );
          expect(error).toBeInstanceOf(SdkHttpError);
          expect(error).toMatchObject({
            code: SdkErrorCode.ClientHttpAuthentication,
            message: expect.stringContaining('HTTP 401'),
            data: { status: 401, text: JSON.stringify(REQUIRED) },
          });
        } finally {
          await client.close();
        }
      },
    );

    it('v1 SSE client with requestInit headers (API key): connects and calls whoami', async () => {
      const client = new Client({ name: 'v1-sse-auth', version: '1.0.0' });
      try {
        await client.connect(
          new SSEClientTransport(new URL(`${keyed.baseUrl}/sse`), {
            requestInit: { headers: { 'x-api-key': API_KEY } },
          }),
        );
        expect(await whoamiThrough(client)).toEqual({ id: 'sse-client', scopes: ['sse'] });
      } finally {
        await client.close();
      }
    });

    it('v1 SSE client with eventSourceInit.fetch (the stream) and fetch (the POSTs) adding the key', async () => {
      const calls = { stream: 0, posts: 0 };
      const adding =
        (kind: keyof typeof calls): typeof fetch =>
        (input, init) => {
          calls[kind] += 1;
          const headers = new Headers(init?.headers);
          headers.set('x-api-key', API_KEY);
          return fetch(input, { ...init, headers });
        };
      const client = new Client({ name: 'v1-sse-auth', version: '1.0.0' });
      try {
        await client.connect(
          new SSEClientTransport(new URL(`${keyed.baseUrl}/sse`), {
            eventSourceInit: { fetch: adding('stream') },
            fetch: adding('posts'),
          }),
        );
        expect(await whoamiThrough(client)).toEqual({ id: 'sse-client', scopes: ['sse'] });
        expect(calls.stream).toBe(1);
        expect(calls.posts).toBeGreaterThanOrEqual(3);
      } finally {
        await client.close();
      }
    });

    it('v1 SSE client without a key: connect rejects with HTTP 401', async () => {
      const client = new Client({ name: 'v1-sse-auth', version: '1.0.0' });
      try {
        const error = await client.connect(new SSEClientTransport(new URL(`${keyed.baseUrl}/sse`))).then(
          () => undefined,
          (reason: unknown) => reason,
        );
        expect(error).toBeInstanceOf(SseError);
        expect((error as SseError).code).toBe(401);
      } finally {
        await client.close();
      }
    });
  });
});
