import { type ExecutionContext, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { McpAuthService } from '../../auth/mcp-auth.service';
import type { AuthOutcome } from '../../auth/authenticator';
import type { ResolvedMcpOptions } from '../../mcp-options.factory';
import { MCP_PRINCIPAL_PROPERTY } from '../../shared/mcp.constants';
import { HttpDrain } from './http-drain';
import { HttpAdmission } from './http-admission.service';
import { HttpExchanges } from './http-exchanges.service';
import { HttpRefusals } from './http-refusals.service';
import { McpHttpGuard, principalOf } from './mcp-http.guard';
import { quotaKeyOf } from '../../protocol/bounds/principal';
import { McpHttpRefusal } from './mcp-http-refusal.error';
import { SetMetadata } from '@nestjs/common';
import { MCP_ENDPOINT_METADATA } from '../../shared/mcp.constants';
import { endpointMarker } from './endpoint-marker';
import { fakeRequest, fakeResponse } from '../../../test/support/raw-http';

@SetMetadata(MCP_ENDPOINT_METADATA, endpointMarker('streamable', 'test'))
class StreamableController {}

const CHALLENGE = 'Bearer realm="mcp", resource_metadata="https://api.example/.well-known/oauth-protected-resource"';
const REFUSED: AuthOutcome = {
  ok: false,
  status: 401,
  challenge: CHALLENGE,
  error: 'invalid_request',
  description: 'Authentication required',
};
const ALICE = { id: 'alice', scopes: [], anonymous: false };

/** An HTTP execution context of the Streamable HTTP controller, as Nest hands it to guards. */
function contextOf(request: unknown, response: unknown): ExecutionContext {
  return {
    getType: () => 'http',
    getClass: () => StreamableController,
    getHandler: () => StreamableController.prototype.constructor,
    getArgs: () => [request, response],
    getArgByIndex: (index: number) => [request, response][index],
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response, getNext: () => undefined }),
    switchToRpc: () => {
      throw new Error('not rpc');
    },
    switchToWs: () => {
      throw new Error('not ws');
    },
  } as unknown as ExecutionContext;
}

function setup(options: { auth?: 'none' | 'bearer' | 'guard'; outcome?: AuthOutcome; cors?: boolean } = {}) {
  const authenticateRequest = jest.fn(
    async (request: Record<string, unknown>, _context?: ExecutionContext): Promise<AuthOutcome> => {
      const outcome = options.outcome ?? { ok: true, principal: ALICE };
      if (outcome.ok) {
        request[MCP_PRINCIPAL_PROPERTY] = outcome.principal;
      }
      return outcome;
    },
  );
  const auth = {
    kind: options.auth ?? 'none',
    credentialHeaders: [],
    authenticateRequest,
    insufficientScopeChallenge: () => undefined,
  } as unknown as McpAuthService;
  const http = { cors: options.cors ?? true } as ResolvedMcpOptions['http'];
  const refusals = new HttpRefusals(auth);
  const drain = new HttpDrain();
  const exchanges = new HttpExchanges({ httpAdapter: { getType: () => 'express' } } as never);
  exchanges.onModuleInit();
  const guard = new McpHttpGuard(exchanges, new HttpAdmission(http, auth, refusals), drain, auth, refusals);
  return { guard, drain, authenticateRequest };
}

/** What the guard did with one request: passed it, or the refusal it threw. */
async function verdict(
  guard: McpHttpGuard,
  req: IncomingMessage,
  res = fakeResponse(),
): Promise<{ passed: true } | { status: number; body: unknown; headers: Record<string, string> }> {
  try {
    await guard.canActivate(contextOf(req, res.res));
    return { passed: true };
  } catch (error) {
    if (!(error instanceof McpHttpRefusal)) {
      throw error;
    }
    return { status: error.getStatus(), body: error.body, headers: { ...error.headers } };
  }
}

const forbidden = (message: string) => ({
  status: 403,
  body: { jsonrpc: '2.0', id: null, error: { code: -32600, message } },
  headers: {},
});
const HOST_FORBIDDEN = forbidden('Forbidden: Host not allowed (McpModule option http.allowedHosts)');
const ORIGIN_FORBIDDEN = forbidden('Forbidden: Origin not allowed (McpModule option http.allowedOrigins)');
const SHUTTING_DOWN = {
  status: 503,
  body: {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32603, message: 'Service unavailable: the server is shutting down; retry shortly' },
  },
  headers: { 'retry-after': '1' },
};

describe('McpHttpGuard', () => {
  let warn: jest.SpyInstance;
  let debug: jest.SpyInstance;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  it.each<[string, IncomingMessage, object]>([
    ['a POST from a loopback host', fakeRequest('POST'), { passed: true }],
    ['a GET', fakeRequest('GET'), { passed: true }],
    ['a DELETE', fakeRequest('DELETE'), { passed: true }],
    ['a preflight', fakeRequest('OPTIONS', { origin: 'http://localhost:5173' }), { passed: true }],
    ['a foreign Host', fakeRequest('POST', { host: 'evil.example' }), HOST_FORBIDDEN],
    ['a foreign Origin', fakeRequest('POST', { origin: 'https://evil.example' }), ORIGIN_FORBIDDEN],
    [
      'HEAD, which the platforms route to GET',
      fakeRequest('HEAD'),
      {
        status: 405,
        body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Method Not Allowed' } },
        headers: { allow: 'GET, POST, DELETE, OPTIONS' },
      },
    ],
    [
      'HEAD from a foreign Origin (the Origin first)',
      fakeRequest('HEAD', { origin: 'https://evil.example' }),
      ORIGIN_FORBIDDEN,
    ],
  ])('without auth: %s', async (_label, req, expected) => {
    const { guard, authenticateRequest } = setup();
    expect(await verdict(guard, req)).toEqual(expected);
    expect(authenticateRequest).not.toHaveBeenCalled();
  });

  it('logs a foreign Origin as a warning naming the option that admits it', async () => {
    const { guard } = setup();
    await verdict(guard, fakeRequest('POST', { origin: 'https://evil.example' }));
    expect(warn).toHaveBeenCalledWith(
      'Refused POST /mcp from 127.0.0.1 with 403: its Origin "https://evil.example" is not allowed (list it in the McpModule option http.allowedOrigins)',
    );
  });

  it('sets the CORS answer headers of an admitted origin', async () => {
    const { guard } = setup();
    const res = fakeResponse();
    await verdict(guard, fakeRequest('POST', { origin: 'http://localhost:5173' }), res);
    expect(res.headers).toEqual({
      'access-control-allow-origin': 'http://localhost:5173',
      'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version, www-authenticate',
      vary: 'Origin',
    });
  });

  it('sets no CORS header with cors: false', async () => {
    const { guard } = setup({ cors: false });
    const res = fakeResponse();
    await verdict(guard, fakeRequest('POST', { origin: 'http://localhost:5173' }), res);
    expect(res.headers).toEqual({});
  });

  describe('while draining', () => {
    it('refuses a GET with 503 and Retry-After, and closes its connection', async () => {
      const { guard, drain } = setup();
      drain.begin();
      const res = fakeResponse();
      expect(await verdict(guard, fakeRequest('GET'), res)).toEqual(SHUTTING_DOWN);
      expect(res.headers).toEqual({ connection: 'close' });
    });

    it('checks the Origin first: a foreign one gets 403, not 503', async () => {
      const { guard, drain } = setup();
      drain.begin();
      const res = fakeResponse();
      expect(await verdict(guard, fakeRequest('GET', { origin: 'https://evil.example' }), res)).toEqual(
        ORIGIN_FORBIDDEN,
      );
      expect(res.headers).toEqual({ connection: 'close' });
    });

    it.each(['POST', 'DELETE', 'OPTIONS'])('lets a %s through, its answer closing the connection', async (method) => {
      const { guard, drain } = setup();
      drain.begin();
      const res = fakeResponse();
      expect(await verdict(guard, fakeRequest(method), res)).toEqual({ passed: true });
      expect(res.headers).toEqual({ connection: 'close' });
    });

    it('refuses a GET whose credentials were being checked when the drain began', async () => {
      const { guard, drain, authenticateRequest } = setup({ auth: 'bearer' });
      authenticateRequest.mockImplementationOnce(async () => {
        drain.begin();
        return { ok: true, principal: ALICE };
      });
      expect(await verdict(guard, fakeRequest('GET'))).toEqual(SHUTTING_DOWN);
    });
  });

  describe('with auth', () => {
    it('leaves the principal on the request', async () => {
      const { guard } = setup({ auth: 'bearer' });
      const req = fakeRequest('POST');
      expect(await verdict(guard, req)).toEqual({ passed: true });
      expect(principalOf(req)).toEqual(ALICE);
    });

    it("refuses with the provider's status, challenge and OAuth body, logged at debug level", async () => {
      const { guard } = setup({ auth: 'bearer', outcome: REFUSED });
      expect(await verdict(guard, fakeRequest('POST'))).toEqual({
        status: 401,
        body: { error: 'invalid_request', error_description: 'Authentication required' },
        headers: { 'www-authenticate': CHALLENGE },
      });
      expect(debug).toHaveBeenCalledWith(
        'Refused POST /mcp from 127.0.0.1: 401 invalid_request (Authentication required)',
      );
    });

    it("hands the route's response, class and handler to the authentication (an app guard runs with them)", async () => {
      const { guard, authenticateRequest } = setup({ auth: 'guard' });
      const req = fakeRequest('POST');
      const res = fakeResponse();
      expect(await verdict(guard, req, res)).toEqual({ passed: true });
      expect(authenticateRequest).toHaveBeenCalledWith(req, expect.anything());
      const context = authenticateRequest.mock.calls[0][1] as ExecutionContext;
      expect(context.getArgByIndex(1)).toBe(res.res);
      expect(context.getClass()).toBe(StreamableController);
      expect(context.getHandler()).toBe(StreamableController.prototype.constructor);
    });

    it("answers an app guard's refusal with a JSON-RPC error naming its status, and the challenge", async () => {
      const { guard } = setup({
        auth: 'guard',
        outcome: { ...REFUSED, code: -32004, error: 'access_denied', description: 'Unauthorized' },
      });
      expect(await verdict(guard, fakeRequest('POST'))).toEqual({
        status: 401,
        body: { jsonrpc: '2.0', id: null, error: { code: -32004, message: 'Unauthorized', data: { status: 401 } } },
        headers: { 'www-authenticate': CHALLENGE },
      });
      expect(debug).toHaveBeenCalledWith('Refused POST /mcp from 127.0.0.1: 401 access_denied (Unauthorized)');
    });

    it('checks Host and Origin before the credentials', async () => {
      const { guard, authenticateRequest } = setup({ auth: 'bearer', outcome: REFUSED });
      expect(await verdict(guard, fakeRequest('POST', { host: 'evil.example' }))).toEqual(HOST_FORBIDDEN);
      expect(authenticateRequest).not.toHaveBeenCalled();
    });

    it('does not authenticate a CORS preflight', async () => {
      const { guard, authenticateRequest } = setup({ auth: 'bearer', outcome: REFUSED });
      expect(await verdict(guard, fakeRequest('OPTIONS', { origin: 'http://localhost:5173' }))).toEqual({
        passed: true,
      });
      expect(authenticateRequest).not.toHaveBeenCalled();
    });
  });

  it('answers synchronously when there is nothing to authenticate', () => {
    const { guard } = setup();
    expect(guard.canActivate(contextOf(fakeRequest('POST'), fakeResponse().res))).toBe(true);
  });

  it('principalOf: the anonymous principal when nobody left one', () => {
    expect(principalOf({})).toMatchObject({ id: 'anonymous', anonymous: true });
  });

  it('principalOf: anonymous callers are counted by their address, under one anonymous identity', () => {
    const one = principalOf({ ip: '10.0.0.1' });
    const other = principalOf({ socket: { remoteAddress: '10.0.0.2' } });
    expect(one).toMatchObject({ id: 'anonymous', anonymous: true });
    expect(other.id).toBe('anonymous');
    expect(quotaKeyOf(one)).toBe('anonymous@10.0.0.1');
    expect(quotaKeyOf(other)).toBe('anonymous@10.0.0.2');
    expect(principalOf({ ip: '10.0.0.1' })).toBe(one);
    expect(quotaKeyOf(principalOf({ raw: { socket: { remoteAddress: '10.0.0.3' } } }))).toBe('anonymous@10.0.0.3');
  });

  it('principalOf: an authenticated principal is counted by its id unless it names a quota key', () => {
    expect(quotaKeyOf(principalOf({ [MCP_PRINCIPAL_PROPERTY]: ALICE, ip: '10.0.0.1' }))).toBe(ALICE.id);
    expect(quotaKeyOf({ ...ALICE, quotaKey: 'tenant:acme' })).toBe('tenant:acme');
  });
});
