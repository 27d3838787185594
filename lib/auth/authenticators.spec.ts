/**
 * The authenticators on their own, fed fake requests (a headers object): what each accepts, and
 * the exact refusal (status, `WWW-Authenticate`, OAuth error) of everything it does not.
 */
import { Logger } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { freePort } from '../../test/support/ports';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import type { McpPrincipal } from '../protocol/calls/call-context';
import { ApiKeyAuthenticator } from './api-key.authenticator';
import { resolveAuthOptions } from './auth-options';
import type { AuthOutcome } from './authenticator';
import { BasicAuthenticator } from './basic.authenticator';
import {
  BearerAuthenticator,
  jwtTokens,
  scopesOf,
  staticTokens,
  type TokenCheck,
  type TokenChecker,
  verifiedTokens,
} from './bearer.authenticator';
import { mcpSecretDigest } from './credential-table';
import type {
  McpAuthOptions,
  McpAuthProvider,
  McpAuthRequest,
  McpBasicOptions,
} from '../interfaces/mcp-auth-options.interface';
import { McpAuthService } from './mcp-auth.service';
import { hashMcpPassword } from './password-hash';

const METADATA_URL = 'https://api.example.com/.well-known/oauth-protected-resource/mcp';
const CI: McpPrincipal = Object.freeze({ id: 'ci', scopes: Object.freeze(['notes:read']) });

/** A request as the platform adapters hand it over: lower-cased header names. */
function request(headers: Record<string, string | string[] | undefined> = {}): McpAuthRequest {
  return { headers, method: 'POST', url: '/mcp', raw: {} };
}

function basicCredentials(userPass: string): string {
  return `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`;
}

/** A logger that records what it was told. */
function fakeLogger() {
  const logger = { error: jest.fn(), warn: jest.fn(), debug: jest.fn(), log: jest.fn() };
  return { logger, asLogger: logger as unknown as Logger };
}

/** A checker that records the tokens it was asked about and answers `answer`. */
function recordingChecker(answer: TokenCheck = { ok: true, principal: CI }) {
  const seen: string[] = [];
  const check: TokenChecker = (token) => {
    seen.push(token);
    return Promise.resolve(answer);
  };
  return { seen, check };
}

describe('BearerAuthenticator', () => {
  describe('challenges', () => {
    it('no Authorization header: 401 with a challenge that names no error (RFC 6750 §3.1)', async () => {
      const { seen, check } = recordingChecker();
      const outcome = await new BearerAuthenticator(check, 'mcp', undefined, undefined).authenticate(request());
      expect(outcome).toEqual({
        ok: false,
        status: 401,
        challenge: 'Bearer realm="mcp"',
        error: 'invalid_request',
        description: 'Authentication required',
      });
      expect(seen).toEqual([]);
    });

    it('no token, with scopes and metadata: realm, scope, then resource_metadata', async () => {
      const { check } = recordingChecker();
      const bearer = new BearerAuthenticator(check, 'mcp', METADATA_URL, ['notes:read', 'notes:write']);
      const outcome = await bearer.authenticate(request());
      expect(outcome).toMatchObject({
        status: 401,
        challenge: `Bearer realm="mcp", scope="notes:read notes:write", resource_metadata="${METADATA_URL}"`,
      });
    });

    it('no token, with metadata only', async () => {
      const { check } = recordingChecker();
      const outcome = await new BearerAuthenticator(check, 'mcp', METADATA_URL, undefined).authenticate(request());
      expect(outcome).toMatchObject({ challenge: `Bearer realm="mcp", resource_metadata="${METADATA_URL}"` });
    });

    it('another scheme counts as no token', async () => {
      const { seen, check } = recordingChecker();
      const outcome = await new BearerAuthenticator(check, 'mcp', METADATA_URL, undefined).authenticate(
        request({ authorization: basicCredentials('alice:pw') }),
      );
      expect(outcome).toEqual({
        ok: false,
        status: 401,
        challenge: `Bearer realm="mcp", resource_metadata="${METADATA_URL}"`,
        error: 'invalid_request',
        description: 'Authentication required',
      });
      expect(seen).toEqual([]);
    });

    it('an invalid token: error, error_description, scope, then resource_metadata', async () => {
      const { check } = recordingChecker({ ok: false, reason: 'invalid' });
      const bearer = new BearerAuthenticator(check, 'mcp', METADATA_URL, ['notes:read']);
      const outcome = await bearer.authenticate(request({ authorization: 'Bearer nope' }));
      expect(outcome).toEqual({
        ok: false,
        status: 401,
        challenge:
          'Bearer realm="mcp", error="invalid_token", error_description="The token is not valid", ' +
          `scope="notes:read", resource_metadata="${METADATA_URL}"`,
        error: 'invalid_token',
        description: 'The token is not valid',
      });
    });

    it('an invalid token without metadata or scopes', async () => {
      const { check } = recordingChecker({ ok: false, reason: 'invalid' });
      const outcome = await new BearerAuthenticator(check, 'mcp', undefined, undefined).authenticate(
        request({ authorization: 'Bearer nope' }),
      );
      expect(outcome).toMatchObject({
        challenge: 'Bearer realm="mcp", error="invalid_token", error_description="The token is not valid"',
      });
    });

    it('an expired token', async () => {
      const { check } = recordingChecker({ ok: false, reason: 'expired' });
      const outcome = await new BearerAuthenticator(check, 'mcp', METADATA_URL, undefined).authenticate(
        request({ authorization: 'Bearer old' }),
      );
      expect(outcome).toEqual({
        ok: false,
        status: 401,
        challenge: `Bearer realm="mcp", error="invalid_token", error_description="The token has expired", resource_metadata="${METADATA_URL}"`,
        error: 'invalid_token',
        description: 'The token has expired',
      });
    });

    it('a token that cannot be checked right now: 503 without a challenge', async () => {
      const { check } = recordingChecker({ ok: false, reason: 'unavailable' });
      const outcome = await new BearerAuthenticator(check, 'mcp', METADATA_URL, undefined).authenticate(
        request({ authorization: 'Bearer jwt' }),
      );
      expect(outcome).toEqual({
        ok: false,
        status: 503,
        error: 'temporarily_unavailable',
        description: 'The token cannot be verified right now',
      });
    });

    it('quotes `"` and `\\` in the realm (RFC 9110 quoted-string)', async () => {
      const { check } = recordingChecker();
      const outcome = await new BearerAuthenticator(check, 'say "hi" \\ bye', undefined, undefined).authenticate(
        request(),
      );
      expect(outcome).toMatchObject({ challenge: 'Bearer realm="say \\"hi\\" \\\\ bye"' });
    });

    it('insufficientScope: error, the required scopes, description, then resource_metadata', () => {
      const { check } = recordingChecker();
      const bearer = new BearerAuthenticator(check, 'mcp', METADATA_URL, ['notes:read']);
      expect(bearer.insufficientScope(['notes:write', 'admin'])).toBe(
        'Bearer realm="mcp", error="insufficient_scope", scope="notes:write admin", ' +
          `error_description="The token lacks a scope this request needs", resource_metadata="${METADATA_URL}"`,
      );
    });

    it('insufficientScope without metadata, and with a custom realm', () => {
      const { check } = recordingChecker();
      expect(new BearerAuthenticator(check, 'notes', undefined, undefined).insufficientScope(['admin'])).toBe(
        'Bearer realm="notes", error="insufficient_scope", scope="admin", ' +
          'error_description="The token lacks a scope this request needs"',
      );
    });

    it('an empty scopesSupported list names no scope in the challenge', async () => {
      const { check } = recordingChecker();
      const outcome = await new BearerAuthenticator(check, 'mcp', METADATA_URL, []).authenticate(request());
      expect(outcome).toMatchObject({ challenge: `Bearer realm="mcp", resource_metadata="${METADATA_URL}"` });
    });
  });

  describe('reading the token', () => {
    it.each([
      ['Bearer abc', 'abc'],
      ['bearer abc', 'abc'],
      ['BEARER abc', 'abc'],
      ['  Bearer    abc  ', 'abc'],
      ['Bearer aZ09-._~+/==', 'aZ09-._~+/=='],
      ['Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2ln', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2ln'],
    ])('%j → the checker gets %j', async (header, token) => {
      const { seen, check } = recordingChecker();
      const outcome = await new BearerAuthenticator(check, 'mcp', undefined, undefined).authenticate(
        request({ authorization: header }),
      );
      expect(outcome).toEqual({ ok: true, principal: CI });
      expect(seen).toEqual([token]);
    });

    it('takes the first of several Authorization values', async () => {
      const { seen, check } = recordingChecker();
      await new BearerAuthenticator(check, 'mcp', undefined, undefined).authenticate(
        request({ authorization: ['Bearer first', 'Bearer second'] }),
      );
      expect(seen).toEqual(['first']);
    });

    it.each([
      ['a space inside', 'Bearer abc def'],
      ['a comma', 'Bearer abc,def'],
      ['a quote', 'Bearer "abc"'],
      ['a colon (a digest written as a token)', `Bearer ${mcpSecretDigest('abc')}`],
      ['a non-ASCII letter', 'Bearer tökén'],
      ['padding in the middle', 'Bearer ab=cd'],
      ['padding only', 'Bearer =='],
      ['nothing after the scheme', 'Bearer'],
      ['only spaces after the scheme', 'Bearer    '],
    ])('a token with %s is invalid_token without calling the checker', async (_title, header) => {
      const { seen, check } = recordingChecker();
      const outcome = await new BearerAuthenticator(check, 'mcp', undefined, undefined).authenticate(
        request({ authorization: header }),
      );
      expect(outcome).toMatchObject({ ok: false, status: 401, error: 'invalid_token' });
      expect(seen).toEqual([]);
    });
  });

  describe('staticTokens', () => {
    const check = staticTokens({
      plain: { id: 'ci', scopes: ['notes:read'] },
      [mcpSecretDigest('hidden')]: { id: 'deploy', claims: { team: 'ops' } },
    });

    it('accepts a plain token and a token configured by digest', async () => {
      await expect(check('plain')).resolves.toEqual({ ok: true, principal: { id: 'ci', scopes: ['notes:read'] } });
      await expect(check('hidden')).resolves.toEqual({
        ok: true,
        principal: { id: 'deploy', scopes: [], claims: { team: 'ops' } },
      });
    });

    it('refuses an unknown token and the digest itself', async () => {
      await expect(check('unknown')).resolves.toEqual({ ok: false, reason: 'invalid' });
      await expect(check(mcpSecretDigest('hidden'))).resolves.toEqual({ ok: false, reason: 'invalid' });
    });

    it('gives frozen principals', async () => {
      const checked = await check('plain');
      expect(checked.ok && Object.isFrozen(checked.principal) && Object.isFrozen(checked.principal.scopes)).toBe(true);
    });
  });

  describe('verifiedTokens', () => {
    it('accepts what the verifier stands for', async () => {
      const { asLogger } = fakeLogger();
      const verify = jest.fn().mockResolvedValue({ id: 'u1', scopes: ['a'], claims: { tenant: 't' } });
      await expect(verifiedTokens({ verify }, asLogger)('tok')).resolves.toEqual({
        ok: true,
        principal: { id: 'u1', scopes: ['a'], claims: { tenant: 't' } },
      });
      expect(verify).toHaveBeenCalledWith('tok');
    });

    it.each([null, undefined])('refuses when the verifier answers %s', async (answer) => {
      const { logger, asLogger } = fakeLogger();
      await expect(verifiedTokens({ verify: () => answer as null }, asLogger)('tok')).resolves.toEqual({
        ok: false,
        reason: 'invalid',
      });
      expect(logger.error).not.toHaveBeenCalled();
    });

    it.each([
      ['an empty id', { id: '' }],
      ['a numeric id', { id: 42 }],
      ['scopes as a string', { id: 'u1', scopes: 'a b' }],
      ['a string', 'u1'],
    ])('refuses, and logs an error, when the verifier answers %s', async (_title, answer) => {
      const { logger, asLogger } = fakeLogger();
      await expect(verifiedTokens({ verify: () => answer as never }, asLogger)('tok')).resolves.toEqual({
        ok: false,
        reason: 'invalid',
      });
      expect(logger.error).toHaveBeenCalledTimes(1);
    });

    it('refuses, and logs a warning, when the verifier throws', async () => {
      const { logger, asLogger } = fakeLogger();
      const verify = () => Promise.reject(new Error('introspection endpoint down'));
      await expect(verifiedTokens({ verify }, asLogger)('tok')).resolves.toEqual({ ok: false, reason: 'invalid' });
      expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('introspection endpoint down'));
    });
  });
});

describe('scopesOf', () => {
  it.each([
    ['a space-separated scope string', { scope: 'notes:read notes:write' }, ['notes:read', 'notes:write']],
    ['a scope string with extra spaces', { scope: ' a  b ' }, ['a', 'b']],
    ['an scp list', { scp: ['notes:read', 'admin'] }, ['notes:read', 'admin']],
    ['an scp string', { scp: 'notes:read admin' }, ['notes:read', 'admin']],
    ['an scp list with non-strings and empty strings', { scp: ['a', 1, null, '', 'b'] }, ['a', 'b']],
    ['neither claim', { sub: 'u1' }, []],
    ['an empty scope string', { scope: '' }, []],
    ['scope and scp: scope wins', { scope: 'a', scp: ['b'] }, ['a']],
    ['a scope of another type', { scope: 42 }, []],
  ])('%s', (_title, payload, scopes) => {
    expect(scopesOf(payload as Record<string, unknown>)).toEqual(scopes);
  });
});

describe('jwtTokens (HS256 shared secret)', () => {
  const secret = 'k'.repeat(32);
  const key = new TextEncoder().encode(secret);
  const audience = 'https://api.example.com/mcp';
  const issuer = 'https://auth.example.com';
  const { asLogger } = fakeLogger();
  const check = jwtTokens({ key: secret, audience, issuer }, asLogger);

  function sign(claims: Record<string, unknown>, edit: (jwt: SignJWT) => SignJWT = (jwt) => jwt): Promise<string> {
    return edit(
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('5m'),
    ).sign(key);
  }

  it('accepts a good token: id from sub, scopes from scope, the payload as claims', async () => {
    const token = await sign({ sub: 'u1', scope: 'notes:read notes:write', tenant: 't1' });
    const checked = await check(token);
    expect(checked).toEqual({
      ok: true,
      principal: {
        id: 'u1',
        scopes: ['notes:read', 'notes:write'],
        claims: expect.objectContaining({ sub: 'u1', tenant: 't1', aud: audience, iss: issuer }),
      },
    });
  });

  it('refuses a token for another audience, from another issuer, or signed with another key', async () => {
    const otherAudience = await sign({ sub: 'u1' }, (jwt) => jwt.setAudience('https://other.example.com/mcp'));
    const otherIssuer = await sign({ sub: 'u1' }, (jwt) => jwt.setIssuer('https://evil.example.com'));
    const otherKey = await new SignJWT({ sub: 'u1' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('x'.repeat(32)));
    for (const token of [otherAudience, otherIssuer, otherKey]) {
      await expect(check(token)).resolves.toEqual({ ok: false, reason: 'invalid' });
    }
  });

  it('refuses a token without sub', async () => {
    await expect(check(await sign({ scope: 'a' }))).resolves.toEqual({ ok: false, reason: 'invalid' });
  });

  it('reports a token expired beyond the clock tolerance as expired', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await sign({ sub: 'u1' }, (jwt) => jwt.setIssuedAt(now - 3600).setExpirationTime(now - 600));
    await expect(check(token)).resolves.toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses an unsigned ("alg": "none") token', async () => {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'u1', aud: audience, iss: issuer })}.`;
    await expect(check(unsigned)).resolves.toEqual({ ok: false, reason: 'invalid' });
  });

  it('reads the id from principalClaim', async () => {
    const byEmail = jwtTokens({ key: secret, audience, principalClaim: 'email' }, asLogger);
    const checked = await byEmail(await sign({ sub: 'u1', email: 'ada@example.com', scp: ['a'] }));
    expect(checked).toMatchObject({ ok: true, principal: { id: 'ada@example.com', scopes: ['a'] } });
  });
});

describe("jwtTokens: the token's fault, or the key set's", () => {
  const audience = 'https://api.example.com/mcp';

  it.each(['HS256', 'HS512'])(
    'refuses an %s token against an RSA public key as invalid, with a debug line only',
    async (alg) => {
      const { publicKey } = await generateKeyPair('RS256');
      const { logger, asLogger } = fakeLogger();
      const check = jwtTokens({ key: await exportSPKI(publicKey), audience }, asLogger);
      const token = await new SignJWT({ sub: 'u1' })
        .setProtectedHeader({ alg })
        .setAudience(audience)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode('s'.repeat(64)));
      for (let attempt = 0; attempt < 3; attempt += 1) {
        await expect(check(token)).resolves.toEqual({ ok: false, reason: 'invalid' });
      }
      expect(logger.warn).not.toHaveBeenCalled();
      expect(logger.debug).toHaveBeenCalledTimes(3);
    },
  );

  it('answers unavailable when the key set cannot be fetched, with one warning a minute', async () => {
    const { logger, asLogger } = fakeLogger();
    const check = jwtTokens({ jwksUrl: `http://127.0.0.1:${await freePort()}/jwks.json`, audience }, asLogger);
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT({ sub: 'u1' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setAudience(audience)
      .setExpirationTime('5m')
      .sign(privateKey);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await expect(check(token)).resolves.toEqual({ ok: false, reason: 'unavailable' });
    }
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('The JWT key set could not be fetched'));
    expect(logger.debug).toHaveBeenCalledTimes(2);
  });
});

describe('ApiKeyAuthenticator', () => {
  const keys = {
    'key-one': { id: 'ci', scopes: ['notes:read'] },
    [mcpSecretDigest('key-two')]: { id: 'deploy' },
  };
  const byDefault = new ApiKeyAuthenticator({ keys });

  it('reads the key from x-api-key', async () => {
    await expect(byDefault.authenticate(request({ 'x-api-key': 'key-one' }))).resolves.toEqual({
      ok: true,
      principal: { id: 'ci', scopes: ['notes:read'] },
    });
  });

  it.each(['ApiKey key-one', 'apikey key-one', 'APIKEY   key-one '])(
    'reads the key from Authorization: %j',
    async (header) => {
      await expect(byDefault.authenticate(request({ authorization: header }))).resolves.toMatchObject({
        ok: true,
        principal: { id: 'ci' },
      });
    },
  );

  it('accepts a key configured by digest, but not the digest itself', async () => {
    await expect(byDefault.authenticate(request({ 'x-api-key': 'key-two' }))).resolves.toMatchObject({
      ok: true,
      principal: { id: 'deploy', scopes: [] },
    });
    await expect(byDefault.authenticate(request({ 'x-api-key': mcpSecretDigest('key-two') }))).resolves.toMatchObject({
      ok: false,
      error: 'invalid_token',
    });
  });

  it.each([
    ['no header', {}],
    ['an empty header', { 'x-api-key': '' }],
    ['Authorization: ApiKey without a key', { authorization: 'ApiKey' }],
    ['a bearer token instead', { authorization: 'Bearer key-one' }],
  ])('%s: 401 invalid_request', async (_title, headers) => {
    await expect(byDefault.authenticate(request(headers))).resolves.toEqual({
      ok: false,
      status: 401,
      challenge: 'ApiKey header="x-api-key"',
      error: 'invalid_request',
      description: 'The x-api-key header is required',
    });
  });

  it('a wrong key: 401 invalid_token', async () => {
    await expect(byDefault.authenticate(request({ 'x-api-key': 'key-three' }))).resolves.toEqual({
      ok: false,
      status: 401,
      challenge: 'ApiKey header="x-api-key"',
      error: 'invalid_token',
      description: 'The API key is not valid',
    });
  });

  it('a custom header (any case in the options) is read lower-cased, named in the challenge', async () => {
    const custom = new ApiKeyAuthenticator({ keys, header: 'X-Team-Key' });
    expect(custom.headers).toEqual(['x-team-key', 'authorization']);
    await expect(custom.authenticate(request({ 'x-team-key': 'key-one' }))).resolves.toMatchObject({ ok: true });
    await expect(custom.authenticate(request({ 'x-api-key': 'key-one' }))).resolves.toMatchObject({
      challenge: 'ApiKey header="x-team-key"',
      error: 'invalid_request',
      description: 'The x-team-key header is required',
    });
  });

  it('is not a bearer provider', () => {
    expect(byDefault).not.toBeInstanceOf(BearerAuthenticator);
    expect(byDefault.headers).toEqual(['x-api-key', 'authorization']);
  });
});

/** A basic authenticator of `options`, resolved as the module resolves them (the bounds' defaults). */
function basicWith(
  options: McpBasicOptions,
  logger?: Pick<Logger, 'warn' | 'debug'>,
  now?: () => number,
): BasicAuthenticator {
  return new BasicAuthenticator(resolveAuthOptions({ basic: options }).basic!, logger, now);
}

describe('BasicAuthenticator', () => {
  const CHALLENGE = 'Basic realm="mcp", charset="UTF-8"';
  let basic: BasicAuthenticator;
  let hashes: { alice: string; bob: string; jose: string };

  beforeAll(async () => {
    hashes = {
      alice: await hashMcpPassword('wonderland', { N: 16 }),
      bob: await hashMcpPassword('pa:ss:word', { N: 16 }),
      jose: await hashMcpPassword('contraseña', { N: 16 }),
    };
    basic = basicWith({
      users: {
        alice: { passwordHash: hashes.alice, scopes: ['notes:read'] },
        bob: { passwordHash: hashes.bob, id: 'user-42', claims: { team: 'ops' } },
        josé: { passwordHash: hashes.jose },
      },
    });
    await basic.init();
  });

  function refusal(error: string, description: string, challenge = CHALLENGE): AuthOutcome {
    return { ok: false, status: 401, challenge, error, description };
  }

  it('accepts a user with the right password; the id defaults to the user name', async () => {
    await expect(basic.authenticate(request({ authorization: basicCredentials('alice:wonderland') }))).resolves.toEqual(
      {
        ok: true,
        principal: { id: 'alice', scopes: ['notes:read'] },
      },
    );
  });

  it('splits at the first colon: a password may contain ":"; a configured id and claims are used', async () => {
    await expect(basic.authenticate(request({ authorization: basicCredentials('bob:pa:ss:word') }))).resolves.toEqual({
      ok: true,
      principal: { id: 'user-42', scopes: [], claims: { team: 'ops' } },
    });
  });

  it('decodes UTF-8 user names and passwords', async () => {
    await expect(basic.authenticate(request({ authorization: basicCredentials('josé:contraseña') }))).resolves.toEqual({
      ok: true,
      principal: { id: 'josé', scopes: [] },
    });
  });

  it('takes the scheme in any case', async () => {
    const credentials = Buffer.from('alice:wonderland').toString('base64');
    await expect(basic.authenticate(request({ authorization: `basic ${credentials}` }))).resolves.toMatchObject({
      ok: true,
    });
  });

  it.each([
    ['no Authorization header', undefined, 'Authentication required'],
    ['another scheme', 'Bearer abc', 'Authentication required'],
    ['the scheme alone', 'Basic', 'Authentication required'],
    ['no colon', basicCredentials('alice'), 'Malformed basic credentials'],
    ['an empty user name', basicCredentials(':wonderland'), 'Malformed basic credentials'],
    ['not base64 at all', 'Basic !!!', 'Malformed basic credentials'],
  ])('%s: 401 invalid_request', async (_title, authorization, description) => {
    await expect(basic.authenticate(request({ authorization }))).resolves.toEqual(
      refusal('invalid_request', description),
    );
  });

  it.each([
    ['a wrong password', 'alice:looking-glass'],
    ['an empty password', 'alice:'],
    ['the password of another user', 'alice:pa:ss:word'],
    ['an unknown user', 'mallory:wonderland'],
    ['a user name in other case', 'Alice:wonderland'],
  ])('%s: 401 invalid_token, the same answer for every cause', async (_title, userPass) => {
    await expect(basic.authenticate(request({ authorization: basicCredentials(userPass) }))).resolves.toEqual(
      refusal('invalid_token', 'The user name or password is not valid'),
    );
  });

  it('quotes the realm', async () => {
    const quoted = basicWith({ users: { alice: { passwordHash: hashes.alice } }, realm: 'ops "east"' });
    await quoted.init();
    await expect(quoted.authenticate(request())).resolves.toEqual(
      refusal('invalid_request', 'Authentication required', 'Basic realm="ops \\"east\\"", charset="UTF-8"'),
    );
  });

  it('with verify: the stored hash for a known user, the dummy hash for an unknown one', async () => {
    const verify = jest.fn((password: string, hash: string) => hash === `bcrypt(${password})`);
    const custom = basicWith({
      users: { carol: { passwordHash: 'bcrypt(secret)' } },
      verify,
      dummyHash: 'bcrypt(dummy)',
    });
    await custom.init();
    await expect(
      custom.authenticate(request({ authorization: basicCredentials('carol:secret') })),
    ).resolves.toMatchObject({
      ok: true,
      principal: { id: 'carol' },
    });
    await expect(
      custom.authenticate(request({ authorization: basicCredentials('dave:secret') })),
    ).resolves.toMatchObject({
      ok: false,
      error: 'invalid_token',
    });
    expect(verify.mock.calls).toEqual([
      ['secret', 'bcrypt(secret)'],
      ['secret', 'bcrypt(dummy)'],
    ]);
  });

  it('refuses an unknown user even when the password matches the dummy hash', async () => {
    const custom = basicWith({
      users: { carol: { passwordHash: 'bcrypt(secret)' } },
      verify: (password, hash) => hash === `bcrypt(${password})`,
      dummyHash: 'bcrypt(dummy)',
    });
    await custom.init();
    await expect(custom.authenticate(request({ authorization: basicCredentials('dave:dummy') }))).resolves.toEqual(
      refusal('invalid_token', 'The user name or password is not valid'),
    );
  });
});

describe('BasicAuthenticator under a flood of wrong passwords', () => {
  const WRONG = basicCredentials('carol:guess');
  const RIGHT = basicCredentials('carol:secret');

  /** A request from `ip`, as Express and Fastify report the client's address. */
  function from(ip: string, authorization: string): McpAuthRequest {
    return { headers: { authorization }, method: 'POST', url: '/mcp', raw: { ip } };
  }

  /** An authenticator whose hash is a counted stand-in (the `verify` seam), on a clock the test moves. */
  function setup(bounds: Partial<McpBasicOptions> = {}) {
    const clock = { now: 1_000_000 };
    const verify = jest.fn((password: string, hash: string) => hash === `plain:${password}`);
    const { logger, asLogger } = fakeLogger();
    const basic = basicWith(
      { users: { carol: { passwordHash: 'plain:secret' } }, verify, dummyHash: 'plain:dummy', ...bounds },
      asLogger,
      () => clock.now,
    );
    return { basic, verify, logger, clock };
  }

  it('answers 429 with Retry-After past maxFailuresPerMinute from one address, without running the hash', async () => {
    const { basic, verify, logger } = setup({ maxFailuresPerMinute: 5 });
    const outcomes = [];
    for (let attempt = 0; attempt < 50; attempt += 1) {
      outcomes.push(await basic.authenticate(from('203.0.113.7', WRONG)));
    }
    expect(outcomes.slice(0, 5).every((outcome) => !outcome.ok && outcome.status === 401)).toBe(true);
    expect(outcomes.slice(5)).toEqual(
      Array(45).fill({
        ok: false,
        status: 429,
        error: 'too_many_requests',
        description:
          'Too many failed sign-ins from this address: at most 5 a minute (McpModule option auth.basic.maxFailuresPerMinute)',
        retryAfterSec: 12,
      }),
    );
    expect(verify).toHaveBeenCalledTimes(5);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('Refused basic credentials from 203.0.113.7'));
  });

  it('admits a correct caller from another address during the flood', async () => {
    const { basic, verify } = setup({ maxFailuresPerMinute: 5 });
    for (let attempt = 0; attempt < 20; attempt += 1) {
      await basic.authenticate(from('203.0.113.7', WRONG));
    }
    await expect(basic.authenticate(from('198.51.100.2', RIGHT))).resolves.toMatchObject({
      ok: true,
      principal: { id: 'carol' },
    });
    expect(verify).toHaveBeenCalledTimes(6);
  });

  it('admits credentials verified lately without a hash, from the flooded address too', async () => {
    const { basic, verify, clock } = setup({ maxFailuresPerMinute: 5 });
    await expect(basic.authenticate(from('203.0.113.7', RIGHT))).resolves.toMatchObject({ ok: true });
    for (let attempt = 0; attempt < 20; attempt += 1) {
      await basic.authenticate(from('203.0.113.7', WRONG));
    }
    verify.mockClear();
    for (let request = 0; request < 10; request += 1) {
      await expect(basic.authenticate(from('203.0.113.7', RIGHT))).resolves.toMatchObject({
        ok: true,
        principal: { id: 'carol' },
      });
    }
    expect(verify).not.toHaveBeenCalled();
    // Five minutes later the credentials are checked again: here the address is still refused.
    clock.now += 5 * 60_000 - 1;
    await expect(basic.authenticate(from('203.0.113.7', RIGHT))).resolves.toMatchObject({ ok: true });
    clock.now += 1;
    await basic.authenticate(from('203.0.113.7', WRONG));
    await basic.authenticate(from('203.0.113.7', WRONG));
    await basic.authenticate(from('203.0.113.7', WRONG));
    await basic.authenticate(from('203.0.113.7', WRONG));
    await basic.authenticate(from('203.0.113.7', WRONG));
    await expect(basic.authenticate(from('203.0.113.7', RIGHT))).resolves.toMatchObject({ ok: false, status: 429 });
    expect(verify).toHaveBeenCalledTimes(5);
  });

  it('lets one more attempt through every 60 / maxFailuresPerMinute seconds', async () => {
    const { basic, verify, clock } = setup({ maxFailuresPerMinute: 5 });
    for (let attempt = 0; attempt < 6; attempt += 1) {
      await basic.authenticate(from('203.0.113.7', WRONG));
    }
    expect(verify).toHaveBeenCalledTimes(5);
    clock.now += 11_000;
    await expect(basic.authenticate(from('203.0.113.7', WRONG))).resolves.toMatchObject({
      status: 429,
      retryAfterSec: 1,
    });
    clock.now += 1_000;
    await expect(basic.authenticate(from('203.0.113.7', RIGHT))).resolves.toMatchObject({ ok: true });
    expect(verify).toHaveBeenCalledTimes(6);
  });

  it('counts attempts made at the same time: a burst runs maxFailuresPerMinute hashes, no more', async () => {
    const { basic, verify } = setup({ maxFailuresPerMinute: 5 });
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, () => basic.authenticate(from('203.0.113.7', WRONG))),
    );
    expect(outcomes.filter((outcome) => !outcome.ok && outcome.status === 429)).toHaveLength(25);
    expect(verify).toHaveBeenCalledTimes(5);
  });

  it('runs at most maxConcurrentHashes at once; past maxQueuedHashes waiting, 503 without a hash', async () => {
    const pending: Array<(matches: boolean) => void> = [];
    const verify = jest.fn(() => new Promise<boolean>((resolve) => pending.push(resolve)));
    const basic = basicWith({
      users: { carol: { passwordHash: 'plain:secret' } },
      verify,
      dummyHash: 'plain:dummy',
      maxConcurrentHashes: 2,
      maxQueuedHashes: 1,
    });
    const outcomes = [1, 2, 3, 4].map((n) => basic.authenticate(from(`198.51.100.${n}`, WRONG)));
    await expect(outcomes[3]).resolves.toEqual({
      ok: false,
      status: 503,
      error: 'temporarily_unavailable',
      description: 'Too many password checks waiting: at most 1 (McpModule option auth.basic.maxQueuedHashes)',
      retryAfterSec: 1,
    });
    expect(verify).toHaveBeenCalledTimes(2);
    pending.shift()!(false);
    await expect(outcomes[0]).resolves.toMatchObject({ status: 401 });
    expect(verify).toHaveBeenCalledTimes(3);
    pending.splice(0).forEach((resolve) => resolve(false));
    await Promise.all(outcomes);
    expect(verify).toHaveBeenCalledTimes(3);
  });
});

describe('McpAuthService (provider selection, custom providers)', () => {
  // The refused providers below are logged; keep the test output clean.
  beforeAll(() => Logger.overrideLogger(false));

  /** A service built from `auth` as the module would build it. */
  async function serviceFor(auth: McpAuthOptions | undefined): Promise<McpAuthService> {
    const moduleRef = {
      get: () => {
        throw new Error('not provided by the application');
      },
      create: (type: new () => unknown) => Promise.resolve(new type()),
    } as unknown as ModuleRef;
    const service = new McpAuthService(resolveAuthOptions(auth), moduleRef);
    await service.onModuleInit();
    return service;
  }

  it('without auth: every request is the anonymous principal', async () => {
    const service = await serviceFor(undefined);
    await expect(Promise.resolve(service.authenticate(request()))).resolves.toEqual({
      ok: true,
      principal: { id: 'anonymous', scopes: [], anonymous: true },
    });
    expect(service.kind).toBe('none');
    expect(service.insufficientScopeChallenge(['a'])).toBeUndefined();
  });

  it('bearer: insufficientScopeChallenge names the metadata URL', async () => {
    const service = await serviceFor({
      bearer: { tokens: { tok: { id: 'ci' } } },
      protectedResource: {
        resource: 'https://api.example.com/mcp',
        authorizationServers: ['https://auth.example.com'],
      },
    });
    expect(service.metadataUrl).toBe(METADATA_URL);
    expect(service.credentialHeaders).toEqual(['authorization']);
    expect(service.insufficientScopeChallenge(['admin'])).toBe(
      'Bearer realm="mcp", error="insufficient_scope", scope="admin", ' +
        `error_description="The token lacks a scope this request needs", resource_metadata="${METADATA_URL}"`,
    );
  });

  it('apiKey: no step-up challenge', async () => {
    const service = await serviceFor({ apiKey: { keys: { k: { id: 'ci' } } } });
    expect(service.insufficientScopeChallenge(['admin'])).toBeUndefined();
    expect(service.credentialHeaders).toEqual(['x-api-key', 'authorization']);
  });

  describe('custom', () => {
    const failed = { ok: false, status: 401, error: 'invalid_token', description: 'Authentication failed' };

    it('a provider class made with the injector: its principal, read from the request', async () => {
      class HeaderAuth implements McpAuthProvider {
        authenticate(req: McpAuthRequest) {
          return req.headers['x-user'] === 'ada' ? { id: 'ada', scopes: ['a'] } : null;
        }
      }
      const service = await serviceFor({ custom: HeaderAuth });
      await expect(Promise.resolve(service.authenticate(request({ 'x-user': 'ada' })))).resolves.toEqual({
        ok: true,
        principal: { id: 'ada', scopes: ['a'] },
      });
      await expect(Promise.resolve(service.authenticate(request()))).resolves.toEqual({
        ...failed,
        challenge: 'Bearer realm="mcp"',
      });
    });

    it("an instance's own challenge is used", async () => {
      const service = await serviceFor({
        custom: { authenticate: () => null, challenge: 'Cookie realm="app"' },
      });
      await expect(Promise.resolve(service.authenticate(request()))).resolves.toEqual({
        ...failed,
        challenge: 'Cookie realm="app"',
      });
    });

    it.each([
      ['throws', () => Promise.reject(new Error('database password is hunter2'))],
      ['answers an id that is not a string', () => ({ id: 7 })],
      ['answers an empty id', () => ({ id: '' })],
    ])('a provider that %s is refused with the generic answer', async (_title, authenticate) => {
      const service = await serviceFor({ custom: { authenticate: authenticate as McpAuthProvider['authenticate'] } });
      const outcome = await Promise.resolve(service.authenticate(request()));
      expect(outcome).toEqual({ ...failed, challenge: 'Bearer realm="mcp"' });
      expect(JSON.stringify(outcome)).not.toContain('hunter2');
    });
  });
});
