import { type ExecutionContext, Inject, Injectable, Logger, type OnModuleInit, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { MCP_AUTH_SETTINGS, MCP_PRINCIPAL_PROPERTY } from '../shared/mcp.constants';
import { ANONYMOUS_PRINCIPAL } from '../protocol/calls/call-context';
import type { AuthKind, ResolvedAuthOptions } from './auth-options';
import type { McpAuthProvider, McpAuthRequest, McpTokenVerifier } from '../interfaces/mcp-auth-options.interface';
import { principalFrom, type AuthOutcome, type Authenticator } from './authenticator';
import type { BearerAuthenticator } from './bearer.authenticator';
import type * as BearerModule from './bearer.authenticator';
import type * as ApiKeyModule from './api-key.authenticator';
import type * as BasicModule from './basic.authenticator';
import type { GuardAuthenticator } from './guard.authenticator';
import type * as GuardModule from './guard.authenticator';
import { McpLogger } from '../telemetry/mcp.logger';

/** What authentication reads of a platform request (Express or Fastify), and where it leaves the principal. */
export interface PlatformRequest {
  headers?: Record<string, string | string[] | undefined>;
  method?: string;
  url?: string;
  [MCP_PRINCIPAL_PROPERTY]?: unknown;
}

const ANONYMOUS: AuthOutcome = Object.freeze({ ok: true, principal: ANONYMOUS_PRINCIPAL });

/** A provider of the application's own (`auth.custom`). */
class CustomAuthenticator implements Authenticator {
  readonly headers = ['authorization'] as const;
  private readonly challenge: string;

  constructor(
    private readonly provider: McpAuthProvider,
    private readonly logger: Logger,
  ) {
    this.challenge = provider.challenge ?? 'Bearer realm="mcp"';
  }

  async authenticate(request: McpAuthRequest): Promise<AuthOutcome> {
    const principal = await principalFrom(() => this.provider.authenticate(request), this.logger, 'The auth provider');
    if (principal === undefined) {
      return {
        ok: false,
        status: 401,
        challenge: this.challenge,
        error: 'invalid_token',
        description: 'Authentication failed',
      };
    }
    return { ok: true, principal };
  }
}

/**
 * The configured authentication (`auth` of the module options): authenticates requests to the
 * MCP endpoints, and backs `McpBearerGuard`, `McpApiKeyGuard`, `McpBasicGuard` and `McpAuthGuard`.
 * Provider classes (a token verifier, a custom provider) are taken from the application when it
 * provides them, else created with the module's injector.
 */
@Injectable()
export class McpAuthService implements OnModuleInit {
  private readonly logger = new McpLogger('McpAuth');
  private authenticator: Authenticator | undefined;
  /** The authenticator when it is the bearer one: the only one with step-up challenges. */
  private bearer: BearerAuthenticator | undefined;
  /** The authenticator when it is the application's guard: it needs the whole HTTP context. */
  private appGuard: GuardAuthenticator | undefined;
  private ready: Promise<void> | undefined;

  /** @internal */
  constructor(
    @Inject(MCP_AUTH_SETTINGS) private readonly config: ResolvedAuthOptions,
    private readonly moduleRef: ModuleRef,
  ) {}

  /**
   * The provider that guards the MCP endpoints (`none` without `auth`).
   *
   * @internal
   */
  get kind(): AuthKind {
    return this.config.kind;
  }

  /** The headers that carry credentials, which browser clients must be allowed to send. */
  get credentialHeaders(): readonly string[] {
    return this.authenticator?.headers ?? [];
  }

  /** The URL of the protected-resource metadata, when it is published. */
  get metadataUrl(): string | undefined {
    return this.config.protectedResource?.metadataUrl;
  }

  /** Builds the configured authenticator (once; later calls share the first build). */
  onModuleInit(): Promise<void> {
    this.ready ??= this.build();
    return this.ready;
  }

  /**
   * Authenticates a request: its principal, or the refusal to answer. Without authentication,
   * every request is the anonymous principal's.
   *
   * @internal
   */
  authenticate(request: McpAuthRequest): AuthOutcome | Promise<AuthOutcome> {
    if (this.config.kind === 'none') {
      return ANONYMOUS;
    }
    if (this.authenticator === undefined) {
      // Guards may run before this module's init (an application guard on another module).
      return this.onModuleInit().then(() => this.authenticator!.authenticate(request));
    }
    return this.authenticator.authenticate(request);
  }

  /**
   * Authenticates a platform request (Express or Fastify) and, when it passes, leaves its
   * principal on it (`request.mcpPrincipal`), where the transports and handlers find it.
   * `context` is that of the route the request is for: an application guard (`auth.guard`) runs
   * with it.
   *
   * @internal
   */
  async authenticateRequest(request: PlatformRequest, context?: ExecutionContext): Promise<AuthOutcome> {
    const outcome =
      this.config.kind === 'guard' && context !== undefined
        ? await this.guarded(request, context)
        : await this.authenticate({
            headers: request.headers ?? {},
            method: request.method ?? 'GET',
            url: request.url ?? '/',
            raw: request,
          });
    if (outcome.ok) {
      request[MCP_PRINCIPAL_PROPERTY] = outcome.principal;
    }
    return outcome;
  }

  private async guarded(request: PlatformRequest, context: ExecutionContext): Promise<AuthOutcome> {
    if (this.appGuard === undefined) {
      await this.onModuleInit();
    }
    return this.appGuard!.run(request, context);
  }

  /**
   * The `WWW-Authenticate` value of a 403 for a call that lacks `scopes` (step-up, SEP-835):
   * only bearer tokens can be exchanged for more scopes.
   */
  insufficientScopeChallenge(scopes: readonly string[]): string | undefined {
    return this.bearer?.insufficientScope(scopes);
  }

  // Each authenticator is loaded by the server that uses it (none by default): an application
  // without auth, or with another kind, does not load their code at startup.
  private async build(): Promise<void> {
    const config = this.config;
    switch (config.kind) {
      case 'bearer': {
        const { BearerAuthenticator, jwtTokens, staticTokens, verifiedTokens } =
          // eslint-disable-next-line @typescript-eslint/no-require-imports
          require('./bearer.authenticator') as typeof BearerModule;
        const bearer = config.bearer!;
        const check =
          bearer.tokens !== undefined
            ? staticTokens(bearer.tokens)
            : bearer.verifier !== undefined
              ? verifiedTokens(await this.verifierOf(bearer.verifier), this.logger)
              : jwtTokens(config.jwt!, this.logger);
        this.authenticator = this.bearer = new BearerAuthenticator(
          check,
          bearer.realm,
          this.metadataUrl,
          config.protectedResource?.document.scopes_supported as string[] | undefined,
        );
        break;
      }
      case 'apiKey': {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { ApiKeyAuthenticator } = require('./api-key.authenticator') as typeof ApiKeyModule;
        this.authenticator = new ApiKeyAuthenticator(config.apiKey!);
        break;
      }
      case 'basic': {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { BasicAuthenticator } = require('./basic.authenticator') as typeof BasicModule;
        const basic = new BasicAuthenticator(config.basic!, this.logger);
        await basic.init();
        this.authenticator = basic;
        break;
      }
      case 'custom': {
        const custom = config.custom!;
        const provider = typeof custom === 'function' ? await this.instanceOf(custom) : custom;
        if (typeof provider.authenticate !== 'function') {
          throw new TypeError(`auth.custom: ${custom.constructor.name} has no authenticate(request) method`);
        }
        this.authenticator = new CustomAuthenticator(provider, this.logger);
        break;
      }
      case 'guard': {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { GuardAuthenticator } = require('./guard.authenticator') as typeof GuardModule;
        const options = config.guard!;
        const use = options.use;
        const guard = typeof use === 'function' ? await this.instanceOf(use) : use;
        if (typeof guard?.canActivate !== 'function') {
          throw new TypeError(
            `auth.guard: ${typeof use === 'function' ? use.name : use.constructor.name} has no canActivate(context) method`,
          );
        }
        this.authenticator = this.appGuard = new GuardAuthenticator(guard, options, this.metadataUrl, this.logger);
        break;
      }
      case 'none':
        break;
    }
  }

  private async verifierOf(
    verifier: Type<McpTokenVerifier> | McpTokenVerifier | McpTokenVerifier['verify'],
  ): Promise<McpTokenVerifier> {
    if (typeof verifier !== 'function') {
      return verifier;
    }
    // A class carries verify() on its prototype; a plain function is the verify function itself.
    const prototype = (verifier as { prototype?: { verify?: unknown } }).prototype;
    if (typeof prototype?.verify !== 'function') {
      return { verify: verifier as McpTokenVerifier['verify'] };
    }
    return this.instanceOf(verifier as Type<McpTokenVerifier>);
  }

  /** The application's instance of `type`, or a new one made with the module's injector. */
  private async instanceOf<T>(type: Type<T>): Promise<T> {
    try {
      return this.moduleRef.get(type, { strict: false });
    } catch {
      return this.moduleRef.create(type);
    }
  }
}
