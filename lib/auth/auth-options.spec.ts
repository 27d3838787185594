import { generateKeyPairSync } from 'node:crypto';
import { inspect } from 'node:util';
import type { CanActivate } from '@nestjs/common';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { resolveAuthOptions } from './auth-options';
import type { McpAuthOptions, McpAuthProvider } from '../interfaces/mcp-auth-options.interface';
import { hashMcpPassword } from './password-hash';

/** A shared secret of the minimum length (32 bytes). */
const SECRET = 's'.repeat(32);
const DIGEST = `sha256:${'ab'.repeat(32)}`;
const RESOURCE = 'https://api.example.com/v1/mcp';
const AS = 'https://auth.example.com';
const PROTECTED = { resource: RESOURCE, authorizationServers: [AS] };
const PRINCIPAL = { id: 'ci' };
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** A cheap hash made by hashMcpPassword (made once, before the tables are evaluated). */
let HASH = '';
beforeAll(async () => {
  HASH = await hashMcpPassword('secret', { N: 16 });
});

class CustomProvider implements McpAuthProvider {
  authenticate() {
    return { id: 'custom' };
  }
}

class AppGuard implements CanActivate {
  canActivate() {
    return true;
  }
}

/** Resolves `auth` and returns the McpConfigurationError it throws (fails when it does not throw). */
function errorOf(auth: unknown): McpConfigurationError {
  try {
    resolveAuthOptions(auth as McpAuthOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigurationError);
    return error as McpConfigurationError;
  }
  throw new Error(`resolveAuthOptions accepted ${inspect(auth, { depth: 5 })}`);
}

/** Builds the rows lazily (some need HASH) and labels them with the bad value. */
type Row = [title: string, option: string, auth: () => unknown, reason?: RegExp];

describe('resolveAuthOptions', () => {
  describe('refuses at startup, naming the option', () => {
    const rows: Row[] = [
      ['auth not an object', 'auth', () => 'bearer'],
      ['auth an array', 'auth', () => []],
      [
        'two providers at once',
        'auth',
        () => ({ bearer: { tokens: { t: PRINCIPAL } }, apiKey: { keys: { k: PRINCIPAL } } }),
        /bearer and apiKey/,
      ],
      [
        'three providers at once',
        'auth',
        () => ({ apiKey: { keys: { k: PRINCIPAL } }, basic: { users: {} }, custom: new CustomProvider() }),
        /apiKey and basic and custom/,
      ],
      ['bearer not an object', 'auth.bearer', () => ({ bearer: 'token' })],
      ['bearer with none of tokens/verifier/jwt', 'auth.bearer', () => ({ bearer: {} }), /exactly one of/],
      [
        'bearer with tokens and verifier',
        'auth.bearer',
        () => ({ bearer: { tokens: { t: PRINCIPAL }, verifier: () => null } }),
        /exactly one of tokens, verifier and jwt/,
      ],
      [
        'bearer with tokens and jwt',
        'auth.bearer',
        () => ({ bearer: { tokens: { t: PRINCIPAL }, jwt: { key: SECRET, audience: RESOURCE } } }),
      ],
      [
        'bearer with verifier and jwt',
        'auth.bearer',
        () => ({ bearer: { verifier: () => null, jwt: { key: SECRET, audience: RESOURCE } } }),
      ],
      ['bearer tokens empty', 'auth.bearer.tokens', () => ({ bearer: { tokens: {} } }), /at least one entry/],
      [
        'bearer token digest with too few hex digits',
        'auth.bearer.tokens',
        () => ({ bearer: { tokens: { 'sha256:abc123': PRINCIPAL } } }),
        /64 hex digits/,
      ],
      [
        'bearer token digest with non-hex digits',
        'auth.bearer.tokens',
        () => ({ bearer: { tokens: { [`sha256:${'zz'.repeat(32)}`]: PRINCIPAL } } }),
        /64 hex digits/,
      ],
      [
        'bearer token digest with a prefix in capitals and a bad digest',
        'auth.bearer.tokens',
        () => ({ bearer: { tokens: { 'SHA256:nothex': PRINCIPAL } } }),
      ],
      [
        'bearer token principal without id',
        'auth.bearer.tokens[...].id',
        () => ({ bearer: { tokens: { t: { scopes: ['a'] } } } }),
        /is required/,
      ],
      [
        'bearer token principal with empty id',
        'auth.bearer.tokens[...].id',
        () => ({ bearer: { tokens: { t: { id: '' } } } }),
      ],
      ['bearer token principal not an object', 'auth.bearer.tokens[...]', () => ({ bearer: { tokens: { t: 'ci' } } })],
      [
        'bearer token principal with scopes not an array',
        'auth.bearer.tokens[...].scopes',
        () => ({ bearer: { tokens: { t: { id: 'ci', scopes: 'a b' } } } }),
      ],
      [
        'bearer token principal with an empty scope',
        'auth.bearer.tokens[...].scopes',
        () => ({ bearer: { tokens: { t: { id: 'ci', scopes: ['a', ''] } } } }),
      ],
      [
        'bearer token principal with claims not an object',
        'auth.bearer.tokens[...].claims',
        () => ({ bearer: { tokens: { t: { id: 'ci', claims: ['admin'] } } } }),
      ],
      [
        'bearer verifier neither function nor object with verify',
        'auth.bearer.verifier',
        () => ({ bearer: { verifier: {} } }),
      ],
      ['bearer verifier a string', 'auth.bearer.verifier', () => ({ bearer: { verifier: 'MyVerifier' } })],
      ['jwt not an object', 'auth.bearer.jwt', () => ({ bearer: { jwt: 'HS256' } })],
      [
        'jwt with both jwksUrl and key',
        'auth.bearer.jwt',
        () => ({ bearer: { jwt: { jwksUrl: `${AS}/jwks`, key: SECRET, audience: RESOURCE } } }),
        /exactly one of jwksUrl and key/,
      ],
      [
        'jwt with neither jwksUrl nor key',
        'auth.bearer.jwt',
        () => ({ bearer: { jwt: { audience: RESOURCE } } }),
        /exactly one of jwksUrl and key/,
      ],
      [
        'jwt jwksUrl not a URL',
        'auth.bearer.jwt.jwksUrl',
        () => ({ bearer: { jwt: { jwksUrl: 'jwks.json', audience: RESOURCE } } }),
        /absolute http\(s\) URL/,
      ],
      [
        'jwt jwksUrl not http(s)',
        'auth.bearer.jwt.jwksUrl',
        () => ({ bearer: { jwt: { jwksUrl: 'file:///etc/jwks.json', audience: RESOURCE } } }),
      ],
      [
        'jwt shared secret of 31 bytes',
        'auth.bearer.jwt.key',
        () => ({ bearer: { jwt: { key: 's'.repeat(31), audience: RESOURCE } } }),
        /at least 32 bytes/,
      ],
      [
        'jwt short shared secret',
        'auth.bearer.jwt.key',
        () => ({ bearer: { jwt: { key: 'secret', audience: RESOURCE } } }),
      ],
      [
        'jwt without audience nor protectedResource',
        'auth.bearer.jwt.audience',
        () => ({ bearer: { jwt: { key: SECRET } } }),
        /is required \(or set auth\.protectedResource\.resource\)/,
      ],
      [
        'jwt with an empty audience list',
        'auth.bearer.jwt.audience',
        () => ({ bearer: { jwt: { key: SECRET, audience: [] } } }),
      ],
      [
        'jwt with an empty audience',
        'auth.bearer.jwt.audience',
        () => ({ bearer: { jwt: { key: SECRET, audience: '' } } }),
      ],
      [
        'jwt issuer an empty list',
        'auth.bearer.jwt.issuer',
        () => ({ bearer: { jwt: { key: SECRET, audience: RESOURCE, issuer: [] } } }),
      ],
      [
        'jwt algorithms with "none"',
        'auth.bearer.jwt.algorithms',
        () => ({ bearer: { jwt: { key: SECRET, audience: RESOURCE, algorithms: ['HS256', 'none'] } } }),
        /must not allow "none"/,
      ],
      [
        'jwt algorithms with "NONE"',
        'auth.bearer.jwt.algorithms',
        () => ({ bearer: { jwt: { key: SECRET, audience: RESOURCE, algorithms: ['NONE'] } } }),
      ],
      [
        'jwt algorithms an empty list',
        'auth.bearer.jwt.algorithms',
        () => ({ bearer: { jwt: { key: SECRET, audience: RESOURCE, algorithms: [] } } }),
      ],
      ...([-1, 3601, Number.NaN, Number.POSITIVE_INFINITY, '60'] as unknown[]).map((value): Row => [
        `jwt clockToleranceSec ${String(value)}`,
        'auth.bearer.jwt.clockToleranceSec',
        () => ({ bearer: { jwt: { key: SECRET, audience: RESOURCE, clockToleranceSec: value } } }),
        /from 0 to 3600/,
      ]),
      ['apiKey not an object', 'auth.apiKey', () => ({ apiKey: true })],
      ['apiKey without keys', 'auth.apiKey.keys', () => ({ apiKey: {} })],
      ['apiKey keys empty', 'auth.apiKey.keys', () => ({ apiKey: { keys: {} } })],
      [
        'apiKey key digest malformed',
        'auth.apiKey.keys',
        () => ({ apiKey: { keys: { [`sha256:${'a'.repeat(63)}`]: PRINCIPAL } } }),
        /64 hex digits/,
      ],
      ['apiKey principal without id', 'auth.apiKey.keys[...].id', () => ({ apiKey: { keys: { k: {} } } })],
      ...['x api key', 'x-api:key', '', 'x-api-key\r\n', 'clé'].map((header): Row => [
        `apiKey header ${JSON.stringify(header)}`,
        'auth.apiKey.header',
        () => ({ apiKey: { keys: { k: PRINCIPAL }, header } }),
        /must be a header name/,
      ]),
      ['apiKey header not a string', 'auth.apiKey.header', () => ({ apiKey: { keys: { k: PRINCIPAL }, header: 42 } })],
      ['basic without users', 'auth.basic.users', () => ({ basic: {} }), /at least one user/],
      ...(
        [
          ['maxFailuresPerMinute', 0],
          ['maxFailuresPerMinute', 1.5],
          ['maxConcurrentHashes', 0],
          ['maxConcurrentHashes', '2'],
          ['maxQueuedHashes', -1],
        ] as const
      ).map(([option, value]): Row => [
        `basic ${option} ${JSON.stringify(value)}`,
        `auth.basic.${option}`,
        () => ({ basic: { users: { alice: { passwordHash: HASH } }, [option]: value } }),
        /must be an integer/,
      ]),
      ['basic with no users', 'auth.basic.users', () => ({ basic: { users: {} } }), /at least one user/],
      ['basic not an object', 'auth.basic.users', () => ({ basic: 'alice' })],
      [
        'basic user name with ":"',
        'auth.basic.users.al:ice',
        () => ({ basic: { users: { 'al:ice': { passwordHash: HASH } } } }),
        /must not contain ":"/,
      ],
      ['basic empty user name', 'auth.basic.users.', () => ({ basic: { users: { '': { passwordHash: HASH } } } })],
      [
        'basic user without passwordHash',
        'auth.basic.users.alice.passwordHash',
        () => ({ basic: { users: { alice: { id: 'alice' } } } }),
        /is required/,
      ],
      [
        'basic bcrypt hash without verify',
        'auth.basic.users.alice.passwordHash',
        () => ({
          basic: { users: { alice: { passwordHash: '$2b$10$abcdefghijklmnopqrstuuVWXYZ0123456789abcdefghijklmno' } } },
        }),
        /not a hash made by hashMcpPassword\(\)/,
      ],
      [
        'basic plain-text password without verify',
        'auth.basic.users.alice.passwordHash',
        () => ({ basic: { users: { alice: { passwordHash: 'hunter2' } } } }),
      ],
      [
        'basic user with scopes not an array',
        'auth.basic.users.alice.scopes',
        () => ({ basic: { users: { alice: { passwordHash: HASH, scopes: 'a' } } } }),
      ],
      [
        'basic verify without dummyHash',
        'auth.basic.dummyHash',
        () => ({ basic: { users: { alice: { passwordHash: 'bcrypt...' } }, verify: () => true } }),
        /is required with verify/,
      ],
      [
        'basic verify not a function',
        'auth.basic.verify',
        () => ({ basic: { users: { alice: { passwordHash: HASH } }, verify: 'bcrypt' } }),
      ],
      ['custom a string', 'auth.custom', () => ({ custom: 'SessionCookieAuth' }), /must be a class/],
      ['custom an object without authenticate', 'auth.custom', () => ({ custom: {} })],
      ['custom with authenticate not a function', 'auth.custom', () => ({ custom: { authenticate: true } })],
      [
        'guard with bearer',
        'auth',
        () => ({ guard: AppGuard, bearer: { tokens: { t: PRINCIPAL } } }),
        /configures bearer and guard: choose one provider/,
      ],
      ['guard with custom', 'auth', () => ({ guard: new AppGuard(), custom: CustomProvider }), /custom and guard/],
      [
        'guard a string',
        'auth.guard',
        () => ({ guard: 'jwt' }),
        /must be a guard class .*or \{ use, principal\?, realm\? \}/,
      ],
      ['guard an object without canActivate or use', 'auth.guard', () => ({ guard: {} })],
      ['guard with canActivate not a function', 'auth.guard', () => ({ guard: { canActivate: true } })],
      ['guard.use not a guard', 'auth.guard.use', () => ({ guard: { use: { name: 'jwt' } } }), /canActivate/],
      ['guard.use a string', 'auth.guard.use', () => ({ guard: { use: 'jwt' } })],
      [
        'guard.principal not a function',
        'auth.guard.principal',
        () => ({ guard: { use: AppGuard, principal: 'sub' } }),
      ],
      ['guard.realm empty', 'auth.guard.realm', () => ({ guard: { use: AppGuard, realm: '' } })],
      ['guard.realm not a string', 'auth.guard.realm', () => ({ guard: { use: AppGuard, realm: 7 } })],
      ['protectedResource not an object', 'auth.protectedResource', () => ({ protectedResource: RESOURCE })],
      [
        'protectedResource relative resource',
        'auth.protectedResource.resource',
        () => ({ protectedResource: { ...PROTECTED, resource: '/mcp' } }),
        /absolute http\(s\) URL \(got "\/mcp"\)/,
      ],
      [
        'protectedResource resource not http(s)',
        'auth.protectedResource.resource',
        () => ({ protectedResource: { ...PROTECTED, resource: 'urn:example:mcp' } }),
      ],
      [
        'protectedResource resource missing',
        'auth.protectedResource.resource',
        () => ({ protectedResource: { authorizationServers: [AS] } }),
      ],
      [
        'protectedResource resource with a fragment',
        'auth.protectedResource.resource',
        () => ({ protectedResource: { ...PROTECTED, resource: `${RESOURCE}#tools` } }),
        /must not have a fragment/,
      ],
      [
        'protectedResource empty authorizationServers',
        'auth.protectedResource.authorizationServers',
        () => ({ protectedResource: { ...PROTECTED, authorizationServers: [] } }),
        /non-empty array/,
      ],
      [
        'protectedResource authorizationServers missing',
        'auth.protectedResource.authorizationServers',
        () => ({ protectedResource: { resource: RESOURCE } }),
      ],
      [
        'protectedResource non-URL authorization server',
        'auth.protectedResource.authorizationServers[0]',
        () => ({ protectedResource: { ...PROTECTED, authorizationServers: ['auth.example.com'] } }),
        /absolute http\(s\) URL/,
      ],
      [
        'protectedResource second authorization server not a URL',
        'auth.protectedResource.authorizationServers[1]',
        () => ({ protectedResource: { ...PROTECTED, authorizationServers: [AS, 'not a url'] } }),
      ],
      [
        'protectedResource relative metadataUrl',
        'auth.protectedResource.metadataUrl',
        () => ({ protectedResource: { ...PROTECTED, metadataUrl: '/.well-known/prm' } }),
      ],
      [
        'protectedResource relative resourceDocumentation',
        'auth.protectedResource.resourceDocumentation',
        () => ({ protectedResource: { ...PROTECTED, resourceDocumentation: 'docs/mcp' } }),
      ],
      [
        'protectedResource scopesSupported not a list',
        'auth.protectedResource.scopesSupported',
        () => ({ protectedResource: { ...PROTECTED, scopesSupported: 'notes:read' } }),
      ],
      [
        'protectedResource checked even with bearer auth',
        'auth.protectedResource.resource',
        () => ({ bearer: { tokens: { t: PRINCIPAL } }, protectedResource: { ...PROTECTED, resource: 'mcp' } }),
      ],
    ];

    // Every row gets its four cells (a shorter row would make Jest pass `done` as the last one).
    const table = rows.map(([title, option, auth, reason]) => [title, option, auth, reason ?? null] as const);

    it.each(table)('%s → "%s"', (_title, option, auth, reason) => {
      const error = errorOf(auth());
      expect(error.message).toContain(`Invalid McpModule option "${option}": `);
      if (reason !== null) {
        expect(error.message).toMatch(reason);
      }
    });
  });

  describe('accepts', () => {
    const rows: Array<[title: string, auth: () => McpAuthOptions, kind: string]> = [
      ['no provider at all', () => ({}), 'none'],
      [
        'bearer tokens, one a digest',
        () => ({ bearer: { tokens: { plain: PRINCIPAL, [DIGEST]: { id: 'b' } } } }),
        'bearer',
      ],
      [
        'a digest in capitals',
        () => ({ bearer: { tokens: { [`SHA256:${'AB'.repeat(32)}`]: { id: 'b', scopes: [], claims: {} } } } }),
        'bearer',
      ],
      ['a verifier function', () => ({ bearer: { verifier: () => null } }), 'bearer'],
      ['a verifier object', () => ({ bearer: { verifier: { verify: () => null } } }), 'bearer'],
      [
        'a verifier class',
        () => ({
          bearer: {
            verifier: class {
              verify() {
                return null;
              }
            },
          },
        }),
        'bearer',
      ],
      ['jwt with a 32-byte secret', () => ({ bearer: { jwt: { key: SECRET, audience: RESOURCE } } }), 'bearer'],
      [
        'jwt with a 32-byte secret of 16 characters',
        () => ({ bearer: { jwt: { key: 'é'.repeat(16), audience: RESOURCE } } }),
        'bearer',
      ],
      [
        'jwt with a short PEM-looking key (no length rule for public keys)',
        () => ({
          bearer: {
            jwt: {
              key: generateKeyPairSync('ec', { namedCurve: 'P-256' })
                .publicKey.export({ type: 'spki', format: 'pem' })
                .toString(),
              audience: RESOURCE,
            },
          },
        }),
        'bearer',
      ],
      [
        'jwt with a jwksUrl, issuers, algorithms and the tolerance bounds',
        () => ({
          bearer: {
            jwt: {
              jwksUrl: `${AS}/jwks`,
              audience: [RESOURCE],
              issuer: [AS],
              algorithms: ['RS256'],
              clockToleranceSec: 0,
            },
          },
        }),
        'bearer',
      ],
      [
        'jwt with clockToleranceSec 3600',
        () => ({ bearer: { jwt: { key: SECRET, audience: RESOURCE, clockToleranceSec: 3600 } } }),
        'bearer',
      ],
      ['apiKey with a custom header', () => ({ apiKey: { keys: { k: PRINCIPAL }, header: 'X-Team-Key' } }), 'apiKey'],
      [
        'basic with a hash of hashMcpPassword',
        () => ({ basic: { users: { alice: { passwordHash: HASH, scopes: ['a'] } } } }),
        'basic',
      ],
      [
        'basic with verify and dummyHash (any hash format)',
        () => ({
          basic: { users: { alice: { passwordHash: '$2b$10$x' } }, verify: () => false, dummyHash: '$2b$10$y' },
        }),
        'basic',
      ],
      ['custom class', () => ({ custom: CustomProvider }), 'custom'],
      ['custom instance', () => ({ custom: new CustomProvider() }), 'custom'],
      ['guard class', () => ({ guard: AppGuard }), 'guard'],
      ['guard instance', () => ({ guard: new AppGuard() }), 'guard'],
      [
        'guard options with principal and realm',
        () => ({ guard: { use: AppGuard, principal: () => null, realm: 'admin' }, protectedResource: PROTECTED }),
        'guard',
      ],
      ['protectedResource alone', () => ({ protectedResource: PROTECTED }), 'none'],
    ];

    it.each(rows)('%s (kind %s)', (_title, auth, kind) => {
      expect(resolveAuthOptions(auth()).kind).toBe(kind);
    });

    it('undefined as no authentication', () => {
      expect(resolveAuthOptions(undefined)).toEqual({ kind: 'none' });
    });
  });

  describe('resolved shapes', () => {
    it('bearer realm defaults to "mcp" and a configured one is kept', () => {
      expect(resolveAuthOptions({ bearer: { tokens: { t: PRINCIPAL } } }).bearer).toEqual({
        tokens: { t: PRINCIPAL },
        realm: 'mcp',
      });
      expect(resolveAuthOptions({ bearer: { tokens: { t: PRINCIPAL }, realm: 'notes' } }).bearer?.realm).toBe('notes');
    });

    it('jwt audience defaults to protectedResource.resource', () => {
      const resolved = resolveAuthOptions({ bearer: { jwt: { key: SECRET } }, protectedResource: PROTECTED });
      expect(resolved.jwt).toEqual({ key: SECRET, audience: RESOURCE });
    });

    it('an explicit jwt audience wins over protectedResource.resource', () => {
      const resolved = resolveAuthOptions({
        bearer: { jwt: { key: SECRET, audience: ['urn:notes', 'urn:tasks'] } },
        protectedResource: PROTECTED,
      });
      expect(resolved.jwt?.audience).toEqual(['urn:notes', 'urn:tasks']);
    });

    it('apiKey, basic and custom options are passed through', () => {
      const apiKey = { keys: { k: PRINCIPAL }, header: 'x-team-key' };
      expect(resolveAuthOptions({ apiKey })).toEqual({ kind: 'apiKey', apiKey, protectedResource: undefined });
      const basic = { users: { alice: { passwordHash: HASH } }, realm: 'ops' };
      expect(resolveAuthOptions({ basic })).toEqual({
        kind: 'basic',
        basic: { ...basic, maxFailuresPerMinute: 10, maxConcurrentHashes: 2, maxQueuedHashes: 256 },
        protectedResource: undefined,
      });
      const bounded = { ...basic, maxFailuresPerMinute: 3, maxConcurrentHashes: 1, maxQueuedHashes: 0 };
      expect(resolveAuthOptions({ basic: bounded }).basic).toEqual(bounded);
      const custom = new CustomProvider();
      expect(resolveAuthOptions({ custom }).custom).toBe(custom);
    });

    it('guard in its one shape { use, principal?, realm }, realm "mcp" by default', () => {
      const instance = new AppGuard();
      expect(resolveAuthOptions({ guard: AppGuard })).toEqual({
        kind: 'guard',
        guard: { use: AppGuard, realm: 'mcp' },
        protectedResource: undefined,
      });
      expect(resolveAuthOptions({ guard: instance }).guard).toEqual({ use: instance, realm: 'mcp' });
      const principal = () => ({ id: 'x' });
      expect(resolveAuthOptions({ guard: { use: instance, principal, realm: 'admin' } }).guard).toEqual({
        use: instance,
        principal,
        realm: 'admin',
      });
    });

    it('no protectedResource → none resolved', () => {
      expect(resolveAuthOptions({ bearer: { tokens: { t: PRINCIPAL } } }).protectedResource).toBeUndefined();
    });

    describe('protected-resource metadata URL and paths', () => {
      const rows: Array<[resource: string, metadataUrl: string, paths: string[]]> = [
        [
          'https://api.example.com/v1/mcp',
          'https://api.example.com/.well-known/oauth-protected-resource/v1/mcp',
          [WELL_KNOWN, `${WELL_KNOWN}/v1/mcp`],
        ],
        ['https://api.example.com', 'https://api.example.com/.well-known/oauth-protected-resource', [WELL_KNOWN]],
        ['https://api.example.com/', 'https://api.example.com/.well-known/oauth-protected-resource', [WELL_KNOWN]],
        [
          'https://api.example.com/mcp/',
          'https://api.example.com/.well-known/oauth-protected-resource/mcp',
          [WELL_KNOWN, `${WELL_KNOWN}/mcp`],
        ],
        [
          'http://127.0.0.1:3000/mcp',
          'http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp',
          [WELL_KNOWN, `${WELL_KNOWN}/mcp`],
        ],
      ];

      it.each(rows)('resource %s → %s', (resource, metadataUrl, paths) => {
        const resolved = resolveAuthOptions({ protectedResource: { resource, authorizationServers: [AS] } });
        expect(resolved.protectedResource?.metadataUrl).toBe(metadataUrl);
        expect(resolved.protectedResource?.paths).toEqual(paths);
      });

      it('keeps the query of the resource identifier (RFC 9728 §3.1)', () => {
        const resolved = resolveAuthOptions({
          protectedResource: { resource: 'https://api.example.com/mcp?tenant=a', authorizationServers: [AS] },
        });
        expect(resolved.protectedResource?.metadataUrl).toBe(
          'https://api.example.com/.well-known/oauth-protected-resource/mcp?tenant=a',
        );
      });

      it('a custom metadataUrl is kept and its path served too', () => {
        const resolved = resolveAuthOptions({
          protectedResource: { ...PROTECTED, metadataUrl: 'https://api.example.com/meta/prm.json' },
        });
        expect(resolved.protectedResource?.metadataUrl).toBe('https://api.example.com/meta/prm.json');
        expect(resolved.protectedResource?.paths).toEqual([WELL_KNOWN, `${WELL_KNOWN}/v1/mcp`, '/meta/prm.json']);
      });

      it('a metadataUrl whose path is one of the well-known forms is not listed twice', () => {
        const resolved = resolveAuthOptions({
          protectedResource: {
            ...PROTECTED,
            metadataUrl: 'https://meta.example.com/.well-known/oauth-protected-resource/v1/mcp',
          },
        });
        expect(resolved.protectedResource?.metadataUrl).toBe(
          'https://meta.example.com/.well-known/oauth-protected-resource/v1/mcp',
        );
        expect(resolved.protectedResource?.paths).toEqual([WELL_KNOWN, `${WELL_KNOWN}/v1/mcp`]);
      });

      it('a metadataUrl equal to the root form is not listed twice', () => {
        const resolved = resolveAuthOptions({
          protectedResource: { ...PROTECTED, metadataUrl: `https://api.example.com${WELL_KNOWN}` },
        });
        expect(resolved.protectedResource?.paths).toEqual([WELL_KNOWN, `${WELL_KNOWN}/v1/mcp`]);
      });
    });

    describe('document', () => {
      it('holds exactly the required fields when nothing optional is configured', () => {
        const resolved = resolveAuthOptions({ protectedResource: PROTECTED });
        expect(resolved.protectedResource?.document).toStrictEqual({
          resource: RESOURCE,
          authorization_servers: [AS],
          bearer_methods_supported: ['header'],
        });
      });

      it('adds scopes_supported, resource_name and resource_documentation when configured', () => {
        const resolved = resolveAuthOptions({
          bearer: { tokens: { t: PRINCIPAL } },
          protectedResource: {
            resource: RESOURCE,
            authorizationServers: [AS, 'https://login.example.org/tenant'],
            scopesSupported: ['notes:read', 'notes:write'],
            resourceName: 'Notes MCP',
            resourceDocumentation: 'https://docs.example.com/mcp',
          },
        });
        expect(resolved.protectedResource?.document).toStrictEqual({
          resource: RESOURCE,
          authorization_servers: [AS, 'https://login.example.org/tenant'],
          bearer_methods_supported: ['header'],
          scopes_supported: ['notes:read', 'notes:write'],
          resource_name: 'Notes MCP',
          resource_documentation: 'https://docs.example.com/mcp',
        });
      });

      it('keeps an empty scopes_supported list', () => {
        const resolved = resolveAuthOptions({ protectedResource: { ...PROTECTED, scopesSupported: [] } });
        expect(resolved.protectedResource?.document.scopes_supported).toEqual([]);
      });

      it('names the resource as configured (root resource without a trailing slash)', () => {
        const resolved = resolveAuthOptions({
          protectedResource: { resource: 'https://api.example.com', authorizationServers: [AS] },
        });
        expect(resolved.protectedResource?.document.resource).toBe('https://api.example.com');
      });

      it('is frozen', () => {
        const document = resolveAuthOptions({ protectedResource: PROTECTED }).protectedResource!.document;
        expect(Object.isFrozen(document)).toBe(true);
      });
    });
  });
});
