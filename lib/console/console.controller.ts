/**
 * The console's controller, made per server for the path it was given: `GET <path>` answers the
 * page, `GET <path>/assets/<file>` (and `assets/vendor/<file>`) one of the allow-listed browser
 * files, `GET <path>/sandbox` the sandbox proxy of an MCP App's view (console-sandbox.ts). It is an ordinary Nest
 * controller (global prefix, versioning, middleware and the application's guards apply, and the
 * `endpointDecorators` extra), and answers on the raw response, on Express as on Fastify. Before
 * anything, the same Host and Origin checks as the endpoints (403); no authentication: the page
 * holds no secret, and every MCP request it makes goes through the endpoint's own.
 */
import { applyDecorators, Controller, Get, Inject, Param, Req, Res, SetMetadata, type Type } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MCP_CONSOLE_METADATA, MCP_HTTP_PATHS } from '../shared/mcp.constants';
import { firstHeader, sendEmpty } from '../transports/http/http-exchange';
import { HttpAdmission } from '../transports/http/http-admission.service';
import { HttpExchanges } from '../transports/http/http-exchanges.service';
import type { McpHttpPaths } from '../identity/http-paths';
import { HttpPlatform } from '../transports/http/http-platform.service';
import { McpHttpRefusal } from '../transports/http/mcp-http-refusal.error';
import { ConsoleAssets, matchesEtag } from './console-assets';
import { consolePage } from './console-page';
import {
  parseSandboxCsp,
  SANDBOX_PROXY_SCRIPT,
  sandboxHeaders,
  sandboxPage,
  SandboxCspError,
  type McpAppCsp,
} from './console-sandbox';
import { endpointBesideConsole, endpointsFor, requestPath } from './console-paths';

/**
 * The Content-Security-Policy of every console answer but the sandbox's: nothing inline, nothing
 * from another origin; the only frames it may hold are its own sandbox pages (an MCP App's view).
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "media-src 'self' data: blob:; connect-src 'self'; font-src 'self'; frame-src 'self'; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'";

/** The headers of every console answer (the page, a file, a refusal), besides `Cache-Control`. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

/** What the console's controller and its routes carry under `MCP_CONSOLE_METADATA` (see `isMcpEndpoint`). */
export interface McpConsoleMarker {
  /** The name of the server whose console it is. */
  readonly server: string;
}

/**
 * What the console controllers of every server share: the answers. Property injection keeps the
 * generated subclasses free of constructors.
 */
export abstract class McpConsoleController {
  @Inject(HttpExchanges) private readonly exchanges!: HttpExchanges;
  @Inject(HttpAdmission) private readonly admission!: HttpAdmission;
  @Inject(HttpPlatform) private readonly platform!: HttpPlatform;
  @Inject(MCP_HTTP_PATHS) private readonly paths!: McpHttpPaths;
  @Inject(ConsoleAssets) private readonly assets!: ConsoleAssets;

  /** The console's path, before the global prefix (the generated subclass knows it). */
  protected abstract readonly consolePath: string;

  /** `GET <path>`: the page, naming this server's endpoints as mounted for the request's prefix and version. */
  protected page(request: unknown, response: unknown): void {
    const { req, res } = this.exchanges.of(request, response);
    if (!this.admitted(req, res, 'no-store')) {
      return;
    }
    const pagePath = requestPath(req);
    const endpoints = endpointsFor(
      {
        streamable: this.platform.pathsOf('streamable'),
        simple: this.platform.pathsOf('simple'),
        sse: this.platform.pathsOf('sse-events'),
        sseMessages: this.platform.pathsOf('sse-messages'),
      },
      pagePath,
      endpointBesideConsole(pagePath, this.consolePath, this.paths.streamable),
    );
    const body = consolePage({ endpoints, assetsPath: `${pagePath === '/' ? '' : pagePath}/assets` });
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  }

  /** `GET <path>/assets/<file>`: a file of the allow-list, 304 when the client's copy is current, else 404. */
  protected asset(request: unknown, response: unknown, file: string): void {
    const { req, res } = this.exchanges.of(request, response);
    if (!this.admitted(req, res, 'no-cache')) {
      return;
    }
    const asset = this.assets.get(file);
    if (asset === undefined) {
      const body = 'Not Found';
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(body.length) });
      res.end(body);
      return;
    }
    res.setHeader('etag', asset.etag);
    if (matchesEtag(firstHeader(req.headers, 'if-none-match'), asset.etag)) {
      sendEmpty(res, 304);
      return;
    }
    res.writeHead(200, { 'content-type': asset.contentType, 'content-length': String(asset.body.length) });
    res.end(asset.body);
  }

  /**
   * `GET <path>/sandbox?csp=<json>`: the sandbox proxy page of an MCP App's view, under the policy
   * built from the view's declared domains (400 when they are not origins).
   */
  protected sandbox(request: unknown, response: unknown): void {
    const { req, res } = this.exchanges.of(request, response);
    let csp: McpAppCsp;
    try {
      csp = parseSandboxCsp(new URL(req.url ?? '/', 'http://console').searchParams.get('csp'));
    } catch (error) {
      if (!(error instanceof SandboxCspError)) {
        throw error;
      }
      if (this.admitted(req, res, 'no-store', sandboxHeaders())) {
        const body = `Bad Request: ${error.message}`;
        res.writeHead(400, {
          'content-type': 'text/plain; charset=utf-8',
          'content-length': String(Buffer.byteLength(body)),
        });
        res.end(body);
      }
      return;
    }
    if (!this.admitted(req, res, 'no-store', sandboxHeaders(csp))) {
      return;
    }
    const body = sandboxPage(this.assets.get(SANDBOX_PROXY_SCRIPT)?.body.toString('utf8') ?? '');
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  }

  /**
   * Sets the console's headers (or `headers`), then the Host and Origin checks; a refusal is
   * answered here (403).
   */
  private admitted(
    req: IncomingMessage,
    res: ServerResponse,
    cacheControl: string,
    headers: Readonly<Record<string, string>> = CONSOLE_HEADERS,
  ): boolean {
    for (const [name, value] of Object.entries(headers)) {
      res.setHeader(name, value);
    }
    res.setHeader('cache-control', cacheControl);
    const refused = this.admission.refusalOf(req, res);
    if (refused === undefined) {
      return true;
    }
    res.setHeader('cache-control', 'no-store');
    McpHttpRefusal.forbidden(refused).send(res);
    return false;
  }
}

/** Marks a console controller: the application's decorators first, then the console's marker. */
function McpConsole(marker: McpConsoleMarker, decorators: readonly ClassDecorator[]): ClassDecorator {
  return applyDecorators(...decorators, SetMetadata(MCP_CONSOLE_METADATA, marker));
}

/**
 * The console controller of one server, at `path`.
 *
 * @param server the name of the server (on its marker).
 * @param decorators class decorators applied to it first (the `endpointDecorators` extra), so
 *   that an application guard that lets the endpoints through lets the console through too.
 */
export function createConsoleController(
  path: string,
  server: string,
  decorators: readonly ClassDecorator[],
): Type<McpConsoleController> {
  const marker: McpConsoleMarker = Object.freeze({ server });
  @Controller(path)
  @McpConsole(marker, decorators)
  class McpConsolePageController extends McpConsoleController {
    protected readonly consolePath = path;

    @Get()
    getPage(@Req() request: unknown, @Res() response: unknown): void {
      this.page(request, response);
    }

    @Get('assets/:file')
    getAsset(@Req() request: unknown, @Res() response: unknown, @Param('file') file: string): void {
      this.asset(request, response, file);
    }

    @Get('assets/vendor/:file')
    getVendorAsset(@Req() request: unknown, @Res() response: unknown, @Param('file') file: string): void {
      this.asset(request, response, `vendor/${file}`);
    }

    @Get('sandbox')
    getSandbox(@Req() request: unknown, @Res() response: unknown): void {
      this.sandbox(request, response);
    }
  }
  return McpConsolePageController;
}
