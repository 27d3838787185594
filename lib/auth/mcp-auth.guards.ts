import { type CanActivate, type ExecutionContext, HttpException, Injectable } from '@nestjs/common';
import { MCP_CONTEXT_TYPE } from '../shared/mcp.constants';
import type { McpCallContext } from '../protocol/calls/call-context';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { AuthKind } from './auth-options';
import { McpAuthService, type PlatformRequest } from './mcp-auth.service';

function setHeader(response: unknown, name: string, value: string): void {
  const target = response as {
    header?: (name: string, value: string) => void;
    setHeader?: (name: string, value: string) => void;
  };
  if (typeof target?.header === 'function') {
    target.header(name, value);
  } else if (typeof target?.setHeader === 'function') {
    target.setHeader(name, value);
  }
}

/**
 * The guards share one rule: authenticate the request with the configured provider, leave the
 * principal on the request (`request.mcpPrincipal`), or refuse with the provider's status,
 * `WWW-Authenticate` challenge and an OAuth error body.
 */
export abstract class McpCredentialGuard implements CanActivate {
  /** @internal */
  protected constructor(
    private readonly auth: McpAuthService,
    kind: Exclude<AuthKind, 'none' | 'custom'> | undefined,
    guard: string,
  ) {
    if (kind !== undefined && auth.kind !== kind) {
      throw new McpConfigurationError(
        `${guard} checks the "${kind}" credentials configured in McpModule.forRoot({ auth: { ${kind}: ... } }), but auth ${auth.kind === 'none' ? 'is not configured' : `configures "${auth.kind}"`}.`,
      );
    }
  }

  /** Admits the request when its credentials authenticate; else throws the provider's refusal. */
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isMcp = context.getType<string>() === MCP_CONTEXT_TYPE;
    const request = context.getArgByIndex<PlatformRequest | undefined>(0);
    const response = context.getArgByIndex<unknown>(1);
    if (isMcp && request === undefined) {
      // stdio: the connection's principal was decided by whoever started it.
      return !context.getArgByIndex<McpCallContext>(3).principal.anonymous || this.auth.kind === 'none';
    }
    if (request === undefined || request === null) {
      return false;
    }
    const outcome = await this.auth.authenticateRequest(request, context);
    if (outcome.ok) {
      return true;
    }
    if (outcome.challenge !== undefined && !isMcp) {
      setHeader(response, 'WWW-Authenticate', outcome.challenge);
    }
    if (outcome.retryAfterSec !== undefined && !isMcp) {
      setHeader(response, 'Retry-After', String(outcome.retryAfterSec));
    }
    throw new HttpException({ error: outcome.error, error_description: outcome.description }, outcome.status);
  }
}

/**
 * Admits requests with a bearer token accepted by `auth.bearer` (static tokens, a verifier, or
 * JWT), answers 401 with `WWW-Authenticate: Bearer ...` otherwise.
 *
 * @example
 * ```ts
 * @Controller('admin')
 * @UseGuards(McpBearerGuard)
 * export class AdminController {}
 * ```
 * @publicApi
 */
@Injectable()
export class McpBearerGuard extends McpCredentialGuard {
  constructor(auth: McpAuthService) {
    super(auth, 'bearer', 'McpBearerGuard');
  }
}

/**
 * Admits requests with an API key of `auth.apiKey`, answers 401 otherwise.
 *
 * @publicApi
 */
@Injectable()
export class McpApiKeyGuard extends McpCredentialGuard {
  constructor(auth: McpAuthService) {
    super(auth, 'apiKey', 'McpApiKeyGuard');
  }
}

/**
 * Admits requests with basic credentials of a user of `auth.basic`, answers 401 with
 * `WWW-Authenticate: Basic realm="..."` otherwise.
 *
 * @publicApi
 */
@Injectable()
export class McpBasicGuard extends McpCredentialGuard {
  constructor(auth: McpAuthService) {
    super(auth, 'basic', 'McpBasicGuard');
  }
}

/**
 * Admits requests the configured provider accepts, whichever it is (every request without
 * `auth`).
 *
 * @publicApi
 */
@Injectable()
export class McpAuthGuard extends McpCredentialGuard {
  constructor(auth: McpAuthService) {
    super(auth, undefined, 'McpAuthGuard');
  }
}
