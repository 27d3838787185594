/**
 * `auth.guard`: the application's own Nest guard as a server's authenticator, on Express and
 * Fastify. A real `@nestjs/passport` `AuthGuard('jwt')` over a `passport-jwt` strategy (tokens
 * signed here with jose, HS256) runs once per HTTP request to the endpoint, never for a CORS
 * preflight; `req.user` becomes the call's principal (`ctx.principal`) and stays on the request
 * (`@McpRequest()`). A refusal answers its status with a JSON-RPC error (-32004, `data.status`)
 * and, on a 401, the bearer challenge (with `resource_metadata` when the metadata is published).
 * A guard of the application's own shows the other outcomes: no user (anonymous), `false`,
 * `ForbiddenException`, another `HttpException` with headers of its own, an `Observable`, and an
 * error that is not an `HttpException` (500, logged with its stack, never shown to the client).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  HttpException,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { AuthGuard, PassportStrategy } from '@nestjs/passport';
import { SignJWT } from 'jose';
import { McpConfigurationError, McpCtx, type McpCallContext, McpRequest, McpTool } from 'nest-mcp';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { of } from 'rxjs';
import { AuthFixtureModule, callWhoami, startAuthApp, whoamiOf } from './fixtures/auth-fixture';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { RecordingLogger } from './fixtures/recording-logger';
import { exchange, type RawResponse, waitUntil } from './fixtures/raw-rpc';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

const SECRET = 'the-app-jwt-secret-of-at-least-32-bytes';
const RESOURCE = 'https://mcp.example.com/mcp';
const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const PROTECTED_RESOURCE = { resource: RESOURCE, authorizationServers: ['https://auth.example.com'] };
/** An origin the server admits by default (it listens on loopback). */
const ORIGIN = 'http://localhost:3000';

/** The JSON-RPC error of a refusal with `status`. */
function refusalBody(status: number, code: number, message: string) {
  return { jsonrpc: '2.0', id: null, error: { code, message, data: { status } } };
}
const UNAUTHORIZED = refusalBody(401, -32004, 'Unauthorized');

/** Asserts a refusal to the byte: status, `WWW-Authenticate` (null: none), JSON content type and body. */
function expectRefusal(response: RawResponse, status: number, challenge: string | null, body: object): void {
  expect({
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    type: response.headers.get('content-type'),
    body: JSON.parse(response.text),
  }).toEqual({ status, challenge, type: expect.stringContaining('application/json'), body });
}

/** A token of the application's, HS256 with {@link SECRET} unless told otherwise. */
function signToken(
  claims: Record<string, unknown>,
  options: { secret?: string; expiresAt?: number } = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(options.expiresAt ?? Math.floor(Date.now() / 1000) + 300)
    .sign(new TextEncoder().encode(options.secret ?? SECRET));
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

// ---------------------------------------------------------------------------------------------
// The application's Passport set-up, as in the Nest docs.

/** What the strategy makes of a token: Passport's `req.user`. */
interface JwtUser {
  sub: string;
  scope?: string;
  name?: string;
}

@Injectable()
class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor() {
    super({ secretOrKey: SECRET, jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), algorithms: ['HS256'] });
  }

  validate(payload: JwtUser): JwtUser {
    return { sub: payload.sub, scope: payload.scope, name: payload.name };
  }
}

/** `AuthGuard('jwt')` that notes each run: the type of its context, and that it has a class and handler. */
@Injectable()
class CountingJwtGuard extends AuthGuard('jwt') {
  readonly runs: Array<{ type: string; controller: string; handler: string; hasRequest: boolean }> = [];

  override canActivate(context: ExecutionContext) {
    this.runs.push({
      type: context.getType(),
      controller: typeof context.getClass(),
      handler: typeof context.getHandler(),
      hasRequest: typeof context.switchToHttp().getRequest<{ headers?: unknown }>().headers === 'object',
    });
    return super.canActivate(context);
  }
}

/** The principal the call saw, and `req.user` as the tool reads it with `@McpRequest()`. */
@Injectable()
class UserTool {
  @McpTool({
    name: 'whoami_user',
    description: 'The principal and req.user',
    input: { type: 'object', properties: {} },
  })
  whoamiUser(@McpCtx() ctx: McpCallContext, @McpRequest() req: { user?: unknown }): string {
    const { id, scopes, claims } = ctx.principal;
    return JSON.stringify({ principal: { id, scopes, claims }, user: req.user });
  }
}

const TOKEN_CLAIMS = { sub: 'user-42', scope: 'notes:read notes:write', name: 'Ann' };

describe.each(PLATFORMS)('auth.guard with AuthGuard(jwt) (%s)', (platform) => {
  let app: HttpApp;
  let guard: CountingJwtGuard;

  beforeAll(async () => {
    app = await startAuthApp(platform, { guard: CountingJwtGuard }, {}, [JwtStrategy, CountingJwtGuard, UserTool]);
    guard = app.app.get(CountingJwtGuard);
  });

  afterAll(() => app?.close());

  beforeEach(() => {
    guard.runs.length = 0;
  });

  it('refuses a request without a token: 401, a JSON-RPC error and the bearer challenge', async () => {
    expectRefusal(await callWhoami(app.url), 401, 'Bearer realm="mcp"', UNAUTHORIZED);
    // The application's instance ran, once, in an HTTP context with the endpoint's class and handler.
    expect(guard.runs).toEqual([{ type: 'http', controller: 'function', handler: 'function', hasRequest: true }]);
  });

  it.each<[string, () => Promise<string>]>([
    ['signed with another secret', () => signToken(TOKEN_CLAIMS, { secret: 'x'.repeat(40) })],
    ['expired', () => signToken(TOKEN_CLAIMS, { expiresAt: Math.floor(Date.now() / 1000) - 600 })],
    ['not a JWT', () => Promise.resolve('not-a-jwt')],
  ])('refuses a token %s with 401', async (_title, token) => {
    expectRefusal(await callWhoami(app.url, bearer(await token())), 401, 'Bearer realm="mcp"', UNAUTHORIZED);
    expect(guard.runs).toHaveLength(1);
  });

  it("admits a valid token: the call's principal is req.user's subject and scopes", async () => {
    const response = await callWhoami(app.url, bearer(await signToken(TOKEN_CLAIMS)));
    expect(whoamiOf(response)).toEqual({ id: 'user-42', scopes: ['notes:read', 'notes:write'] });
    expect(guard.runs).toHaveLength(1);
  });

  it('serves the v1 client with the token: tools listed and called, req.user seen, one guard run per request', async () => {
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const client = new Client({ name: 'app-guard-v1', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(app.url, {
        requestInit: { headers: bearer(await signToken(TOKEN_CLAIMS)) },
        fetch: counting,
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['whoami', 'whoami_user']);
      const result = await client.callTool({ name: 'whoami_user', arguments: {} });
      const seen = JSON.parse((result.content as Array<{ text: string }>)[0].text);
      expect(seen).toEqual({
        principal: {
          id: 'user-42',
          scopes: ['notes:read', 'notes:write'],
          claims: { sub: 'user-42', scope: 'notes:read notes:write', name: 'Ann' },
        },
        user: { sub: 'user-42', scope: 'notes:read notes:write', name: 'Ann' },
      });
      // The standalone GET stream may still be on its way: wait until the guard caught up.
      await waitUntil(() => guard.runs.length >= requests, 'the guard ran for every request');
      expect(guard.runs).toHaveLength(requests);
      expect(requests).toBeGreaterThanOrEqual(4);
    } finally {
      await client.close();
    }
  });

  it('does not run the guard for a CORS preflight', async () => {
    const preflight = await exchange(app.url, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(guard.runs).toHaveLength(0);
    // The POST the preflight announced is the one the guard runs for.
    await callWhoami(app.url, { ...bearer(await signToken(TOKEN_CLAIMS)), origin: ORIGIN });
    expect(guard.runs).toHaveLength(1);
  });
});

describe.each(PLATFORMS)('auth.guard { use, principal, realm } with protectedResource (%s)', (platform) => {
  let app: HttpApp;
  const mapped: unknown[] = [];

  beforeAll(async () => {
    app = await startAuthApp(
      platform,
      {
        guard: {
          // Not a provider of the application: made with the module's injector.
          use: AuthGuard('jwt'),
          principal: (user, request) => {
            mapped.push((request as { user?: unknown }).user === user);
            const { sub, name } = user as JwtUser;
            return name === 'Mallory' ? null : { id: `app:${sub}`, scopes: ['mapped'] };
          },
          realm: 'admin',
        },
        protectedResource: PROTECTED_RESOURCE,
      },
      {},
      [JwtStrategy],
    );
  });

  afterAll(() => app?.close());

  it('names the realm and the metadata in the challenge', async () => {
    expectRefusal(
      await callWhoami(app.url),
      401,
      `Bearer realm="admin", resource_metadata="${METADATA_URL}"`,
      UNAUTHORIZED,
    );
  });

  it('makes the principal with the mapping, which sees the user and the request', async () => {
    const response = await callWhoami(app.url, bearer(await signToken(TOKEN_CLAIMS)));
    expect(whoamiOf(response)).toEqual({ id: 'app:user-42', scopes: ['mapped'] });
    expect(mapped).toEqual([true]);
  });

  it('refuses a user the mapping refuses (null) with 401', async () => {
    const response = await callWhoami(app.url, bearer(await signToken({ sub: 'user-7', name: 'Mallory' })));
    expectRefusal(response, 401, `Bearer realm="admin", resource_metadata="${METADATA_URL}"`, UNAUTHORIZED);
  });
});

// ---------------------------------------------------------------------------------------------
// A guard of the application's own, for the outcomes Passport does not produce.

type Verdict = 'no-user' | 'false' | 'forbidden' | 'unauthorized' | 'throttled' | 'observable' | 'crash';

/** A guard instance told what to answer through the `x-verdict` header. */
const scripted: CanActivate & { runs: number } = {
  runs: 0,
  canActivate(context: ExecutionContext) {
    scripted.runs += 1;
    const http = context.switchToHttp();
    const request = http.getRequest<{ headers: Record<string, string>; user?: unknown }>();
    switch (request.headers['x-verdict'] as Verdict) {
      case 'no-user':
        return true;
      case 'false':
        return Promise.resolve(false);
      case 'forbidden':
        throw new ForbiddenException('admins only');
      case 'unauthorized':
        throw new UnauthorizedException('session expired');
      case 'throttled':
        http.getResponse<{ header(name: string, value: string): void }>().header('Retry-After', '7');
        throw new HttpException('Too Many Requests', 429);
      case 'observable':
        request.user = { id: 1234, scopes: ['a', 'b'] };
        return of(true);
      default:
        throw new Error('the session store is down');
    }
  },
};

describe.each(PLATFORMS)('auth.guard with a guard instance of the application (%s)', (platform) => {
  let app: HttpApp;
  let logger: RecordingLogger;

  beforeAll(async () => {
    logger = new RecordingLogger();
    app = await startHttpApp(AuthFixtureModule.forRoot({ guard: scripted }), {
      platform,
      configure: (nest) => nest.useLogger(logger),
    });
  });

  afterAll(() => app?.close());

  const call = (verdict: Verdict) => callWhoami(app.url, { 'x-verdict': verdict });

  it('serves a request the guard passes without a user as the anonymous principal', async () => {
    scripted.runs = 0;
    expect(whoamiOf(await call('no-user'))).toEqual({ id: 'anonymous', scopes: [], anonymous: true });
    expect(scripted.runs).toBe(1);
  });

  it('takes the user of a guard that answers an Observable', async () => {
    expect(whoamiOf(await call('observable'))).toEqual({ id: '1234', scopes: ['a', 'b'] });
  });

  it('answers false with 401 and the challenge', async () => {
    expectRefusal(await call('false'), 401, 'Bearer realm="mcp"', UNAUTHORIZED);
  });

  it("answers UnauthorizedException with 401, its message after 'Unauthorized'", async () => {
    expectRefusal(
      await call('unauthorized'),
      401,
      'Bearer realm="mcp"',
      refusalBody(401, -32004, 'Unauthorized: session expired'),
    );
  });

  it('answers ForbiddenException with 403 and no challenge', async () => {
    expectRefusal(await call('forbidden'), 403, null, refusalBody(403, -32004, 'Forbidden: admins only'));
  });

  it('answers another HttpException with its status, keeping the headers the guard set', async () => {
    const response = await call('throttled');
    expectRefusal(response, 429, null, refusalBody(429, -32004, 'Too Many Requests'));
    expect(response.headers.get('retry-after')).toBe('7');
  });

  it('answers an error that is not an HttpException with 500 Internal error, and logs it once with its stack', async () => {
    logger.lines.length = 0;
    const response = await call('crash');
    expectRefusal(response, 500, null, refusalBody(500, -32603, 'Internal error'));
    expect(response.text).not.toContain('session store');
    const errors = logger.lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toContain('the session store is down');
    expect(String(errors[0].params[0])).toContain('auth-app-guard.e2e-spec');
  });
});

describe('auth.guard at startup', () => {
  it('refuses a guard together with another provider', async () => {
    const started = startAuthApp('express', { guard: CountingJwtGuard, bearer: { tokens: { t: { id: 'x' } } } });
    // An application that started anyway is closed, so that the run ends.
    started.then((app) => app.close()).catch(() => undefined);
    await expect(started).rejects.toThrow(McpConfigurationError);
    await expect(started).rejects.toThrow(
      'Invalid McpModule option "auth": configures bearer and guard: choose one provider for the MCP endpoints',
    );
  });
});
