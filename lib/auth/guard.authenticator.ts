/**
 * The application's own Nest guard as the authenticator of the MCP endpoints (`auth.guard`): a
 * Passport `AuthGuard('jwt')`, say. It runs with an `ExecutionContext` of type `'http'`; the user
 * it leaves on the request becomes the principal, and its refusals are answered as JSON-RPC
 * errors (`McpErrorCode.AccessDenied`, the status in `data.status`), with the bearer challenge on a 401.
 */
import { type CanActivate, type ExecutionContext, HttpException, type Logger } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import type { McpPrincipal } from '../protocol/calls/call-context';
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { logMessage, logStack } from '../protocol/bounds/log-text';
import { anonymousAt } from '../protocol/bounds/principal';
import { RefusalLog } from '../protocol/bounds/refusal-log';
import type { ResolvedGuardOptions } from './auth-options';
import {
  challenge,
  isPrincipalInit,
  toPrincipal,
  type AuthOutcome,
  type Authenticator,
  type AuthRefusal,
} from './authenticator';
import { clientAddress } from '../shared/client-address';
import { McpHttpExecutionContext } from './http-execution-context';
import type { McpAuthRequest } from '../interfaces/mcp-auth-options.interface';
import { userPrincipal } from './user-principal';

/** What a guard's message may add to a refusal's: its wording is the application's, its length ours. */
const MAX_MESSAGE = 200;

/** The words a refusal of these statuses starts with. */
const TITLES: Readonly<Record<number, string>> = { 401: 'Unauthorized', 403: 'Forbidden' };

/** The answer to a guard that failed (not a refusal): the details go to the log only. */
const INTERNAL: AuthRefusal = Object.freeze({
  ok: false,
  status: 500,
  code: McpErrorCode.InternalError,
  error: 'server_error',
  description: 'Internal error',
});

/**
 * The class and handler a guard sees when it runs outside an endpoint (`McpAuthService.authenticate`
 * with a request alone), so that a guard reading metadata (`@Public()`) finds none.
 */
class McpAuthentication {
  authenticate(this: void): void {}
}

/**
 * The JSON-RPC error of an `HttpException` a guard threw on an endpoint (`auth.guard`, or a guard
 * of `endpointDecorators`): access denied (-32004) below 500, the status in the answer's
 * `data.status`; -32603 "Internal error" from 500 on, without the exception's message.
 */
export function guardRefusalError(status: number, message: string): { code: number; message: string } {
  return status >= 500
    ? { code: McpErrorCode.InternalError, message: 'Internal error' }
    : { code: McpErrorCode.AccessDenied, message: refusalMessage(status, message) };
}

/** A refusal's message: `Unauthorized` / `Forbidden`, then the exception's own message when it adds one. */
export function refusalMessage(status: number, message: string): string {
  const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
  const title = TITLES[status];
  if (title === undefined) {
    return text.length > 0 ? text : `HTTP ${status}`;
  }
  return text.length === 0 || text === title ? title : `${title}: ${text}`;
}

export class GuardAuthenticator implements Authenticator {
  /** A guard's credentials are its own business; browsers most often send them in `Authorization`. */
  readonly headers = ['authorization'] as const;
  private readonly challenge: string;
  private readonly name: string;
  private readonly log: RefusalLog;

  constructor(
    private readonly guard: CanActivate,
    private readonly options: ResolvedGuardOptions,
    metadataUrl: string | undefined,
    private readonly logger: Logger,
  ) {
    this.challenge = challenge('Bearer', [
      ['realm', options.realm],
      ['resource_metadata', metadataUrl],
    ]);
    this.name = guard.constructor?.name ?? 'the guard';
    this.log = new RefusalLog(logger);
  }

  authenticate(request: McpAuthRequest): Promise<AuthOutcome> {
    const context = new McpHttpExecutionContext(
      request.raw,
      undefined,
      McpAuthentication,
      McpAuthentication.prototype.authenticate,
    );
    return this.run(request.raw, context);
  }

  /**
   * Runs the guard on a platform request: the principal of the user it leaves there, or its
   * refusal. The context is that of the route the request is for (its response, controller and
   * handler), as the guard would get it there.
   */
  async run(request: unknown, context: ExecutionContext): Promise<AuthOutcome> {
    try {
      const verdict = this.guard.canActivate(context);
      const passed = await (isObservable(verdict) ? lastValueFrom(verdict) : verdict);
      if (!passed) {
        return this.refusal(401, '');
      }
      const principal = this.principalOf(request);
      return principal === undefined ? INTERNAL : principal === null ? this.refusal(401, '') : { ok: true, principal };
    } catch (error) {
      if (error instanceof HttpException) {
        const status = error.getStatus();
        if (status >= 400 && status <= 599) {
          return this.refusal(status, error.message);
        }
      }
      this.logger.error(`auth.guard: ${this.name} failed: ${logMessage(error)}`, logStack(error));
      return INTERNAL;
    }
  }

  /**
   * The principal of the user the guard left on the request: `null` when `principal` refuses it,
   * `undefined` (logged) when none can be made of it.
   */
  private principalOf(request: unknown): McpPrincipal | null | undefined {
    const user = (request as { user?: unknown }).user;
    if (user === undefined || user === null) {
      return anonymousAt(clientAddress(request));
    }
    const mapping = this.options.principal;
    const init = mapping === undefined ? userPrincipal(user) : mapping(user, request);
    if (init === null) {
      return null;
    }
    if (!isPrincipalInit(init)) {
      this.log.warn(
        'guard-principal',
        mapping === undefined
          ? `auth.guard: ${this.name} admitted a user without sub, id, userId or username; map it with auth.guard.principal`
          : 'auth.guard.principal returned something that is not a principal ({ id, scopes?, claims? })',
      );
      return undefined;
    }
    return toPrincipal(init);
  }

  private refusal(status: number, message: string): AuthRefusal {
    const { code, message: description } = guardRefusalError(status, message);
    return {
      ok: false,
      status,
      code,
      challenge: status === 401 ? this.challenge : undefined,
      error: status >= 500 ? 'server_error' : 'access_denied',
      description,
    };
  }
}
