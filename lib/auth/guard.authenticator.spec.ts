import { ForbiddenException, HttpException, Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { GuardAuthenticator, refusalMessage } from './guard.authenticator';
import { McpHttpExecutionContext } from './http-execution-context';
import type { McpPrincipalInit } from '../interfaces/mcp-auth-options.interface';

/** A guard that leaves `user` on the request, or throws `error`. */
function guardOf(user: unknown, error?: Error): CanActivate & { contexts: ExecutionContext[] } {
  const contexts: ExecutionContext[] = [];
  return {
    contexts,
    canActivate(context: ExecutionContext) {
      contexts.push(context);
      if (error !== undefined) {
        throw error;
      }
      context.switchToHttp().getRequest<{ user?: unknown }>().user = user;
      return true;
    },
  };
}

function authenticatorOf(guard: CanActivate, principal?: (user: unknown) => McpPrincipalInit | null) {
  const logger = new Logger('test');
  return new GuardAuthenticator(guard, { use: guard, principal, realm: 'mcp' }, undefined, logger);
}

const REQUEST = () => ({ headers: {}, method: 'POST', url: '/mcp', ip: '10.0.0.1' });
class Endpoint {
  post(): void {}
}
const run = (authenticator: GuardAuthenticator, request = REQUEST()) =>
  authenticator.run(request, new McpHttpExecutionContext(request, {}, Endpoint, Endpoint.prototype.post));

describe('refusalMessage', () => {
  it.each<[number, string, string]>([
    [401, '', 'Unauthorized'],
    [401, 'Unauthorized', 'Unauthorized'],
    [401, 'jwt expired', 'Unauthorized: jwt expired'],
    [403, 'Forbidden resource', 'Forbidden: Forbidden resource'],
    [403, 'Forbidden', 'Forbidden'],
    [429, 'ThrottlerException: Too Many Requests', 'ThrottlerException: Too Many Requests'],
    [418, '', 'HTTP 418'],
  ])('%i "%s" → "%s"', (status, message, expected) => {
    expect(refusalMessage(status, message)).toBe(expected);
  });

  it('cuts a long message', () => {
    expect(refusalMessage(401, 'x'.repeat(1000))).toBe(`Unauthorized: ${'x'.repeat(200)}…`);
  });
});

describe('GuardAuthenticator', () => {
  let warn: jest.SpyInstance;
  let error: jest.SpyInstance;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  it('makes the principal of the user', async () => {
    const outcome = await run(authenticatorOf(guardOf({ sub: 'ann', scope: 'a b' })));
    expect(outcome).toEqual({
      ok: true,
      principal: { id: 'ann', scopes: ['a', 'b'], claims: { sub: 'ann', scope: 'a b' } },
    });
  });

  it('answers a user without an id with 500 and a warning that names auth.guard.principal', async () => {
    const outcome = await run(authenticatorOf(guardOf({ name: 'Ann' })));
    expect(outcome).toMatchObject({
      ok: false,
      status: 500,
      code: McpErrorCode.InternalError,
      description: 'Internal error',
    });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('auth.guard.principal'));
  });

  it('answers a mapping that returns something else than a principal with 500', async () => {
    const outcome = await run(authenticatorOf(guardOf({ sub: 'ann' }), () => ({ id: 7 }) as never));
    expect(outcome).toMatchObject({ ok: false, status: 500 });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('not a principal'));
  });

  it("answers a mapping's HttpException as the guard's", async () => {
    const outcome = await run(
      authenticatorOf(guardOf({ sub: 'ann' }), () => {
        throw new ForbiddenException('no admins here');
      }),
    );
    expect(outcome).toEqual({
      ok: false,
      status: 403,
      code: McpErrorCode.AccessDenied,
      challenge: undefined,
      error: 'access_denied',
      description: 'Forbidden: no admins here',
    });
  });

  it('answers an HttpException that is no refusal (a redirect) as an error of the guard, logged', async () => {
    const outcome = await run(authenticatorOf(guardOf(undefined, new HttpException('moved', 302))));
    expect(outcome).toMatchObject({ ok: false, status: 500, code: McpErrorCode.InternalError });
    expect(error).toHaveBeenCalledTimes(1);
  });

  it('a 5xx HttpException keeps its status with -32603, without its message', async () => {
    const outcome = await run(authenticatorOf(guardOf(undefined, new HttpException('db-7 is down', 503))));
    expect(outcome).toMatchObject({
      ok: false,
      status: 503,
      code: McpErrorCode.InternalError,
      description: 'Internal error',
    });
    expect(error).not.toHaveBeenCalled();
  });

  it('runs with a class and handler of its own when given a request alone', async () => {
    const guard = guardOf(undefined);
    const request = REQUEST();
    const outcome = await authenticatorOf(guard).authenticate({
      headers: {},
      method: 'POST',
      url: '/mcp',
      raw: request,
    });
    expect(outcome).toMatchObject({ ok: true, principal: { id: 'anonymous', quotaKey: 'anonymous@10.0.0.1' } });
    const [context] = guard.contexts;
    expect(context.getType()).toBe('http');
    expect(context.switchToHttp().getRequest()).toBe(request);
    expect(typeof context.getClass()).toBe('function');
    expect(typeof context.getHandler()).toBe('function');
  });
});
