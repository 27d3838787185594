import { Inject, type CanActivate, type ExecutionContext, Injectable, type Type } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MCP_OWN_AUTH, MCP_PRINCIPAL_PROPERTY } from '../../shared/mcp.constants';
import type { McpPrincipal } from '../../protocol/calls/call-context';
import { anonymousAt } from '../../protocol/bounds/principal';
import { McpAuthService, type PlatformRequest } from '../../auth/mcp-auth.service';
import { HttpDrain } from './http-drain';
import { HttpAdmission } from './http-admission.service';
import { clientAddress } from '../../shared/client-address';
import { HttpExchanges } from './http-exchanges.service';
import { HttpRefusals } from './http-refusals.service';
import { McpHttpRefusal } from './mcp-http-refusal.error';
import { markerOf, mayBeUnserved, servesVerb, type McpEndpointMarker } from './endpoint-marker';

const NO_MARKER = Symbol('nest-mcp:no-marker');

/**
 * The principal `McpHttpGuard` left on the request; without authentication, the anonymous
 * principal of the client's address (its bounds are its own, see `McpPrincipal.quotaKey`).
 */
export function principalOf(request: unknown): McpPrincipal {
  const principal = (request as Record<string, unknown>)[MCP_PRINCIPAL_PROPERTY] as McpPrincipal | undefined;
  return principal ?? anonymousAt(clientAddress(request));
}

/**
 * What every request to an MCP endpoint passes before its handler, in this order:
 *
 * 1. the Host and Origin checks (403), which also set the CORS answer headers;
 * 2. while the server drains, a GET is refused (503, `Retry-After`), and every answer closes its
 *    connection;
 * 3. a verb the endpoint does not serve (`HEAD`, which the platforms route to `GET`): 405;
 * 4. the configured authentication (`auth`), which leaves the caller's principal on the request
 *    (`request.mcpPrincipal`) or refuses it with the provider's status and challenge; the
 *    application's guard (`auth.guard`) runs here, with this route's context. A CORS
 *    preflight is not authenticated, and without `auth` a principal the application's own
 *    middleware put there is kept.
 *
 * A refusal is thrown as a {@link McpHttpRefusal}, which `McpHttpExceptionFilter` answers. The
 * module applies this guard to its endpoint controllers; a test can replace it with
 * `overrideGuard(McpHttpGuard)`.
 *
 * @publicApi
 */
@Injectable()
export class McpHttpGuard implements CanActivate {
  /** Each controller's marker; `NO_MARKER` for a controller without one, so that one lookup tells. */
  private readonly markers = new WeakMap<Type<unknown>, McpEndpointMarker | typeof NO_MARKER>();

  /** @internal */
  constructor(
    private readonly exchanges: HttpExchanges,
    private readonly admission: HttpAdmission,
    private readonly drain: HttpDrain,
    @Inject(MCP_OWN_AUTH) private readonly auth: McpAuthService,
    private readonly refusals: HttpRefusals,
  ) {}

  /** Runs the checks above in order: admits the request, or throws the first refusal. */
  canActivate(context: ExecutionContext): true | Promise<true> {
    // The arguments as Nest passes them (request, response): `switchToHttp()` would make an
    // object and three closures for every request to ask for the same two.
    const request = context.getArgByIndex<PlatformRequest>(0);
    const raw = this.exchanges.raw(request, context.getArgByIndex(1));
    // First, so that even a 403 closes its connection while draining.
    const served = this.drain.passes(raw);
    const refused = this.admission.refusalOf(raw.req, raw.res);
    if (refused !== undefined) {
      throw McpHttpRefusal.forbidden(refused);
    }
    if (!served) {
      throw this.drainRefusal();
    }
    const method = raw.req.method;
    if (mayBeUnserved(method)) {
      const marker = this.markerOf(context.getClass());
      if (marker !== undefined && !servesVerb(marker, method)) {
        throw McpHttpRefusal.methodNotAllowed(marker.allow);
      }
    }
    if (method === 'OPTIONS' || this.auth.kind === 'none') {
      return true;
    }
    return this.authenticate(request, raw, context);
  }

  /** The marker of a controller, read once per controller: this runs on every request. */
  private markerOf(controller: Type<unknown>): McpEndpointMarker | undefined {
    const known = this.markers.get(controller);
    if (known !== undefined) {
      return known === NO_MARKER ? undefined : known;
    }
    const marker = markerOf(controller);
    this.markers.set(controller, marker ?? NO_MARKER);
    return marker;
  }

  private async authenticate(
    request: PlatformRequest,
    raw: { req: IncomingMessage; res: ServerResponse },
    context: ExecutionContext,
  ): Promise<true> {
    // The route's context, for an application guard (auth.guard).
    const outcome = await this.auth.authenticateRequest(request, context);
    if (!outcome.ok) {
      this.refusals.unauthenticated(raw.req, outcome);
      throw McpHttpRefusal.unauthenticated(outcome);
    }
    // The drain may have begun while the credentials were checked: no new stream after it.
    if (!this.drain.passes(raw)) {
      throw this.drainRefusal();
    }
    return true;
  }

  private drainRefusal(): McpHttpRefusal {
    const { status, body, headers } = this.drain.refusal();
    return new McpHttpRefusal(status, body, headers);
  }
}
