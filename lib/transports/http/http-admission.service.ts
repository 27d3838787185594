import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MCP_HTTP_SETTINGS, MCP_OWN_AUTH } from '../../shared/mcp.constants';
import type { HttpSettings } from './http-settings';
import { McpAuthService } from '../../auth/mcp-auth.service';
import { firstHeader } from './http-exchange';
import { HostOriginVerdicts, type HostOriginRefusal } from './host-origin';
import { HttpRefusals } from './http-refusals.service';

/** The request headers a browser client may send to MCP endpoints (besides `Mcp-Param-*`). */
const ALLOWED_HEADERS = [
  'accept',
  'authorization',
  'content-type',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
];
const ALLOWED_HEADER_SET = new Set(ALLOWED_HEADERS);

/** The answer headers a browser client may read. */
const EXPOSED_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate';

/**
 * Who may talk to the MCP endpoints at all: the Host and Origin checks (DNS rebinding), and
 * CORS for the browser clients of admitted origins. Every request to an endpoint passes here
 * first: through `McpHttpGuard` on the routes, through the platform hooks for what no route
 * serves (a verb, a body the platform's parser refused).
 */
@Injectable()
export class HttpAdmission {
  private readonly verdicts: HostOriginVerdicts;

  constructor(
    @Inject(MCP_HTTP_SETTINGS) private readonly http: HttpSettings,
    @Inject(MCP_OWN_AUTH) private readonly auth: McpAuthService,
    private readonly refusals: HttpRefusals,
  ) {
    this.verdicts = new HostOriginVerdicts(http);
  }

  /**
   * Which of the Host and Origin checks the request fails, `undefined` when it passes both; a
   * refusal is logged (the caller answers it: `McpHttpRefusal.forbidden(verdict)`, 403). An
   * admitted request with an Origin gets the CORS answer headers on `res`, unless the
   * application set its own.
   */
  refusalOf(req: IncomingMessage, res: ServerResponse): HostOriginRefusal | undefined {
    const verdict = this.verdicts.of(req);
    if (verdict !== undefined) {
      this.refusals.forbidden(req, verdict);
      return verdict;
    }
    const origin = firstHeader(req.headers, 'origin');
    if (origin !== undefined && this.http.cors && !res.hasHeader('access-control-allow-origin')) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
      const vary = res.getHeader('vary');
      res.setHeader('vary', vary === undefined ? 'Origin' : `${String(vary)}, Origin`);
    }
    return undefined;
  }

  /**
   * The headers of the answer to `OPTIONS` (204): `Allow`, and for a CORS preflight from an
   * admitted origin the methods and headers a browser client may use (the `Mcp-*` headers, the
   * credential headers of the configured authentication, and any `Mcp-Param-*` it asks for).
   */
  preflightHeaders(req: IncomingMessage, res: ServerResponse, allow: string): Record<string, string> {
    const headers: Record<string, string> = { allow };
    if (
      firstHeader(req.headers, 'origin') === undefined ||
      !this.http.cors ||
      res.hasHeader('access-control-allow-methods')
    ) {
      return headers;
    }
    const requested = (firstHeader(req.headers, 'access-control-request-headers') ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name.startsWith('mcp-param-') && !ALLOWED_HEADER_SET.has(name));
    headers['access-control-allow-methods'] = allow;
    headers['access-control-allow-headers'] = [
      ...new Set([...ALLOWED_HEADERS, ...this.auth.credentialHeaders, ...requested]),
    ].join(', ');
    headers['access-control-max-age'] = '600';
    return headers;
  }
}
